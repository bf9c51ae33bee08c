"""Where the parse view puts things: the word columns, the tree's rows, the band of removed
brackets. Geometry only (widths come from the scene's font metrics): the natural layout gives
each column room for its word, tag and phrase labels; the compact one, for long sentences,
stands words, tags and relation labels on end in narrow columns and packs phrase labels row
by row, so a column widens only where a label would touch its neighbour's."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

from pad_engine.api import LexNode

Bracket = tuple[str, int, int]  # label, first word, last word (0-based, inclusive)
MARGIN = 16.0


@dataclass(frozen=True)
class Metrics:
    """What a layout needs of the fonts: text widths and the line height of each."""

    word: Callable[[str], float]
    label: Callable[[str], float]
    line: float  # line height of the words' font
    label_line: float


@dataclass(frozen=True)
class Style:
    """The numbers of one layout."""

    compact: bool
    row: float  # vertical distance between tree rows
    level: float  # extra depth per nesting level of arcs
    gap: float  # horizontal space between neighbouring boxes
    pad: float  # a phrase label's box is this much wider than its text


NATURAL = Style(False, 40.0, 17.0, 14.0, 12.0)
COMPACT = Style(True, 24.0, 9.0, 1.0, 3.0)


def height(node: LexNode, collapsed: Collection[Bracket] = ()) -> int:
    """Rows the node takes: 1 for a preterminal, 2 for a collapsed phrase."""
    if node.word >= 0:
        return 1
    if (node.label, *node.span()) in collapsed:
        return 2
    return 1 + max(height(c, collapsed) for c in node.children)


def visible(tree: LexNode, collapsed: Collection[Bracket]) -> Iterator[tuple[LexNode, bool]]:
    """The phrases drawn, top down, each with whether it is collapsed (the nodes under a
    collapsed phrase are not drawn)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.word >= 0:
            continue
        shut = (node.label, *node.span()) in collapsed
        yield node, shut
        if not shut:
            stack.extend(node.children)


def natural_columns(forms: list[str], tags: list[str], tree: LexNode | None,
                    m: Metrics, collapsed: Collection[Bracket] = ()
                    ) -> tuple[list[float], list[float]]:
    """Each column as wide as its word, its tag and the labels of the phrases it heads:
    the columns' centres and widths."""
    widths = [max(m.word(f), m.label(t) + 10, 24) for f, t in zip(forms, tags)]
    if tree is not None:
        for node, shut in visible(tree, collapsed):
            i = node.head_word()
            widths[i] = max(widths[i], m.label(node.label + (" …" if shut else "")) + 12)
    xs, left = [], MARGIN
    for w in widths:
        xs.append(left + w / 2)
        left += w + NATURAL.gap
    return xs, widths


def compact_columns(n: int, tree: LexNode | None, m: Metrics,
                    collapsed: Collection[Bracket] = ()) -> list[float]:
    """Narrow columns (a standing word's line height), pushed apart only where two boxes or
    a box and a line would share a row: each row keeps the right edge of what is in it."""
    pitch = m.label_line + 2  # standing words and tags take the labels' font
    occupied: list[dict[int, float]] = [{1: m.label_line / 2 + 0.5} for _ in range(n)]
    after: list[tuple[int, int, float]] = []  # x[j] >= x[i] + d
    if tree is not None:
        for node, shut in visible(tree, collapsed):
            lo, hi = node.span()
            row = height(node, collapsed)
            half = (m.label(node.label) + COMPACT.pad) / 2
            if shut:
                for i in range(lo, hi + 1):
                    occupied[i][row] = pitch / 2
                after.append((lo, hi, 2 * half - pitch))
                continue
            occupied[node.head_word()][row] = half
            for child in node.children:
                top = height(child, collapsed)
                for r in range(top + 1, row):
                    occupied[child.head_word()].setdefault(r, 1.5)
    edge: dict[int, float] = {}
    xs: list[float] = []
    for i in range(n):
        x = xs[-1] + pitch if xs else MARGIN + pitch / 2
        for r, half in occupied[i].items():
            if r in edge:
                x = max(x, edge[r] + half + COMPACT.gap)
        for a, b, d in after:
            if b == i:
                x = max(x, xs[a] + d)
        xs.append(x)
        for r, half in occupied[i].items():
            edge[r] = x + half
    return xs


def removed_levels(removed: Collection[Bracket]) -> list[tuple[Bracket, int]]:
    """Removed brackets stacked like the arcs: one level above every bracket inside it."""
    level: dict[Bracket, int] = {}
    for b in sorted(removed, key=lambda b: b[2] - b[1]):
        inner = [level[o] for o in level if b[1] <= o[1] and o[2] <= b[2]]
        level[b] = 1 + max(inner, default=0)
    return sorted(level.items(), key=lambda kv: (kv[0][1], kv[0][2]))
