"""Qt objects in reference cycles die on the UI thread, never on a worker thread that
happened to trigger Python's cyclic collector (which crashed the app inside Qt's event
processing)."""

from __future__ import annotations

import gc
import threading
from typing import ClassVar

from PySide6.QtCore import QObject

from pad_gui import collector


class Holder:
    """A Qt object in a reference cycle, remembering the thread it was freed on."""

    freed_on: ClassVar[list[int]] = []

    def __init__(self) -> None:
        self.qobject = QObject()
        self.me = self

    def __del__(self) -> None:
        Holder.freed_on.append(threading.get_ident())


def _churn(kept: list) -> None:
    """What a decoding thread does to the collector: allocate many container objects (kept
    alive: only allocations past frees count towards a collection)."""
    kept.extend([] for _ in range(200_000))


def _cycle_freed_while_a_worker_churns(qtbot) -> int:
    Holder.freed_on.clear()
    Holder()
    kept: list = []
    worker = threading.Thread(target=_churn, args=(kept,))
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: bool(Holder.freed_on), timeout=5000)
    kept.clear()
    return Holder.freed_on[0]


def test_cycles_are_collected_on_the_ui_thread_once_installed(qtbot):
    collector.install()
    try:
        assert not gc.isenabled()
        assert _cycle_freed_while_a_worker_churns(qtbot) == threading.get_ident()
    finally:
        collector.uninstall()
    assert gc.isenabled()


def test_without_it_a_worker_thread_frees_them(qtbot):
    """The hazard it removes: Python's own collector runs in the allocating thread."""
    collector.uninstall()
    assert _cycle_freed_while_a_worker_churns(qtbot) != threading.get_ident()
