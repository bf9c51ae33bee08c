"""Converting CoNLL files: the path every conversion takes (command line, batch, app export).

Output has one line per input sentence, in input order. A sentence that cannot be converted
(malformed, or a d-parse the decoder cannot take) gets an empty line, so the output stays
aligned with the input (EVALB skips empty lines), and its reason is reported. Files stream
(:class:`pad_engine.io.conll_stream.ConllStream` in, a line out as each sentence is
converted), so memory does not grow with a file's length.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain

from pad_engine.decoding.engine import Converter
from pad_engine.errors import InputError
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
    cut: list[tuple[str | None, int | None, int]] = field(default_factory=list)
    """(file, line, trees per item) of each sentence whose k-best list was cut: its chart
    was too large for k derivations per item within the k-best memory budget."""
    unreadable: list[InputError] = field(default_factory=list)
    """The errors of malformed sentences, which the reader skipped (not in ``sentences``)."""
    relations: Counter[str] = field(default_factory=Counter)
    """How often each dependency relation occurs ("_" for a word without one), for
    :meth:`Converter.relations_warning` once a stream is read."""


def convert_sentences(
    engine: Converter, sentences: Iterable[DepSentence], report: ConvertReport,
    prune: bool = True, kbest: int = 0,
) -> Iterator[str]:
    """Yield the output text of each sentence (a tree line, or a k-best block)."""
    for sent in sentences:
        report.sentences += 1
        report.relations.update(sent.rels or ["_"] * len(sent.forms))
        try:
            if kbest:
                cands = engine.candidates(sent, k=kbest, prune=prune)
                lines = [f"{c.score:.4f}\t{c.penn(sent.forms)}" for c in cands]
                text = "\n".join(lines) + "\n\n"
                how, lifted = cands[0].how, cands[0].lifted
                if cands[0].cut_to:
                    report.cut.append((sent.path, sent.line, cands[0].cut_to))
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


def convert_items(
    engine: Converter, items: Iterable[DepSentence | InputError], report: ConvertReport,
    prune: bool = True, kbest: int = 0,
) -> Iterator[str]:
    """Yield the output text of each sentence of a file read as a stream, in file order: an
    empty line where the reader found a malformed sentence (its error in ``unreadable``)."""
    for item in items:
        if isinstance(item, InputError):
            report.unreadable.append(item)
            yield "\n"
        else:
            yield from convert_sentences(engine, (item,), report, prune, kbest)


def first_sentences(items: Iterable[DepSentence | InputError], count: int
                    ) -> tuple[list[DepSentence], Iterator[DepSentence | InputError]]:
    """The first ``count`` sentences of a stream (to choose its converter from), and the
    whole stream again, those included."""
    items = iter(items)
    head: list[DepSentence | InputError] = []
    sentences: list[DepSentence] = []
    for item in items:
        head.append(item)
        if not isinstance(item, InputError):
            sentences.append(item)
            if len(sentences) == count:
                break
    return sentences, chain(head, items)
