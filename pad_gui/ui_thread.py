"""Workers' events delivered on the UI thread: a timer polls a worker until it finishes."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer

from pad_gui.worker import Worker

POLL_MS = 15


def start(worker: Worker, parent: QObject, every_ms: int = POLL_MS) -> None:
    """Start ``worker`` and emit its events on this (the UI) thread every ``every_ms``."""
    timer = QTimer(parent)
    timer.setInterval(every_ms)

    def take() -> None:
        if not worker.poll():
            timer.stop()
            timer.deleteLater()

    timer.timeout.connect(take)
    worker.start()
    timer.start()
