"""What every reader refuses whatever the format: a word or line too long to be text, and
control characters no treebank format carries.

A 50 MB "word" is a damaged or hostile file, not a word: let through, it would be hashed,
drawn and written on every view and freeze the app. A NUL or other control character would
go on raw into every file written from the sentence. Both cost only the sentence or tree
they are in, named by file and line. The checks are cheap where reading is hot: a length
compared per line, and ``str.isprintable`` (in C) before any search for a control character.
"""

from __future__ import annotations

import re

MAX_CHARS = 10_000  # the longest word or line a reader takes (a real one is under 1,200)
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_BETWEEN_WORDS = re.compile(r"[\s()]+")


def too_long(what: str, length: int) -> str:
    """The problem of a ``what`` ("word", "line"...) of ``length`` characters."""
    return f"{what} of {length:,} characters: longer than the {MAX_CHARS:,} a {what} may have"


def control_lines(text: str, lines: list[str]) -> dict[int, str]:
    """The problem of each line (numbered from 1) of ``text``, split into ``lines``, that
    holds a control character other than tab, line feed and carriage return."""
    if _CONTROL.search(text) is None:
        return {}
    bad = {}
    for number, line in enumerate(lines, 1):
        m = _CONTROL.search(line)
        if m is not None:
            bad[number] = control_problem(m.group(), m.start())
    return bad


def control_problem(char: str, index: int) -> str:
    """The problem of control character ``char`` at 0-based ``index`` in its line."""
    return (f"control character U+{ord(char):04X} at column {index + 1} "
            "(no treebank format carries it)")


def control_in(text: str) -> re.Match[str] | None:
    """The first control character of ``text`` that readers refuse, if any."""
    return _CONTROL.search(text)


def line_problem(lines: list[str], words_only: bool = False) -> tuple[int, str] | None:
    """The first line (numbered from 1) that a reader refuses, with its problem: a control
    character, or over ``MAX_CHARS`` characters (``words_only``: a word of a bracketed line,
    as Penn trees are read, whose one-line trees may be longer)."""
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_CHARS:
            if not words_only:
                return number, too_long("line", len(line))
            longest = max(map(len, _BETWEEN_WORDS.split(line)))
            if longest > MAX_CHARS:
                return number, too_long("word", longest)
        if not line.isprintable() and (m := control_in(line)):
            return number, control_problem(m.group(), m.start())
    return None
