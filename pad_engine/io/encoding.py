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
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from pad_engine.io.gate import TEXT_BYTES, read_bytes
from pad_engine.io.limits import MAX_CHARS, too_long

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
# A streamed line longer than this (bytes, or characters in a given encoding) is never held:
# only its length is kept, so a file without line ends reads in constant memory. Shorter
# lines still over MAX_CHARS characters are refused by the readers with their exact length.
_LINE_BYTES = 4 * MAX_CHARS + 8
_GUESS_BYTES = 1 << 20  # of the lines that are not UTF-8, what the encoding is guessed from


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
        return _warning(self.encoding, self.recoded, path)


def _warning(encoding: str | None, recoded: int, path: str | None) -> str | None:
    if encoding is None:
        return None
    where = f"{path}: " if path else ""
    return (f"{where}{recoded} lines are not UTF-8: read as {encoding} "
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


class DecodedLines:
    """A binary stream's lines, decoded as :func:`decode` decodes the whole, so that a file
    of any length is read in constant memory: the same lines and problems, without their
    line ends (CRLF or LF; a CR alone stays). Iterating gives ``(line, problem)``, the
    problem None unless the line could not be decoded. Only a file that is not all UTF-8 is
    read twice: from its first such line on, once to guess the encoding from all of them (a
    stream that cannot seek is copied to a temporary file on the way)."""

    def __init__(self, f: BinaryIO, encoding: str | None = None):
        if encoding is not None:
            check_encoding(encoding)
        self._f = f
        self._given = encoding
        self.encoding: str | None = None  # of the lines that were not UTF-8, once met
        self.recoded = 0

    def warning(self, path: str | None) -> str | None:
        """As :meth:`Decoded.warning`; complete once the lines are read."""
        return _warning(self.encoding, self.recoded, path)

    def __iter__(self) -> Iterator[tuple[str, str | None]]:
        lines = self._given_lines() if self._given is not None else self._utf8_lines()
        search = _SURROGATES.search
        for line in lines:
            if search(line) is None:
                yield line, None
                continue
            if isinstance(line, _Overlong):
                yield "_", too_long("line", line.length)
                continue
            bad = _surrogate_lines(line, self._given or self.encoding or "utf-8")
            yield _SURROGATES.sub("\ufffd", line), bad[1]

    def _given_lines(self) -> Iterator[str]:
        decoder = codecs.getincrementaldecoder(self._given)(errors="surrogateescape")
        rest: list[str] = []  # the pieces of the line under way, joined once it ends
        held = 0  # its characters so far (its pieces are dropped once it is too long)
        first = True
        while True:
            chunk = self._f.read(1 << 16)
            text = decoder.decode(chunk, final=not chunk)
            if first and text:
                text = text.removeprefix("\ufeff")
                first = False
            *lines, tail = text.split("\n")
            for i, line in enumerate(lines):
                size = len(line) + (held if i == 0 else 0)
                if size > _LINE_BYTES:
                    yield _overlong(size)
                else:
                    yield ("".join(rest) + line if i == 0 else line).removesuffix("\r")
                if i == 0:
                    rest, held = [], 0
            held += len(tail)
            rest = [*rest, tail] if held <= _LINE_BYTES else []
            if not chunk:
                yield _overlong(held) if held > _LINE_BYTES else "".join(rest)
                return

    def _utf8_lines(self) -> Iterator[str]:
        f = self._f
        raw = f.readline(_LINE_BYTES + 1).removeprefix(b"\xef\xbb\xbf")
        try:
            while True:
                ended = raw.endswith(b"\n")
                if len(raw) > _LINE_BYTES:  # never decoded or held: only its length is told
                    size, ended = _skip_line(raw, f)
                    yield _overlong(size)
                    if not ended:
                        return
                    raw = f.readline(_LINE_BYTES + 1)
                    continue
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError:
                    if self.encoding is None:
                        f = self._guess(raw, f)
                    line = raw.decode(self.encoding, errors="surrogateescape").encode(
                        "utf-8", errors="surrogateescape").decode("utf-8", "surrogateescape")
                yield line.removesuffix("\r\n").removesuffix("\n") if ended else line
                if not ended:
                    return
                raw = f.readline(_LINE_BYTES + 1)
        finally:
            if f is not self._f:  # the copy of a stream that cannot seek
                f.close()

    def _guess(self, raw: bytes, f: BinaryIO) -> BinaryIO:
        """Set the encoding from ``raw`` and the rest of ``f``'s lines that are not UTF-8;
        returns where the rest is to be read from."""
        if not f.seekable():
            spool = tempfile.TemporaryFile()  # noqa: SIM115 - returned; the reader closes it
            shutil.copyfileobj(f, spool)
            spool.seek(0)
            f = spool
        start = f.tell()
        sample, kept, count = [raw.removesuffix(b"\n")], len(raw), 1
        for line in iter(lambda: f.readline(_LINE_BYTES + 1), b""):
            if not _is_utf8(line):
                count += 1
                if kept < _GUESS_BYTES:
                    sample.append(line.removesuffix(b"\n"))
                    kept += len(line)
        f.seek(start)
        self.encoding = detect(b"\n".join(sample))
        self.recoded = count
        return f


class _Overlong(str):
    """In place of a line too long to hold: its length alone. Its one character is a lone
    surrogate, so the fast path's search hands it to the slow path, which tells it apart."""

    length: int


def _overlong(length: int) -> _Overlong:
    line = _Overlong("\udcff")
    line.length = length
    return line


def _skip_line(raw: bytes, f: BinaryIO) -> tuple[int, bool]:
    """Read past the rest of the line ``raw`` began, keeping nothing: its characters (UTF-8
    lead bytes: exact for UTF-8, near for other encodings) and whether a line end came."""
    size = 0
    while True:
        size += len(raw) - len(raw.translate(None, _LEAD_BYTES))
        if raw.endswith(b"\n"):
            return size - 1, True
        raw = f.readline(1 << 16)
        if not raw:
            return size, False


_LEAD_BYTES = bytes(range(0x80)) + bytes(range(0xC0, 0x100))  # all but UTF-8 continuations


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
