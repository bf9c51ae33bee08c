"""Work-arounds for bugs in the installed Qt binding.

PySide6 6.12's ``SignalInstance.emit`` returns its result (``True``) without a new
reference, so every Python-side emit drops one reference to ``True``; after a few thousand
emits the interpreter aborts with "bool_dealloc: deallocating True or False". ``emit``
below gives the reference back when (and only when) the binding has that bug.
"""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QObject, Signal


class _Probe(QObject):
    fired = Signal()


def _emit_drops_a_reference() -> bool:
    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(8):
        probe.fired.emit()
    lost = before - sys.getrefcount(True)
    for _ in range(max(lost, 0)):  # repair what the probe itself broke
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(True))
    return lost == 8


_BROKEN_EMIT = _emit_drops_a_reference()


def emit(signal, *args) -> None:
    """``signal.emit(*args)``, without losing a reference to its result."""
    result = signal.emit(*args)
    if _BROKEN_EMIT:
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(result))
