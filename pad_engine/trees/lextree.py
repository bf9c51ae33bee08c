"""Lexicalized phrase-structure trees: every node knows its head child.

A lexicalized tree over words 0..n-1 induces the d-parse (the head word of every non-head
child depends on the head word of its head child). The decoder produces these trees, the
head rules make them from Penn trees, and the app edits them; all of them go through here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pad_engine.trees.walk import fold

if TYPE_CHECKING:  # nltk takes a second to import: keep it off the conversion path
    from nltk import Tree


@dataclass
class LexNode:
    """A node: a preterminal (``word`` >= 0, no children) or a phrase with a head child."""

    label: str
    children: list[LexNode] = field(default_factory=list)
    head: int = 0  # index of the head child (phrases only)
    word: int = -1  # word index (preterminals only)

    @property
    def is_preterminal(self) -> bool:
        return self.word >= 0

    def head_word(self) -> int:
        """Index of the word this node is headed by."""
        node = self
        while node.word < 0:
            node = node.children[node.head]
        return node.word

    def span(self) -> tuple[int, int]:
        """First and last word index covered (inclusive)."""
        left = right = self
        while left.word < 0:
            left = left.children[0]
        while right.word < 0:
            right = right.children[-1]
        return left.word, right.word

    def preterminals(self) -> list[LexNode]:
        """Preterminals left to right."""
        out: list[LexNode] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node.word >= 0:
                out.append(node)
            else:
                stack.extend(reversed(node.children))
        return out

    def copy(self) -> LexNode:
        """A deep copy (edits work on copies so that undo can keep the old tree)."""
        top = LexNode(self.label, [], self.head, self.word)
        stack = [(self, top)]
        while stack:  # iterative: a long chain of dependents makes a very deep tree
            node, twin = stack.pop()
            for child in node.children:
                copy = LexNode(child.label, [], child.head, child.word)
                twin.children.append(copy)
                stack.append((child, copy))
        return top


def induced_heads(root: LexNode, n: int) -> list[int]:
    """The d-parse the tree induces: ``heads[m]`` is the 1-based head of word m+1, 0 = root."""
    heads = [0] * n
    head_word: dict[int, int] = {}  # id(node) -> its head word, filled bottom-up
    stack = [(root, False)]
    while stack:  # iterative post-order: trees over long sentences can be very deep
        node, expanded = stack.pop()
        if node.word >= 0:
            head_word[id(node)] = node.word
        elif not expanded:
            stack.append((node, True))
            stack.extend((child, False) for child in node.children)
        else:
            words = [head_word[id(child)] for child in node.children]
            h = words[node.head]
            for i, w in enumerate(words):
                if i != node.head:
                    heads[w] = h + 1
            head_word[id(node)] = h
    return heads


def from_penn(tree: Tree, head_child: dict[tuple[int, ...], int]) -> LexNode:
    """Lexicalize an nltk tree given the head child of each phrase (by tree position).

    Leaves are numbered left to right; a preterminal is a node whose only child is a string.
    """
    counter = [0]

    def build(item: tuple[Tree, tuple[int, ...]], kids: list[LexNode]) -> LexNode:
        node, pos = item
        if is_preterminal(node):
            counter[0] += 1
            return LexNode(node.label(), [], 0, counter[0] - 1)
        return LexNode(node.label(), kids, head_child.get(pos, 0), -1)

    return fold((tree, ()), positioned, build)


class Spans:
    """Every node's span and head word, found in one walk up the tree. ``LexNode.span`` and
    ``head_word`` each walk down from their node: asked of every node of a deep tree (a
    long chain of dependents, a hostile file's nesting) they cost time quadratic in its
    depth. ``nodes``: the tree's nodes, children before their parent."""

    def __init__(self, root: LexNode) -> None:
        self.nodes: list[LexNode] = []
        self._facts: dict[int, tuple[int, int, int]] = {}

        def combine(node: LexNode, kids: list[tuple[int, int, int]]) -> tuple[int, int, int]:
            facts = (node.word, node.word, node.word) if node.word >= 0 else \
                (kids[0][0], kids[-1][1], kids[node.head][2])
            self._facts[id(node)] = facts
            self.nodes.append(node)
            return facts

        fold(root, lambda node: node.children, combine)

    def span(self, node: LexNode) -> tuple[int, int]:
        """First and last word of a node of the tree (``LexNode.span``)."""
        first, last, _ = self._facts[id(node)]
        return first, last

    def head_word(self, node: LexNode) -> int:
        """The word heading a node of the tree (``LexNode.head_word``)."""
        return self._facts[id(node)][2]


def is_preterminal(node: Tree) -> bool:
    """True for an nltk node whose only child is a word."""
    return len(node) == 1 and isinstance(node[0], str)


def penn_words(tree: Tree) -> list[str]:
    """The words of an nltk tree, left to right (``Tree.leaves`` without its recursion)."""
    words = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            words.append(node)
        else:
            stack.extend(reversed(node))
    return words


def positioned(item: tuple[Tree, tuple[int, ...]]) -> list[tuple[Tree, tuple[int, ...]]]:
    """The children of an nltk node (none for a preterminal), with their tree positions:
    the ``children`` of a :func:`~pad_engine.trees.walk.fold` over ``(tree, ())``."""
    node, pos = item
    if is_preterminal(node):
        return []
    return [(child, (*pos, i)) for i, child in enumerate(node)]


# What a Penn line cannot carry: white space splits a leaf, and a control character (a NUL
# ends the line for C tools such as EVALB) is no text at all
_UNCARRIED = r"\s\x00-\x1f\x7f-\x9f"
_SPECIAL = re.compile(f"[(){_UNCARRIED}]")
_SPACE = re.compile(f"[{_UNCARRIED}]")


def escape_word(word: str) -> str:
    """A word or tag as a Penn line must write it, which pad's Penn reader reads back as one
    leaf: brackets would break the bracketing, so they are escaped the treebank way
    (``-LRB-``/``-RRB-``); white space and control characters cannot be carried and
    become "_"."""
    if _SPECIAL.search(word) is None:
        return word
    return _SPACE.sub("_", word.replace("(", "-LRB-").replace(")", "-RRB-"))


def penn_leaf(tag: str, word: str) -> str:
    """A preterminal as a Penn line writes it."""
    return f"({escape_word(tag)} {escape_word(word)})"


def to_line(root: LexNode, forms: list[str], tags: list[str] | None = None) -> str:
    """One-line Penn bracketing, built directly (this is on the conversion hot path)."""
    parts: list[str] = []
    stack: list[LexNode | str] = [root]
    while stack:  # iterative: trees over long sentences can be deeper than Python recurses
        node = stack.pop()
        if isinstance(node, str):
            parts.append(node)
        elif node.word >= 0:
            tag = tags[node.word] if tags is not None else node.label
            parts.append(penn_leaf(tag, forms[node.word]))
        else:
            parts.append(f"({node.label}")
            stack.append(")")
            for child in reversed(node.children):
                stack.append(child)
                stack.append(" ")
    return "".join(parts)


_STRIPPED: dict[str, str] = {}


def strip_label(label: str) -> str:
    """A phrase label without function tags and indices: ``NP-SBJ-1`` -> ``NP``.

    Labels that start with "-" (``-NONE-``, ``-LRB-``, ``-RRB-``...) are returned unchanged.
    """
    cut = _STRIPPED.get(label)
    if cut is None:
        cut = label
        if not label.startswith("-"):
            for i, ch in enumerate(label):
                if ch in "-=" and i > 0:
                    cut = label[:i]
                    break
        _STRIPPED[label] = cut
    return cut
