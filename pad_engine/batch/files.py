"""Converting CoNLL files: the path every conversion takes (command line, batch, app export).

Output has one line per input sentence, in input order. A sentence that cannot be converted
(malformed, or a d-parse the decoder cannot take) gets an empty line, so the output stays
aligned with the input (EVALB skips empty lines), and its reason is reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TextIO

from pad_engine.decoding.engine import Converter
from pad_engine.errors import InputError
from pad_engine.io.conll import ConllResult, parse_decoded
from pad_engine.io.encoding import decode
from pad_engine.trees.deptree import DepSentence
from pad_engine.trees.projectivize import Lift


@dataclass
class ConvertReport:
    """What happened to the sentences of one input."""

    sentences: int = 0
    converted: int = 0
    fallback: int = 0
    problems: list[InputError] = field(default_factory=list)
    lifted: list[tuple[str | None, int | None, list[Lift]]] = field(default_factory=list)
    """(file, line, arcs lifted) of each non-projective sentence converted."""


def convert_sentences(
    engine: Converter, sentences: Iterable[DepSentence], report: ConvertReport,
    prune: bool = True, kbest: int = 0,
) -> Iterator[str]:
    """Yield the output text of each sentence (a tree line, or a k-best block)."""
    for sent in sentences:
        report.sentences += 1
        try:
            if kbest:
                cands = engine.candidates(sent, k=kbest, prune=prune)
                lines = [f"{c.score:.4f}\t{c.penn(sent.forms)}" for c in cands]
                text = "\n".join(lines) + "\n\n"
                how, lifted = cands[0].how, cands[0].lifted
            else:
                line, how, lifted = engine.best_line(sent, prune=prune)
                text = line + "\n"
        except InputError as err:
            report.problems.append(InputError(err.problem, sent.path, sent.line))
            yield "\n"
            continue
        report.converted += 1
        report.fallback += how == "fallback"
        if lifted:
            report.lifted.append((sent.path, sent.line, lifted))
        yield text


def read_input(data: bytes, path: str | None, pos: str, encoding: str | None = None
               ) -> ConllResult:
    """Decode and parse CoNLL bytes (see :mod:`pad_engine.io.encoding`), keeping going past
    malformed sentences; ``note`` says when they were not UTF-8."""
    return parse_decoded(decode(data, encoding), path, pos=pos, on_error="skip")


def write_in_order(out: TextIO, chunks: Iterable[str], data: ConllResult) -> None:
    """Write converted sentences, with an empty line where a malformed sentence stood."""
    pending = sorted(e.line or 0 for e in data.skipped)
    for sent, chunk in zip(data.sentences, chunks):
        while pending and sent.line is not None and pending[0] < sent.line:
            out.write("\n")
            pending.pop(0)
        out.write(chunk)
    for _ in pending:
        out.write("\n")
