"""Finding where the same material was bracketed two ways (variation nuclei, after Dickinson
& Meurers 2003), over c-trees and d-parses together.

Two kinds of recurring material are compared across sentences:

* word n-grams: the same words with the same tags, in the same tag context (one tag either
  side: D&M's "non-fringe" heuristic, which keeps a phrase's edge from varying with what
  surrounds it);
* d-subtrees: a word and all its dependents with the same shape, tags and (when the d-parse
  is independent of the c-trees) relations, whatever the words.

Each occurrence's *variant* is the chain of phrase labels over exactly its span, top down
(``NP``, ``S>VP``; ``""`` when no phrase covers exactly those words). Material with several
variants is a finding; each rare variant of it is an entry, ranked by how sure it is to be
the odd one out: the Wilson lower bound of the majority's share between the two, counting a
corrected sentence as :data:`WEIGHTS` says, so what annotators confirmed outranks machine
output. A spot already flagged by a higher entry is not flagged again.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from pad_engine.quality.forest import Sentence
from pad_engine.trees import edits
from pad_engine.trees.deptree import depths
from pad_engine.trees.lextree import LexNode, Spans, strip_label

WEIGHTS = {"corrected": 3.0, "edited": 1.5, "machine": 1.0}
MAX_NGRAM = 8
MAX_SUBTREE = 10
Z = 1.96  # Wilson bound at 95%


@dataclass(frozen=True)
class Occurrence:
    sentence: int  # index into the sentences checked
    start: int  # first and last word (0-based, inclusive)
    end: int
    variant: str
    levels: tuple[tuple[int, int], ...] = ()  # a head's projections' spans, bottom-up


@dataclass
class Entry:
    """One rare variant of some recurring material, against that material's majority."""

    kind: str  # "n-gram" or "d-subtree"
    text: str  # the material, as words/TAG or TAG(rel) items
    majority: str
    majority_weight: float
    variant: str
    weight: float
    score: float
    suspects: list[Occurrence]  # the occurrences carrying the rare variant
    supporters: list[Occurrence]  # those carrying the majority

    def describe(self) -> str:
        def shown(v: str) -> str:
            return v or "no phrase"
        return (f"{self.kind} {self.text!r}: {shown(self.majority)} "
                f"{len(self.supporters)}x, {shown(self.variant)} {len(self.suspects)}x")


def spans(tree: LexNode, at: Spans | None = None) -> dict[tuple[int, int], str]:
    """Every span a phrase covers, with the lowest phrase label over it (function tags cut;
    the root's own label left out); ``at``: the tree's spans, if already found."""
    at = at or Spans(tree)  # a unary chain's nodes share a span: the lowest, met last, wins
    return {at.span(node): strip_label(node.label) for node in edits.phrase_nodes(tree)
            if node is not tree}


def subtree_spans(heads: Sequence[int]) -> list[tuple[int, int, int]]:
    """(head, first, last) of every contiguous d-subtree of 2..MAX_SUBTREE words."""
    n = len(heads)
    lo, hi, size = list(range(n)), list(range(n)), [1] * n
    depth = depths(heads)
    order = sorted(range(n), key=lambda m: -depth[m])
    for m in order:
        h = heads[m] - 1
        if h >= 0:
            lo[h], hi[h] = min(lo[h], lo[m]), max(hi[h], hi[m])
            size[h] += size[m]
    return [(h, lo[h], hi[h]) for h in range(n)
            if 2 <= size[h] <= MAX_SUBTREE and hi[h] - lo[h] + 1 == size[h]]


def find_inconsistencies(sentences: Sequence[Sentence], use_rels: bool = True,
                         limit: int | None = None) -> list[Entry]:
    """The ranked entries (see the module docstring). ``use_rels``: key d-subtrees by their
    relations too (not when the d-parse was read off the very trees being checked, whose
    relations name the labels in question)."""
    groups: dict[tuple, list[Occurrence]] = defaultdict(list)
    weights = [WEIGHTS.get(s.status, 1.0) for s in sentences]
    for k, s in enumerate(sentences):
        at = Spans(s.tree)  # read by every kind of comparison below
        chains = spans(s.tree, at)
        n = len(s.forms)
        tags = ["<s>", *s.tags, "</s>"]
        for i in range(n):
            for j in range(i, min(n, i + MAX_NGRAM)):
                key = ("n", tuple(s.forms[i:j + 1]), tuple(tags[i:j + 4]))
                groups[key].append(Occurrence(k, i, j, chains.get((i, j), "")))
        for h, i, j in subtree_spans(s.heads):
            shape = tuple(-1 if m == h else s.heads[m] - 1 - i for m in range(i, j + 1))
            rels = tuple("" if m == h else s.rels[m] for m in range(i, j + 1)) \
                if use_rels else ()  # the head's own relation points outside: not its shape
            key = ("d", tuple(s.tags[i:j + 1]), shape, rels)
            groups[key].append(Occurrence(k, i, j, chains.get((i, j), "")))
        for key, variant, span in _productions(s.tree, s.tags, at):
            groups[key].append(Occurrence(k, *span, variant))
        for h, key, variant, levels in _heads(s, tags, use_rels, at):
            start, end = levels[-1] if levels else (h, h)
            groups[key].append(Occurrence(k, start, end, variant, levels))
    entries = []
    for key, occurrences in groups.items():
        if len(occurrences) > 1:
            entries += _entries(key, occurrences, weights)
    pairs = Counter((e.majority, e.variant) for e in entries)
    for e in entries:  # a swap seen in many places is a convention more than a slip
        e.score /= math.sqrt(pairs[e.majority, e.variant])
    entries.sort(key=lambda e: (-e.score, -e.majority_weight, e.text))
    return _fresh(entries, limit)


def _heads(s: Sentence, tags: list[str], use_rels: bool, at: Spans):
    """Per word: the key of its local d-subtree (its tag, its dependents' tags, sides and
    relations, where it hangs) and the variant: its projections bottom-up, each with the
    dependents attached there (by their place in the key; "?" for a word the d-parse does not
    make a dependent). ``at``: the tree's spans."""
    spine: dict[int, list[tuple[str, int, int, list[int]]]] = defaultdict(list)
    for node in at.nodes:  # children first: each spine bottom-up
        if node.word < 0 and node is not s.tree:
            h = at.head_word(node)
            attached = [at.head_word(c) for i, c in enumerate(node.children) if i != node.head]
            spine[h].append((strip_label(node.label), *at.span(node), attached))
    deps: dict[int, list[int]] = defaultdict(list)
    for m, g in enumerate(s.heads):
        if g:
            deps[g - 1].append(m)
    for h in range(len(s.forms)):
        mine = deps[h]
        if not mine:
            continue  # a lone word's projection depends on where it stands: too varied
        place = {m: str(i) for i, m in enumerate(mine)}
        up = s.heads[h] - 1
        key = ("h", s.tags[h], tuple((s.tags[m], m < h, s.rels[m] if use_rels else "")
                                     for m in mine),
               (tags[up + 1] if up >= 0 else "<root>", up < h))
        levels = [x for x in spine.get(h, []) if x[3]]  # unaries vary with the context
        variant = ">".join(f"{label}:{','.join(place.get(m, '?') for m in sorted(att))}"
                           for label, _, _, att in levels)
        yield h, key, variant, tuple((a, b) for _, a, b, _ in levels)


def _productions(tree: LexNode, tags: list[str], at: Spans):
    """Per phrase: the key of what it is made of (its head word's tag, its head child's
    label, its other children's labels and sides) and where it stands (its parent's label),
    and its label (``at``: the tree's spans)."""
    stack = [(tree, "")]
    while stack:
        node, above = stack.pop()
        label = strip_label(node.label)
        stack.extend((c, label) for c in node.children if c.word < 0)
        if not above or len(node.children) < 2:
            continue  # the root; a unary, whose label depends on where it stands
        kids = tuple((strip_label(c.label), i < node.head) for i, c in enumerate(node.children)
                     if i != node.head)
        key = ("p", tags[at.head_word(node)], strip_label(node.children[node.head].label),
               kids, above)
        yield key, label, at.span(node)


def _located(occ: Occurrence, majority: str) -> Occurrence:
    """A head's occurrence placed at its lowest projection that differs from the
    majority's."""
    if not occ.levels:
        return occ
    mine, theirs = occ.variant.split(">"), majority.split(">") if majority else []
    at = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b),
              min(len(mine), len(theirs)))
    start, end = occ.levels[min(at, len(occ.levels) - 1)]
    return Occurrence(occ.sentence, start, end, occ.variant, occ.levels)


def _entries(key: tuple, occurrences: list[Occurrence], weights: list[float]) -> list[Entry]:
    by_variant: dict[str, list[Occurrence]] = defaultdict(list)
    for occ in occurrences:
        by_variant[occ.variant].append(occ)
    if len(by_variant) < 2:
        return []
    weight = {v: sum(weights[o.sentence] for o in occs) for v, occs in by_variant.items()}
    majority = max(weight, key=lambda v: (weight[v], v))
    text = _text(key)
    kind = {"n": "n-gram", "d": "d-subtree", "h": "dependents", "p": "production"}[key[0]]
    out = []
    for variant, occs in by_variant.items():
        if variant == majority:
            continue
        score = _wilson(weight[majority], weight[majority] + weight[variant] ** 2)
        if kind == "dependents":
            occs = [_located(o, majority) for o in occs]
        out.append(Entry(kind, text, majority, weight[majority], variant, weight[variant],
                         score, occs, by_variant[majority]))
    return out


def _text(key: tuple) -> str:
    if key[0] == "p":
        _, tag, head, kids, above = key
        left = [label for label, side in kids if side]
        right = [label for label, side in kids if not side]
        return " ".join([*left, f"{head}*", *right]) + f" (head {tag}, under {above})"
    if key[0] == "h":
        _, tag, deps, _ = key
        left = [f"{t}({r})" if r else t for t, side, r in deps if side]
        right = [f"{t}({r})" if r else t for t, side, r in deps if not side]
        return " ".join([*left, f"[{tag}]", *right])
    if key[0] == "n":
        return " ".join(f"{w}/{t}" for w, t in zip(key[1], key[2][1:-1]))
    tags, _shape, rels = key[1:]
    return " ".join(f"{t}({r})" if r else t for t, r in zip(tags, rels or [""] * len(tags)))


def _wilson(good: float, total: float) -> float:
    p = good / total
    z2 = Z * Z
    centre = p + z2 / (2 * total)
    spread = Z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total))
    return (centre - spread) / (1 + z2 / total)


def _fresh(entries: list[Entry], limit: int | None) -> list[Entry]:
    """The entries that flag some spot (a sentence and span) no higher entry flagged."""
    claimed: set[tuple[int, int, int]] = set()
    out = []
    for entry in entries:
        spots = {(o.sentence, o.start, o.end) for o in entry.suspects}
        if spots <= claimed:
            continue
        claimed |= spots
        out.append(entry)
        if limit is not None and len(out) >= limit:
            break
    return out


def apply_variant(tree: LexNode, start: int, end: int, variant: str) -> LexNode:
    """The tree with the phrases over exactly words ``start..end`` made the chain
    ``variant`` (``""``: none), everything else kept; ValueError when that span crosses a
    bracket of the tree (it cannot become a phrase without moving others)."""
    want = variant.split(">") if variant else []
    at = Spans(tree)
    chain = edits.paths_to(tree, [node for node in edits.phrase_nodes(tree)
                                  if node is not tree and at.span(node) == (start, end)])
    if not chain:
        if not want:
            return tree
        tree, top = _insert_over(tree, at, start, end, want[0])
        chain, want_rest = [top], want[1:]
    else:
        for path, label in zip(chain, want):
            if strip_label(edits.node_at(tree, path).label) != label:
                tree = edits.relabel(tree, path, label)
        for path in reversed(chain[len(want):]):  # deepest first: higher paths stay valid
            tree = edits.delete_node(tree, path)
        chain, want_rest = chain[:len(want)], want[len(chain):]
    for label in want_rest:  # labels still missing go below the lowest of the chain
        low = chain[-1]
        tree = edits.insert_node(tree, low, 0, len(edits.node_at(tree, low).children) - 1,
                                 label)
        chain.append((*low, 0))
    return tree


def _insert_over(tree: LexNode, at: Spans, start: int, end: int, label: str
                 ) -> tuple[LexNode, tuple[int, ...]]:
    """A phrase over words start..end as a run of siblings, and its path (``at``: the
    tree's spans)."""
    steps: list[int] = []  # a list: a tuple grown a step at a time is quadratic in depth
    node = tree
    while True:
        kids = [at.span(c) for c in node.children]
        inside = [i for i, (a, b) in enumerate(kids) if a <= start and end <= b]
        if inside and node.children[inside[0]].word < 0 and kids[inside[0]] != (start, end):
            steps.append(inside[0])
            node = node.children[inside[0]]
            continue
        first = next((i for i, (a, _) in enumerate(kids) if a == start), None)
        last = next((i for i, (_, b) in enumerate(kids) if b == end), None)
        if first is None or last is None:
            raise ValueError(f"words {start + 1}-{end + 1} cross a bracket of this tree")
        path = tuple(steps)
        return edits.insert_node(tree, path, first, last, label), (*path, first)
