"""What the parse view draws: a node of the c-parse, a word, an arc, and the colours they
are drawn in, one meaning each (:data:`LEGEND`): amber phrases are where the picked
candidate differs from candidate 1, violet is the annotator's own change (an edited phrase,
a re-attached arc, the head being chosen), dashed teal arcs were lifted to make the d-parse
projective, blue is the selection, yellow its head word, and a grey dashed bracket with its label
struck out is a phrase of candidate 1 that the picked candidate drops."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
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
REMOVED = QColor("#9e9e9e")
LEGEND = (
    (DIFF, "phrase not in candidate 1"),
    (EDITED, "your edit"),
    (CHANGED_ARC, "arc you re-attached"),
    (LIFTED_ARC, "lifted arc (dashed: non-projective)"),
    (HEAD_WORD, "head word of the selection"),
    (REMOVED, "phrase of candidate 1 dropped (dashed)"),
)


def legend_html() -> str:
    """The colours, one meaning each, as the line under the view shows them."""
    return " &nbsp; ".join(f"<span style='background:{c.name()}'>&nbsp;&nbsp;&nbsp;</span>"
                           "&nbsp;" + t.replace(" ", "&nbsp;").replace("-", "&#8209;")
                           for c, t in LEGEND)


class NodeItem(QGraphicsItem):
    """One node of the c-parse (a phrase or a preterminal); selectable, hoverable.

    ``up``: the item of its parent node, of which it is child ``index`` (None: the root);
    ``span`` and ``head_word``: the node's (the layout's ``Shape`` knows them; asked of the
    node, each walks down the tree). ``standing``: the label reads upwards (a tag in a
    narrow column); ``words``: the phrase is collapsed and shows its words after its label,
    elided to ``width``."""

    def __init__(self, node: LexNode, font: QFont, fill: QColor, *, span: tuple[int, int],
                 head_word: int, up: NodeItem | None = None, index: int = 0,
                 standing: bool = False, words: str = "", width: float = 0.0,
                 pad: float = 10.0):
        super().__init__()
        self.node = node
        self.up = up
        self.index = index
        self.kids: list[NodeItem] = []  # the items of its children, where they are drawn
        if up is not None:
            up.kids.append(self)
        self.span = span
        self.head_word = head_word
        self.font = font
        self.fill = fill
        self.standing = standing
        self.collapsed = bool(words)
        metrics = QFontMetricsF(font)
        self.text = node.label
        if words:
            room = max(width - pad, metrics.horizontalAdvance(node.label + " …"))
            self.text = metrics.elidedText(f"{node.label} {words}", Qt.ElideRight, room)
        w = metrics.horizontalAdvance(self.text) + pad
        h = metrics.height() + 4
        if standing:  # as narrow as a line: a column of a long sentence
            w, h = metrics.height() + 1, w
        self.rect = QRectF(-w / 2, -h / 2, w, h)
        self.setFlag(QGraphicsItem.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setZValue(2)
        why = {DIFF.name(): "; not in candidate 1", EDITED.name(): "; your edit"}
        shut = f"; collapsed: {words} (C or double-click expands)" if words else ""
        self.setToolTip(f"{node.label}: words {self.span[0] + 1}-{self.span[1] + 1}, "
                        f"head word {self.head_word + 1}{why.get(fill.name(), '')}{shut}")

    @property
    def path(self) -> edits.Path:
        """The node's path from the root (made when asked: kept for every node of a deep
        tree, paths would take memory quadratic in its depth)."""
        steps = []
        item = self
        while item.up is not None:
            steps.append(item.index)
            item = item.up
        return tuple(reversed(steps))

    def boundingRect(self) -> QRectF:
        return self.rect.adjusted(-2, -2, 2, 2)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.Antialiasing)
        pen = QPen(SELECT, 2.4) if self.isSelected() else QPen(MUTED, 0.8)
        painter.setPen(pen)
        painter.setBrush(QBrush(self.fill))
        painter.drawRoundedRect(self.rect, 4, 4)
        if self.collapsed:  # a second outline: there is more inside
            painter.drawRoundedRect(self.rect.adjusted(2, 2, -2, -2), 3, 3)
        painter.setPen(INK)
        painter.setFont(self.font)
        _text(painter, self.rect, self.text, self.standing)

    def hoverEnterEvent(self, event) -> None:
        self.scene().hover(self)

    def hoverLeaveEvent(self, event) -> None:
        self.scene().hover(None)


class WordItem(QGraphicsItem):
    """A word of the sentence: drag it onto another word to re-attach it there.

    Standing (``length`` > 0), it reads upwards from its bottom in a column as narrow as
    a line, its top at the item's position; a word longer than ``length`` is elided."""

    def __init__(self, index: int, form: str, font: QFont, width: float,
                 length: float = 0.0):
        super().__init__()
        self.index = index  # 1-based word number
        self.form = form
        self.font = font
        self.standing = length > 0
        metrics = QFontMetricsF(font)
        h = metrics.height() + 6
        if self.standing:
            self.text = metrics.elidedText(form, Qt.ElideRight, length - 6)
            self.rect = QRectF(-width / 2, 0, width, length)
        else:
            self.text = form
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
        _text(painter, self.rect, self.text, self.standing, Qt.AlignRight | Qt.AlignVCenter)

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


class RemovedItem(QGraphicsItem):
    """A phrase of candidate 1 that the candidate on screen drops: a grey dashed bracket
    under its words with its label struck out, so what a candidate takes away shows as
    plainly as what it adds."""

    def __init__(self, bracket: tuple[str, int, int], left: float, right: float,
                 font: QFont):
        super().__init__()
        self.bracket = bracket
        self.font = QFont(font)
        self.font.setStrikeOut(True)
        metrics = QFontMetricsF(self.font)
        self.label_width = metrics.horizontalAdvance(bracket[0]) + 4
        self.h = metrics.height()
        self.left, self.right = left, right
        self.setZValue(2)
        self.setToolTip(f"{bracket[0]} over words {bracket[1] + 1}-{bracket[2] + 1}: in "
                        "candidate 1, dropped by this candidate")

    def boundingRect(self) -> QRectF:
        lw = self.label_width / 2
        mid = (self.left + self.right) / 2
        return QRectF(min(self.left, mid - lw) - 2, -self.h / 2 - 2,
                      max(self.right - self.left, self.label_width) + 4, self.h + 4)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setPen(QPen(REMOVED, 1.2, Qt.DashLine))
        painter.drawLine(QPointF(self.left, -4), QPointF(self.left, 0))
        painter.drawLine(QPointF(self.left, 0), QPointF(self.right, 0))
        painter.drawLine(QPointF(self.right, 0), QPointF(self.right, -4))
        mid = (self.left + self.right) / 2
        box = QRectF(mid - self.label_width / 2, -self.h / 2, self.label_width, self.h)
        painter.fillRect(box, Qt.white)
        painter.setPen(REMOVED)
        painter.setFont(self.font)
        painter.drawText(box, Qt.AlignCenter, self.bracket[0])


def _text(painter: QPainter, rect: QRectF, text: str, standing: bool,
          align: Qt.AlignmentFlag = Qt.AlignCenter) -> None:
    """Text in a box, read left to right or (standing) bottom to top."""
    if not standing:
        painter.drawText(rect, Qt.AlignCenter, text)
        return
    painter.save()
    painter.translate(rect.center())
    painter.rotate(-90)
    painter.drawText(QRectF(-rect.height() / 2, -rect.width() / 2, rect.height(),
                            rect.width()), align, text)
    painter.restore()
