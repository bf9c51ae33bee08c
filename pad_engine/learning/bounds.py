"""Oracle bound on held-out pairs: the best EVALB F1 any tree consistent with the d-parses
can reach, under any grammar. (Under a model's grammar, the closest consistent trees are
``Parser.oracle``'s, the one search behind ``pad oracle`` and ``pad train --hold-out``:
:func:`pad_engine.learning.pairs.closest_lines`.)

F1 is a ratio, so the tree set that maximizes it is found the Dinkelbach way: for a guess
``f`` of the best corpus F1, each sentence's tree maximizes (2 - f) per bracket that matches a
gold bracket and -f per other bracket, which is linear in brackets and so decodable; the
corpus F1 of those trees is the next guess, and the guesses rise to the maximum (a few
rounds). Brackets are scored as EVALB sees them: punctuation and TOP deleted, function tags
cut, ADVP = PRT, spans over the words that remain.

Every consistent tree is, for each head word, a chain of phrases that take in growing
prefixes of its left and right dependents (nearest first), with any labels; the chains of
different words are independent, so each word's best chain is a longest path over its (left,
right) grid, with as many brackets at a point as gold brackets share its span. No converter
that keeps the d-parse can score higher. (Two words' chains can reach the same EVALB span when
they differ only by punctuation, which the search counts twice; the figure reported is EVALB
on the trees built, so it is a tree's real F1 and at most a hair below the maximum.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pad_engine.learning.evalb import DELETE_LABELS, _parse, bracket_f1, score
from pad_engine.trees.lextree import LexNode, to_line

MAX_ROUNDS = 5


@dataclass
class Sentence:
    """What a bound needs of a held-out pair: the d-parse and the gold tree as a line."""

    forms: list[str]
    tags: list[str]
    heads: list[int]  # 1-based, projective
    gold: str


class _Spans:
    """A sentence's word spans as EVALB sees them, and its gold brackets."""

    def __init__(self, s: Sentence):
        kept = [t not in DELETE_LABELS for t in s.tags]
        self.before = np.concatenate([[0], np.cumsum(kept)]).astype(int)
        self.gold: Counter = _parse(s.gold).brackets  # exactly the brackets EVALB counts
        self.by_span: Counter = Counter()
        for (_, i, j), k in self.gold.items():
            self.by_span[i, j] += k

    def span(self, i: int, j: int) -> tuple[int, int] | None:
        """EVALB's span of raw words i..j (inclusive), None when only deleted words."""
        a, b = int(self.before[i]), int(self.before[j + 1])
        return (a, b) if b > a else None


def _gold_lines(sentences: Sequence[Sentence]) -> list[str]:
    return [s.gold for s in sentences]


def dinkelbach(sentences: Sequence[Sentence], decode, start: float) -> tuple[float, list[str]]:
    """The highest corpus F1 (and its trees) of ``decode(sentence, f) -> line``, which must
    return the tree maximizing (2 - f) per matched bracket and -f per other one."""
    gold = _gold_lines(sentences)
    f, best, lines = start / 100.0, -1.0, []
    for _ in range(MAX_ROUNDS):
        trial = [decode(s, f) for s in sentences]
        got = bracket_f1(score(gold, trial))
        if got <= best + 1e-9:
            break
        best, lines, f = got, trial, got / 100.0
    return best, lines


def any_oracle(sentences: Sequence[Sentence], start: float) -> tuple[float, float]:
    """The best F1 of consistent trees with any phrases and labels: EVALB's F1 of the trees
    found, and an upper bound (the same search on the count it optimizes, which can only
    overcount matches: no consistent trees score above it)."""
    spans = {id(s): _Spans(s) for s in sentences}
    gold = sum(sum(sp.gold.values()) for sp in spans.values())
    claimed: dict[float, float] = {}

    def decode(s: Sentence, f: float) -> str:
        tree, matched, built = best_any_tree(s, spans[id(s)], f)
        m, t = claimed.get(f, (0, 0))
        claimed[f] = (m + matched, t + built)
        return to_line(tree, s.forms)

    real, _ = dinkelbach(sentences, decode, start)
    f, upper = start / 100.0, 0.0
    for _ in range(MAX_ROUNDS):  # Dinkelbach on the claimed counts: rises to its maximum
        claimed.pop(f, None)
        for s in sentences:
            decode(s, f)
        m, t = claimed[f]
        upper = 200.0 * m / (gold + t) if gold + t else 0.0
        if upper / 100.0 <= f + 1e-9:
            break
        f = upper / 100.0
    return real, max(upper, real)


def best_any_tree(s: Sentence, spans: _Spans, f: float) -> tuple[LexNode, int, int]:
    """The consistent tree maximizing (2 - f) per matched bracket, -f per other one, with
    the matched and counted brackets the search believes it has."""
    from pad_engine.trees.structure import sentence_structure

    heads = np.asarray(s.heads, dtype=np.int64) - 1
    st = sentence_structure(heads)
    n = len(s.heads)  # dependents nearest first, as the decoder's cells take them in
    left = [st.ldeps[st.lptr[h]:st.lptr[h + 1]].tolist() for h in range(n)]
    right = [st.rdeps[st.rptr[h]:st.rptr[h + 1]].tolist() for h in range(n)]
    lo, hi = st.lo.tolist(), st.hi.tolist()
    labels_at: dict[tuple[int, int], list[str]] = {}
    for (label, i, j), k in spans.gold.items():
        labels_at.setdefault((i, j), []).extend([label] * k)
    built: dict[int, LexNode] = {}
    matched = counted = 0
    for h in st.order.tolist():
        chain = _best_chain(h, left[h], right[h], lo, hi, spans, f)
        node = LexNode(s.tags[h], [], 0, h)
        a0 = b0 = 0
        for a, b in chain:
            lefts = [built[d] for d in reversed(left[h][a0:a])]
            rights = [built[d] for d in right[h][b0:b]]
            span = spans.span(lo[left[h][a - 1]] if a else h, hi[right[h][b - 1]] if b else h)
            names = labels_at.get(span, []) if span else []
            matched += len(names)
            counted += max(len(names), 1) if span else 0
            node = LexNode(names[0] if names else "X", [*lefts, node, *rights], len(lefts))
            for name in names[1:]:
                node = LexNode(name, [node], 0)
            a0, b0 = a, b
        built[h] = node
    return LexNode("TOP", [built[s.heads.index(0)]], 0), matched, counted


def _best_chain(h: int, left: list[int], right: list[int], lo: list[int], hi: list[int],
                spans: _Spans, f: float) -> list[tuple[int, int]]:
    """The points (left, right dependents taken in) of ``h``'s best chain of phrases: a
    longest path over the grid, ending at all dependents when there are some."""
    na, nb = len(left), len(right)
    span = {}
    value = {}
    for a in range(na + 1):
        for b in range(nb + 1):
            e = spans.span(lo[left[a - 1]] if a else h, hi[right[b - 1]] if b else h)
            span[a, b] = e
            g = spans.by_span[e] if e else 0
            value[a, b] = (2.0 - f) * g if g else (0.0 if e is None else -f)
    best: dict[tuple[int, int], tuple[float, tuple[int, int] | None]] = {}
    for a in range(na + 1):
        for b in range(nb + 1):
            top, prev = 0.0, None
            for (qa, qb), (v, _) in best.items():
                if qa <= a and qb <= b and span[qa, qb] != span[a, b] and v > top:
                    top, prev = v, (qa, qb)
            best[a, b] = (value[a, b] + top, prev)
    if na or nb:
        end: tuple[int, int] | None = (na, nb)
    else:
        end = (0, 0) if best[0, 0][0] > 0 else None
    chain = []
    while end is not None:
        chain.append(end)
        end = best[end][1]
    return chain[::-1]
