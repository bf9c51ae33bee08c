"""Lexicalized trees over very long sentences: no recursion limit on the way out."""

from __future__ import annotations

from pad_engine.decoding.engine import Engine
from pad_engine.decoding.rulebased import RuleBasedEngine
from pad_engine.trees.deptree import DepSentence
from pad_engine.trees.lextree import LexNode, induced_heads, to_line


def chain(n: int) -> LexNode:
    """(NP w0 (NP w1 (NP w2 ...))): as deep as the sentence is long."""
    node = LexNode("NN", [], 0, n - 1)
    for w in range(n - 2, -1, -1):
        node = LexNode("NP", [LexNode("NN", [], 0, w), node], 0, -1)
    return LexNode("TOP", [node], 0, -1)


def test_deep_trees_induce_heads_print_and_copy():
    n = 5000
    root = chain(n)
    assert induced_heads(root, n) == [0, *list(range(1, n))]
    forms = [f"w{i}" for i in range(n)]
    line = to_line(root, forms)
    assert line.startswith("(TOP (NP (NN w0) (NP (NN w1) ")
    assert line.count("(") == 2 * n
    assert to_line(root.copy(), forms) == line


def test_a_600_word_chain_of_dependents_converts():
    n = 600
    sent = DepSentence([f"w{i}" for i in range(n)], ["NN"] * n, [0, *list(range(1, n))])
    for engine in (RuleBasedEngine(), Engine.load()):
        cand = engine.best(sent)
        assert induced_heads(cand.tree, n) == sent.heads
        assert cand.penn(sent.forms).count("(NN ") == n
