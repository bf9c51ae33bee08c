"""Head-outward binarization (paper §3.3) and its exact inverse.

A phrase ``A -> L_p .. L_1 H R_1 .. R_q`` (head child H) becomes a chain that attaches the
right siblings first, nearest first, then the left ones, nearest first. Every node of the chain
below the top is an intermediate symbol of A. Unlike the paper's single intermediate symbol we
use two, ``@A>`` (last attachment on the right) and ``@A<`` (last on the left): with one symbol
the decoder could build the same n-ary node in several attachment orders (spurious ambiguity,
duplicate k-best entries and split scores); with two, a rule that attaches on the right can
never sit above one that attached on the left, so each Penn tree has exactly one derivation.
Unary rules stay explicit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pad_engine.trees.lextree import LexNode, is_preterminal
from pad_engine.trees.walk import fold

if TYPE_CHECKING:
    from nltk import Tree

LEAF, UNARY, HEAD_LEFT, HEAD_RIGHT = 0, 1, 2, 3
# Training reads rules and gold derivations off binarized trees with walks that still
# recurse once per level (Grammar.observe, train.gold_derivation, nltk's Tree.leaves), and
# Python stops at 1,000 levels: training refuses trees deeper than this, one line each.
MAX_TRAINING_DEPTH = 500


@dataclass
class BinNode:
    """A node of a binarized tree. ``kind`` is LEAF, UNARY, HEAD_LEFT or HEAD_RIGHT."""

    label: str
    kind: int
    left: BinNode | None = None  # the only child of a unary node
    right: BinNode | None = None
    word: int = -1


def reserved(label: str) -> bool:
    """True for a label that binarization keeps for itself: a leading @ marks its chain
    symbols, so a label that an annotator or a label set writes may not start with one."""
    return label.startswith("@")


def is_intermediate(label: str) -> bool:
    """True for the chain symbols ``@A>`` / ``@A<`` that binarization introduces."""
    return reserved(label) and label[-1] in "<>" and len(label) > 2


def phrase_of(label: str) -> str:
    """The phrase a chain symbol stands for (``@NP>`` -> ``NP``); any other label itself."""
    return label[1:-1] if is_intermediate(label) else label


def intermediate(parent: str, side_right: bool) -> str:
    """The chain symbol of ``parent`` after an attachment on the given side."""
    return f"@{parent}{'>' if side_right else '<'}"


def training_depth_problem(tree: Tree) -> str | None:
    """Why a Penn tree is too deep to train on (see ``MAX_TRAINING_DEPTH``), or None.

    The measure bounds the depth of the tree binarized under any head choice: a phrase of k
    children becomes a chain of at most k levels above each child."""

    def bound(node: Tree, kids: list[int]) -> int:
        return len(kids) + max(kids) if kids else 1

    depth = fold(tree, lambda n: [] if isinstance(n, str) or is_preterminal(n) else n, bound)
    if depth <= MAX_TRAINING_DEPTH:
        return None
    return (f"tree too deep to train on: up to {depth} levels once binarized (nesting and "
            f"children per phrase add up; at most {MAX_TRAINING_DEPTH})")


def binarize(node: LexNode) -> BinNode:
    """Binarize a lexicalized tree (see the module docstring for the scheme)."""
    return fold(node, lambda n: n.children, _binarize)


def _binarize(node: LexNode, kids: list[BinNode]) -> BinNode:
    if node.word >= 0:
        return BinNode(node.label, LEAF, word=node.word)
    cur = kids[node.head]
    steps = [(True, c) for c in kids[node.head + 1 :]]
    steps += [(False, c) for c in reversed(kids[: node.head])]
    if not steps:
        return BinNode(node.label, UNARY, cur)
    last = len(steps) - 1
    for idx, (right, other) in enumerate(steps):
        label = node.label if idx == last else intermediate(node.label, right)
        if right:
            cur = BinNode(label, HEAD_LEFT, cur, other)
        else:
            cur = BinNode(label, HEAD_RIGHT, other, cur)
    return cur


def debinarize(node: BinNode) -> LexNode:
    """Exact inverse of :func:`binarize`: fold every chain back into one n-ary node."""
    return fold(node, lambda n: _unfolded(n)[0], _debinarize)


def _debinarize(node: BinNode, kids: list[LexNode]) -> LexNode:
    if node.kind == LEAF:
        return LexNode(node.label, [], 0, node.word)
    return LexNode(node.label, kids, _unfolded(node)[1], -1)


def _unfolded(node: BinNode) -> tuple[list[BinNode], int]:
    """The children of the n-ary node whose chain ``node`` tops, and its head child."""
    if node.kind == LEAF:
        return [], 0
    if node.kind == UNARY:
        return [node.left], 0
    inner = (intermediate(node.label, True), intermediate(node.label, False))
    lefts: list[BinNode] = []
    rights: list[BinNode] = []
    cur = node
    while cur.kind in (HEAD_LEFT, HEAD_RIGHT) and (cur is node or cur.label in inner):
        if cur.kind == HEAD_LEFT:
            rights.append(cur.right)
            cur = cur.left
        else:
            lefts.append(cur.left)
            cur = cur.right
    return [*lefts, cur, *reversed(rights)], len(lefts)
