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
from collections.abc import Collection

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QFont, QFontMetricsF, QIntValidator, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsScene,
    QGraphicsView,
    QLineEdit,
)

from pad_engine.api import LexNode, edits
from pad_gui.controllers.reattach import HeadChoice
from pad_gui.parse_draw import draw_arcs, draw_removed, draw_tags, draw_tree
from pad_gui.parse_items import CHANGED_ARC, ArcItem, NodeItem, RemovedItem, WordItem
from pad_gui.parse_layout import (
    COMPACT,
    MARGIN,
    NATURAL,
    Bracket,
    Metrics,
    Shape,
    beyond,
    compact_columns,
    natural_columns,
)

GAP = NATURAL.gap
STANDING_WORD = 120.0  # a standing word longer than this is elided (its tooltip has it)
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
        self.removed: list[RemovedItem] = []
        self.x: list[float] = []
        self.lifted: dict[int, int] = {}
        self.compact = False  # narrow columns, words standing (the view decides)
        self.collapsed: set[Bracket] = set()  # phrases drawn as one node with their words
        self.shown: tuple = ([],) + (None,) * 9  # show_sentence's arguments, to redraw
        self._choice_line: QGraphicsLineItem | None = None  # a new head being chosen

    def show_sentence(self, forms: list[str], tags: list[str], heads: list[int],
                      rels: list[str], tree: LexNode | None,
                      diff: Counter[tuple[str, int, int]], changed: set[int],
                      lifted: dict[int, int] | None = None,
                      edited: Counter[tuple[str, int, int]] | None = None,
                      removed: Collection[Bracket] = ()) -> None:
        """Redraw everything: ``diff`` counts the brackets to mark as not in the first
        candidate and ``edited`` those the annotator's edits made (the upper ones of a
        unary chain first), ``removed`` the first candidate's brackets this tree lacks,
        ``changed`` lists the dependents whose arcs differ from the file, ``lifted`` maps
        the dependents of non-projective arcs to the heads the tree gives them (drawn
        dashed). Phrases collapsed stay so while the sentence is the same; a new one comes
        with those of a huge tree collapsed (``parse_layout.beyond``), as does its first
        tree."""
        if forms != self.shown[0]:
            self.collapsed = set()
        if tree is not None and (forms != self.shown[0] or self.shown[4] is None):
            self.collapsed |= beyond(tree)
        self.shown = (forms, tags, heads, rels, tree, diff, changed, lifted or {},
                      edited or Counter(), set(removed))
        self._draw()

    def set_compact(self, compact: bool) -> None:
        """Draw long sentences in narrow columns (words standing), or each column as wide
        as what it holds."""
        if compact != self.compact:
            self.compact = compact
            self._draw()

    def natural_width(self) -> float:
        """How wide the sentence is in the natural layout (fitting decides on it)."""
        forms, tags, _, _, tree, *_ = self.shown
        if not forms:
            return 0.0
        shape = Shape(tree, self.collapsed) if tree is not None else None
        xs, widths = natural_columns(forms, tags, shape, self._metrics())
        return xs[-1] + widths[-1] / 2 + MARGIN * 2

    def toggle_collapsed(self, item: NodeItem) -> None:
        """Collapse a phrase to one node showing its words, or expand it again."""
        if item.node.word >= 0:
            return
        bracket = (item.node.label, *item.span)
        self.collapsed.symmetric_difference_update({bracket})
        path = item.path
        self._draw()
        self.select_path(path)

    def _metrics(self) -> Metrics:
        wm, lm = QFontMetricsF(self.word_font), QFontMetricsF(self.font)
        return Metrics(wm.horizontalAdvance, lm.horizontalAdvance, wm.height(), lm.height())

    def _draw(self) -> None:
        forms, tags, heads, rels, tree, diff, changed, lifted, edited, removed = self.shown
        self.lifted = lifted
        self.clear()
        if not forms:
            return
        n, style = len(forms), COMPACT if self.compact else NATURAL
        m = self._metrics()
        shape = Shape(tree, self.collapsed) if tree is not None else None
        if self.compact:
            xs, widths = compact_columns(n, shape, m), []
        else:
            xs, widths = natural_columns(forms, tags, shape, m)
        self.x = xs
        rows = shape.rows(tree) if shape is not None else 1
        y_tags = MARGIN + 14 + (rows - 1) * style.row
        if shape is not None:
            self.nodes = draw_tree(self, shape, xs, y_tags, style, forms, Counter(diff),
                                   Counter(edited))
        else:
            draw_tags(self, tags, xs, y_tags, style)
        tag_bottom = y_tags + (max(m.label(t) for t in tags) + 12 if style.compact else
                               m.label_line) / 2
        self.removed, band = draw_removed(self, removed, xs, tag_bottom, self.small)
        if style.compact:
            length = max(m.label(f) for f in forms) + 10
            top = tag_bottom + band + 4
            for i, form in enumerate(forms):
                word = WordItem(i + 1, form, self.font, m.label_line + 1,
                                min(length, STANDING_WORD))
                word.setPos(xs[i], top)
                self.addItem(word)
                self.words.append(word)
            below = top + min(length, STANDING_WORD) + 3
        else:
            y_words = y_tags + 30 + band
            for i, form in enumerate(forms):
                word = WordItem(i + 1, form, self.word_font, widths[i] + GAP / 2)
                word.setPos(xs[i], y_words)
                self.addItem(word)
                self.words.append(word)
            below = y_words + m.line / 2 + 5
        self.arcs = draw_arcs(self, heads, rels, xs, below, changed, lifted, self.small,
                              style)
        self.setSceneRect(self.itemsBoundingRect().adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN))

    def clear(self) -> None:
        """Remove every item, forgetting them before they go: deleting a selected item
        emits ``selectionChanged``, whose slots may walk the lists (``hover``)."""
        self.nodes, self.words, self.arcs, self.removed = [], [], [], []
        self._choice_line = None
        self.clearSelection()
        super().clear()
        self.cleared.emit()

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
        """Select the node at ``path`` (nothing where no node is drawn there)."""
        self.clearSelection()
        item = self.nodes[0] if self.nodes else None
        for i in path:
            item = item.kids[i] if item is not None and 0 <= i < len(item.kids) else None
        if item is not None:
            item.setSelected(True)
        self.hover(None)

    def step(self, key: int, extend: bool) -> bool:
        """Move the selection with the keyboard: Up to the parent, Down to the head child,
        Left/Right to a sibling (with ``extend``, grow the run of selected siblings). False
        when nothing is selected (the key then scrolls the view)."""
        selected = sorted(self.selected_items(), key=lambda item: item.path)
        if not selected:
            return False
        first, last = selected[0], selected[-1]
        target = None
        if key == Qt.Key_Up:
            target = first.up
        elif key == Qt.Key_Down and first.kids:
            target = first.kids[first.node.head]
        elif key in (Qt.Key_Left, Qt.Key_Right):
            edge = first if key == Qt.Key_Left else last
            i = edge.index + (1 if key == Qt.Key_Right else -1)
            if edge.up is not None and 0 <= i < len(edge.up.kids):
                target = edge.up.kids[i]
        if target is None:
            return True  # at an edge of the tree: stay (and do not scroll)
        if not (extend and key in (Qt.Key_Left, Qt.Key_Right)):
            self.clearSelection()
            self.hover(None)
        target.setSelected(True)
        self.views()[0].ensureVisible(target)
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

    def select_word(self, index: int) -> QGraphicsItem | None:
        """Select word ``index``'s tag (or the collapsed phrase it is in) and light the word
        up; the item to centre on."""
        if not 1 <= index <= len(self.words):
            return None
        inside = [i for i in self.nodes if i.span[0] <= index - 1 <= i.span[1]
                  and (i.node.word == index - 1 or i.collapsed)]
        self.clearSelection()
        if inside:
            inside[0].setSelected(True)
        self.hover(None)
        word = self.words[index - 1]
        word.set_lit(True)
        return word

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
        self.word_field = QLineEdit(self)  # Go to Word's number
        self.word_field.setFixedWidth(130)
        self.word_field.hide()
        self.word_field.returnPressed.connect(self._go_to_word)
        self.word_field.editingFinished.connect(self.word_field.hide)

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
        """A sentence was drawn anew: apply the zoom mode, start at its top left. Fitting,
        a sentence too wide for the view even at the legible floor is drawn compact."""
        scene = self.scene()
        self.resetTransform()
        if self.fitting:
            bar = self.verticalScrollBar()  # a tall tree's bar takes width from the view
            room = self.viewport().width() - (0 if bar.isVisible() else bar.sizeHint().width())
            scene.set_compact(scene.natural_width() * self.smallest > room)
            width = scene.sceneRect().width()
            if width > room:
                factor = max(self.smallest, room / width)
                self.scale(factor, factor)
        else:
            self.scale(self.factor, self.factor)
        self.horizontalScrollBar().setValue(0)
        self.verticalScrollBar().setValue(0)

    def zoom_to_selection(self) -> None:
        """The selected phrases with their words fill the view (a fixed scale from then)."""
        scene = self.scene()
        items = scene.selected_items()
        if not items:
            self.message.emit("Select a phrase first: Zoom to Selection shows it whole")
            return
        lo = min(i.span[0] for i in items)
        hi = max(i.span[1] for i in items)
        area = items[0].sceneBoundingRect()
        for item in [*items, scene.words[lo], scene.words[hi]]:
            area = area.united(item.sceneBoundingRect())
        self.fitInView(area.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN), Qt.KeepAspectRatio)
        scale = min(max(self.transform().m11(), 0.1), 3.0)
        self.set_zoom(scale)
        self.centerOn(area.center())

    def ask_word(self) -> None:
        """Go to Word: a small field over the view; a number and Enter select that word."""
        n = len(self.scene().words)
        if not n:
            return
        self.word_field.setValidator(QIntValidator(1, n, self.word_field))
        self.word_field.setPlaceholderText(f"word 1-{n}, Enter")
        self.word_field.clear()
        self.word_field.adjustSize()
        self.word_field.move(8, 8)
        self.word_field.show()
        self.word_field.setFocus()

    def _go_to_word(self) -> None:
        text = self.word_field.text()
        self.word_field.hide()
        self.setFocus()
        item = self.scene().select_word(int(text)) if text.isdigit() else None
        if item is not None:
            self.centerOn(item)
            self.message.emit(f"Word {text}: {item.form}")

    def toggle_collapsed(self) -> None:
        """Collapse the selected phrase to one node with its words, or expand it."""
        items = self.scene().selected_items()
        if len(items) == 1 and items[0].node.word < 0:
            path = items[0].path
            self.scene().toggle_collapsed(items[0])
            if self.fitting:
                self.show_new()  # the sentence may fit uncompacted now, or no longer
                self.scene().select_path(path)
            self.ensureVisible(self.scene().selected_items()[0])
        else:
            self.message.emit("Select one phrase to collapse or expand it (C)")

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

    def mouseDoubleClickEvent(self, event) -> None:
        """Double-clicking a phrase collapses or expands it."""
        item = self.itemAt(event.position().toPoint())
        if isinstance(item, NodeItem) and item.node.word < 0:
            item.setSelected(True)
            self.toggle_collapsed()
            return
        super().mouseDoubleClickEvent(event)

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
