"""The one-walk tree facts the view and the comparisons read (``Spans``, the arcs' depths)
give what the node-by-node definitions give, on random trees and arcs."""

from __future__ import annotations

import random

import pytest

from pad_engine.trees import edits
from pad_engine.trees.compare import merged_brackets
from pad_engine.trees.lextree import LexNode, Spans
from pad_gui.parse_layout import nest_levels, removed_levels


def random_tree(rng: random.Random, words: int) -> LexNode:
    """A tree over ``words`` words: phrases of 1 to 3 children, unary chains included."""
    nodes = [LexNode(rng.choice("NN VB DT".split()), [], 0, i) for i in range(words)]
    while len(nodes) > 1 or rng.random() < 0.3:
        at = rng.randrange(len(nodes))
        kids = nodes[at:at + rng.randint(1, 3)]
        phrase = LexNode(rng.choice("NP VP S".split()), kids, rng.randrange(len(kids)))
        nodes[at:at + len(kids)] = [phrase]
    return nodes[0]


def test_spans_give_each_nodes_span_and_head_word():
    rng = random.Random(7)
    for _ in range(300):
        tree = random_tree(rng, rng.randint(1, 30))
        spans = Spans(tree)
        assert spans.nodes[-1] is tree
        assert len(spans.nodes) == len({id(n) for n in spans.nodes})
        for node in spans.nodes:
            assert spans.span(node) == node.span()
            assert spans.head_word(node) == node.head_word()
        old = [(n.label, *n.span()) for _, n in edits.phrases(tree)]
        assert sorted(edits.brackets(tree).elements()) == sorted(old)
        assert merged_brackets(tree) <= set(old)


def test_phrase_nodes_and_their_paths_are_what_phrases_gives():
    rng = random.Random(11)
    for _ in range(300):
        tree = random_tree(rng, rng.randint(1, 30))
        old = list(edits.phrases(tree))
        nodes = list(edits.phrase_nodes(tree))
        assert [id(n) for n in nodes] == [id(n) for _, n in old]
        path_of = {id(n): p for p, n in old}
        picked = rng.sample(nodes, rng.randint(0, len(nodes)))
        assert edits.paths_to(tree, picked) == [path_of[id(n)] for n in picked]
    stranger = random_tree(rng, 3)
    with pytest.raises(ValueError, match="not in the tree"):
        edits.paths_to(random_tree(rng, 3), [stranger])


def test_arc_depths_are_one_more_than_the_deepest_arc_within():
    rng = random.Random(3)
    for _ in range(2000):
        n = rng.randint(1, 25)
        heads = [rng.randint(0, n) for _ in range(n)]  # any arcs: the view draws files' too
        spans = {m: (min(h, m) - 1, max(h, m) - 1) for m, h in enumerate(heads, 1)
                 if h not in (0, m)}
        levels = nest_levels(spans)
        for m, (lo, hi) in spans.items():
            inner = [levels[k] for k, s in spans.items()
                     if lo <= s[0] and s[1] <= hi and s != (lo, hi)]
            assert levels[m] == 1 + max(inner, default=0)


def test_removed_brackets_stand_above_those_within_them_and_those_of_their_span():
    rng = random.Random(5)
    for _ in range(1000):
        n = rng.randint(1, 15)
        removed = set()
        for _ in range(rng.randint(0, 12)):
            lo = rng.randrange(n)
            removed.add((rng.choice("NP VP S".split()), lo, rng.randrange(lo, n)))
        levels = dict(removed_levels(removed))
        assert set(levels) == removed
        for b, level in levels.items():
            within = [levels[o] for o in removed if b[1] <= o[1] and o[2] <= b[2]
                      and (o[1:] != b[1:] or o < b)]
            assert level == 1 + max(within, default=0)
