"""Running a batch on a Dask cluster, the optional extra ``pad-studio[dask]``: dask and
distributed are imported here only, when a run names a scheduler.

The Dask workers load the model once each and read and write the files themselves: the
input folder, the output folder and the model must be at the same paths on every worker (a
shared file system). A task whose worker dies is rescheduled on another worker."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from types import ModuleType

from pad_engine.batch.parts import Parts, convert_part, run_until_stopped
from pad_engine.batch.progress import Tracker
from pad_engine.batch.report import FileResult
from pad_engine.batch.tasks import TICK, Finish, Task
from pad_engine.batch.work import convert_file
from pad_engine.errors import PadError

MISSING = ("a Dask scheduler needs dask.distributed, which is not installed: "
           "pip install 'pad-studio[dask]'")


def load_distributed() -> ModuleType:
    """``dask.distributed``, or a one-line PadError that names the extra to install."""
    try:
        import distributed
    except ImportError:
        raise PadError(MISSING) from None
    return distributed


def _dask_stopped(cancel_name: str) -> Callable[[], bool]:
    """The run's cancel event, asked at most once a second."""
    from distributed import Event

    event = Event(cancel_name)
    asked = [0.0, False]

    def stopped() -> bool:
        now = time.monotonic()
        if now - asked[0] >= 1.0:
            asked[:] = [now, event.is_set()]
        return asked[1]

    return stopped


def _dask_task(task: Task, cancel_name: str) -> tuple[FileResult, dict | None]:
    """A whole file as a Dask task (the worker writes its output)."""
    return convert_file(task, _dask_stopped(cancel_name), None)


def _dask_part(task: Task, part: int, parts: int,
               cancel_name: str) -> tuple[FileResult, str, tuple[int, int]]:
    """Part of a large file as a Dask task (its text comes back to be joined)."""
    return convert_part(task, part, parts, _dask_stopped(cancel_name), None)


def run_dask(address: str, todo: list[Task], finish: Finish, tracker: Tracker,
             stop: Callable[[], bool]) -> bool:
    """Convert on the Dask cluster at ``address``, large files in parts; True when
    cancelled."""
    dask = load_distributed()
    try:
        client = dask.Client(address, timeout="20s", set_as_default=False)
    except (OSError, TimeoutError) as err:
        raise PadError(f"cannot reach the Dask scheduler at {address}: {err}") from None
    name = f"pad-convert-cancel-{uuid.uuid4().hex}"
    with client:
        event = dask.Event(name, client=client)
        workers = max(1, sum(w.get("nthreads", 1) for w in
                             client.scheduler_info().get("workers", {}).values()))
        units = Parts(todo, tracker, workers, finish)
        pending = {}
        for task, part, parts in units.units:
            key = f"pad-convert-{task.index}-{max(part, 0)}-{name[-8:]}"
            future = (client.submit(_dask_task, task, name, pure=False, key=key) if part < 0
                      else client.submit(_dask_part, task, part, parts, name, pure=False,
                                         key=key))
            pending[future] = (task, part)
        def step() -> None:
            time.sleep(TICK)
            for future in [f for f in pending if f.done()]:
                task, part = pending.pop(future)
                try:
                    result = future.result()
                except Exception as err:  # noqa: BLE001 - reported per file
                    result = err
                units.done(task, part, result)

        def cancel() -> None:
            event.set()
            units.drop_unfinished()
            client.cancel(list(pending))

        cancelled = run_until_stopped(lambda: bool(pending), step, stop, cancel)
    return cancelled
