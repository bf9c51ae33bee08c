"""Running a batch on this machine: in this process, or in a pool of worker processes that
end with the process that started them, even when it is killed."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

from pad_engine.batch.parts import Parts, convert_part, run_until_stopped
from pad_engine.batch.progress import Tracker
from pad_engine.batch.report import FileResult
from pad_engine.batch.tasks import TICK, Finish, Stop, Task
from pad_engine.batch.work import convert_file
from pad_engine.errors import PadError


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def run_here(todo: list[Task], finish: Finish, tracker: Tracker,
             stop: Callable[[], bool]) -> bool:
    """Convert in this process, one file after another (the parts an earlier run left of a
    file, part after part); True when cancelled."""
    units = Parts(todo, tracker, 1, finish)
    for task, part, parts in units.units:
        if stop():
            units.drop_unfinished()
            return True
        try:
            if part < 0:
                finish(task, *convert_file(task, stop, tracker.post))
            else:
                try:
                    piece = convert_part(task, part, parts, stop, tracker.post)
                except (PadError, OSError) as err:  # the file fails, as in a worker process
                    piece = err
                units.done(task, part, piece)
        except Stop:
            units.drop_unfinished()
            return True
    return False


_worker_cancel = None  # in a pool worker: the run's cancel event
_worker_queue = None  # in a pool worker: where progress goes


def _init_pool_worker(cancel_event, queue, parent: int) -> None:
    """Ctrl+C is the parent's to handle: it tells the workers through ``cancel_event``."""
    import signal

    global _worker_cancel, _worker_queue
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _end_with(parent)
    _worker_cancel, _worker_queue = cancel_event, queue


_PR_SET_PDEATHSIG = 1


def _end_with(parent: int) -> None:
    """End this pool process when ``parent`` dies: a parent killed outright cannot shut its
    pool down, and its workers would convert on for nobody. On Linux the kernel sends
    SIGTERM (prctl PR_SET_PDEATHSIG); elsewhere a thread watches for the parent to go."""
    import signal
    import sys

    if sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
        if armed:
            if os.getppid() != parent:  # it died before the signal was armed
                os._exit(1)
            return
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                     name="pad-parent-watch").start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _pool_task(task: Task) -> tuple[FileResult, dict | None]:
    return convert_file(task, _worker_cancel.is_set,
                        lambda *p: _worker_queue.put(p))  # type: ignore[union-attr]


def _pool_part(task: Task, part: int, parts: int) -> tuple[FileResult, str, tuple[int, int]]:
    return convert_part(task, part, parts, _worker_cancel.is_set,
                        lambda *p: _worker_queue.put(p))  # type: ignore[union-attr]


def run_pool(jobs: int, todo: list[Task], finish: Finish, tracker: Tracker,
             stop: Callable[[], bool]) -> bool:
    """Convert in ``jobs`` worker processes, large files in parts; True when cancelled."""
    import multiprocessing
    import queue
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # spawn, not fork: the caller may have threads (the app, a Dask client) that fork breaks.
    ctx = multiprocessing.get_context("spawn")
    cancel_event, posts = ctx.Event(), ctx.Queue()
    pool = ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_init_pool_worker,
                               initargs=(cancel_event, posts, os.getpid()))
    units = Parts(todo, tracker, jobs, finish)
    pending = {(pool.submit(_pool_task, task) if part < 0 else
                pool.submit(_pool_part, task, part, parts)): (task, part)
               for task, part, parts in units.units}

    def collect(done) -> None:
        while True:
            try:
                tracker.post(*posts.get_nowait())
            except queue.Empty:
                break
        for future in done:
            task, part = pending.pop(future)
            if not future.cancelled():
                error = future.exception()
                units.done(task, part, error if error is not None else future.result())

    def cancel() -> None:
        cancel_event.set()
        units.drop_unfinished()

    try:
        cancelled = run_until_stopped(
            lambda: bool(pending),
            lambda: collect(wait(pending, timeout=TICK, return_when=FIRST_COMPLETED)[0]),
            stop, cancel)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        collect([f for f in pending if f.done()])  # files finished before the stop still count
    return cancelled
