"""Progress of a folder conversion: worker posts and finished files turned into
:class:`BatchProgress` events, with the fraction done by input size and the time left."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass

from pad_engine.batch.report import FileResult
from pad_engine.batch.tasks import Task


@dataclass
class BatchProgress:
    """A progress event; ``file`` is set when the event reports a finished file."""

    files_done: int
    files_total: int
    sentences_done: int
    sentences_per_second: float
    seconds_left: float | None  # None until there is enough to estimate from
    fraction: float  # 0..1 of the work of this run (by input size)
    file: FileResult | None = None


class Tracker:
    """Turns worker posts and finished files into :class:`BatchProgress` events."""

    def __init__(self, todo: list[Task], up_to_date: int, total: int,
                 callback: Callable[[BatchProgress], None] | None):
        self.callback = callback
        self.sizes = {t.index: max(1, _size(t.src)) for t in todo}
        self.total_size = sum(self.sizes.values())
        self.files_done, self.files_total = up_to_date, total
        self.sentences = 0  # in finished files
        self.running: dict[tuple[int, int], tuple[int, int]] = {}  # (file, part) -> done, total
        self.parts: dict[int, int] = {}  # file index -> parts it is converted in (default 1)
        self.size_done = 0
        self.started = time.perf_counter()

    def post(self, key: tuple[int, int, int], done: int, total: int) -> None:
        index, part, _ = key
        self.running[(index, part)] = (done, total)
        self._emit(None)

    def finish(self, task: Task, result: FileResult) -> None:
        for key in [k for k in self.running if k[0] == task.index]:
            del self.running[key]
        self.files_done += 1
        self.sentences += result.sentences
        self.size_done += self.sizes.get(task.index, 0)
        self._emit(result)

    def _emit(self, file: FileResult | None) -> None:
        if self.callback is None:
            return
        size = self.size_done + sum(self.sizes[i] * d / max(1, n) / self.parts.get(i, 1)
                                    for (i, _), (d, n) in self.running.items())
        fraction = size / self.total_size if self.total_size else 1.0
        elapsed = time.perf_counter() - self.started
        sentences = self.sentences + sum(d for d, _ in self.running.values())
        left = elapsed * (1 - fraction) / fraction if fraction > 0.01 else None
        self.callback(BatchProgress(self.files_done, self.files_total, sentences,
                                    sentences / elapsed if elapsed > 0 else 0.0, left,
                                    fraction, file))


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
