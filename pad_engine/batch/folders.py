"""Batch conversion of a folder of CoNLL files, on this machine's cores or on a Dask cluster:
:func:`convert_folder`, the one entry point (the command line and the app call only it).

Files are the unit of work, except that a large file is cut into parts (``parts``) so that
one big file keeps every worker busy; its output is written whole, by the process that runs
the batch, once every part is back. Every output is written under a temporary name and
renamed when complete (``atomic_open``), so a cancelled, killed or crashed run never leaves a
partial file under a final name, and a worker that dies loses only the unit it was on. A
state file in the output folder (``state``) records which model and options made each
finished output, so a rerun skips outputs that are complete and up to date and converts the
rest.

The units run in this process or a pool of processes (``pool``), or on a Dask cluster
(``dask_runner``); each worker loads the model once (``engines``) and reads and writes the
files itself (``work``). A run holds a lock on its output folder (``lock``). Special files
under the input folder (a FIFO named ``x.conllu`` would block, a link to ``/dev/zero`` never
end) are skipped and reported, as is an output that is an input file (``inputs``). Progress
events come from ``progress``, the report from ``report``.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path

from pad_engine.batch.dask_runner import load_distributed, run_dask
from pad_engine.batch.engines import (
    PER_FILE,
    PER_FILE_FAST,
    bundled_sha256,
    keep_engine,
    sha256,
)
from pad_engine.batch.inputs import inodes, input_at, output_names, scan_inputs
from pad_engine.batch.lock import output_lock
from pad_engine.batch.pool import default_jobs, run_here, run_pool
from pad_engine.batch.progress import BatchProgress, Tracker
from pad_engine.batch.report import (
    FAILED,
    REPORT_NAME,
    SKIPPED,
    BatchReport,
    FileResult,
    write_report,
)
from pad_engine.batch.state import STATE_NAME, State
from pad_engine.batch.tasks import Task
from pad_engine.decoding.engine import Engine
from pad_engine.decoding.model import Model
from pad_engine.errors import InputError
from pad_engine.io.atomic import remove_stale_temps
from pad_engine.io.encoding import check_encoding
from pad_engine.io.gate import check_folder, check_output_folder

_TEMP = re.compile(r"^\..+\.(mrg|kbest|json|txt|jsonl)\.[0-9a-f]{12}\.tmp$")  # atomic_open's


def convert_folder(
    in_dir: str | os.PathLike[str],
    out_dir: str | os.PathLike[str],
    model_path: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    kbest: int = 0,
    prune: bool = True,
    *,
    pos: str = "auto",
    scheduler: str | None = None,
    progress: Callable[[BatchProgress], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    encoding: str | None = None,
    fast: bool = False,
) -> BatchReport:
    """Convert every CoNLL file under ``in_dir`` into Penn trees under ``out_dir``.

    ``model_path`` None means the bundled model that fits each file (with ``fast``, its fast
    twin where it has one: ``choice.FAST_TWIN``). ``jobs`` worker processes (default: every
    core; 1 converts in this process); ``scheduler`` the address of a Dask scheduler to run
    the files on instead. ``progress`` is called from this thread with :class:`BatchProgress`
    events; ``cancel`` is polled and, once it returns True, the run stops without leaving any
    partial file under a final name and returns a report with ``cancelled`` set. Ctrl+C does
    the same and then raises ``KeyboardInterrupt``. The report is also written to ``out_dir``.
    ``encoding`` decodes every input file (default: UTF-8, with lines that are not UTF-8 read
    in a detected encoding, which the file's warning names).
    """
    if not 0 <= kbest <= 1000:
        raise InputError(f"k-best count must be between 0 and 1000, not {kbest}")
    if encoding is not None:
        check_encoding(encoding)
    in_root, out_root = Path(in_dir).resolve(), Path(out_dir).resolve()
    check_folder(in_dir, "input folder")
    check_output_folder(out_dir, [in_dir])
    if scheduler:
        load_distributed()  # an optional extra: say which before any work
    if model_path is not None and fast:
        raise InputError("a model file and the fast bundled models exclude each other")
    if model_path is None:
        model_file, digest = PER_FILE_FAST if fast else PER_FILE, bundled_sha256()
    else:
        model_file = Path(model_path).resolve()
        digest = sha256(model_file)
        keep_engine((str(model_file), digest), Engine(Model.load(model_file)))  # fails early
    out_root.mkdir(parents=True, exist_ok=True)
    with output_lock(out_root):
        return _convert_locked(in_root, out_root, model_file, digest, jobs, kbest, prune, pos,
                               scheduler, progress, cancel, encoding)


def _convert_locked(in_root: Path, out_root: Path, model_file: Path, digest: str,
                    jobs: int | None, kbest: int, prune: bool, pos: str, scheduler: str | None,
                    progress: Callable[[BatchProgress], None] | None,
                    cancel: Callable[[], bool] | None, encoding: str | None) -> BatchReport:
    """The run of :func:`convert_folder`, its output folder locked."""
    _remove_temp_files(out_root)
    inputs, special = scan_inputs(in_root)
    sources = inodes(in_root / p for p in inputs)
    for name in (STATE_NAME, f"{REPORT_NAME}.json", f"{REPORT_NAME}.txt"):
        clash = input_at(out_root / name, sources)
        if clash:
            raise InputError(f"{name} here is the input file {clash}: refusing to overwrite it",
                             str(out_root))
    tasks = [Task(i, str(in_root / src), str(out_root / dst), str(src), str(dst),
                  str(model_file), digest, kbest, prune, pos, encoding)
             for i, (src, dst) in enumerate(zip(inputs, output_names(inputs, kbest)))]
    state = State(out_root / STATE_NAME)
    results: dict[int, FileResult] = {}
    todo, clashes = [], []
    for t in tasks:
        earlier = state.up_to_date(t)
        clash = input_at(Path(t.dst), sources)
        if clash:
            clashes.append((t, FileResult(t.input, t.output, FAILED, error=(
                f"the output is the input file {clash} (a link to it): not overwritten"))))
        elif earlier is not None:
            results[t.index] = earlier
        else:
            todo.append(t)
    skipped = [FileResult(str(p), "", SKIPPED, error=why) for p, why in special]
    jobs = max(1, min(jobs or default_jobs(), len(todo)))
    report = BatchReport(str(in_root), str(out_root), str(model_file), digest, kbest, prune, pos,
                         f"Dask scheduler {scheduler}" if scheduler else
                         f"{jobs} process{'es' if jobs > 1 else ''}")
    tracker = Tracker(todo, len(results), len(tasks), progress)

    def finish(task: Task, result: FileResult, stamp: dict | None) -> None:
        results[task.index] = result
        if stamp is not None:
            state.record(task, result, stamp)
        tracker.finish(task, result)

    for task, result in clashes:
        finish(task, result, None)

    def close() -> None:
        report.seconds = time.perf_counter() - started
        report.files = [results[t.index] for t in tasks if t.index in results] + skipped
        state.compact([t for t in tasks if t.index in results])
        if not report.cancelled:
            _remove_temp_files(out_root)
        write_report(report, out_root)

    stop = cancel or (lambda: False)
    started = time.perf_counter()
    try:
        if scheduler:
            report.cancelled = run_dask(scheduler, todo, finish, tracker, stop)
        elif jobs == 1:
            report.cancelled = run_here(todo, finish, tracker, stop)
        else:
            report.cancelled = run_pool(jobs, todo, finish, tracker, stop)
    except KeyboardInterrupt:
        report.cancelled = True
        close()
        raise
    close()
    return report


def _remove_temp_files(out_root: Path) -> None:
    """Temporary files that a killed run left behind (never under a final name); a writer
    still holding one (a Dask worker of a cancelled run) keeps it."""
    for folder, _, _ in os.walk(out_root):
        remove_stale_temps(folder, _TEMP, 0.0)
