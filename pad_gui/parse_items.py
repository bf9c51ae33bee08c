"""What the parse view draws: a node of the c-parse, a word, an arc, and the colours they
are drawn in, one meaning each (:data:`LEGEND`): amber phrases are where the picked
candidate differs from candidate 1, violet is the annotator's own change (an edited phrase,
a re-attached arc, the head being chosen), dashed teal arcs were lifted to make the d-parse
projective, blue is the selection, yellow its head word."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsPolygonItem,
    QGraphicsSimpleTextItem,
)

from pad_engine.api import LexNode, edits

INK = QColor("#222222")
MUTED = QColor("#8a8a8a")
ARC = QColor("#5b6770")
CHANGED_ARC = QColor("#7b1fa2")  # violet: your change (with EDITED and TARGET)
LIFTED_ARC = QColor("#00838f")
HILITE = QColor("#1565c0")
HEAD_WORD = QColor("#fff176")
DIFF = QColor("#ffcc80")  # amber: not in candidate 1
EDITED = QColor("#d1c4e9")
TARGET = QColor("#e1bee7")
NODE_FILL = QColor("#eef3f8")
TAG_FILL = QColor("#f4f4f4")
SELECT = QColor("#1e88e5")
LEGEND = (
    (DIFF, "phrase not in candidate 1"),
    (EDITED, "your edit"),
    (CHANGED_ARC, "arc you re-attached"),
    (LIFTED_ARC, "lifted arc (dashed: non-projective)"),
    (HEAD_WORD, "head word of the selection"),
)


class NodeItem(QGraphicsItem):
    """One node of the c-parse (a phrase or a preterminal); selectable, hoverable."""

    def __init__(self, node: LexNode, path: edits.Path, font: QFont, fill: QColor):
        super().__init__()
        self.node = node
        self.path = path
        self.span = node.span()
        self.head_word = node.head_word()
        self.font = font
        self.fill = fill
        metrics = QFontMetricsF(font)
        w = metrics.horizontalAdvance(node.label) + 10
        h = metrics.height() + 4
        self.rect = QRectF(-w / 2, -h / 2, w, h)
        self.setFlag(QGraphicsItem.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setZValue(2)
        why = {DIFF.name(): "; not in candidate 1", EDITED.name(): "; your edit"}
        self.setToolTip(f"{node.label}: words {self.span[0] + 1}-{self.span[1] + 1}, "
                        f"head word {self.head_word + 1}{why.get(fill.name(), '')}")

    def boundingRect(self) -> QRectF:
        return self.rect.adjusted(-2, -2, 2, 2)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.Antialiasing)
        pen = QPen(SELECT, 2.4) if self.isSelected() else QPen(MUTED, 0.8)
        painter.setPen(pen)
        painter.setBrush(QBrush(self.fill))
        painter.drawRoundedRect(self.rect, 4, 4)
        painter.setPen(INK)
        painter.setFont(self.font)
        painter.drawText(self.rect, Qt.AlignCenter, self.node.label)

    def hoverEnterEvent(self, event) -> None:
        self.scene().hover(self)

    def hoverLeaveEvent(self, event) -> None:
        self.scene().hover(None)


class WordItem(QGraphicsItem):
    """A word of the sentence: drag it onto another word to re-attach it there."""

    def __init__(self, index: int, form: str, font: QFont, width: float):
        super().__init__()
        self.index = index  # 1-based word number
        self.form = form
        self.font = font
        h = QFontMetricsF(font).height() + 6
        self.rect = QRectF(-width / 2, -h / 2, width, h)
        self.lit = False
        self.target = False  # the head being chosen by keyboard re-attachment
        self.setZValue(2)
        self.setToolTip(f"word {index}: drag onto another word to make that word its head")
        self.setCursor(Qt.OpenHandCursor)

    def boundingRect(self) -> QRectF:
        return self.rect

    def paint(self, painter: QPainter, option, widget=None) -> None:
        if self.target:
            painter.fillRect(self.rect, TARGET)
            painter.setPen(QPen(CHANGED_ARC, 1.5))
            painter.drawRect(self.rect.adjusted(1, 1, -1, -1))
        elif self.lit:
            painter.fillRect(self.rect, HEAD_WORD)
        painter.setPen(INK)
        painter.setFont(self.font)
        painter.drawText(self.rect, Qt.AlignCenter, self.form)

    def set_lit(self, lit: bool) -> None:
        if lit != self.lit:
            self.lit = lit
            self.update()


class ArcItem(QGraphicsPathItem):
    """A dependency arc from head to dependent, hanging below the words, with its label."""

    def __init__(self, dep: int, head: int, path: QPainterPath, changed: bool,
                 lifted_to: int = 0):
        super().__init__(path)
        self.dep = dep
        self.head = head
        self.lifted_to = lifted_to  # the head the tree attaches a lifted word to, else 0
        self.base = CHANGED_ARC if changed else LIFTED_ARC if lifted_to else ARC
        self.label_item: QGraphicsSimpleTextItem | None = None
        self.arrow: QGraphicsPolygonItem | None = None
        if lifted_to:
            self.setToolTip(f"Non-projective arc: the tree attaches word {dep} to word "
                            f"{lifted_to} instead (lifted)")
        self.set_lit(False)

    def set_lit(self, lit: bool) -> None:
        color = HILITE if lit else self.base
        pen = QPen(color, 2.2 if lit else 1.1)
        if self.lifted_to:
            pen.setStyle(Qt.DashLine)
        self.setPen(pen)
        self.setBrush(Qt.NoBrush)
        if self.arrow is not None:
            self.arrow.setPen(QPen(color, 1))
            self.arrow.setBrush(color)
        if self.label_item is not None:
            self.label_item.setBrush(color)
