"""The learning curve: cross-validated F1 against the number of corrected trees.

A plain QPainter widget that draws the points it is given (one per retrained model, in
training order) and nothing else: the figures come from the project's model versions.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QWidget

LINE = QColor("#1565c0")
GRID = QColor("#dddddd")
INK = QColor("#333333")
LAST = QColor("#c62828")


def nice_step(span: float, ticks: int) -> float:
    """A round step (1, 2 or 5 times a power of ten) giving about ``ticks`` intervals."""
    raw = max(span, 1e-9) / ticks
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


class LearningPlot(QWidget):
    """F1 (y, percent) against corrected trees (x); the newest point is marked."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.points: list[tuple[int, float]] = []
        self.setMinimumSize(320, 150)  # the retrain dialog above it fits a 768-pixel screen
        self.setAutoFillBackground(True)
        self.setToolTip("Cross-validated F1 on the corrected sentences after each retrain")

    def sizeHint(self) -> QSize:
        return QSize(480, 280)

    def set_points(self, points: list[tuple[int, float]]) -> None:
        """Show these (corrected trees, F1 in percent) points, in training order."""
        self.points = [(int(n), float(f1)) for n, f1 in points]
        self.update()

    def _ranges(self) -> tuple[float, float, float, float]:
        xs = [n for n, _ in self.points] or [0]
        ys = [f for _, f in self.points] or [0.0, 100.0]
        x_hi = max(10, max(xs))
        x_hi = math.ceil(x_hi / nice_step(x_hi, 5)) * nice_step(x_hi, 5)
        y_lo = max(0.0, min(min(ys) - 2.0, 90.0))  # at least 90..100, a margin below
        y_step = nice_step(100.0 - y_lo, 5)
        return 0.0, x_hi, math.floor(y_lo / y_step) * y_step, 100.0

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        p.fillRect(self.rect(), Qt.white)
        fm = QFontMetrics(self.font())
        left = fm.horizontalAdvance("100.0") + 14
        bottom = 2 * fm.height() + 10
        plot = QRectF(left, fm.height() + 6, self.width() - left - 16,
                      self.height() - bottom - fm.height() - 6)
        if plot.width() < 20 or plot.height() < 20:
            p.end()
            return
        x_lo, x_hi, y_lo, y_hi = self._ranges()

        def at(x: float, y: float) -> QPointF:
            return QPointF(plot.left() + (x - x_lo) / (x_hi - x_lo) * plot.width(),
                           plot.bottom() - (y - y_lo) / (y_hi - y_lo) * plot.height())

        p.setPen(QPen(GRID, 1))
        p.setFont(self.font())
        y_step = nice_step(y_hi - y_lo, 5)
        y = y_lo
        while y <= y_hi + 1e-9:
            a = at(x_lo, y)
            p.setPen(QPen(GRID, 1))
            p.drawLine(a, at(x_hi, y))
            p.setPen(INK)
            p.drawText(QRectF(0, a.y() - fm.height() / 2, left - 6, fm.height()),
                       Qt.AlignRight | Qt.AlignVCenter, f"{y:g}")
            y += y_step
        x_step = nice_step(x_hi - x_lo, 5)
        x = x_lo
        while x <= x_hi + 1e-9:
            a = at(x, y_lo)
            p.setPen(QPen(GRID, 1))
            p.drawLine(a, at(x, y_hi))
            p.setPen(INK)
            p.drawText(QRectF(a.x() - 40, plot.bottom() + 3, 80, fm.height()),
                       Qt.AlignHCenter | Qt.AlignTop, f"{x:g}")
            x += x_step
        p.setPen(QPen(INK, 1))
        p.drawRect(plot)
        p.drawText(QRectF(plot.left(), plot.bottom() + fm.height() + 5, plot.width(),
                          fm.height()), Qt.AlignHCenter, "corrected trees")
        p.drawText(QRectF(plot.left(), 0, plot.width(), fm.height() + 4),
                   Qt.AlignLeft | Qt.AlignVCenter, "cross-validated F1 (%)")
        if not self.points:
            p.drawText(plot, Qt.AlignCenter | Qt.TextWordWrap,
                       "No retrained model yet:\ncorrect some sentences, then retrain")
            p.end()
            return
        path = QPainterPath(at(*self.points[0]))
        for pt in self.points[1:]:
            path.lineTo(at(*pt))
        p.setPen(QPen(LINE, 2))
        p.setBrush(Qt.NoBrush)
        p.drawPath(path)
        p.setBrush(LINE)
        for pt in self.points[:-1]:
            p.drawEllipse(at(*pt), 3.5, 3.5)
        n, f1 = self.points[-1]
        last = at(n, f1)
        p.setPen(QPen(LAST, 1))
        p.setBrush(LAST)
        p.drawEllipse(last, 4.5, 4.5)
        label = f"{f1:.1f} ({n})"
        width = fm.horizontalAdvance(label)
        tx = min(last.x() + 7, plot.right() - width - 2)
        ty = last.y() - 6 if last.y() - fm.height() > plot.top() else last.y() + fm.height() + 4
        p.drawText(QPointF(tx, ty), label)
        p.end()
