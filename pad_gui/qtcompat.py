"""A work-around for the PySide6 6.12 wheels on Python 3.11.

Those wheels drop a reference to ``None`` on every call of a method returning nothing (and
to ``True`` on every ``Signal.emit``), as if the singletons were immortal, which they are
only from Python 3.12 on. Drawing one sentence costs hundreds of references, and the
interpreter aborts ("none_dealloc: deallocating None") after a few hundred redraws.
PySide6 6.11 does not have the bug; with 6.12 on 3.11 we give the singletons the
immortality the wheel assumes: a reference count so large that the lost references never
add up to it. Nothing is done on Python 3.12+ or with a binding that counts correctly.
"""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QPainterPath

_PROBES = 16
_LOTS = 1 << 40
_done = False


class _Probe(QObject):
    fired = Signal()


def _binding_drops_references() -> bool:
    path = QPainterPath()
    probe = _Probe()
    none, true = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(_PROBES):
        path.lineTo(1.0, 1.0)
        probe.fired.emit()
    return (none - sys.getrefcount(None) >= _PROBES
            or true - sys.getrefcount(True) >= _PROBES)


def protect_singletons() -> bool:
    """Make None/True/False effectively immortal if the binding needs it; True if it did."""
    global _done
    if _done or sys.version_info >= (3, 12) or not _binding_drops_references():
        return False
    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += _LOTS
    _done = True
    return True
