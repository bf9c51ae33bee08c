"""Events: plain observer lists through which Qt-free controllers tell the views what
changed (napari's evented models in miniature). Callbacks run on the emitting thread, which
for every controller is the UI thread: workers hand their results over with ``poll``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Event:
    """Callbacks connected in order and called with whatever ``emit`` is given."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[..., Any]] = []

    def connect(self, callback: Callable[..., Any]) -> Callable[..., Any]:
        self._callbacks.append(callback)
        return callback

    def disconnect(self, callback: Callable[..., Any]) -> None:
        if callback in self._callbacks:
            self._callbacks.remove(callback)

    def __bool__(self) -> bool:
        """Whether anything listens."""
        return bool(self._callbacks)

    def emit(self, *args: Any) -> None:
        for callback in list(self._callbacks):  # a callback may disconnect itself
            callback(*args)
