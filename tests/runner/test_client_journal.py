"""Journal: append, reload, last entry wins, torn last line after kill -9, discard."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring._runner.journal import Journal


def test_append_and_load(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "out.jsonl.journal")
    journal.append("0:a", {"status": "ok", "record": {"q": "你好"}})
    journal.append("1:b", {"status": "error"})
    journal.append("1:b", {"status": "ok"})
    journal.close()
    assert Journal(journal.path).load() == {"0:a": {"status": "ok", "record": {"q": "你好"}}, "1:b": {"status": "ok"}}
    assert "你好".encode() in journal.path.read_bytes()  # never escaped


def test_each_append_is_on_disk_before_it_returns(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j")
    journal.append("k", {"v": 1})
    assert Journal(journal.path).load() == {"k": {"v": 1}}  # read by another handle, no close
    journal.close()


def test_torn_last_line_is_ignored_then_cut_before_the_next_append(tmp_path: Path) -> None:
    path = tmp_path / "j"
    journal = Journal(path)
    journal.append("a", {"v": 1})
    journal.close()
    with path.open("ab") as handle:
        handle.write(b'{"key": "b", "entry": {"v"')  # kill -9 in the middle of a write
    assert Journal(path).load() == {"a": {"v": 1}}
    again = Journal(path)
    again.append("c", {"v": 3})
    again.close()
    assert Journal(path).load() == {"a": {"v": 1}, "c": {"v": 3}}
    assert path.read_bytes().count(b"\n") == 2


def test_index_and_read(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j")
    journal.append("a", {"v": 1})
    slot = journal.append_slot("b", {"v": "二"})
    journal.append("a", {"v": 3})
    assert journal.read(slot) == {"v": "二"}
    index = Journal(journal.path).index()
    assert set(index) == {"a", "b"}
    assert journal.read(index["a"]) == {"v": 3}
    journal.close()


def test_missing_file_loads_empty_and_discard(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "none")
    assert journal.load() == {}
    journal.append("a", {})
    journal.discard()
    assert not journal.path.exists()
    journal.discard()  # twice is fine


def test_the_output_lock_is_exclusive_and_names_its_holder(tmp_path: Path) -> None:
    import os

    from scoring._errors import OutputLockedError
    from scoring._runner.lock import OutputLock

    journal = tmp_path / "out.jsonl.journal"
    with OutputLock(journal):
        assert (tmp_path / "out.jsonl.journal.lock").read_text() == str(os.getpid())
        with pytest.raises(OutputLockedError) as info:
            OutputLock(journal).acquire()
        assert info.value.pid == os.getpid()
        assert f"out.jsonl is being written by another run (process {os.getpid()} holds" in str(info.value)
    with OutputLock(journal):  # released: free again
        pass
