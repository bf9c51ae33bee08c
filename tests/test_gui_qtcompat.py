"""qtcompat.emit keeps the reference count of True intact, however many times it is called."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal

from pad_gui.qtcompat import emit


class Source(QObject):
    changed = Signal(int)


def test_many_emits_keep_true_alive(qapp):
    source = Source()
    seen = []
    source.changed.connect(seen.append)
    before = sys.getrefcount(True)
    for i in range(5000):
        emit(source.changed, i)
    assert len(seen) == 5000
    assert abs(sys.getrefcount(True) - before) < 10
