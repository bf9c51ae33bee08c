"""Workers' events delivered on the UI thread: a timer polls a worker until it finishes."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject, QTimer

POLL_MS = 15


class Pollable(Protocol):
    """What this needs of a worker (views know workers only through controllers)."""

    def start(self) -> None: ...

    def poll(self) -> bool: ...


def start(worker: Pollable, parent: QObject, every_ms: int = POLL_MS) -> None:
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
