"""The status bar's two standing notes: how far background decoding is ("Decoding 1,234 /
12,544"), and what keeps the model from decoding (a first start compiling the decoder), with
the time it has taken so far, so a minute of waiting visibly moves. In a narrow window the
count keeps its width and the note gives way, cut with an ellipsis, whole in its tooltip.
And its passing messages, where a warning is not wiped out by an ambient note."""

from __future__ import annotations

import time

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

TICK = 1000  # ms between updates of the note's clock
SHORTEST = 160  # px the note keeps in the narrowest window ("0:12 Preparing the…")
ROUTINE = 5000  # ms: a message shown longer (or until replaced) is a warning
KEEP = 15.0  # s a warning is kept from ambient messages


class CountLabel(QLabel):
    """Background decoding's count: never narrower than the widest count it showed since it
    was last empty, so the status bar neither squeezes it nor makes it jitter."""

    def setText(self, text: str) -> None:
        super().setText(text)
        wide = self.fontMetrics().horizontalAdvance(text) + 2 * self.margin() + 4 if text else 0
        self.setMinimumWidth(max(self.minimumWidth(), wide) if text else 0)


class NoteLabel(QLabel):
    """What keeps the model from decoding, after the minutes and seconds it has lasted
    ("0:12 Preparing the decoder…"); hidden when there is nothing to say."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._note = ""
        self._since = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(TICK)
        self._timer.timeout.connect(self._refresh)
        self.setMinimumWidth(SHORTEST)  # below its full text: it gives way first
        self.hide()

    def say(self, note: str) -> None:
        """Show ``note`` with its clock started, or hide the label for ""."""
        self._note, self._since = note, time.monotonic()
        self.setVisible(bool(note))
        if note:
            self._timer.start()
        else:
            self._timer.stop()
        self._refresh()

    def full_text(self) -> str:
        """The whole note with its clock (what the label shows when it has the room)."""
        if not self._note:
            return ""
        seconds = int(time.monotonic() - self._since)
        return f"{seconds // 60}:{seconds % 60:02d} {self._note}"

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(self.fontMetrics().horizontalAdvance(self.full_text()) + 8, hint.height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._refresh()

    def _refresh(self) -> None:
        full = self.full_text()
        self.setToolTip(full)
        self.setText(self.fontMetrics().elidedText(full, Qt.ElideRight, self.width() - 4))


class StatusMessages:
    """Shows the controllers' passing messages in ``bar``. An ambient one (no answer to
    anything the annotator did: "Model ready" once the decoder is compiled) does not replace
    a warning in the warning's first :data:`KEEP` seconds; it would otherwise wipe out why a
    file's text model cannot be used. Every other message shows at once."""

    def __init__(self, bar: QStatusBar):
        self._bar = bar
        self._warning = ""
        self._until = 0.0

    def show(self, text: str, timeout: int = 0) -> None:
        self._bar.showMessage(text, timeout)
        if not 0 < timeout <= ROUTINE:
            self._warning = text
            self._until = time.monotonic() + (min(timeout / 1000, KEEP) if timeout else KEEP)

    def show_ambient(self, text: str, timeout: int = 0) -> None:
        if time.monotonic() < self._until and self._bar.currentMessage() == self._warning:
            return
        self._bar.showMessage(text, timeout)
