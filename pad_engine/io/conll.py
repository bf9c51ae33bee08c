"""CoNLL-X and CoNLL-U reading and writing.

The reader is on the hot path of conversion, so it splits lines and tabs by hand and keeps
only what the engine needs (forms, tags, heads, deprels), plus each sentence's original lines
so that writing a sentence back is byte-exact. The tests check it against the ``conllu``
library.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import TextIO

from pad_engine.errors import InputError
from pad_engine.io.encoding import Decoded, read_text
from pad_engine.io.gate import open_write
from pad_engine.io.limits import MAX_CHARS, control_in, control_problem, too_long
from pad_engine.trees.deptree import DepSentence, tree_problem

COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")
_POS_MODES = ("auto", "xpos", "upos")
_WORD_IN_PROBLEM = re.compile(r"\bwords? (\d+)")


@dataclass
class ConllResult:
    """What a read gives: the good sentences, the errors of skipped ones, and the format."""

    sentences: list[DepSentence]
    skipped: list[InputError] = field(default_factory=list)
    format: str = "conllx"  # "conllx" or "conllu"
    note: str | None = None  # a warning about the file's encoding, if it was not UTF-8
    predicted_by: str | None = None  # the text model that predicted the arcs, if it did

    def in_file_order(self) -> list[DepSentence | None]:
        """The file's sentences in order, None where a skipped one stood (so that each keeps
        its place beside another file of the same sentences)."""
        order = sorted([(s.line or 0, 0, i) for i, s in enumerate(self.sentences)]
                       + [(e.line or 0, 1, i) for i, e in enumerate(self.skipped)])
        return [self.sentences[i] if kind == 0 else None for _, kind, i in order]


def read_conll(
    path: str | os.PathLike[str], *, pos: str = "auto", on_error: str = "raise",
    encoding: str | None = None,
) -> ConllResult:
    """Read a CoNLL-X or CoNLL-U file: UTF-8 (a BOM allowed), or ``encoding``; lines that are
    not UTF-8 are read in a detected encoding, which ``note`` names (see
    :mod:`pad_engine.io.encoding`). A line that cannot be decoded costs only its sentence.
    See ``parse_conll`` for ``pos`` and ``on_error``.
    """
    name = os.fspath(path)
    return parse_decoded(read_text(name, encoding), name, pos=pos, on_error=on_error)


def parse_decoded(decoded: Decoded, path: str | None, *, pos: str = "auto",
                  on_error: str = "raise") -> ConllResult:
    """Parse CoNLL text as :mod:`pad_engine.io.encoding` decoded it: its undecodable lines
    are errors of their sentences, and ``note`` says when it was not (all) UTF-8."""
    result = _parse(decoded.text, path, pos, on_error, decoded.bad)
    result.note = decoded.warning(path)
    return result


def undecodable_problem(raw: bytes, e: UnicodeDecodeError) -> str:
    """What to say about a line of ``raw`` bytes that failed to decode with ``e``."""
    return (f"undecodable bytes: line is not valid UTF-8 (byte 0x{raw[e.start]:02x}"
            f" at column {e.start + 1}; is the file in another encoding?)")


def parse_conll(
    text: str, path: str | None = None, *, pos: str = "auto", on_error: str = "raise"
) -> ConllResult:
    """Parse CoNLL-X / CoNLL-U text; ``path`` only names the source in error messages.

    ``pos`` picks the tags: "xpos" (column 5, CoNLL-X POSTAG), "upos" (column 4, CoNLL-X
    CPOSTAG) or "auto" (column 5 where it is not "_", else column 4). ``on_error="raise"``
    raises the first ``InputError``; "skip" leaves bad sentences out, records their errors in
    ``skipped`` and goes on. Blank lines (several, whitespace-only, or none at the end), CRLF
    line endings and a leading BOM are tolerated. Text decoded with
    ``errors="surrogateescape"`` may hold bytes that were not UTF-8: each line holding one is
    an error of its sentence, as in ``read_conll`` (it could not be written out as UTF-8).
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    return _parse(text, path, pos, on_error, _surrogate_lines(text))


_SURROGATE = re.compile("[\ud800-\udfff]")


def _surrogate_lines(text: str) -> dict[int, str]:
    """The problem of each line holding a lone surrogate, by line number."""
    if _SURROGATE.search(text) is None:
        return {}
    bad = {}
    for number, line in enumerate(text.split("\n"), 1):
        m = _SURROGATE.search(line)
        if m is None:
            continue
        try:
            raw = line.encode("utf-8", "surrogateescape")
            raw.decode("utf-8")
        except UnicodeEncodeError:
            bad[number] = (f"lone surrogate U+{ord(m.group()):04X} at column {m.start() + 1} "
                           "(not encodable text)")
        except UnicodeDecodeError as e:
            bad[number] = undecodable_problem(raw, e)
    return bad


def _parse(text: str, path: str | None, pos: str, on_error: str, bad: dict[int, str]
           ) -> ConllResult:
    if pos not in _POS_MODES:
        raise ValueError(f"pos must be one of {', '.join(_POS_MODES)}, not {pos!r}")
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip', not {on_error!r}")
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    sentences: list[DepSentence] = []
    skipped: list[InputError] = []
    is_conllu = False
    start = 0  # index of the current sentence's first line
    for i, line in enumerate(chain(lines, ("",))):  # the "" ends a sentence at the very end
        if line and not line.isspace():
            continue
        if i > start:
            try:
                sent, u = _parse_sentence(lines[start:i], start + 1, path, pos, bad)
            except InputError as e:
                if on_error == "raise":
                    raise
                skipped.append(e)
            else:
                sentences.append(sent)
                is_conllu = is_conllu or u
        start = i + 1
    return ConllResult(sentences, skipped, "conllu" if is_conllu else "conllx")


def _parse_sentence(
    lines: list[str], first: int, path: str | None, pos: str, bad: dict[int, str]
) -> tuple[DepSentence, bool]:
    """One sentence from its (non-blank) lines; the flag says whether it looked like CoNLL-U."""
    if bad:
        for number in range(first, first + len(lines)):
            if number in bad:
                raise InputError(bad[number], path, number)
    forms: list[str] = []
    tags: list[str] = []
    heads: list[int] = []
    rels: list[str] = []
    sent_id = None
    is_conllu = False
    tag_col = 3 if pos == "upos" else 4
    fallback = pos == "auto"
    expected = "1"
    non_words = None
    for number, line in enumerate(lines, first):
        if len(line) > MAX_CHARS:
            raise InputError(too_long("line", len(line)), path, number)
        if line[0] == "#":
            is_conllu = True
            if sent_id is None and line.startswith("# sent_id"):
                key, eq, value = line[1:].partition("=")
                if eq and key.strip() == "sent_id":
                    sent_id = value.strip()
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise InputError(f"expected 10 tab-separated columns, found {len(cols)}", path, number)
        if "" in cols:
            k = cols.index("")
            raise InputError(f"empty {COLUMNS[k]} column (column {k + 1})", path, number)
        if cols[0] != expected:
            if non_words is None:
                non_words = NonWordIds(path)
            non_words.check(cols[0], len(forms), number, cols)
            is_conllu = True
            continue
        head = cols[6]
        if not (head.isdigit() and head.isascii()):
            raise InputError(f"HEAD {head!r} of word {expected} is not a non-negative integer",
                             path, number)
        form = cols[1]
        if not form.isprintable() and (ctl := control_in(form)):  # isprintable: fast and rare
            raise InputError(f"FORM of word {expected}: " +
                             control_problem(ctl.group(), line.index(ctl.group())), path, number)
        forms.append(form)
        tag = cols[tag_col]
        tags.append(cols[3] if fallback and tag == "_" else tag)
        heads.append(int(head))
        rels.append(cols[7])
        if not is_conllu and (":" in cols[8] or "=" in cols[9]):
            is_conllu = True  # DEPS like 4:nsubj or MISC like SpaceAfter=No
        expected = str(len(forms) + 1)
    if not forms:
        raise InputError("sentence has no word lines", path, first)
    if non_words is not None:
        non_words.finish(len(forms))
    problem = tree_problem(heads, several_roots=True)
    if problem is not None:
        raise InputError(f"not a tree: {problem}", path, _problem_line(problem, lines, first))
    return DepSentence(forms, tags, heads, rels, lines, path, first, sent_id), is_conllu


class NonWordIds:
    """A sentence's multiword-token ranges (3-4) and empty nodes (12.1), checked as UD's
    validator checks them: a range stands right before its first word, starts before it
    ends, overlaps no other range and covers only words the sentence has; an empty node
    N.M follows word N (0: before the first word) and the Ms after one word count 1, 2...
    Any other ID out of the word sequence is an error."""

    def __init__(self, path: str | None):
        self.path = path
        self.covered = 0  # the last word the ranges so far cover
        self.last_range: tuple[str, int] | None = None  # the last range's ID and line
        self.empties = (-1, 0)  # (N, M) of the last empty node, (-1, 0) after a range

    def check(self, wid: str, words: int, line: int, cols: list[str] | None = None) -> None:
        """Check the ID ``wid`` of a non-word line after ``words`` word lines (and, given
        its ``cols``, the columns such a line must leave empty)."""
        for sep in "-.":
            a, found, b = wid.partition(sep)
            if found and _canonical(a) and _canonical(b):
                problem = (self._range if sep == "-" else self._empty)(wid, int(a), int(b), words)
                if problem is None and cols is not None:
                    problem = _filled(wid, cols, sep == "-")
                if problem is not None:
                    raise InputError(problem, self.path, line)
                if sep == "-":
                    self.last_range = wid, line
                return
        if _canonical(wid):
            raise InputError(f"word ID {wid} is out of sequence (expected {words + 1}; "
                             "word IDs must be 1..n in order)", self.path, line)
        raise InputError(f"ID {wid!r} is not a word ID, a range like 3-4 or an empty node "
                         "like 3.1", self.path, line)

    def finish(self, words: int) -> None:
        """Check, once the sentence's ``words`` are all read, that the last range covers
        only words it has (the ranges before it end before it starts)."""
        if self.last_range is not None and self.covered > words:
            wid, line = self.last_range
            raise InputError(f"multiword range {wid} goes beyond the sentence's last word "
                             f"({words})", self.path, line)

    def _range(self, wid: str, start: int, end: int, words: int) -> str | None:
        self.empties = (-1, 0)
        if start >= end:
            return f"multiword range {wid} must start before it ends"
        if start <= self.covered:
            return f"multiword range {wid} overlaps the range before it (up to word {self.covered})"
        if start != words + 1:
            return (f"multiword range {wid} is not right before its first word (here a range "
                    f"would start at {words + 1})")
        self.covered = end
        return None

    def _empty(self, wid: str, n: int, m: int, words: int) -> str | None:
        last_n, last_m = self.empties
        expected = last_m + 1 if last_n == words else 1
        if n != words or m != expected:
            return (f"empty node {wid} is out of sequence (expected {words}.{expected}: "
                    "empty node N.M follows word N, and M counts from 1)")
        self.empties = (n, m)
        return None


def _filled(wid: str, cols: list[str], is_range: bool) -> str | None:
    """As UD's validator: a multiword token line has ``_`` in LEMMA..DEPS (FEATS may be
    ``Typo=Yes``); an empty node has ``_`` in HEAD and DEPREL (its arcs are in DEPS)."""
    names = range(2, 9) if is_range else (6, 7)
    for k in names:
        if cols[k] != "_" and not (k == 5 and cols[k] == "Typo=Yes"):
            what = "a multiword token" if is_range else "an empty node"
            return (f"{what} ({wid}) must have _ in its {COLUMNS[k]} column, not "
                    f"{cols[k][:40]!r}")
    return None


def _canonical(number: str) -> bool:
    """An ASCII non-negative integer written without leading zeros."""
    return number.isdigit() and number.isascii() and (number == "0" or number[0] != "0")


def _problem_line(problem: str, lines: list[str], first: int) -> int:
    """Line of the word a ``tree_problem`` message names first, else the sentence start."""
    m = _WORD_IN_PROBLEM.search(problem)
    if m is None:
        return first
    word = m.group(1)
    for number, line in enumerate(lines, first):
        if line.partition("\t")[0] == word:
            return number
    return first


def format_conllx(
    forms: Sequence[str], tags: Sequence[str], heads: Sequence[int], rels: Sequence[str]
) -> str:
    """CoNLL-X lines (each ending in a newline) for a sentence made from scratch:
    ``ID FORM _ TAG TAG _ HEAD REL _ _``. Empty ``rels`` are written as "_"."""
    n = len(forms)
    if len(tags) != n or len(heads) != n or (rels and len(rels) != n):
        raise ValueError("forms, tags, heads and rels must have the same length")
    out = []
    for i in range(n):
        rel = rels[i] if rels else "_"
        for value in (forms[i], tags[i], rel):
            _check_field(value)
        out.append(f"{i + 1}\t{forms[i]}\t_\t{tags[i]}\t{tags[i]}\t_\t{heads[i]}\t{rel}\t_\t_\n")
    return "".join(out)


def format_sentence(sent: DepSentence) -> str:
    """The sentence's lines, each ending in a newline (no blank separator line).

    Original lines are written back unchanged, except that on word lines whose HEAD or
    DEPREL differs from ``sent.heads`` / ``sent.rels`` (a corrected arc) those two columns are
    regenerated, and the CoNLL-U DEPS column's copy of the basic arc with them (its other,
    enhanced arcs stay); a tag in neither UPOS nor XPOS (a corrected tag) is written where
    ``read_conll``'s default reads tags, XPOS unless it is "_"; comments, ranges, empty nodes
    and the other columns are kept. Changes to forms are not written back. A sentence
    without lines is written with ``format_conllx``.
    """
    if not sent.lines:
        return format_conllx(sent.forms, sent.tags, sent.heads, sent.rels)
    heads, rels = sent.heads, sent.rels
    out = None
    k = 0
    for j, line in enumerate(sent.lines):
        if line[:1] == "#":
            continue
        cols = line.split("\t")
        if not cols[0].isdigit():  # multiword range or empty node
            continue
        k += 1
        if k > len(heads):
            continue  # counted for the error below
        head = str(heads[k - 1])
        rel = rels[k - 1] if rels else cols[7]
        tag = sent.tags[k - 1] if len(sent.tags) == len(heads) else cols[4]
        if tag not in (cols[3], cols[4]):
            _check_field(tag)
            cols[4 if cols[4] != "_" else 3] = tag
            if out is None:
                out = list(sent.lines)
            out[j] = "\t".join(cols)
        if cols[6] != head or cols[7] != rel:
            _check_field(rel)
            if len(cols) > 8 and ":" in cols[8]:  # CoNLL-U DEPS holds the basic arc too
                cols[8] = _moved_arc(cols[8], f"{cols[6]}:{cols[7]}", f"{head}:{rel}")
            cols[6] = head
            cols[7] = rel
            if out is None:
                out = list(sent.lines)
            out[j] = "\t".join(cols)
    if k != len(heads):
        raise ValueError(f"sentence at line {sent.line} has {k} word lines but {len(heads)} heads")
    return "\n".join(sent.lines if out is None else out) + "\n"


def _moved_arc(deps: str, old: str, new: str) -> str:
    """DEPS with the basic arc ``old`` ("HEAD:DEPREL") replaced by ``new``, in UD's order
    (by head, then relation)."""
    arcs = [a for a in deps.split("|") if a != old and a != new] + [new]

    def order(arc: str) -> tuple[float, str]:
        head, _, rel = arc.partition(":")
        try:
            return float(head), rel
        except ValueError:
            return float("inf"), arc

    return "|".join(sorted(arcs, key=order))


def write_conll(sentences: Iterable[DepSentence], path_or_textio: str | os.PathLike[str] | TextIO
                ) -> None:
    """Write sentences, each followed by one blank line, as UTF-8 with LF line endings.

    A file read with ``read_conll`` comes back byte-identical, except for these
    normalizations: CRLF becomes LF, a BOM is dropped, runs of blank (or whitespace-only)
    lines become one empty line, a missing final blank line is added, and sentences skipped
    as bad are gone. A path is written atomically (the old file survives any error).
    """
    if isinstance(path_or_textio, (str, os.PathLike)):
        with open_write(path_or_textio, "w", encoding="utf-8", newline="\n") as f:
            _write(sentences, f)
    else:
        _write(sentences, path_or_textio)


def _write(sentences: Iterable[DepSentence], f: TextIO) -> None:
    for sent in sentences:
        f.write(format_sentence(sent))
        f.write("\n")


def _check_field(value: str) -> None:
    if not value or "\t" in value or "\n" in value or "\r" in value:
        raise ValueError(f"{value!r} cannot be written as a CoNLL column")
