"""Python's cyclic garbage collector, run on the UI thread only.

Python collects cycles in whichever thread happens to allocate past a threshold. The engine
and retraining threads allocate a great deal, so a cycle holding a Qt object (a window's
scene, a timer, a dialog and the closure connected to it) could be collected there: its C++
destructor then ran on the wrong thread, in the middle of the UI thread's event processing,
and the process died with a segmentation fault or a corrupted heap. With the automatic
collector off, a timer on the UI thread collects with the same thresholds instead, so every
Qt object dies on the thread that owns it.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

INTERVAL_MS = 500  # how often the UI thread looks at the allocation counts


class MainThreadCollector(QObject):
    """Collects cycles on the UI thread, generation by generation as Python would."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.thresholds = gc.get_threshold()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.check)
        self.timer.start(INTERVAL_MS)

    def check(self) -> None:
        counts = gc.get_count()
        for generation in (2, 1, 0):  # the oldest generation due, which collects the younger
            if counts[generation] > self.thresholds[generation]:
                gc.collect(generation)
                return


_collector: MainThreadCollector | None = None


def install() -> None:
    """Turn the automatic collector off and collect from the UI thread (once per app)."""
    global _collector
    app = QCoreApplication.instance()
    if _collector is None and app is not None:
        _collector = MainThreadCollector(app)
        gc.disable()


def uninstall() -> None:
    """Back to Python's own collector (a test suite between windows)."""
    global _collector
    if _collector is not None:
        _collector.timer.stop()
        _collector.deleteLater()
        _collector = None
        gc.enable()
