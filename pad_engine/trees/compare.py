"""Candidates side by side: which differ in what an annotator sees, and how, in words.

A unary chain of one label (NP over NP over the same words) adds no labeled bracket an
annotator or EVALB can tell apart, yet a plain k-best list is mostly such variants of one
tree. :func:`merged_brackets` is a tree's bracketing with those chains merged: two trees with
the same are one candidate (the decoder's distinct k-best keeps one tree of each already,
``Parser.kbest(distinct=True)``; :func:`distinct` also merges chains whose labels differ only
in order). :func:`describe` says what a candidate changes against the
first, so the list reads "ADVP attaches to S, not VP" instead of "+1 / -1".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

from pad_engine.trees.lextree import LexNode, Spans

Bracket = tuple[str, int, int]  # label, first word, last word (0-based, inclusive)
T = TypeVar("T")


def _walk(root: LexNode) -> dict[Bracket, tuple[Bracket | None, bool]]:
    """Every phrase's bracket with its parent's and whether it heads its parent, a
    same-label unary chain counted once (its nodes share one bracket, and the chain's top
    is the one whose parent and headedness count)."""
    out: dict[Bracket, tuple[Bracket | None, bool]] = {}
    spans = Spans(root)
    stack: list[tuple[LexNode, Bracket | None, bool]] = [(root, None, True)]
    while stack:
        node, parent, heads = stack.pop()
        if node.word >= 0:
            continue
        bracket = (node.label, *spans.span(node))
        if bracket != parent:
            out.setdefault(bracket, (parent, heads))
        else:  # the inner node of a chain: its bracket is its parent's
            bracket = parent
        stack.extend((child, bracket, i == node.head)
                     for i, child in reversed(list(enumerate(node.children))))
    return out


def merged_brackets(root: LexNode) -> frozenset[Bracket]:
    """The labeled brackets of ``root``'s phrases, unary chains of one label merged."""
    return frozenset(_walk(root))


def distinct(items: Iterable[T], tree_of, k: int) -> list[T]:
    """The first ``k`` of ``items`` whose trees (``tree_of(item)``) differ in their merged
    brackets from every earlier one: the order (best first) is kept."""
    seen: set[frozenset[Bracket]] = set()
    out: list[T] = []
    for item in items:
        key = merged_brackets(tree_of(item))
        if key in seen:
            continue
        seen.add(key)
        out.append(item)
        if len(out) == k:
            break
    return out


def removed_brackets(first: LexNode, other: LexNode) -> set[Bracket]:
    """The brackets of ``first`` that ``other`` lacks (chains merged): what to draw as
    removed when ``other`` is shown against the first candidate."""
    return set(merged_brackets(first) - merged_brackets(other))


def _words(forms: Sequence[str], bracket: Bracket) -> str:
    _, i, j = bracket
    words = list(forms[i:j + 1])
    return "'" + (" ".join(words) if len(words) <= 4
                  else " ".join(words[:2]) + " ... " + words[-1]) + "'"


def describe(first: LexNode, other: LexNode, forms: Sequence[str], most: int = 2) -> str:
    """What ``other`` changes against ``first``, in words, the most telling ``most`` first:
    a phrase found in both that hangs under another label ("PP attaches to VP, not NP"), a
    span labeled differently ("'in the area' is ADVP, not PP"), then phrases added and
    removed. Empty when the two have the same merged brackets."""
    a, b = _walk(first), _walk(other)
    added = [x for x in b if x not in a]
    removed = [x for x in a if x not in b]
    said: list[str] = []
    for bracket, (parent, heads) in b.items():
        old = a[bracket][0] if bracket in a else None
        # a phrase moved when it leaves a parent that is still there for one that spans
        # other words, and does not head it (else the new parent grew around it)
        if (old and parent and old in b and not heads and old[0] != parent[0]
                and old[1:] != parent[1:]):
            said.append(f"{bracket[0]} {_words(forms, bracket)} attaches to {parent[0]}, "
                        f"not {old[0]}")
    spans_removed = {(i, j): label for label, i, j in removed}
    for label, i, j in added:
        if (i, j) in spans_removed and spans_removed[(i, j)] != label:
            said.append(f"{_words(forms, (label, i, j))} is {label}, "
                        f"not {spans_removed[(i, j)]}")
    relabeled = {(i, j) for label, i, j in added if (i, j) in spans_removed}
    said += [f"adds {x[0]} over {_words(forms, x)}" for x in added if x[1:] not in relabeled]
    said += [f"drops {x[0]} over {_words(forms, x)}" for x in removed
             if x[1:] not in relabeled]
    if not said:
        return ""
    more = len(said) - most
    return "; ".join(said[:most]) + (f"; {more} more change{'s' * (more > 1)}" if more > 0
                                     else "")
