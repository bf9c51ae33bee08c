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

from pad_engine.api import LexNode
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
from pad_gui.parse_layout import Bracket, Shape, Style, nest_levels, removed_levels

REMOVED_ROW = 14.0  # vertical distance between stacked removed brackets


def draw_tree(scene, shape: Shape, xs: list[float], y_tags: float, style: Style,
              forms: list[str], diff: Counter, edited: Counter) -> list[NodeItem]:
    """Each phrase above its head word (a collapsed one over its words, just above the
    tags); org-chart edges (a bar under the phrase, a drop to each child) never cross: a
    child is the top node of its own column. The nodes come top down (pre-order), their
    edges once all are placed: no walk recurses, however deep the tree."""
    nodes: list[NodeItem] = []
    stack: list[tuple[LexNode, NodeItem | None, int]] = [(shape.tree, None, 0)]
    while stack:
        node, up, index = stack.pop()
        item = _node_item(scene, shape, node, up, index, xs, y_tags, style, forms, diff,
                          edited)
        nodes.append(item)
        if node.word < 0 and not item.collapsed:
            stack.extend((node.children[i], item, i)
                         for i in range(len(node.children) - 1, -1, -1))
    edge_head = QPen(INK, 1.6)
    edge = QPen(MUTED, 1.0)
    for item in nodes:
        if not item.kids:
            continue
        x, y = item.pos().x(), item.pos().y()
        bar = y + style.row * 0.45
        kids = [(k.pos().x(), k.pos().y() - k.rect.height() / 2) for k in item.kids]
        line(scene, x, y, x, bar, edge_head)
        line(scene, min(k[0] for k in kids), bar, max(k[0] for k in kids), bar, edge)
        for i, (cx, cy) in enumerate(kids):
            line(scene, cx, bar, cx, cy, edge_head if i == item.node.head else edge)
    return nodes


def _node_item(scene, shape: Shape, node: LexNode, up: NodeItem | None, index: int,
               xs: list[float], y_tags: float, style: Style, forms: list[str],
               diff: Counter, edited: Counter) -> NodeItem:
    """One node's item, placed and added to the scene (a phrase coloured by the first of
    ``edited`` and ``diff`` that still counts its bracket)."""
    lo, hi = span = shape.spans.span(node)
    head = shape.spans.head_word(node)
    where = {"up": up, "index": index, "span": span, "head_word": head}
    if node.word >= 0:
        x, y = xs[node.word], y_tags
        item = NodeItem(node, scene.font, TAG_FILL, standing=style.compact, **where)
    else:
        bracket = (node.label, lo, hi)
        x, y = xs[head], y_tags - (shape.rows(node) - 1) * style.row
        fill = NODE_FILL
        for counts, colour in ((edited, EDITED), (diff, DIFF)):
            if counts[bracket] > 0:
                counts[bracket] -= 1
                fill = colour
                break
        if shape.shut(node):
            x = (xs[lo] + xs[hi]) / 2
            width = xs[hi] - xs[lo] + (xs[1] - xs[0] if len(xs) > 1 else 40)
            item = NodeItem(node, scene.font, fill, words=" ".join(forms[lo:hi + 1]),
                            width=width, pad=style.pad, **where)
        else:
            item = NodeItem(node, scene.font, fill, pad=style.pad, **where)
    item.setPos(x, y)
    scene.addItem(item)
    return item


def draw_tags(scene, tags: list[str], xs: list[float], y_tags: float, style: Style) -> None:
    """The tags alone, for a sentence without a tree."""
    for i, tag in enumerate(tags):
        item = NodeItem(LexNode(tag, [], 0, i), scene.font, TAG_FILL, span=(i, i), head_word=i,
                        standing=style.compact)
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
    spans = {m: (min(h, m) - 1, max(h, m) - 1) for m, h in enumerate(heads, 1) if h > 0}
    level = nest_levels(spans)
    deepest = max(level.values(), default=0)
    # Arcs leaving one head fan out a little (nearest dependent innermost), so their
    # vertical strokes stay apart.
    spread = 12.0 if not style.compact else max(2.0, (xs[1] - xs[0]) / 2 - 2 if len(xs) > 1
                                                else 2.0)
    offset: dict[int, float] = {}
    sides: dict[tuple[int, int], list[int]] = {}
    for m, h in enumerate(heads, 1):
        if h > 0:
            sides.setdefault((h, 1 if m > h else -1), []).append(m)
    for (h, side), deps in sides.items():
        for rank, m in enumerate(sorted(deps, key=lambda m: abs(m - h))):
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
