"""Agreement between two annotations of the same sentences: labeled bracket F1 and exact
match as EVALB (COLLINS.prm) scores them, A taken as gold (F1 is symmetric, exact match
too), and d-parse UAS/LAS; plus what each disagreement is, for adjudication.

The bracket scores come from ``learning.evalb`` itself, so they are ``pad eval``'s figures
digit for digit. The d-parses are the ones the trees induce by the head table (Penn input)
or the files' own (CoNLL input).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pad_engine.errors import InputError
from pad_engine.learning import evalb
from pad_engine.trees.lextree import is_preterminal, strip_label
from pad_engine.trees.walk import fold

if TYPE_CHECKING:  # nltk (and scipy with it) is imported when trees are compared, not here
    from nltk import Tree

Bracket = tuple[str, int, int]  # label (function tags cut), first and last word, 0-based


@dataclass
class SentenceAgreement:
    number: int  # 1-based
    f1: float | None = None  # None: no brackets scored (EVALB error or skipped sentence)
    exact: bool | None = None
    error: str | None = None
    only_a: list[Bracket] = field(default_factory=list)
    only_b: list[Bracket] = field(default_factory=list)
    arcs: list[tuple[int, str, str]] = field(default_factory=list)  # word, A's and B's arc

    @property
    def agrees(self) -> bool:
        return not (self.only_a or self.only_b or self.arcs or self.error)


@dataclass
class Agreement:
    sentences: list[SentenceAgreement]
    f1: float | None = None  # overall, None without trees
    exact: float | None = None
    report: evalb.EvalbReport | None = None
    uas: float | None = None
    las: float | None = None


def brackets(tree: Tree) -> Counter[Bracket]:
    """A tree's phrases as (label without function tags, first word, last word), the outer
    wrapper and preterminals left out (what an annotator sees differ)."""
    found: Counter[Bracket] = Counter()
    words = [0]

    def visit(node: Tree, kids: list[tuple[int, int]]) -> tuple[int, int]:
        if is_preterminal(node):
            words[0] += 1
            return words[0] - 1, words[0] - 1
        span = (kids[0][0], kids[-1][1])
        found[(strip_label(node.label()), *span)] += 1
        return span

    fold(tree, lambda n: [] if is_preterminal(n) else list(n), visit)
    for label in ("TOP", "ROOT", ""):
        for key in [k for k in found if k[0] == label]:
            del found[key]
    return found


def agree_trees(a: Sequence[str], b: Sequence[str],
                arcs_a: Sequence[tuple[list[int], list[str]]] | None = None,
                arcs_b: Sequence[tuple[list[int], list[str]]] | None = None) -> Agreement:
    """Agreement of two lists of one-line trees (the same sentences in the same order), and
    of their d-parses (heads, relations) when given."""
    if len(a) != len(b):
        raise InputError(f"{len(a)} trees in A but {len(b)} in B")
    from nltk import Tree

    report = evalb.score(a, b)
    rows = []
    for i, (row, ta, tb) in enumerate(zip(report.rows, a, b)):
        s = SentenceAgreement(i + 1)
        if row.status == 0:
            p, r = row.precision, row.recall
            s.f1 = 2 * p * r / (p + r) if p + r else (100.0 if not row.gold_brackets and
                                                      not row.test_brackets else 0.0)
            s.exact = row.matched == row.gold_brackets == row.test_brackets
            ba, bb = brackets(Tree.fromstring(ta)), brackets(Tree.fromstring(tb))
            s.only_a, s.only_b = sorted(ba - bb), sorted(bb - ba)
        else:
            s.error = row.error or "skipped: no words in B"
        rows.append(s)
    result = Agreement(rows, evalb.bracket_f1(report), report.overall.complete_match, report)
    if arcs_a is not None and arcs_b is not None:
        _add_arcs(result, arcs_a, arcs_b)
    return result


def agree_arcs(a: Sequence[tuple[list[int], list[str]]],
               b: Sequence[tuple[list[int], list[str]]]) -> Agreement:
    """Agreement of two lists of d-parses (heads, relations) alone."""
    if len(a) != len(b):
        raise InputError(f"{len(a)} sentences in A but {len(b)} in B")
    result = Agreement([SentenceAgreement(i + 1) for i in range(len(a))])
    _add_arcs(result, a, b)
    return result


def _add_arcs(result: Agreement, a, b) -> None:
    words = heads = labels = 0
    for s, (ha, ra), (hb, rb) in zip(result.sentences, a, b):
        if len(ha) != len(hb):
            s.error = s.error or f"{len(ha)} words in A but {len(hb)} in B"
            continue
        for m, (x, y) in enumerate(zip(ha, hb)):
            rel_a, rel_b = _rel(ra, m), _rel(rb, m)
            words += 1
            heads += x == y
            labels += x == y and rel_a == rel_b
            if x != y or rel_a != rel_b:
                s.arcs.append((m + 1, f"{x} {rel_a}", f"{y} {rel_b}"))
    result.uas = 100.0 * heads / words if words else 0.0
    result.las = 100.0 * labels / words if words else 0.0


def _rel(rels: Sequence[str], m: int) -> str:
    return rels[m] if m < len(rels) else "_"
