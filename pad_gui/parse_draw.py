"""Drawing one sentence into the parse scene on columns the layout chose: the tree above
the words, the removed brackets of candidate 1 under the tags, the arcs below the words."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QFont, QFontMetricsF, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPolygonItem,
    QGraphicsScene,
)

from pad_engine.api import LexNode, edits
from pad_gui.parse_items import (
    DIFF,
    EDITED,
    INK,
    MUTED,
    NODE_FILL,
    TAG_FILL,
    ArcItem,
    NodeItem,
    RemovedItem,
)
from pad_gui.parse_layout import Bracket, Style, height, removed_levels

REMOVED_ROW = 14.0  # vertical distance between stacked removed brackets


def draw_tree(scene, tree: LexNode, xs: list[float], y_tags: float, style: Style,
              forms: list[str], diff: Counter, edited: Counter,
              collapsed: Collection[Bracket]) -> list[NodeItem]:
    """Each phrase above its head word (a collapsed one over its words, just above the
    tags); org-chart edges (a bar under the phrase, a drop to each child) never cross: a
    child is the top node of its own column."""
    edge_head = QPen(INK, 1.6)
    edge = QPen(MUTED, 1.0)
    nodes: list[NodeItem] = []
    pad = style.pad

    def place(node: LexNode, path: edits.Path) -> tuple[float, float]:
        bracket = (node.label, *node.span())
        shut = node.word < 0 and bracket in collapsed
        if node.word >= 0:
            x, y = xs[node.word], y_tags
            item = NodeItem(node, path, scene.font, TAG_FILL, standing=style.compact)
        else:
            x, y = xs[node.head_word()], y_tags - (height(node, collapsed) - 1) * style.row
            fill = NODE_FILL
            for counts, colour in ((edited, EDITED), (diff, DIFF)):
                if counts[bracket] > 0:
                    counts[bracket] -= 1
                    fill = colour
                    break
            if shut:
                lo, hi = node.span()
                x = (xs[lo] + xs[hi]) / 2
                width = xs[hi] - xs[lo] + (xs[1] - xs[0] if len(xs) > 1 else 40)
                item = NodeItem(node, path, scene.font, fill,
                                words=" ".join(forms[lo:hi + 1]), width=width, pad=pad)
            else:
                item = NodeItem(node, path, scene.font, fill, pad=pad)
        item.setPos(x, y)
        scene.addItem(item)
        nodes.append(item)
        if node.word >= 0 or shut:
            return x, y - item.rect.height() / 2
        bar = y + style.row * 0.45
        kids = [place(child, (*path, i)) for i, child in enumerate(node.children)]
        line(scene, x, y, x, bar, edge_head)
        line(scene, min(k[0] for k in kids), bar, max(k[0] for k in kids), bar, edge)
        for i, (cx, cy) in enumerate(kids):
            line(scene, cx, bar, cx, cy, edge_head if i == node.head else edge)
        return x, y - item.rect.height() / 2

    place(tree, ())
    return nodes


def draw_tags(scene, tags: list[str], xs: list[float], y_tags: float, style: Style) -> None:
    """The tags alone, for a sentence without a tree."""
    for i, tag in enumerate(tags):
        item = NodeItem(LexNode(tag, [], 0, i), (), scene.font, TAG_FILL, standing=style.compact)
        item.setFlag(QGraphicsItem.ItemIsSelectable, False)
        item.setPos(xs[i], y_tags)
        scene.addItem(item)


def line(scene: QGraphicsScene, x1: float, y1: float, x2: float, y2: float, pen: QPen
         ) -> None:
    item = QGraphicsLineItem(x1, y1, x2, y2)
    item.setPen(pen)
    item.setZValue(1)
    scene.addItem(item)


def draw_removed(scene: QGraphicsScene, removed: Collection[Bracket], xs: list[float],
                 top: float, font: QFont) -> tuple[list[RemovedItem], float]:
    """The removed brackets stacked below ``top``; returns them and the band's height."""
    items: list[RemovedItem] = []
    half = (xs[1] - xs[0]) / 2 - 1 if len(xs) > 1 else 10.0
    deepest = 0
    for bracket, level in removed_levels(removed):
        item = RemovedItem(bracket, xs[bracket[1]] - half, xs[bracket[2]] + half, font)
        item.setPos(0, top + level * REMOVED_ROW)
        scene.addItem(item)
        items.append(item)
        deepest = max(deepest, level)
    return items, deepest * REMOVED_ROW + (6 if deepest else 0)


def draw_arcs(scene, heads: list[int], rels: list[str], xs: list[float], y0: float,
              changed: set[int], lifted: dict[int, int], font: QFont, style: Style
              ) -> list[ArcItem]:
    """The arcs below the words (nested arcs deeper), each labelled on its bottom or, in
    the compact layout, with its label standing under the dependent."""
    metrics = QFontMetricsF(font)
    if style.compact and rels:
        length = max(metrics.horizontalAdvance(r) for r in rels) + 6
        y_labels, y0 = y0, y0 + length
    spans = {m: tuple(sorted((h - 1, m - 1))) for m, h in enumerate(heads, 1) if h > 0}
    level: dict[int, int] = {}
    for m in sorted(spans, key=lambda m: spans[m][1] - spans[m][0]):
        lo, hi = spans[m]
        inner = [level[k] for k in level
                 if lo <= spans[k][0] and spans[k][1] <= hi and spans[k] != (lo, hi)]
        level[m] = 1 + max(inner, default=0)
    deepest = max(level.values(), default=0)
    # Arcs leaving one head fan out a little (nearest dependent innermost), so their
    # vertical strokes stay apart.
    spread = 12.0 if not style.compact else max(2.0, (xs[1] - xs[0]) / 2 - 2 if len(xs) > 1
                                                else 2.0)
    offset: dict[int, float] = {}
    for h in set(heads) - {0}:
        for side in (-1, 1):
            deps = sorted((m for m, hh in enumerate(heads, 1) if hh == h and
                           (m - h) * side > 0), key=lambda m: abs(m - h))
            for rank, m in enumerate(deps):
                offset[m] = side * min(3 + 2.5 * rank, spread)
    arcs = []
    for m, h in enumerate(heads, 1):
        xm = xs[m - 1]
        label = rels[m - 1] if rels else ""
        if h == 0:
            label = label or "root"
            bottom = y0 + (deepest + 1) * style.level + 6
            path = QPainterPath(QPointF(xm, bottom))
            path.lineTo(xm, y0)
            lx, ly = xm, bottom
        else:
            xh = xs[h - 1] + offset[m]
            depth = y0 + level[m] * style.level + 4
            r = min(6.0, abs(xm - xh) / 2)
            sign = 1 if xm > xh else -1
            path = QPainterPath(QPointF(xh, y0))
            path.lineTo(xh, depth - r)
            path.quadTo(xh, depth, xh + sign * r, depth)
            path.lineTo(xm - sign * r, depth)
            path.quadTo(xm, depth, xm, depth - r)
            path.lineTo(xm, y0)
            lx, ly = (xh + xm) / 2, depth
        arc = _arc(scene, m, h, path, m in changed, lifted.get(m, 0), xm)
        if label and style.compact:
            text = scene.addSimpleText(label, font)
            text.setRotation(-90)
            text.setPos(xm - metrics.height() / 2, y_labels + metrics.horizontalAdvance(label))
            arc.label_item = text
        elif label:
            _label(scene, arc, label, lx, ly, font)
        arc.set_lit(False)
        arcs.append(arc)
    return arcs


def _arc(scene, m: int, h: int, path: QPainterPath, changed: bool, lifted_to: int,
         xm: float) -> ArcItem:
    top = path.pointAtPercent(1.0).y()
    arc = ArcItem(m, h, path, changed, lifted_to)
    arc.arrow = QGraphicsPolygonItem(QPolygonF([
        QPointF(xm, top), QPointF(xm - 3, top + 6), QPointF(xm + 3, top + 6)]), arc)
    scene.addItem(arc)
    return arc


def _label(scene, arc: ArcItem, label: str, lx: float, ly: float, font: QFont) -> None:
    metrics = QFontMetricsF(font)
    w = metrics.horizontalAdvance(label) + 4
    text = scene.addSimpleText(label, font)
    text.setPos(lx - w / 2 + 2, ly - metrics.height() / 2)
    text.setZValue(3)
    back = scene.addRect(QRectF(lx - w / 2, ly - metrics.height() / 2, w, metrics.height()),
                         QPen(Qt.NoPen), QBrush(Qt.white))
    back.setZValue(2.5)
    arc.label_item = text
