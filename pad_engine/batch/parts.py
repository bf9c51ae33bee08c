"""Large files cut into parts (sentence ranges), so that one big file keeps every worker
busy; the parts come back to the process that runs the batch, which joins them and writes
the file whole, and keeps the finished ones for a run started again (:class:`Parts`)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path, PurePosixPath

from pad_engine.batch.progress import Tracker
from pad_engine.batch.report import CONVERTED, FAILED, FileResult
from pad_engine.batch.state import stamp
from pad_engine.batch.tasks import Finish, Post, Stop, Task, options
from pad_engine.batch.work import convert_range
from pad_engine.errors import PadError
from pad_engine.io.gate import open_read, open_write, read_bytes, write_text

PART_BYTES = 1 << 20  # with several workers, files are cut into parts of at least this size
PARTS_DIR = ".pad-parts"  # finished parts of files not yet joined, kept across runs


def run_until_stopped(pending: Callable[[], bool], step: Callable[[], None],
                      stop: Callable[[], bool], cancel: Callable[[], None]) -> bool:
    """The loop both runners share: ``step`` (wait a tick, collect what finished) while work
    is ``pending`` and ``stop()`` has not asked to stop; on a stop or Ctrl+C, ``cancel`` (tell
    the workers, drop unfinished parts) before leaving. True when cancelled."""
    cancelled = False
    try:
        while pending() and not cancelled:
            step()
            cancelled = stop()
    except KeyboardInterrupt:
        cancelled = True
        raise
    finally:
        if cancelled:
            cancel()
    return cancelled


def file_parts(size: int, jobs: int) -> int:
    """How many parts a file of ``size`` bytes is cut into for ``jobs`` processes."""
    return 1 if jobs < 2 else max(1, min(2 * jobs, size // PART_BYTES))


def convert_part(task: Task, part: int, parts: int, stopped: Callable[[], bool],
                 post: Post | None) -> tuple[FileResult, str, tuple[int, int]]:
    """A part of a large file: its result, the file its output text went to (under
    OUT/.pad-parts, written atomically) and the input's stamp."""
    started = time.perf_counter()
    text = _part_path(task, part, parts).with_suffix(".txt")
    text.parent.mkdir(parents=True, exist_ok=True)
    with open_write(text, "w") as out:
        result, before = convert_range(task, part, parts, out, stopped, post)
    result.seconds = time.perf_counter() - started
    return result, str(text), (before.st_mtime_ns, before.st_size)


class Parts:
    """The work units of a run: whole files, and the parts of large files, which are joined
    and written (atomically) when the last one is back.

    Each finished part is also kept under OUT/.pad-parts until its file is joined, stamped
    with the input file's size and time and the run's options: a run that was cancelled (or
    killed) and started again takes the parts it finished instead of converting them again,
    so every sentence is converted once."""

    def __init__(self, todo: list[Task], tracker: Tracker, workers: int, finish: Finish):
        self.finish = finish
        self.pieces: dict[int, list] = {}  # file index -> the results of its parts, by part
        self.units: list[tuple[Task, int, int]] = []  # (task, part or -1 for whole, parts)
        ready = []
        for task in sorted(todo, key=lambda t: -tracker.sizes[t.index]):  # big files first
            parts = _kept_count(task) or file_parts(tracker.sizes[task.index], workers)
            tracker.parts[task.index] = parts
            if parts == 1:
                self.units.append((task, -1, 1))
                continue
            kept = [_kept_part(task, part, parts) for part in range(parts)]
            self.pieces[task.index] = kept
            self.units += [(task, part, parts) for part in range(parts) if kept[part] is None]
            if all(p is not None for p in kept):
                ready.append(task)
        for task in ready:  # every part kept by an earlier run
            self._join(task, self.pieces.pop(task.index))

    def done(self, task: Task, part: int, result) -> None:
        """A unit came back with ``result`` (or the exception that ended it)."""
        if isinstance(result, Stop):
            return
        if isinstance(result, BaseException):
            if part < 0 or task.index in self.pieces:
                self.pieces.pop(task.index, None)
                self._failed(task, f"worker failed: {result}")
        elif part < 0:
            self.finish(task, *result)
        elif task.index in self.pieces:
            self.pieces[task.index][part] = result
            _keep_part(task, part, len(self.pieces[task.index]), result)
            if all(p is not None for p in self.pieces[task.index]):
                self._join(task, self.pieces.pop(task.index))

    def drop_unfinished(self) -> None:
        """The run is cancelled: a file with parts still out is not written (its finished
        parts stay kept for the next run)."""
        self.pieces.clear()

    def _failed(self, task: Task, error: str) -> None:
        self.finish(task, FileResult(task.input, task.output, FAILED, error=error), None)

    def _join(self, task: Task, parts: list) -> None:
        if len({stamp for _, _, stamp in parts}) != 1:
            self._failed(task, "the input file changed during the conversion")
            return
        try:
            os.makedirs(os.path.dirname(task.dst), exist_ok=True)
            with open_write(task.dst, "wb") as out:
                for _, text, _ in parts:
                    with open_read(text, limit=None) as f:
                        shutil.copyfileobj(f, out)
            before, after = os.stat(task.src), os.stat(task.dst)
        except (OSError, PadError) as err:
            self._failed(task, str(err))
            return
        if (before.st_mtime_ns, before.st_size) != parts[0][2]:
            self._failed(task, "the input file changed during the conversion")
            return
        _forget_parts(task, len(parts))
        result = FileResult(task.input, task.output, CONVERTED)
        for r, _, _ in parts:
            result.sentences += r.sentences
            result.converted += r.converted
            result.fallback += r.fallback
            result.kbest_cut += r.kbest_cut
            result.skipped += r.skipped
            result.warning = result.warning or r.warning
            result.model = result.model or r.model
            result.seconds = max(result.seconds, r.seconds)
        self.finish(task, result, stamp(before, after))


def _part_path(task: Task, part: int, parts: int) -> Path:
    """Where a finished part of ``task`` is kept: named by its output and options."""
    return _parts_dir(task) / f"{_part_key(task)}.{part}-of-{parts}.json"


def _parts_dir(task: Task) -> Path:
    return Path(task.dst).parents[len(PurePosixPath(task.output).parts) - 1] / PARTS_DIR


def _part_key(task: Task) -> str:
    key = json.dumps([task.output, options(task)], sort_keys=True)
    return hashlib.sha1(key.encode()).hexdigest()[:20]


def _kept_count(task: Task) -> int | None:
    """Into how many parts an earlier run cut the file, if it kept any of them (the next
    run cuts it the same way, whatever its number of processes)."""
    for path in _parts_dir(task).glob(f"{_part_key(task)}.*-of-*.json"):
        count = path.name.rsplit("-of-", 1)[1].removesuffix(".json")
        if count.isdigit() and int(count) > 1:
            return int(count)
    return None


def _keep_part(task: Task, part: int, parts: int, piece: tuple) -> None:
    """Record a finished part (its text is already in its file beside)."""
    result, _, stamp = piece
    path = _part_path(task, part, parts)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, json.dumps({"stamp": list(stamp), "result": asdict(result)}))
    except (OSError, PadError):
        pass  # keeping it only saves work later


def _kept_part(task: Task, part: int, parts: int) -> tuple | None:
    """A part an earlier run finished, if the input file is as it was then."""
    path = _part_path(task, part, parts)
    try:
        kept = json.loads(read_bytes(path).decode("utf-8"))
        st = os.stat(task.src)
        text = path.with_suffix(".txt")
        if kept["stamp"] != [st.st_mtime_ns, st.st_size] or not text.is_file():
            return None
        return FileResult.from_json(kept["result"]), str(text), tuple(kept["stamp"])
    except (OSError, PadError, ValueError, KeyError, TypeError):
        return None


def _forget_parts(task: Task, parts: int) -> None:
    for part in range(parts):
        _part_path(task, part, parts).unlink(missing_ok=True)
        _part_path(task, part, parts).with_suffix(".txt").unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        _part_path(task, 0, parts).parent.rmdir()  # when no other file's parts are kept
