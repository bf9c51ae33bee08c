"""Reading text to parse: plain text (one sentence per line, whitespace-tokenized or run
through a small regex tokenizer) or CoNLL-X/CoNLL-U whose HEAD column may be empty ("_").

Each sentence keeps its line number and, for CoNLL, its original lines (so the predicted
d-parse is written back into them); a malformed sentence becomes an ``InputError`` in its
place, so output stays aligned with input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pad_engine.errors import InputError
from pad_engine.io.conll import COLUMNS, NonWordIds
from pad_engine.io.limits import MAX_CHARS, too_long
from pad_engine.trees.deptree import tree_problem

MAX_WORDS = 400  # longer sentences are refused: Eisner's O(n^3) would take seconds each
# Abbreviations kept whole (U.S., Mr.), numbers with inner punctuation (1,000.50), clitics
# split off (do|n't, I|'m), words with inner hyphens, "..." and "--", else one symbol
_TOKEN = re.compile(
    r"(?:[a-z]\.){2,}|(?:mr|mrs|ms|dr|prof|inc|corp|co|ltd|jr|sr|st|vs|no|jan|feb|mar|apr|"
    r"jun|jul|aug|sep|sept|oct|nov|dec)\.(?=\s+\w)|\d+(?:[.,:/]\d+)*|\w+(?=n['’]t\b)|"
    r"n['’]t\b|['’](?:s|re|ve|ll|d|m)\b|\w+(?:-\w+)*|\.\.\.|--|\S", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
# A double quote after one of these opens a quotation; elsewhere it opens one when no more
# quotes were opened than closed before it (the spacing does not tell)
_OPENERS = frozenset({"(", "[", "{", "``", "--", ":"})


@dataclass
class TextSentence:
    """A sentence to parse: words, the tags the input gave (by column, "_" columns left
    out), gold heads where the input had all of them, and its CoNLL lines if any."""

    forms: list[str]
    line: int
    tags: dict[str, list[str]] = field(default_factory=dict)
    heads: list[int] | None = None
    lines: list[str] = field(default_factory=list)


def tokenize(line: str) -> list[str]:
    """Split raw text into Penn-style tokens: clitics (n't, 's) and punctuation apart,
    abbreviations with their period (U.S., Mr.) and numbers (1,000.5) whole, straight
    double quotes as `` and ''."""
    tokens = _TOKEN.findall(line)
    open_minus_closed = 0  # quotes opened so far less those closed, counted as they go
    for i, tok in enumerate(tokens):  # Penn quotes: `` opens, '' closes
        if tok == '"':
            opens = i == 0 or tokens[i - 1] in _OPENERS or open_minus_closed <= 0
            tokens[i] = "``" if opens else "''"
        if tokens[i] == "``":
            open_minus_closed += 1
        elif tokens[i] == "''":
            open_minus_closed -= 1
    return tokens


def read_text(text: str, path: str | None = None, *, tokenized: bool = True
              ) -> list[TextSentence | InputError]:
    """The sentences of plain text or CoNLL input (CoNLL when a line holds a tab), in order,
    with an InputError in place of each one that cannot be read."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.replace("\r\n", "\n").split("\n")
    if any("\t" in line for line in lines[:1000]):
        return _read_conll(lines, path)
    out: list[TextSentence | InputError] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        if len(line) > MAX_CHARS:
            out.append(InputError(too_long("line", len(line)), path, number))
            continue
        bad = _CONTROL.search(line)
        if bad:
            out.append(InputError(f"control or undecodable character U+{ord(bad.group()):04X} "
                                  f"at column {bad.start() + 1}", path, number))
            continue
        words = line.split() if tokenized else tokenize(line)
        problem = _length_problem(words)
        out.append(InputError(problem, path, number) if problem
                   else TextSentence(words, number))
    return out


def _length_problem(words: list[str]) -> str | None:
    if not words:
        return "no words"
    if len(words) > MAX_WORDS:
        return f"{len(words)} words: longer than the {MAX_WORDS} a sentence may have"
    return None


def _read_conll(lines: list[str], path: str | None) -> list[TextSentence | InputError]:
    out: list[TextSentence | InputError] = []
    block: list[str] = []
    first = 1
    for number, line in enumerate([*lines, ""], 1):
        if line.strip():
            if not block:
                first = number
            block.append(line)
        elif block:
            try:
                out.append(_conll_sentence(block, first, path))
            except InputError as err:
                out.append(err)
            block = []
    return out


def _conll_sentence(block: list[str], first: int, path: str | None) -> TextSentence:
    forms: list[str] = []
    non_words = NonWordIds(path)
    cols_of: dict[str, list[str]] = {"upos": [], "xpos": []}
    heads: list[str] = []
    for number, line in enumerate(block, first):
        if len(line) > MAX_CHARS:
            raise InputError(too_long("line", len(line)), path, number)
        if line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise InputError(f"expected 10 tab-separated columns, found {len(cols)}", path,
                             number)
        if "" in cols:
            k = cols.index("")
            raise InputError(f"empty {COLUMNS[k]} column (column {k + 1})", path, number)
        bad = _CONTROL.search(line)
        if bad:
            raise InputError(f"control or undecodable character U+{ord(bad.group()):04X}",
                             path, number)
        wid = cols[0]
        if wid != str(len(forms) + 1):  # a multiword range, an empty node or an error
            non_words.check(wid, len(forms), number, cols)
            continue
        head = cols[6]
        if head != "_" and not (head.isdigit() and head.isascii()):
            raise InputError(f"HEAD {head!r} of word {wid} is neither a number nor _", path,
                             number)
        forms.append(cols[1])
        cols_of["upos"].append(cols[3])
        cols_of["xpos"].append(cols[4])
        heads.append(head)
    problem = _length_problem(forms)
    if problem:
        raise InputError(problem, path, first)
    non_words.finish(len(forms))
    sent = TextSentence(forms, first, lines=list(block))
    sent.tags = {col: tags for col, tags in cols_of.items() if "_" not in tags}
    if "_" not in heads:
        sent.heads = [int(h) for h in heads]
        problem = tree_problem(sent.heads)
        if problem:
            raise InputError(f"not a tree: {problem}", path, first)
    elif any(h != "_" for h in heads):
        raise InputError("some HEAD columns are filled and some are _: give all or none",
                         path, first)
    return sent


def conll_lines(sent: TextSentence, tags: dict[str, list[str]], heads: list[int],
                rels: list[str]) -> str:
    """The sentence as CoNLL lines with its predicted d-parse: the input's own lines with
    HEAD and DEPREL (and tags the input left "_") filled in, or fresh CoNLL-U lines for text;
    a blank line after it."""
    n = len(sent.forms)
    upos = tags.get("upos") or tags.get("xpos") or ["_"] * n
    xpos = tags.get("xpos") or ["_"] * n
    if not sent.lines:
        rows = [f"{i + 1}\t{sent.forms[i]}\t_\t{upos[i]}\t{xpos[i]}\t_\t{heads[i]}\t{rels[i]}"
                "\t_\t_" for i in range(n)]
        return "\n".join(rows) + "\n\n"
    out = []
    for line in sent.lines:
        cols = line.split("\t")
        if line.startswith("#") or not cols[0].isdigit():
            out.append(line)
            continue
        i = int(cols[0]) - 1
        cols[3] = upos[i] if cols[3] == "_" else cols[3]
        cols[4] = xpos[i] if cols[4] == "_" else cols[4]
        cols[6] = str(heads[i])
        cols[7] = rels[i] if cols[7] == "_" else cols[7]
        out.append("\t".join(cols))
    return "\n".join(out) + "\n\n"
