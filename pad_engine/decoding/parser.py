"""Decode sentences with a model: d-parse in, lexicalized Penn tree out.

The decoder needs a derivation under the model's grammar; when pruning leaves none it
retries exactly, and when even the exact grammar has none (a rule never seen in training)
it decodes once more with glue rules added (:class:`Glue`), so every sentence gets a tree
consistent with its d-parse. The flat projection of the d-parse is the last resort.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pad_engine.decoding import decoder
from pad_engine.decoding.features import NO_LABELS, label_ids, word_ids
from pad_engine.decoding.grammar import TOP, UNKNOWN_TAG, GrammarArrays
from pad_engine.decoding.model import Model
from pad_engine.errors import InputError
from pad_engine.trees.binarize import HEAD_LEFT, HEAD_RIGHT, LEAF, UNARY
from pad_engine.trees.lextree import LexNode
from pad_engine.trees.structure import cell_count, cell_spans, is_projective_tree

# The largest chart a sentence may need, in cells x (k + 1): chart memory grows with it, by
# about 1.5 kB a unit with the bundled models decoding exactly, so the limit keeps a sentence
# near 1 GB at worst. Ordinary sentences need a few hundred units; a flat 300-word sentence
# (one head, 299 dependents) 22,949 cells: 252,439 units at k = 10. Above it, a sentence is
# refused with an InputError rather than risking an out-of-memory kill.
MAX_CHART = 600_000


class Encoded(NamedTuple):
    """A sentence as the decoder sees it."""

    heads: np.ndarray  # 0-based, -1 for the root
    rows: np.ndarray  # pruning row of each tag
    words: np.ndarray  # padded word hashes
    tags: np.ndarray  # padded tag feature values
    rel_ids: np.ndarray  # label hashes, one per word; empty for a model that ignores labels


@dataclass
class Parse:
    """A decoded tree; ``how`` says which pass produced it: pruned, exact or fallback."""

    tree: LexNode
    score: float
    how: str


def encode(model: Model, forms: list[str], tags: list[str], heads: list[int],
           rels: list[str] | None = None) -> Encoded:
    """Turn a sentence (1-based heads, 0 = root) into decoder arrays. ``rels`` (dependency
    labels) are read only by a model trained with them; missing ones count as "_"."""
    g = model.grammar
    n = len(forms)
    rows = np.fromiter((g.tag_row(t) for t in tags), dtype=np.int64, count=n)
    nrows = len(g.tags) + 1
    tagvals = np.empty(n + 2, dtype=np.int64)
    tagvals[0] = nrows
    tagvals[1:-1] = rows
    tagvals[-1] = nrows + 1
    h = np.fromiter(heads, dtype=np.int64, count=n) - 1
    labels = NO_LABELS
    if model.dep_labels:
        labels = label_ids(rels if rels and len(rels) == n else ["_"] * n)
    return Encoded(h, rows, word_ids(forms), tagvals, labels)


def chart_inputs(model: Model, enc: Encoded, prune: bool, glue: Glue | None = None,
                 weights: np.ndarray | None = None, gold_bin: np.ndarray | None = None,
                 gold_un: np.ndarray | None = None, cell_cost: np.ndarray | None = None,
                 loss_weight: float = 0.0) -> decoder.Inputs:
    """The one record the kernels read: the sentence, the model's grammar (or a glue
    grammar), weights and search settings; the gold derivation's rules for loss-augmented
    training, or per-cell gains for the oracle."""
    return decoder.Inputs(
        enc, model.packed() if glue is None else glue.arrays,
        model.weights if weights is None else weights, model.mask, bool(prune),
        float(model.alpha),
        decoder.NO_GLUE if glue is None else glue.first_binary,
        decoder.NO_GLUE if glue is None else glue.first_unary,
        decoder.NO_GOLD if gold_bin is None else gold_bin,
        decoder.NO_GOLD if gold_un is None else gold_un,
        decoder.NO_CELL_COST if cell_cost is None else cell_cost, float(loss_weight),
    )


def run_decoder(model: Model, enc: Encoded, prune: bool, **options):
    """One 1-best decode with the model (``options``: those of :func:`chart_inputs`)."""
    return decoder.decode(chart_inputs(model, enc, prune, **options))


@dataclass
class Glue:
    """The model's grammar plus back-off glue rules, for sentences it cannot derive.

    For every head-side symbol Y and every complete symbol Z, attaching Z on either side
    gives Y's phrase: a tag's usual projection, an intermediate's parent, a phrase itself;
    and TOP can sit on any phrase. So every word gets a complete item and every sentence a
    derivation, in which the learned rules still do all they can (glue pays a penalty).
    """

    arrays: GrammarArrays
    symbols: list[str]
    first_binary: int
    first_unary: int

    @classmethod
    def build(cls, model: Model) -> Glue:
        g = copy.deepcopy(model.grammar)
        first_binary, first_unary = len(g.binary), len(g.unary)
        default = Counter(model.projections.values()).most_common(1)
        default_label = default[0][0] if default else "X"
        tags = set(g.tags) | {UNKNOWN_TAG}
        g.symbol(default_label)  # a phrase it labels must attach like any other
        real = [s for s in list(g.symbols) if not s.startswith("@") and s != TOP]
        for y in list(g.symbols):
            if y == TOP:
                continue
            if y in tags:
                parent = model.projections.get(y, default_label)
            elif y.startswith("@"):
                parent = y[1:-1]
            else:
                parent = y
            a, ys = g.symbol(parent), g.symbol(y)
            for z in real:
                zs = g.symbol(z)
                g.add_binary(a, ys, zs, 0)
                g.add_binary(a, ys, zs, 1)
        for z in real:
            g.add_unary(g.top, g.symbol(z))
        return cls(g.pack(), g.symbols, first_binary, first_unary)


def derivation_tree(symbols: list[str], kinds, syms, words, tags: list[str]) -> LexNode:
    """The Penn-level tree of a derivation given as the decoder's pre-order node arrays.

    Debinarization happens on the way: a chain symbol (``@A>``, ``@A<``) opens no node, so
    its children land in the nearest real ancestor, in order; the ancestor's head child is
    the one reached from it through head-side links only. Leaves keep the input tags.
    """
    kinds = kinds.tolist()
    syms = syms.tolist()
    words = words.tolist()
    root = LexNode(symbols[syms[0]], [], 0, -1)
    owner, on_head = root, True
    pending: list[tuple[LexNode, bool]] = []  # (owner, on its head path) of the next nodes
    for q in range(len(kinds)):
        kind = kinds[q]
        if q > 0:
            owner, on_head = pending.pop()
            label = symbols[syms[q]]
            if kind == LEAF:
                node = LexNode(tags[words[q]], [], 0, words[q])
            elif label[0] == "@" and label[-1] in "<>":
                node = None
            else:
                node = LexNode(label, [], 0, -1)
            if node is not None:
                if on_head:
                    owner.head = len(owner.children)
                owner.children.append(node)
                owner, on_head = node, True
        if kind == UNARY:
            pending.append((owner, on_head))
        elif kind == HEAD_LEFT:  # pre-order: left (head side) next, then right
            pending.append((owner, False))
            pending.append((owner, on_head))
        elif kind == HEAD_RIGHT:
            pending.append((owner, on_head))
            pending.append((owner, False))
    return root


def fallback_tree(model: Model, tags: list[str], heads: list[int]) -> LexNode:
    """A flat tree from the d-parse alone: every head with dependents projects one phrase
    (the label its tag usually projects in training, else ``X``) over its dependents."""
    n = len(tags)
    deps: list[list[int]] = [[] for _ in range(n + 1)]
    for m, h in enumerate(heads, 1):
        deps[h].append(m)

    def build(w: int) -> LexNode:
        leaf = LexNode(tags[w - 1], [], 0, w - 1)
        if not deps[w]:
            return leaf
        kids = [build(m) for m in deps[w] if m < w]
        head = len(kids)
        kids.append(leaf)
        kids += [build(m) for m in deps[w] if m > w]
        return LexNode(model.projections.get(tags[w - 1], "X"), kids, head, -1)

    return LexNode("TOP", [build(deps[0][0])], 0, -1)


def bracket_cost(symbols: list[str], enc: Encoded, gold: LexNode) -> np.ndarray:
    """Gain per (cell, symbol) of building that bracket, which the decoder adds to the
    score it maximizes: +1 for a bracket of ``gold``, -1 for any other phrase, 0 for
    intermediate symbols (they are not brackets)."""
    spans = cell_spans(enc.heads)
    cells: dict[tuple[int, int], list[int]] = {}
    for c, (i, j) in enumerate(spans.tolist()):
        cells.setdefault((i, j), []).append(c)
    sid = {label: k for k, label in enumerate(symbols)}
    cost = np.zeros((spans.shape[0], len(symbols)))
    cost[:, [k for k, label in enumerate(symbols) if not label.startswith("@")]] = -1.0
    stack = [gold]
    while stack:
        node = stack.pop()
        if node.word < 0:
            k = sid.get(node.label)
            if k is not None:
                cost[cells.get(node.span(), []), k] = 1.0
            stack.extend(node.children)
    return cost


class Parser:
    """Decodes sentences with one model."""

    def __init__(self, model: Model):
        self.model = model
        self._glue: Glue | None = None

    @property
    def glue(self) -> Glue:
        """The back-off grammar, built on first need."""
        if self._glue is None:
            self._glue = Glue.build(self.model)
        return self._glue

    def encode_checked(self, forms: list[str], tags: list[str], heads: list[int],
                       rels: list[str] | None = None, k: int = 1) -> Encoded:
        """Encode a sentence, or raise InputError when its d-parse cannot be decoded (for
        ``k`` derivations: see MAX_CHART)."""
        if len(forms) != len(tags) or len(forms) != len(heads):
            raise InputError("forms, tags and heads differ in length")
        if not forms:
            raise InputError("empty sentence")
        enc = encode(self.model, forms, tags, heads, rels)
        if not is_projective_tree(enc.heads):
            from pad_engine.trees.deptree import tree_problem

            raise InputError(tree_problem(heads) or "the dependency tree is not projective")
        cells = cell_count(enc.heads)
        if cells * (k + 1) > MAX_CHART:
            wide = Counter(heads).most_common(1)[0]
            raise InputError(
                f"sentence too large to decode: {len(forms)} words whose d-parse needs "
                f"{cells:,} chart cells (word {wide[0]} has {wide[1]} dependents); the limit "
                f"is {MAX_CHART // (k + 1):,} cells for {k} tree{'s' if k > 1 else ''}")
        return enc

    def tree(self, kinds, syms, words, tags: list[str], glue: Glue | None = None) -> LexNode:
        """The Penn-level tree of a decoded derivation, with the input tags kept."""
        symbols = self.model.grammar.symbols if glue is None else glue.symbols
        return derivation_tree(symbols, kinds, syms, words, tags)

    def parse(self, forms: list[str], tags: list[str], heads: list[int],
              prune: bool = True, rels: list[str] | None = None) -> Parse:
        """The best tree consistent with ``heads`` (1-based, 0 = root, projective)."""
        enc = self.encode_checked(forms, tags, heads, rels)
        passes = ("pruned", "exact") if prune else ("exact",)
        for how in passes:
            score, kinds, syms, _, _, words = run_decoder(self.model, enc, how == "pruned")
            if kinds.shape[0]:
                return Parse(self.tree(kinds, syms, words, tags), float(score), how)
        score, kinds, syms, _, _, words = run_decoder(self.model, enc, False, glue=self.glue)
        if kinds.shape[0]:
            return Parse(self.tree(kinds, syms, words, tags, self.glue), float(score), "glue")
        return Parse(fallback_tree(self.model, tags, heads), float("-inf"), "fallback")

    def kbest(self, forms: list[str], tags: list[str], heads: list[int], k: int,
              prune: bool = True, rels: list[str] | None = None) -> list[Parse]:
        """The k best trees consistent with ``heads``, best first, distinct as Penn trees.
        A pruned search that finds fewer than k is redone exactly; glue as in :meth:`parse`."""
        enc = self.encode_checked(forms, tags, heads, rels, k)
        passes = ("pruned", "exact", "glue") if prune else ("exact", "glue")
        result: list[Parse] = []
        for how in passes:
            glue = self.glue if how == "glue" else None
            scores, offsets, kinds, syms, _, _, words = decoder.decode_kbest(
                chart_inputs(self.model, enc, how == "pruned", glue), k)
            result, seen = [], set()
            for t in range(len(scores)):
                sl = slice(offsets[t], offsets[t + 1])
                key = (kinds[sl].tobytes(), syms[sl].tobytes())  # one derivation per tree
                if key not in seen:
                    seen.add(key)
                    tree = self.tree(kinds[sl], syms[sl], words[sl], tags, glue)
                    result.append(Parse(tree, float(scores[t]), how))
            if len(result) >= k or (result and how != "pruned"):
                return result
        return result or [Parse(fallback_tree(self.model, tags, heads), float("-inf"),
                                "fallback")]

    def oracle(self, forms: list[str], tags: list[str], heads: list[int],
               gold: LexNode) -> Parse:
        """The tree in Y(x, d) closest to ``gold`` (labeled brackets: +1 for each gold
        bracket built, -1 for each other one), ignoring the model's weights. When the
        grammar has no tree for ``heads``, glue rules may help (``how`` says "oracle+glue")."""
        enc = self.encode_checked(forms, tags, heads)
        zero = np.zeros_like(self.model.weights)
        for glue in (None, self.glue):
            symbols = self.model.grammar.symbols if glue is None else glue.symbols
            score, kinds, syms, _, _, words = run_decoder(
                self.model, enc, False, cell_cost=bracket_cost(symbols, enc, gold),
                weights=zero, loss_weight=1.0, glue=glue,
            )
            if kinds.shape[0]:
                return Parse(self.tree(kinds, syms, words, tags, glue), float(score),
                             "oracle" if glue is None else "oracle+glue")
        return Parse(fallback_tree(self.model, tags, heads), float("-inf"), "fallback")
