"""Work on a stream's items in threads, results in input order, a bounded window ahead.

The decoder's kernels release Python's lock, so two threads decode two sentences at once;
the reading, the features and the output around them still take turns. The window keeps a
stream's memory flat: at most a few items per thread are read ahead of the output.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import chain, islice
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

AHEAD = 8  # items read ahead of the output, per thread


def ordered(work: Callable[[T], R], items: Iterable[T], threads: int,
            skip: Callable[[T], bool] = lambda _: False) -> Iterator[tuple[T, R | None]]:
    """Each item with ``work(item)`` (None for an item ``skip`` names), in input order,
    ``work`` run on ``threads`` threads (in this one when 1, or when the stream ends within
    the first window). An exception ``work`` raises comes out at its item, as it would
    without threads."""
    items = iter(items)
    # a stream shorter than the window gains nothing from threads (and a worker thread's
    # first kernel call costs its own memory): read a window's worth before starting any
    head = list(islice(items, AHEAD * threads)) if threads > 1 else []
    if threads <= 1 or len(head) < AHEAD * threads:
        for item in chain(head, items):
            yield item, None if skip(item) else work(item)
        return
    window: deque[tuple[T, Future[R] | None]] = deque()
    with ThreadPoolExecutor(threads, thread_name_prefix="pad-convert") as pool:
        try:
            for item in chain(head, items):
                window.append((item, None if skip(item) else pool.submit(work, item)))
                if len(window) >= AHEAD * threads:
                    first, done = window.popleft()
                    yield first, None if done is None else done.result()
            while window:
                first, done = window.popleft()
                yield first, None if done is None else done.result()
        finally:  # a consumer that stops early: work not started is dropped
            for _, done in window:
                if done is not None:
                    done.cancel()
