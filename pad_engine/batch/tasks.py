"""A run's unit of work as it is shipped to a worker (a process of the pool, or a Dask
worker), and what the modules that run units share about it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pad_engine.batch.report import FileResult

TICK = 0.2  # seconds between progress posts and cancel checks inside a file


@dataclass(frozen=True)
class Task:
    """One file to convert, as shipped to a worker (absolute paths plus report names)."""

    index: int
    src: str
    dst: str
    input: str
    output: str
    model: str
    sha256: str
    kbest: int
    prune: bool
    pos: str
    encoding: str | None = None  # None: UTF-8, other lines in a detected encoding


class Stop(Exception):
    """The run was cancelled while a file was being written (its temporary file is gone)."""


Finish = Callable[[Task, FileResult, "dict | None"], None]
Post = Callable[[tuple[int, int, int], int, int], None]  # (file, part, parts), done, total


def options(task: Task) -> dict:
    """What besides the input decides a task's output: an output made with other options
    is not up to date, and a kept part made with them is not taken up."""
    options = {"model_sha256": task.sha256, "kbest": task.kbest, "prune": task.prune,
               "pos": task.pos}
    if task.encoding is not None:  # runs without --encoding keep their earlier records
        options["encoding"] = task.encoding
    return options
