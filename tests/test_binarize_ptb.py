"""Binarization on every tree of the Penn Treebank sample, with both head tables."""

from __future__ import annotations

import pytest

from pad_engine.trees.binarize import HEAD_LEFT, LEAF, UNARY, binarize, debinarize, is_intermediate
from pad_engine.trees.lextree import from_penn, induced_heads, to_line


def binarized_heads(node, heads) -> int:
    """The d-parse read directly off a binarized tree (independent of debinarization)."""
    if node.kind == LEAF:
        return node.word
    if node.kind == UNARY:
        return binarized_heads(node.left, heads)
    left = binarized_heads(node.left, heads)
    right = binarized_heads(node.right, heads)
    head, dep = (left, right) if node.kind == HEAD_LEFT else (right, left)
    heads[dep] = head + 1
    return head


@pytest.fixture(scope="module")
def ptb_trees(ptb_dir):
    from pad_engine.io.penn import normalize, read_penn

    trees = []
    for path in sorted(ptb_dir.glob("wsj_*.mrg")):
        trees.extend(normalize(t) for t in read_penn(path).trees)
    return trees


@pytest.mark.parametrize("table", ["collins", "content"])
def test_binarize_inverts_and_keeps_the_dparse(ptb_trees, table):
    from pad_engine.trees.headrules import HeadRules, head_children

    rules = HeadRules.load(table)
    assert len(ptb_trees) == 3914
    for tree in ptb_trees:
        lex = from_penn(tree, head_children(tree, rules))
        forms = tree.leaves()
        n = len(forms)
        binary = binarize(lex)
        assert to_line(debinarize(binary), forms) == to_line(lex, forms)
        heads = [0] * n
        binarized_heads(binary, heads)
        assert heads == induced_heads(lex, n)
        assert not is_intermediate(binary.label)
