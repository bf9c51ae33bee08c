"""Converting CoNLL files: the path every conversion takes (command line, batch, app export).

Output has one line per input sentence, in input order. A sentence that cannot be converted
(malformed, or a d-parse the decoder cannot take) gets an empty line, so the output stays
aligned with the input (EVALB skips empty lines), and its reason is reported. Files stream
(:class:`pad_engine.io.conll_stream.ConllStream` in, a line out as each sentence is
converted), so memory does not grow with a file's length.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain

from pad_engine.batch.forked import ordered_forked
from pad_engine.batch.ordered import ordered
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


@dataclass(frozen=True)
class Converted:
    """What the converter made of one sentence: its output text, or the reason it could not."""

    text: str = "\n"
    how: str = ""
    lifted: list[Lift] = field(default_factory=list)
    cut_to: int = 0
    problem: InputError | None = None


def convert_one(engine: Converter, sent: DepSentence, prune: bool, kbest: int) -> Converted:
    """One sentence's tree line (or k-best block); touches nothing shared but the engine,
    whose decoding is safe to run on several threads (its model is read, never written)."""
    try:
        if kbest:
            cands = engine.candidates(sent, k=kbest, prune=prune)
            lines = [f"{c.score:.4f}\t{c.penn(sent.forms)}" for c in cands]
            return Converted("\n".join(lines) + "\n\n", cands[0].how, cands[0].lifted,
                              cands[0].cut_to)
        line, how, lifted = engine.best_line(sent, prune=prune)
        return Converted(line + "\n", how, lifted)
    except InputError as err:
        return Converted(problem=err)


def convert_items(
    engine: Converter, items: Iterable[DepSentence | InputError], report: ConvertReport,
    prune: bool = True, kbest: int = 0, threads: int = 1, fork: bool = False,
) -> Iterator[str]:
    """Yield the output text of each sentence of a file read as a stream (a tree line, or a
    k-best block), in file order: an empty line where the reader found a malformed sentence
    (its error in ``unreadable``). With ``threads`` above 1 that many sentences are decoded
    at once (the decoder releases Python's lock), a bounded window ahead of the output, which
    stays in file order; with ``fork`` as well, in that many forked worker processes where
    this process can fork (:func:`pad_engine.batch.forked.ordered_forked`), so that the
    Python around the kernels runs at once too."""
    convert = functools.partial(convert_one, engine, prune=prune, kbest=kbest)
    run = ordered_forked if fork and threads > 1 else ordered
    for item, done in run(convert, items, threads, lambda i: isinstance(i, InputError)):
        if done is None:
            report.unreadable.append(item)
            yield "\n"
            continue
        report.sentences += 1
        report.relations.update(item.rels or ["_"] * len(item.forms))
        if done.problem is not None:
            report.problems.append(InputError(done.problem.problem, item.path, item.line))
            yield "\n"
            continue
        if done.cut_to:
            report.cut.append((item.path, item.line, done.cut_to))
        report.converted += 1
        report.fallback += done.how == "fallback"
        if done.lifted:
            report.lifted.append((item.path, item.line, done.lifted))
        yield done.text


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
