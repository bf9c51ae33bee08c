"""One way to run work off the UI thread (napari's thread workers, without Qt).

A :class:`Worker` runs one function on its own thread. The function reports as it goes
(``worker.report(value)``), may check ``worker.cancelled``, and returns or raises; the
worker posts ``started``, ``yielded`` (each report), ``returned`` or ``errored``, then
``finished`` into a plain queue. The thread that owns the worker calls :meth:`Worker.poll`
to have those events emitted there (in the app a UI timer does, see ``ui_thread``), so a
view's callbacks always run on the UI thread and no Python object crosses threads inside
Qt. Without Qt, a test calls ``join`` and ``poll`` itself.
"""

from __future__ import annotations

import queue
import threading
import traceback
from collections.abc import Callable
from typing import Any

from pad_gui.events import Event


class Worker:
    """Runs ``work(worker)`` once on a thread of its own."""

    def __init__(self, work: Callable[[Worker], Any], name: str = "pad-worker"):
        self.started = Event()
        self.yielded = Event()  # each value the work reported
        self.returned = Event()  # the work's result
        self.errored = Event()  # the exception the work raised (its traceback dropped)
        self.finished = Event()  # last, after returned or errored
        self._work = work
        self._events: queue.SimpleQueue = queue.SimpleQueue()
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._started = False
        self._finished = False

    @property
    def running(self) -> bool:
        """Started, and ``finished`` not yet emitted."""
        return self._started and not self._finished

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def is_cancelled(self) -> bool:
        """``cancelled`` as a callable, for library calls that take ``cancel=``."""
        return self._cancel.is_set()

    def start(self) -> None:
        self._started = True
        self._thread.start()

    def cancel(self) -> None:
        """Ask the work to stop; it decides where (it sees ``cancelled``)."""
        self._cancel.set()

    def stop(self) -> None:
        """Cancel, wait for the thread and emit what it posted (its owner is closing)."""
        self.cancel()
        self.join()
        self.poll()

    def report(self, value: Any) -> None:
        """Post ``value`` as a ``yielded`` event (call from the work)."""
        self._events.put((self.yielded, (value,)))

    def join(self, timeout: float | None = None) -> None:
        """Wait for the thread to end (its events still wait for ``poll``)."""
        if self._started:
            self._thread.join(timeout)

    def poll(self) -> bool:
        """Emit every event posted so far, on the calling thread; True while more may come."""
        while not self._finished:
            try:
                event, args = self._events.get_nowait()
            except queue.Empty:
                break
            self._finished = event is self.finished
            event.emit(*args)
        return self._started and not self._finished

    def _run(self) -> None:
        self._events.put((self.started, ()))
        try:
            result = self._work(self)
        except Exception as e:  # noqa: BLE001 - handed to the owner's errored callbacks
            if not self.errored:
                traceback.print_exc()  # nobody listens: do not lose it
            self._events.put((self.errored, (e.with_traceback(None),)))
        else:
            self._events.put((self.returned, (result,)))
        self._events.put((self.finished, ()))
