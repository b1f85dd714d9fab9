"""Wrapping printed lines to the terminal by what the terminal shows: a CJK character takes two columns,
an ANSI colour code none. (``textwrap`` counts characters, so at 80 columns a Chinese line overflowed and
the terminal wrapped it again mid-word, and colour codes counted as text.)

Breaks fall at spaces, and between two CJK characters (Chinese has no spaces), never before closing
punctuation (，。）…) nor after opening punctuation (（“…): the usual line-breaking rules of Chinese text.
A word longer than the line (a path, a URL) is never cut: it stands on a line of its own.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["display_width", "wrap"]

_TOKEN = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\s+|[^\s\x1b]+")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
#: No line starts with these (closing punctuation) …
_NO_START = frozenset("，。、；：？！）」』】》〉”’…—·%,.;:?!)]}")
#: … and none ends with these (opening punctuation).
_NO_END = frozenset("（「『【《〈“‘([{")


def display_width(text: str) -> int:
    """Columns ``text`` takes on a terminal: CJK characters two, ANSI escape codes none."""
    return _cell_len(_ANSI.sub("", text)) if "\x1b" in text else _cell_len(text)


def _cell_len(text: str) -> int:
    if text.isascii() and text.isprintable():  # one column each: rich's table (~5 ms to import) is not needed
        return len(text)
    from rich.cells import cell_len

    return cell_len(text)


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


def _pieces(word: str) -> list[str]:
    """A run of non-space text as the pieces a line may break between: each CJK character stands
    alone, a run of other characters stays whole, punctuation sticks to its side."""
    if word.isascii():
        return [word]
    pieces: list[str] = []
    for char in word:
        if not pieces:
            pieces.append(char)
            continue
        last = pieces[-1]
        breakable = _wide(char) or _wide(last[-1])
        if not breakable or char in _NO_START or last[-1] in _NO_END:
            pieces[-1] = last + char
        else:
            pieces.append(char)
    return pieces


def wrap(text: str, width: int, indent: int = 0) -> list[str]:
    """``text`` as lines of at most ``width`` display columns (where it can break), continuation lines
    indented by ``indent`` spaces. ANSI codes are kept where they were and take no room."""
    # Atoms: (whitespace before, text, display width); a line may break before each atom.
    atoms: list[tuple[str, str, int]] = []
    space = ""
    glued = False  # the last token was text (or a code stuck to text): the next one joins it
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] == "\x1b":
            if atoms and glued:
                before, piece, size = atoms[-1]
                atoms[-1] = (before, piece + token, size)
            else:
                atoms.append((space, token, 0))
                space = ""
                glued = True
            continue
        if token.isspace():
            space += token
            glued = False
            continue
        for index, piece in enumerate(_pieces(token)):
            size = _cell_len(piece)
            if index == 0 and glued and atoms and not space:
                before, last, last_size = atoms[-1]
                tail = _ANSI.sub("", last)[-1:]
                if last_size == 0 or piece[0] in _NO_START or not (_wide(piece[0]) or (tail and _wide(tail))):
                    atoms[-1] = (before, last + piece, last_size + size)
                    continue
            atoms.append((space if index == 0 else "", piece, size))
            space = ""
        glued = True
    lines: list[str] = []
    line = ""
    used = 0
    filled = False
    pad = " " * indent
    for before, piece, size in atoms:
        gap = display_width(before)
        if filled and size and used + gap + size > width:
            lines.append(line.rstrip(" "))
            line, used = pad + piece, indent + size
        else:
            line += before + piece
            used += gap + size
            filled = filled or size > 0
    lines.append(line.rstrip(" ") if filled else line + space)
    return lines
