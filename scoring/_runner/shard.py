"""``--shard K/N``: one part of an input, chosen by record position, so N machines each run one part.

The split is by position in the input: part K (counting from 1) holds the records at positions
``K-1, K-1+N, K-1+2N, ...``. It needs no coordination and no shared state: the same input gives every
machine the same parts on every rerun. Taking every N-th record (rather than one block each) spreads every
dataset of the input over all the parts, so parts take about as long as each other.

While a part runs, :class:`ShardTally` reads the whole input once more than the part's own records: it
counts the input records and fingerprints them (session id and messages, as in the input) so that
``formatkit merge`` can tell that the parts it is given come from the same input, and how many records
the whole has. That record goes into the run record beside the output (:mod:`scoring._runner.provenance`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import orjson

from formatkit._core.record import RecordDict

__all__ = ["Shard", "ShardTally", "shard_source"]

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    """Part ``index`` of ``count`` (1 <= index <= count)."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if self.count < 1 or not 1 <= self.index <= self.count:
            raise ValueError(f"shard {self.index}/{self.count}: K must be between 1 and N (K counts from 1)")

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"K/N"``; ValueError with a message a user can act on."""
        match = _SPEC.match(text)
        if match is None:
            raise ValueError(f"{text!r}: expected K/N, e.g. --shard 2/4 (part 2 of 4; K counts from 1)")
        return cls(int(match.group(1)), int(match.group(2)))

    @property
    def label(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, position: int) -> bool:
        return position % self.count == self.index - 1

    def positions(self, total: int) -> range:
        """The input positions of this part's records, in order."""
        return range(self.index - 1, total, self.count)


class ShardTally:
    """Counts and fingerprints every input record seen by one pass over the input."""

    def __init__(self) -> None:
        self.records = 0
        self._hash = hashlib.blake2b(digest_size=16)

    def add(self, record: RecordDict) -> None:
        self.records += 1
        data = orjson.dumps({"session_id": record.get("session_id"), "messages": record.get("messages")})
        self._hash.update(len(data).to_bytes(8, "little"))
        self._hash.update(data)

    @property
    def fingerprint(self) -> str:
        return self._hash.hexdigest()


def shard_source(
    records: Callable[[], Iterable[RecordDict]], shard: Shard, tallies: list[ShardTally]
) -> Callable[[], Iterator[RecordDict]]:
    """A source giving only ``shard``'s records; each pass appends its :class:`ShardTally` to ``tallies``
    (complete once the pass has read the input to its end)."""

    def source() -> Iterator[RecordDict]:
        tally = ShardTally()
        tallies.append(tally)
        for position, record in enumerate(records()):
            tally.add(record)
            if shard.owns(position):
                yield record

    return source
