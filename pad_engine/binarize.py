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

from pad_engine.lextree import LexNode

LEAF, UNARY, HEAD_LEFT, HEAD_RIGHT = 0, 1, 2, 3


@dataclass
class BinNode:
    """A node of a binarized tree. ``kind`` is LEAF, UNARY, HEAD_LEFT or HEAD_RIGHT."""

    label: str
    kind: int
    left: BinNode | None = None  # the only child of a unary node
    right: BinNode | None = None
    word: int = -1


def is_intermediate(label: str) -> bool:
    """True for the chain symbols ``@A>`` / ``@A<`` that binarization introduces."""
    return label.startswith("@") and label[-1] in "<>" and len(label) > 2


def intermediate(parent: str, side_right: bool) -> str:
    """The chain symbol of ``parent`` after an attachment on the given side."""
    return f"@{parent}{'>' if side_right else '<'}"


def binarize(node: LexNode) -> BinNode:
    """Binarize a lexicalized tree (see the module docstring for the scheme)."""
    if node.word >= 0:
        return BinNode(node.label, LEAF, word=node.word)
    cur = binarize(node.children[node.head])
    steps = [(True, c) for c in node.children[node.head + 1 :]]
    steps += [(False, c) for c in reversed(node.children[: node.head])]
    if not steps:
        return BinNode(node.label, UNARY, cur)
    last = len(steps) - 1
    for idx, (right, child) in enumerate(steps):
        label = node.label if idx == last else intermediate(node.label, right)
        other = binarize(child)
        if right:
            cur = BinNode(label, HEAD_LEFT, cur, other)
        else:
            cur = BinNode(label, HEAD_RIGHT, other, cur)
    return cur


def debinarize(node: BinNode) -> LexNode:
    """Exact inverse of :func:`binarize`: fold every chain back into one n-ary node."""
    if node.kind == LEAF:
        return LexNode(node.label, [], 0, node.word)
    if node.kind == UNARY:
        return LexNode(node.label, [debinarize(node.left)], 0, -1)
    inner = (f"@{node.label}>", f"@{node.label}<")
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
    children = [debinarize(c) for c in lefts]
    head = len(children)
    children.append(debinarize(cur))
    children.extend(debinarize(c) for c in reversed(rights))
    return LexNode(node.label, children, head, -1)
