"""The main view: the c-parse drawn as a tree above the words, the d-parse as arcs below,
both on the same word columns so each word lines up with its tag, its phrases and its arcs.

Phrases sit straight above their head word (head chains are vertical lines), rows are by
height so all tags share one row. Hovering or selecting a phrase lights up its head word and
the arcs inside it; dragging from a word to another word asks to re-attach it there, and so
does the keyboard (pick the word, A, arrows to the new head, Enter: the choice itself is
``controllers.reattach.HeadChoice``). The items drawn and their colours are in
``parse_items``.
"""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPolygonItem,
    QGraphicsScene,
    QGraphicsView,
)

from pad_engine.api import LexNode, edits
from pad_gui.controllers.reattach import HeadChoice
from pad_gui.parse_items import (
    CHANGED_ARC,
    DIFF,
    EDITED,
    INK,
    MUTED,
    NODE_FILL,
    TAG_FILL,
    ArcItem,
    NodeItem,
    WordItem,
)

ROW = 40.0  # vertical distance between tree rows
LEVEL = 17.0  # extra depth per nesting level of arcs
GAP = 14.0  # horizontal space between word columns
MARGIN = 16.0
CHOICE_KEYS = {Qt.Key_Left: "left", Qt.Key_Right: "right", Qt.Key_Up: "up"}
LEGIBLE_PT = 7.0  # the smallest size fitting to the width may shrink phrase labels to


class ParseScene(QGraphicsScene):
    """Draws one sentence; knows which items stand for which nodes, words and arcs.

    ``clear`` is the one place its items go: it forgets them first and says so
    (``cleared``), so that neither it nor a view ever touches an item of a cleared scene."""

    cleared = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.font = QFont()
        self.font.setPointSizeF(10)
        self.word_font = QFont(self.font)
        self.word_font.setPointSizeF(11)
        self.small = QFont(self.font)
        self.small.setPointSizeF(8.5)
        self.nodes: list[NodeItem] = []
        self.words: list[WordItem] = []
        self.arcs: list[ArcItem] = []
        self.x: list[float] = []
        self.lifted: dict[int, int] = {}
        self._choice_line: QGraphicsLineItem | None = None  # a new head being chosen

    def show_sentence(self, forms: list[str], tags: list[str], heads: list[int],
                      rels: list[str], tree: LexNode | None,
                      diff: Counter[tuple[str, int, int]], changed: set[int],
                      lifted: dict[int, int] | None = None,
                      edited: Counter[tuple[str, int, int]] | None = None) -> None:
        """Redraw everything: ``diff`` counts the brackets to mark as not in the first
        candidate and ``edited`` those the annotator's edits made (the upper ones of a
        unary chain first), ``changed`` lists the dependents whose arcs differ from the
        file, ``lifted`` maps the dependents of non-projective arcs to the heads the tree
        gives them (drawn dashed)."""
        self.lifted = lifted or {}
        self.clear()
        n = len(forms)
        wm, sm, tm = (QFontMetricsF(f) for f in (self.word_font, self.small, self.font))
        widths = [max(wm.horizontalAdvance(forms[i]), tm.horizontalAdvance(tags[i]) + 10, 24)
                  for i in range(n)]
        if tree is not None:
            for _, node in edits.phrases(tree):
                i = node.head_word()
                widths[i] = max(widths[i], tm.horizontalAdvance(node.label) + 12)
        self.x = []
        left = MARGIN
        for w in widths:
            self.x.append(left + w / 2)
            left += w + GAP
        height = _height(tree) if tree is not None else 1
        y_tags = MARGIN + 14 + (height - 1) * ROW
        y_words = y_tags + 30
        if tree is not None:
            self._draw_tree(tree, y_tags, Counter(diff), Counter(edited or {}))
        else:
            for i, tag in enumerate(tags):
                item = NodeItem(LexNode(tag, [], 0, i), (), self.font, TAG_FILL)
                item.setFlag(QGraphicsItem.ItemIsSelectable, False)
                item.setPos(self.x[i], y_tags)
                self.addItem(item)
        for i, form in enumerate(forms):
            word = WordItem(i + 1, form, self.word_font, widths[i] + GAP / 2)
            word.setPos(self.x[i], y_words)
            self.addItem(word)
            self.words.append(word)
        self._draw_arcs(heads, rels, y_words + wm.height() / 2 + 5, changed, sm)
        self.setSceneRect(self.itemsBoundingRect().adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN))

    def clear(self) -> None:
        """Remove every item, forgetting them before they go: deleting a selected item
        emits ``selectionChanged``, whose slots may walk the lists (``hover``)."""
        self.nodes, self.words, self.arcs = [], [], []
        self._choice_line = None
        self.clearSelection()
        super().clear()
        self.cleared.emit()

    def _draw_tree(self, tree: LexNode, y_tags: float, diff: Counter, edited: Counter
                   ) -> None:
        """Each phrase above its head word; org-chart edges (a bar under the phrase, a drop
        to each child) never cross: a child is the top node of its own column."""
        edge_head = QPen(INK, 1.6)
        edge = QPen(MUTED, 1.0)

        def place(node: LexNode, path: edits.Path) -> tuple[float, float]:
            if node.word >= 0:
                x, y = self.x[node.word], y_tags
                item = NodeItem(node, path, self.font, TAG_FILL)
            else:
                x, y = self.x[node.head_word()], y_tags - (_height(node) - 1) * ROW
                bracket = (node.label, *node.span())
                fill = NODE_FILL
                for counts, colour in ((edited, EDITED), (diff, DIFF)):
                    if counts[bracket] > 0:
                        counts[bracket] -= 1
                        fill = colour
                        break
                item = NodeItem(node, path, self.font, fill)
            item.setPos(x, y)
            self.addItem(item)
            self.nodes.append(item)
            if node.word >= 0:
                return x, y
            bar = y + ROW * 0.45
            kids = [place(child, (*path, i)) for i, child in enumerate(node.children)]
            self._line(x, y, x, bar, edge_head)
            self._line(min(k[0] for k in kids), bar, max(k[0] for k in kids), bar, edge)
            for i, (cx, cy) in enumerate(kids):
                self._line(cx, bar, cx, cy, edge_head if i == node.head else edge)
            return x, y

        place(tree, ())

    def _line(self, x1: float, y1: float, x2: float, y2: float, pen: QPen) -> None:
        line = QGraphicsLineItem(x1, y1, x2, y2)
        line.setPen(pen)
        line.setZValue(1)
        self.addItem(line)

    def _draw_arcs(self, heads: list[int], rels: list[str], y0: float, changed: set[int],
                   metrics: QFontMetricsF) -> None:
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
        offset: dict[int, float] = {}
        for h in set(heads) - {0}:
            for side in (-1, 1):
                deps = sorted((m for m, hh in enumerate(heads, 1) if hh == h and
                               (m - h) * side > 0), key=lambda m: abs(m - h))
                for rank, m in enumerate(deps):
                    offset[m] = side * min(3 + 2.5 * rank, 12)
        for m, h in enumerate(heads, 1):
            xm = self.x[m - 1]
            label = rels[m - 1] if rels else ""
            if h == 0:
                bottom = y0 + (deepest + 1) * LEVEL + 6
                path = QPainterPath(QPointF(xm, bottom))
                path.lineTo(xm, y0)
                self._add_arc(m, h, path, m in changed, label or "root", xm, bottom, metrics)
                continue
            xh = self.x[h - 1] + offset[m]
            depth = y0 + level[m] * LEVEL + 4
            r = min(6.0, abs(xm - xh) / 2)
            sign = 1 if xm > xh else -1
            path = QPainterPath(QPointF(xh, y0))
            path.lineTo(xh, depth - r)
            path.quadTo(xh, depth, xh + sign * r, depth)
            path.lineTo(xm - sign * r, depth)
            path.quadTo(xm, depth, xm, depth - r)
            path.lineTo(xm, y0)
            self._add_arc(m, h, path, m in changed, label, (xh + xm) / 2, depth, metrics)

    def _add_arc(self, m: int, h: int, path: QPainterPath, changed: bool, label: str,
                 lx: float, ly: float, metrics: QFontMetricsF) -> None:
        xm, top = self.x[m - 1], path.pointAtPercent(1.0).y()
        arc = ArcItem(m, h, path, changed, self.lifted.get(m, 0))
        arc.arrow = QGraphicsPolygonItem(QPolygonF([
            QPointF(xm, top), QPointF(xm - 3, top + 6), QPointF(xm + 3, top + 6)]), arc)
        arc.set_lit(False)
        self.addItem(arc)
        if label:
            w = metrics.horizontalAdvance(label) + 4
            text = self.addSimpleText(label, self.small)
            text.setPos(lx - w / 2 + 2, ly - metrics.height() / 2)
            text.setZValue(3)
            back = self.addRect(QRectF(lx - w / 2, ly - metrics.height() / 2, w,
                                       metrics.height()), QPen(Qt.NoPen), QBrush(Qt.white))
            back.setZValue(2.5)
            arc.label_item = text
            arc.set_lit(False)
        self.arcs.append(arc)

    # -- highlighting ---------------------------------------------------------------------
    def hover(self, item: NodeItem | None) -> None:
        """Light up a node's head word and the arcs inside its span (the selection's when
        the pointer leaves)."""
        if item is None:
            selected = [i for i in self.selectedItems() if isinstance(i, NodeItem)]
            item = selected[0] if len(selected) == 1 else None
        lo, hi = item.span if item else (1, 0)
        for word in self.words:
            word.set_lit(item is not None and word.index - 1 == item.head_word)
        for arc in self.arcs:
            arc.set_lit(item is not None and arc.head > 0
                        and lo <= arc.dep - 1 <= hi and lo <= arc.head - 1 <= hi)

    def selected_items(self) -> list[NodeItem]:
        return [i for i in self.selectedItems() if isinstance(i, NodeItem)]

    def selected_paths(self) -> list[edits.Path]:
        return sorted(i.path for i in self.selected_items())

    def select_path(self, path: edits.Path) -> None:
        self.clearSelection()
        for item in self.nodes:
            if item.path == path:
                item.setSelected(True)
        self.hover(None)

    def step(self, key: int, extend: bool) -> bool:
        """Move the selection with the keyboard: Up to the parent, Down to the head child,
        Left/Right to a sibling (with ``extend``, grow the run of selected siblings). False
        when nothing is selected (the key then scrolls the view)."""
        paths = self.selected_paths()
        if not paths:
            return False
        by_path = {item.path: item for item in self.nodes}
        first, last = paths[0], paths[-1]
        target = None
        if key == Qt.Key_Up and first:
            target = first[:-1]
        elif key == Qt.Key_Down and by_path[first].node.word < 0:
            target = (*first, by_path[first].node.head)
        elif key in (Qt.Key_Left, Qt.Key_Right) and first:
            edge = first if key == Qt.Key_Left else last
            target = (*edge[:-1], edge[-1] + (1 if key == Qt.Key_Right else -1))
        if target not in by_path:
            return True  # at an edge of the tree: stay (and do not scroll)
        if extend and key in (Qt.Key_Left, Qt.Key_Right):
            by_path[target].setSelected(True)
        else:
            self.select_path(target)
        self.views()[0].ensureVisible(by_path[target])
        return True

    def select_root(self) -> bool:
        """Select the top of the tree (the arrows then walk it); False without a tree."""
        if not self.nodes:
            return False
        self.select_path(())
        self.views()[0].ensureVisible(self.nodes[0])
        return True

    # -- re-attaching by keyboard -----------------------------------------------------
    def show_choice(self, choice: tuple[int, int] | None) -> None:
        """Show word ``dep`` about to be attached to word ``head`` (a dashed violet line to
        it, lit), or (None) no choice."""
        dep, head = choice or (0, 0)
        for word in self.words:
            word.target = word.index == head
            word.update()
        if choice is None or not self.words:
            if self._choice_line is not None:
                self.removeItem(self._choice_line)
                self._choice_line = None
            return
        a, b = self.words[dep - 1].pos(), self.words[head - 1].pos()
        if self._choice_line is None:
            self._choice_line = self.addLine(0, 0, 0, 0, QPen(CHANGED_ARC, 1.5, Qt.DashLine))
            self._choice_line.setZValue(5)
        self._choice_line.setLine(a.x(), a.y(), b.x(), b.y())
        self.views()[0].ensureVisible(self.words[head - 1])

    def word_at(self, pos: QPointF) -> int | None:
        for item in self.items(pos):
            if isinstance(item, WordItem):
                return item.index
        return None


class ParseView(QGraphicsView):
    """Zoom (Ctrl+wheel, actions), pan (drag the background), word-to-word drags, and
    keys that walk the tree or choose a word's new head.

    The zoom is a mode that stays from sentence to sentence: fit each sentence to the
    width (never below :data:`LEGIBLE_PT` labels: beyond that, scroll) or a fixed scale."""

    reattach_requested = Signal(int, int)  # dependent, new head (1-based)
    message = Signal(str)

    def __init__(self, scene: ParseScene, choosing: HeadChoice | None = None, parent=None):
        super().__init__(scene, parent)
        self.choosing = choosing or HeadChoice()  # a view nobody re-attaches in has its own
        self.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing)
        self.setDragMode(QGraphicsView.ScrollHandDrag)
        self.setAlignment(Qt.AlignLeft | Qt.AlignTop)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setFocusPolicy(Qt.StrongFocus)
        self.fitting = True  # fit each sentence to the width, else keep ``factor``
        self.factor = 1.0
        self._drag_from: int | None = None
        self._rubber: QGraphicsLineItem | None = None
        scene.cleared.connect(self._forget_drag)

    def _forget_drag(self) -> None:
        """The scene's items are gone: a drag in progress (and its line) with them."""
        self._drag_from = None
        self._rubber = None

    @property
    def smallest(self) -> float:
        """The scale below which phrase labels and tags are no longer legible."""
        return LEGIBLE_PT / self.scene().font.pointSizeF()

    def zoom(self, factor: float) -> None:
        scale = self.transform().m11() * factor
        if 0.1 <= scale <= 6:
            self.set_zoom(scale)

    def set_zoom(self, scale: float) -> None:
        """A fixed scale from now on (every sentence)."""
        self.fitting, self.factor = False, scale
        self.resetTransform()
        self.scale(scale, scale)

    def fit_width(self) -> None:
        """Fit every sentence to the width from now on (this one at once)."""
        self.fitting = True
        self.show_new()

    def reset_zoom(self) -> None:
        self.set_zoom(1.0)

    def show_new(self) -> None:
        """A sentence was drawn anew: apply the zoom mode, start at its top left."""
        self.resetTransform()
        if self.fitting:
            width = self.scene().sceneRect().width()
            room = self.viewport().width()
            if width > room:
                factor = max(self.smallest, room / width)
                self.scale(factor, factor)
        else:
            self.scale(self.factor, self.factor)
        self.horizontalScrollBar().setValue(0)
        self.verticalScrollBar().setValue(0)

    def start_reattach(self) -> None:
        """Edit > Re-attach Word: choose the selected node's head word's new head."""
        self.setFocus()
        items = self.scene().selected_items()
        self.message.emit(self.choosing.start(items[0].head_word + 1 if len(items) == 1
                                              else None))

    def keyPressEvent(self, event) -> None:
        scene, key = self.scene(), event.key()
        if self.choosing.choice is not None:
            if key in CHOICE_KEYS:
                self.choosing.move(CHOICE_KEYS[key])
                return
            if key in (Qt.Key_Return, Qt.Key_Enter, Qt.Key_Escape):
                dep, head = self.choosing.end()
                if key == Qt.Key_Escape:
                    self.message.emit("Re-attaching cancelled")
                else:
                    self.reattach_requested.emit(dep, head)
                return
        if key in (Qt.Key_Up, Qt.Key_Down, Qt.Key_Left, Qt.Key_Right) and \
                scene.step(key, bool(event.modifiers() & Qt.ShiftModifier)):
            return
        super().keyPressEvent(event)

    def focusOutEvent(self, event) -> None:
        moved = event.reason() in (Qt.TabFocusReason, Qt.BacktabFocusReason,
                                   Qt.MouseFocusReason)
        if moved and self.choosing.end() is not None:
            self.message.emit("Re-attaching cancelled")
        super().focusOutEvent(event)

    def wheelEvent(self, event) -> None:
        if event.modifiers() & Qt.ControlModifier:
            self.zoom(1.15 if event.angleDelta().y() > 0 else 1 / 1.15)
        else:
            super().wheelEvent(event)

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.LeftButton:
            word = self.scene().word_at(self.mapToScene(event.position().toPoint()))
            if word is not None:
                self._drag_from = word
                return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        if self._drag_from is not None:
            start = self.scene().words[self._drag_from - 1].pos()
            end = self.mapToScene(event.position().toPoint())
            if self._rubber is None:
                self._rubber = self.scene().addLine(0, 0, 0, 0, QPen(CHANGED_ARC, 1.5,
                                                                     Qt.DashLine))
                self._rubber.setZValue(5)
            self._rubber.setLine(start.x(), start.y(), end.x(), end.y())
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        if self._drag_from is not None:
            dep, self._drag_from = self._drag_from, None
            if self._rubber is not None:
                self.scene().removeItem(self._rubber)
                self._rubber = None
            head = self.scene().word_at(self.mapToScene(event.position().toPoint()))
            if head is not None and head != dep:
                self.reattach_requested.emit(dep, head)
            return
        super().mouseReleaseEvent(event)


def _height(node: LexNode) -> int:
    if node.word >= 0:
        return 1
    return 1 + max(_height(c) for c in node.children)

