"""Decoding treebank files: UTF-8 first, another encoding only where the bytes say so.

Every reader (CoNLL, Penn, EVALB) reads through :func:`read_text`. A file that is valid UTF-8
(a BOM allowed) is read as such, at full speed. Older treebanks are often Latin-1 or
Windows-1252, sometimes only in part (CoNLL 2007 Basque: 16 of 25,000 lines); the lines that
are not UTF-8 are then decoded in a detected encoding (charset-normalizer, which tells
Western from Central European or Cyrillic, or CJK; Windows-1252 where it only finds a Latin
script) and the result says so, for a warning that names the encoding. ``--encoding`` (the
``encoding`` argument) decodes the whole file as the user says; a line that is not valid in
it is an error of its sentence, and the rest of the file still reads.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

from pad_engine.io.gate import TEXT_BYTES, read_bytes

# charset-normalizer's Latin-script single-byte guesses are unreliable on the few accented
# words of a treebank line (it reads Basque "iñigo" as cp1250 "ińigo"): such a guess keeps its
# code page only with one of these languages; other Latin guesses mean Windows-1252.
_KEEP = frozenset({"Polish", "Czech", "Slovak", "Hungarian", "Slovene", "Croatian",
                   "Romanian", "Serbian", "Bosnian", "Turkish", "Lithuanian", "Latvian",
                   "Estonian"})
_LATIN = frozenset({"cp1250", "cp1252", "cp1254", "cp1257", "latin_1", "iso8859_2",
                    "iso8859_3", "iso8859_4", "iso8859_9", "iso8859_10", "iso8859_13",
                    "iso8859_14", "iso8859_15", "iso8859_16", "mac_roman", "mac_latin2",
                    "mac_iceland", "mac_turkish", "cp437", "cp850", "cp858"})
FALLBACK = "cp1252"
_SURROGATES = re.compile("[\udc80-\udcff]")
MIN_EVIDENCE = 16  # non-ASCII bytes below which no guess beats Windows-1252 (one "niño")


@dataclass
class Decoded:
    """A file's text, the problem of each line (1-based) that could not be decoded, and
    the encoding of the lines that were not UTF-8 (None when every line was)."""

    text: str
    bad: dict[int, str] = field(default_factory=dict)
    encoding: str | None = None
    recoded: int = 0  # lines decoded in ``encoding`` rather than UTF-8

    def warning(self, path: str | None) -> str | None:
        """One line for the user when the file was not (all) UTF-8."""
        if self.encoding is None:
            return None
        where = f"{path}: " if path else ""
        return (f"{where}{self.recoded} lines are not UTF-8: read as {self.encoding} "
                "(give --encoding if that is wrong)")


def read_text(path: str, encoding: str | None = None, *, newlines: bool = False,
              limit: int = TEXT_BYTES) -> Decoded:
    """A file's text without its BOM (see :func:`decode`). ``newlines=True`` first turns CR
    and CRLF line ends into LF. The bytes come through :func:`gate.read_bytes`: a regular
    file of a bounded size, never a FIFO or a device."""
    data = read_bytes(path, limit=limit)
    if newlines:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return decode(data, encoding)


def decode(data: bytes, encoding: str | None = None) -> Decoded:
    """``data`` as text: in ``encoding`` when given, else UTF-8 with the non-UTF-8 lines in a
    detected encoding. Undecodable lines keep their bytes as surrogate escapes, so a reader
    can tell which sentence they belong to: ``bad`` names them, and their undecodable bytes
    are replacement characters in ``text``."""
    if encoding is not None:
        check_encoding(encoding)
        return _decode_as(data, encoding)
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        return Decoded(data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    lines = data.split(b"\n")
    other = [i for i, raw in enumerate(lines) if not _is_utf8(raw)]
    guess = detect(b"\n".join(lines[i] for i in other))
    for i in other:
        lines[i] = lines[i].decode(guess, errors="surrogateescape").encode(
            "utf-8", errors="surrogateescape")
    text = b"\n".join(lines).decode("utf-8", errors="surrogateescape")
    return Decoded(*_replaced(text, guess), guess, len(other))


def detect(sample: bytes) -> str:
    """The encoding of bytes that are not UTF-8 (see the module docstring)."""
    from charset_normalizer import from_bytes

    if sum(b > 127 for b in sample) < MIN_EVIDENCE:
        return FALLBACK
    best = from_bytes(sample).best()
    if best is None:
        return FALLBACK
    if best.encoding in _LATIN and best.language not in _KEEP:
        return FALLBACK
    return best.encoding


def check_encoding(name: str) -> None:
    """Refuse an encoding Python does not know, in one line."""
    from pad_engine.errors import InputError

    try:
        codecs.lookup(name)
    except LookupError:
        raise InputError(f"unknown encoding {name!r} (e.g. utf-8, latin-1, cp1252, "
                         "gb18030)") from None


def _decode_as(data: bytes, encoding: str) -> Decoded:
    text = data.decode(encoding, errors="surrogateescape").removeprefix("\ufeff")
    return Decoded(*_replaced(text, encoding))


def _replaced(text: str, encoding: str) -> tuple[str, dict[int, str]]:
    """The text with undecodable bytes as U+FFFD, and the problem of each line that had one."""
    bad = _surrogate_lines(text, encoding)
    if bad:
        text = _SURROGATES.sub("\ufffd", text)
    return text, bad


def _surrogate_lines(text: str, encoding: str) -> dict[int, str]:
    if not any("\udc80" <= ch <= "\udcff" for ch in text):
        return {}
    encoding = codecs.lookup(encoding).name
    encoding = "UTF-8" if encoding == "utf-8" else encoding
    bad = {}
    for number, line in enumerate(text.split("\n"), 1):
        col = next((i for i, ch in enumerate(line) if "\udc80" <= ch <= "\udcff"), None)
        if col is not None:
            bad[number] = (f"undecodable bytes: line is not valid {encoding} (byte "
                           f"0x{ord(line[col]) - 0xDC00:02x} at column {col + 1}; is the file "
                           "in another encoding?)")
    return bad


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
