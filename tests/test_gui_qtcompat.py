"""With the binding's reference bug neutralized, heavy drawing and emitting cannot abort.

The work runs in a child process: on a binding that drops references (PySide6 6.12 on
Python 3.11) an unprotected interpreter dies there ("none_dealloc"), which the test sees
as the child's exit status, whatever the tests before it did to the counts.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    from PySide6.QtCore import QCoreApplication, QObject, Signal
    from PySide6.QtGui import QPainterPath

    from pad_gui.qtcompat import protect_singletons

    class Source(QObject):
        changed = Signal(int)

    app = QCoreApplication([])
    protect_singletons()
    source = Source()
    seen = []
    source.changed.connect(seen.append)
    path = QPainterPath()
    for i in range(20000):
        emit_and_draw = (source.changed.emit(i), path.lineTo(i, i))
        del emit_and_draw
    import gc
    gc.collect()
    print(len(seen), seen[-1], path.elementCount())
""")


def test_many_void_calls_and_emits_are_survivable():
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["20000", "19999", "20000"]
