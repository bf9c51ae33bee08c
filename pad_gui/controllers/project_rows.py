"""What a project's rows hold, read as untrusted input: a sentence's saved state checked
against the sentence it belongs to, and trees as flat JSON (a project file travels, and a
tree over a long sentence nests thousands of levels deep)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from pad_engine.api import LexNode

MACHINE = "machine"
CORRECTED = "corrected"
STATUSES = (MACHINE, CORRECTED)


@dataclass
class SavedSentence:
    """What the project remembers about one sentence."""

    status: str
    chosen: int
    heads: list[int] | None
    tree: LexNode | None
    seconds: float
    kept: LexNode | None = None  # the picked candidate a corrected sentence was accepted with


# -- trees: a flat pre-order list, written and read without recursion ---------------------
def tree_to_json(node: LexNode) -> list:
    """A flat pre-order form: ``[label, word]`` for a preterminal, ``[label, head, kids]``
    for a phrase. Flat, because a tree over a long sentence can be thousands of levels deep
    and nested JSON that deep cannot be read back."""
    out: list = []
    stack = [node]
    while stack:
        n = stack.pop()
        out.append([n.label, n.word] if n.word >= 0 else [n.label, n.head, len(n.children)])
        stack.extend(reversed(n.children))
    return out


def tree_from_json(data: object, n: int | None = None) -> LexNode:
    """Inverse of :func:`tree_to_json` (also reads version 1's nested form); ValueError
    unless it is a tree over words 0..n-1 in order (when ``n`` is given)."""
    items = _flatten_nested(data) if _is_nested(data) else data
    if not isinstance(items, list) or not items:
        raise ValueError("not a stored tree")
    root: LexNode | None = None
    open_nodes: list[list] = []  # [node, children still to come]
    for item in items:
        node, kids = _node(item)
        if root is None:
            root = node
        elif not open_nodes:
            raise ValueError("a stored tree has nodes after its root is complete")
        else:
            open_nodes[-1][0].children.append(node)
            open_nodes[-1][1] -= 1
            if open_nodes[-1][1] == 0:
                open_nodes.pop()
        if kids:
            open_nodes.append([node, kids])
        while open_nodes and open_nodes[-1][1] == 0:
            open_nodes.pop()
    if open_nodes or root is None:
        raise ValueError("a stored tree is cut short")
    words = [p.word for p in root.preterminals()]
    if n is not None and words != list(range(n)):
        raise ValueError(f"a stored tree covers words {words[:8]}…, not the sentence's {n}")
    return root


def _node(item: object) -> tuple[LexNode, int]:
    if not isinstance(item, list) or len(item) not in (2, 3) or not isinstance(item[0], str):
        raise ValueError(f"not a stored tree node: {str(item)[:40]}")
    if not all(is_int(v) for v in item[1:]):
        raise ValueError(f"a stored tree node has a non-integer field: {str(item)[:40]}")
    if len(item) == 2:
        if item[1] < 0:
            raise ValueError(f"a word index is negative: {item[1]}")
        return LexNode(item[0], [], 0, item[1]), 0
    label, head, kids = item
    if not 0 <= head < kids:
        raise ValueError(f"a phrase has head child {head} of {kids} children")
    return LexNode(label, [], head, -1), kids


def _is_nested(data: object) -> bool:
    return isinstance(data, list) and bool(data) and isinstance(data[0], str)


def _flatten_nested(data: object) -> list:
    """Version 1's nested ``[label, word]`` / ``[label, head, [kids]]`` as the flat form."""
    out, stack = [], [data]
    while stack:
        item = stack.pop()
        if isinstance(item, list) and len(item) == 3 and isinstance(item[2], list):
            out.append([item[0], item[1], len(item[2])])
            stack.extend(reversed(item[2]))
        else:
            out.append(item)
    return out


def is_int(v: object) -> bool:
    """An int that is not a bool (JSON and SQLite hand both)."""
    return isinstance(v, int) and not isinstance(v, bool)


def saved_sentence(fields: Sequence[object], n: int) -> SavedSentence:
    """A row's status, chosen, heads, tree, penn, seconds and kept, checked against a
    sentence of ``n`` words (ValueError/TypeError naming what is wrong)."""
    status, chosen, heads, tree, _, seconds, kept = fields
    if status not in STATUSES:
        raise ValueError(f"status {str(status)[:20]!r}")
    if not is_int(chosen) or chosen < 0:
        raise ValueError(f"candidate {str(chosen)[:20]!r}")
    if not isinstance(seconds, (int, float)) or not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"seconds {str(seconds)[:20]!r}")
    parsed = _json(heads)
    if parsed is not None and (not isinstance(parsed, list) or len(parsed) != n or not all(
            is_int(h) and 0 <= h <= n for h in parsed)):
        raise ValueError(f"heads {str(heads)[:40]!r} do not fit a sentence of {n} words")
    return SavedSentence(status, chosen, parsed, _tree(tree, n), float(seconds), _tree(kept, n))


def _json(text: object) -> object:
    if text is None:
        return None
    if not isinstance(text, str):
        raise TypeError(f"a {type(text).__name__} where JSON text belongs")
    return json.loads(text)


def _tree(text: object, n: int) -> LexNode | None:
    data = _json(text)
    return tree_from_json(data, n) if data is not None else None


def tree_text(tree: LexNode | None) -> str | None:
    return json.dumps(tree_to_json(tree)) if tree is not None else None
