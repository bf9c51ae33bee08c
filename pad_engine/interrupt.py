"""Ctrl-C that ends a command cleanly, even while a compiled kernel returns its result.

When a kernel returns, Numba converts its result to Python objects and on the way runs a
little Python (looking up the classes and dtypes the compiled code refers to). An interrupt
that Python raises there is not checked for: the process crashes with SIGSEGV instead of
stopping (numba issue 2324; ``pad convert --threads 1`` of EWT train crashed at 5 interrupts
in 5). Kernels run on other threads are safe: Python handles signals in its main thread
only. Importing this module imports no Numba.
"""

from __future__ import annotations

import _thread
import os
import signal
import threading
from types import FrameType

# Numba's module whose Python runs while a kernel's result becomes Python objects: it looks
# up the classes and dtypes the compiled code refers to (``_numba_unpickle``).
_BOXING = os.path.join("numba", "core", "serialize.py")


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C: KeyboardInterrupt, unless it came while Numba converts a kernel's result to
    Python objects. Numba runs Python there and does not check for its failure: an
    interrupt raised there crashes the process (SIGSEGV; numba issue 2324). It is then
    asked for again a moment later, once the result is a Python object."""
    if frame is not None and frame.f_code.co_filename.endswith(_BOXING):
        again = threading.Timer(0.01, _thread.interrupt_main)
        again.daemon = True  # a command that ends first just ends
        again.start()
        return
    raise KeyboardInterrupt


def interrupt_after_boxing() -> None:
    """Install :func:`_interrupt` for SIGINT where Python's own handler is in place (a
    program embedding the engine with a handler of its own keeps it)."""
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
        signal.signal(signal.SIGINT, _interrupt)
