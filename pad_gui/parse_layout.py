"""Where the parse view puts things: the word columns, the tree's rows, the band of removed
brackets. Geometry only (widths come from the scene's font metrics): the natural layout gives
each column room for its word, tag and phrase labels; the compact one, for long sentences,
stands words, tags and relation labels on end in narrow columns and packs phrase labels row
by row, so a column widens only where a label would touch its neighbour's."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import TypeVar

from pad_engine.api import LexNode, Spans

Bracket = tuple[str, int, int]  # label, first word, last word (0-based, inclusive)
MARGIN = 16.0
K = TypeVar("K")
MOST_DRAWN = 3000  # nodes of a tree drawn at first (a 400-word sentence has about 1,000)


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


class Shape:
    """What a layout reads of every node of a tree, found in one walk up it: its span and
    head word (``Spans``) and the rows it takes, 1 for a preterminal, 2 for a
    collapsed phrase (asked node by node, each would walk down the tree again: quadratic
    in the depth of a long chain of dependents, and recursion too deep for Python)."""

    def __init__(self, tree: LexNode, collapsed: Collection[Bracket] = ()) -> None:
        self.tree = tree
        self.spans = Spans(tree)
        self._rows: dict[int, int] = {}
        self._shut: set[int] = set()
        for node in self.spans.nodes:  # children first
            if node.word >= 0:
                rows = 1
            elif (node.label, *self.spans.span(node)) in collapsed:
                rows = 2
                self._shut.add(id(node))
            else:
                rows = 1 + max(self._rows[id(c)] for c in node.children)
            self._rows[id(node)] = rows

    def rows(self, node: LexNode) -> int:
        return self._rows[id(node)]

    def shut(self, node: LexNode) -> bool:
        """Whether the phrase is collapsed."""
        return id(node) in self._shut

    def visible(self) -> Iterator[tuple[LexNode, bool]]:
        """The phrases drawn, top down, each with whether it is collapsed (the nodes under a
        collapsed phrase are not drawn)."""
        stack = [self.tree]
        while stack:
            node = stack.pop()
            if node.word >= 0:
                continue
            shut = self.shut(node)
            yield node, shut
            if not shut:
                stack.extend(node.children)


def beyond(tree: LexNode, most: int = MOST_DRAWN) -> set[Bracket]:
    """The phrases to collapse so that at most about ``most`` nodes are drawn: taken top
    down, breadth first, a phrase whose children no longer fit stays collapsed (its words
    shown; the annotator can open it). A tree nested thousands of levels deep or a sentence
    of thousands of words otherwise takes minutes to draw and to clear from the scene."""
    spans = Spans(tree)
    out: set[Bracket] = set()
    drawn = 1
    queue = deque([tree])
    while queue:
        node = queue.popleft()
        if node.word >= 0:
            continue
        if drawn + len(node.children) > most:
            out.add((node.label, *spans.span(node)))
            continue
        drawn += len(node.children)
        queue.extend(node.children)
    return out


def natural_columns(forms: list[str], tags: list[str], shape: Shape | None, m: Metrics
                    ) -> tuple[list[float], list[float]]:
    """Each column as wide as its word, its tag and the labels of the phrases it heads:
    the columns' centres and widths."""
    widths = [max(m.word(f), m.label(t) + 10, 24) for f, t in zip(forms, tags)]
    if shape is not None:
        for node, shut in shape.visible():
            i = shape.spans.head_word(node)
            widths[i] = max(widths[i], m.label(node.label + (" …" if shut else "")) + 12)
    xs, left = [], MARGIN
    for w in widths:
        xs.append(left + w / 2)
        left += w + NATURAL.gap
    return xs, widths


def compact_columns(n: int, shape: Shape | None, m: Metrics) -> list[float]:
    """Narrow columns (a standing word's line height), pushed apart only where two boxes or
    a box and a line would share a row: each row keeps the right edge of what is in it."""
    pitch = m.label_line + 2  # standing words and tags take the labels' font
    occupied: list[dict[int, float]] = [{1: m.label_line / 2 + 0.5} for _ in range(n)]
    after: dict[int, list[tuple[int, float]]] = {}  # x[j] >= x[i] + d, by j
    if shape is not None:
        for node, shut in shape.visible():
            lo, hi = shape.spans.span(node)
            row = shape.rows(node)
            half = (m.label(node.label) + COMPACT.pad) / 2
            if shut:
                for i in range(lo, hi + 1):
                    occupied[i][row] = pitch / 2
                after.setdefault(hi, []).append((lo, 2 * half - pitch))
                continue
            occupied[shape.spans.head_word(node)][row] = half
            for child in node.children:
                top = shape.rows(child)
                for r in range(top + 1, row):
                    occupied[shape.spans.head_word(child)].setdefault(r, 1.5)
    edge: dict[int, float] = {}
    xs: list[float] = []
    for i in range(n):
        x = xs[-1] + pitch if xs else MARGIN + pitch / 2
        for r, half in occupied[i].items():
            if r in edge:
                x = max(x, edge[r] + half + COMPACT.gap)
        for a, d in after.get(i, ()):
            x = max(x, xs[a] + d)
        xs.append(x)
        for r, half in occupied[i].items():
            edge[r] = x + half
    return xs


def removed_levels(removed: Collection[Bracket]) -> list[tuple[Bracket, int]]:
    """Removed brackets stacked like the arcs: one level above every bracket inside it (two
    of one span, one above the other), left to right."""
    level = nest_levels({b: (b[1], b[2]) for b in removed}, stack_same=True)
    return sorted(level.items(), key=lambda kv: (kv[0][1], kv[0][2]))


def nest_levels(spans: dict[K, tuple[int, int]], stack_same: bool = False) -> dict[K, int]:
    """Each span's level (``spans``: key -> first and last word, 0-based): 1 + the deepest
    of the spans within it; spans equal to it are not counted, or with ``stack_same`` stand
    one above the other (in key order). Spans come by first word from the right, then by
    last word from the left, so every span within one is placed before it, and the deepest
    of them is a maximum over the last words so far (a Fenwick tree): n log n, where
    comparing every pair took seconds for a sentence of thousands of words (its arcs, or a
    candidate's removed brackets)."""
    n = 1 + max((hi for _, hi in spans.values()), default=0)
    best = [0] * (n + 1)  # Fenwick tree of maxima, indexed by last word + 1
    level: dict[K, int] = {}
    order = sorted(spans, key=lambda k: (-spans[k][0], spans[k][1], k))
    start = 0
    while start < len(order):
        span = spans[order[start]]
        end = start
        while end < len(order) and spans[order[end]] == span:
            end += 1
        deepest, i = 0, span[1] + 1
        while i > 0:
            deepest = max(deepest, best[i])
            i -= i & -i
        for rank, key in enumerate(order[start:end]):
            level[key] = deepest + 1 + (rank if stack_same else 0)
        top, i = level[order[end - 1]], span[1] + 1
        while i <= n:
            best[i] = max(best[i], top)
            i += i & -i
        start = end
    return level
