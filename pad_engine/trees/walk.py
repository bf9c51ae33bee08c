"""Bottom-up walks without recursion, for trees of any depth.

Trees come from files and from the decoder: a Penn tree can nest hundreds of brackets deep
and a chain of dependents makes a lexicalized tree as deep as its sentence is long, deeper
than Python recurses. Every walker that needs its children's results first folds with
:func:`fold` instead of calling itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

Node = TypeVar("Node")
Result = TypeVar("Result")


def fold(root: Node, children: Callable[[Node], Iterable[Node]],
         combine: Callable[[Node, list[Result]], Result]) -> Result:
    """``combine(node, results of its children)`` for every node, children first and left to
    right (so leaves are combined in their left-to-right order); returns the root's result."""
    done: list[Result] = []
    stack: list[tuple[Node, int]] = [(root, -1)]
    while stack:
        node, count = stack.pop()
        if count < 0:
            kids = list(children(node))
            stack.append((node, len(kids)))
            stack.extend((kid, -1) for kid in reversed(kids))
        else:
            first = len(done) - count
            results = done[first:]
            del done[first:]
            done.append(combine(node, results))
    return done[0]
