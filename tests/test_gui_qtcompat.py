"""With the binding's reference bug neutralized, heavy drawing and emitting cannot abort."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QPainterPath

from pad_gui.qtcompat import protect_singletons


class Source(QObject):
    changed = Signal(int)


def test_many_void_calls_and_emits_are_survivable(qapp):
    protect_singletons()
    source = Source()
    seen = []
    source.changed.connect(seen.append)
    path = QPainterPath()
    for i in range(20000):
        emit_and_draw = (source.changed.emit(i), path.lineTo(i, i))
        del emit_and_draw
    assert len(seen) == 20000
    assert sys.getrefcount(None) > 20000 and sys.getrefcount(True) > 20000
