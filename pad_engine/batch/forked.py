"""Work on a stream's items in forked worker processes, results in input order.

Threads share one Python lock: once the decoder's kernels are fast, what is left per
sentence (reading it, its rule-based projection, the output line) runs one thread at a
time, and two threads on distinct sentences measured 1.08x one. Forked workers run all of
it at once. They inherit the loaded model and kernels (nothing is pickled but the items and
their results, a chunk at a time), so they start in milliseconds; a process can fork safely
only while it runs one thread, so :func:`can_fork` says when; otherwise the work runs on
threads (:func:`pad_engine.batch.ordered.ordered`).
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from itertools import chain, islice
from typing import TypeVar

from pad_engine.batch.ordered import ordered
from pad_engine.errors import PadError

T = TypeVar("T")
R = TypeVar("R")

CHUNK = 32  # items sent to a worker at once: one message a chunk, not one an item
AHEAD = 2  # chunks in flight per worker: the next one waits while the worker is busy

_work: Callable | None = None  # the work the workers inherit when forked (never pickled)


def can_fork() -> bool:
    """Whether this process can fork its workers: Linux (macOS forks unsafely, Windows not
    at all) and no other thread running (a fork copies only the calling thread, and a lock
    another thread held stays held in the child)."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


def _quiet() -> None:
    """A worker leaves Ctrl-C to its parent, which stops the work and says so once (it was
    forked with Ctrl-C held back, :func:`_interrupts_held`: ignored, it may come again)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl-C held back while the pool may fork a worker, and delivered here once it has:
    Python runs the fork's handlers (logging's locks, threading's) as the fork returns,
    and a KeyboardInterrupt raised in one of them is printed and dropped ("Exception
    ignored in"), so the conversion went on to its end (tests/test_interrupt.py)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach the main thread only
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _run(chunk: list) -> list[tuple[bool, object]]:
    """A chunk's results in a worker: (True, result) or (False, the exception raised)."""
    out: list[tuple[bool, object]] = []
    for item in chunk:
        try:
            out.append((True, _work(item)))  # type: ignore[misc]
        except Exception as err:  # noqa: BLE001 - raised again in the parent, at its item
            out.append((False, err))
    return out


def ordered_forked(work: Callable[[T], R], items: Iterable[T], workers: int,
                   skip: Callable[[T], bool] = lambda _: False
                   ) -> Iterator[tuple[T, R | None]]:
    """Each item with ``work(item)`` (None for an item ``skip`` names), in input order,
    ``work`` run in ``workers`` forked processes, at most ``AHEAD`` chunks a worker read
    ahead of the output. The first item is worked on here, before the fork, so the workers
    inherit whatever its work loads once (the kernels); a stream shorter than the window is
    worked on here alone, and where this process cannot fork, on ``workers`` threads
    (:func:`~pad_engine.batch.ordered.ordered`). An exception ``work`` raises comes out at
    its item."""
    global _work
    items = iter(items)
    head = list(islice(items, CHUNK * workers * AHEAD))
    if len(head) < CHUNK * workers * AHEAD or not can_fork():
        threads = workers if len(head) == CHUNK * workers * AHEAD else 1
        yield from ordered(work, chain(head, items), threads, skip)
        return
    first = head.pop(0)
    yield first, None if skip(first) else work(first)
    _work = work
    chunks = _chunks(chain(head, items))
    window: deque[tuple[list[T], Future | None]] = deque()
    pool = ProcessPoolExecutor(workers, multiprocessing.get_context("fork"), _quiet)
    try:
        for chunk in chunks:
            todo = [item for item in chunk if not skip(item)]
            with _interrupts_held():  # a submit may fork a worker
                done = pool.submit(_run, todo) if todo else None
            window.append((chunk, done))
            if len(window) >= workers * AHEAD:
                yield from _results(*window.popleft(), skip)
        while window:
            yield from _results(*window.popleft(), skip)
    except BrokenProcessPool as err:  # killed (the system out of memory?): one line, no trace
        raise PadError("a worker process stopped before its work was done (killed, or the "
                       "system ran out of memory?); nothing was written") from err
    finally:  # a consumer that stops early (or Ctrl-C): work not started is dropped
        pool.shutdown(wait=True, cancel_futures=True)
        _work = None


def _chunks(items: Iterator[T]) -> Iterator[list[T]]:
    """The stream in lists of ``CHUNK`` items."""
    while chunk := list(islice(items, CHUNK)):
        yield chunk


def _results(chunk: list[T], done: Future | None, skip: Callable[[T], bool]
             ) -> Iterator[tuple[T, object]]:
    """A chunk's items with their results in order, an exception raised at its item."""
    results = iter(done.result() if done is not None else ())
    for item in chunk:
        if skip(item):
            yield item, None
            continue
        ok, value = next(results)
        if not ok:
            raise value  # type: ignore[misc]
        yield item, value
