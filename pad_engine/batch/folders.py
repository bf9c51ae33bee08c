"""Batch conversion of a folder of CoNLL files, on this machine's cores or on a Dask cluster.

Files are the unit of work, except that a large file is cut into parts (sentence ranges) so
that one big file keeps every worker busy; its output is written whole, by the process that
runs the batch, once every part is back. Every output is written under a temporary name and
renamed when complete (``atomic_open``), so a cancelled, killed or crashed run never leaves a
partial file under a final name, and a worker that dies loses only the unit it was on. A
state file in the output folder records which model and options made each finished output, so
a rerun skips outputs that are complete and up to date and converts the rest.

The workers (processes of a pool, or Dask workers) load the model once each and read and write
the files themselves: on a cluster, the input folder, the output folder and the model must be
at the same paths on every worker (a shared file system).

A run holds a lock on its output folder (``LOCK_NAME``), so a second run into the same folder
refuses instead of removing the first one's temporary files. Special files under the input
folder (a FIFO named ``x.conllu`` would block, a link to ``/dev/zero`` never end) are skipped
and reported, as is an output that is an input file (a symlink or a hard link to one).
Pool processes end with the process that started them, even when it is killed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath

from pad_engine.batch.files import ConvertReport, convert_items, first_sentences
from pad_engine.decoding.choice import COLLINS_MODEL, SAMPLE, UD_MODEL, choose
from pad_engine.decoding.engine import Converter, Engine
from pad_engine.decoding.model import Model
from pad_engine.errors import InputError, PadError
from pad_engine.io.atomic import remove_stale_temps
from pad_engine.io.conll_stream import ConllStream
from pad_engine.io.encoding import check_encoding
from pad_engine.io.gate import (
    append_text,
    check_folder,
    check_output_folder,
    open_read,
    open_write,
    read_bytes,
    write_text,
)
from pad_engine.io.special import regular_file_problem
from pad_engine.resources import resource_path
from pad_engine.trees.deptree import DepSentence

try:
    import fcntl
except ImportError:  # Windows: runs into one folder are not kept apart
    fcntl = None

EXTENSIONS = (".conll", ".conllx", ".conllu")
REPORT_NAME = "pad-convert-report"  # .json and .txt in the output folder
STATE_NAME = ".pad-convert-state.jsonl"
LOCK_NAME = ".pad-convert.lock"
_LOCK_TRIES = 5
CONVERTED, UP_TO_DATE, FAILED, SKIPPED = "converted", "up to date", "failed", "skipped"
_TICK = 0.2  # seconds between progress posts and cancel checks inside a file
PART_BYTES = 1 << 20  # with several workers, files are cut into parts of at least this size
_TEMP = re.compile(r"^\..+\.(mrg|kbest|json|txt|jsonl)\.[0-9a-f]{12}\.tmp$")  # atomic_open's


@dataclass
class Skipped:
    """A sentence that was not converted: an empty line stands in its place in the output."""

    file: str
    line: int | None
    reason: str


@dataclass
class FileResult:
    """What happened to one input file (paths relative to the input and output folders)."""

    input: str
    output: str
    status: str  # CONVERTED, UP_TO_DATE (by an earlier run), FAILED or SKIPPED (not a file)
    sentences: int = 0
    converted: int = 0
    fallback: int = 0
    kbest_cut: int = 0  # sentences whose k-best list the memory budget cut (ConvertReport.cut)
    skipped: list[Skipped] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""  # why a FAILED file failed, or a SKIPPED one was not read
    warning: str = ""  # e.g. the model reads labels the file mostly lacks
    model: str = ""  # which model converted it (per file when the run chooses), and why

    @classmethod
    def from_json(cls, d: dict) -> FileResult:
        return cls(**{**d, "skipped": [Skipped(**s) for s in d.get("skipped", [])]})


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


@dataclass
class BatchReport:
    """The outcome of a run; also written to ``report_path`` (JSON) and its ``.txt`` twin."""

    in_dir: str
    out_dir: str
    model: str
    model_sha256: str
    kbest: int
    prune: bool
    pos: str
    workers: str
    files: list[FileResult] = field(default_factory=list)
    seconds: float = 0.0
    cancelled: bool = False
    report_path: str = ""

    def count(self, status: str) -> int:
        return sum(f.status == status for f in self.files)

    @property
    def sentences(self) -> int:
        return sum(f.sentences for f in self.files)

    @property
    def converted(self) -> int:
        return sum(f.converted for f in self.files)

    @property
    def skipped(self) -> list[Skipped]:
        return [s for f in self.files for s in f.skipped]

    @property
    def sentences_per_second(self) -> float:
        """Speed of this run: sentences of the files it converted over its wall time."""
        done = sum(f.sentences for f in self.files if f.status == CONVERTED)
        return done / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict:
        d = asdict(self)
        d["totals"] = {
            "files": len(self.files),
            "converted_files": self.count(CONVERTED),
            "up_to_date_files": self.count(UP_TO_DATE),
            "failed_files": self.count(FAILED),
            "skipped_files": self.count(SKIPPED),
            "sentences": self.sentences,
            "converted_sentences": self.converted,
            "skipped_sentences": len(self.skipped),
            "fallback_sentences": sum(f.fallback for f in self.files),
            "kbest_cut_sentences": sum(f.kbest_cut for f in self.files),
            "sentences_per_second": round(self.sentences_per_second, 1),
        }
        return d

    def to_text(self) -> str:
        t = self.to_json()["totals"]
        how = f"{self.kbest}-best" if self.kbest else "1-best"
        lines = [
            "PAD convert-dir report" + (" (CANCELLED: not every file was converted)"
                                        if self.cancelled else ""),
            f"input:   {self.in_dir}",
            f"output:  {self.out_dir}",
            f"model:   {self.model} (sha256 {self.model_sha256[:16]})",
            f"options: {how}, {'pruned' if self.prune else 'exact'} decoding, POS {self.pos}; "
            f"{self.workers}",
            f"time:    {self.seconds:.1f} s, {t['sentences_per_second']:,.1f} sentences/s",
            f"files:   {t['files']} ({t['converted_files']} converted, "
            f"{t['up_to_date_files']} up to date from an earlier run, {t['failed_files']} failed"
            + (f", {t['skipped_files']} skipped: not regular files" if t["skipped_files"] else "")
            + ")",
            f"sentences: {t['sentences']} ({t['converted_sentences']} converted, "
            f"{t['fallback_sentences']} of them by the flat fallback"
            + (f", {t['kbest_cut_sentences']} with the k-best list cut to fit memory (fewer "
               "than k trees: the chart was too large for k)"
               if t["kbest_cut_sentences"] else "")
            + f"; {t['skipped_sentences']} skipped, an empty output line each)",
            "",
        ]
        width = max([len(f.input) for f in self.files] + [4])
        lines.append(f"{'FILE':<{width}}  {'STATUS':<10}  {'SENTENCES':>9}  {'CONVERTED':>9}  "
                     f"{'SKIPPED':>7}  OUTPUT  MODEL")
        for f in self.files:
            lines.append(f"{f.input:<{width}}  {f.status:<10}  {f.sentences:>9}  "
                         f"{f.converted:>9}  {len(f.skipped):>7}  {f.output}  "
                         f"{f.model.split(' (')[0] or '-'}"
                         + (f"  ({f.error})" if f.error else ""))
        warned = [f for f in self.files if f.warning]
        if warned:
            lines += ["", "Warnings:"]
            lines += [f"{f.input}: {f.warning}" for f in warned]
        if self.skipped:
            lines += ["", "Skipped sentences:"]
            lines += [f"{s.file}:{s.line}: {s.reason}" for s in self.skipped]
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class _Task:
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


class _Stop(Exception):
    """The run was cancelled while a file was being written (its temporary file is gone)."""


def find_inputs(in_dir: str | os.PathLike[str]) -> list[PurePosixPath]:
    """CoNLL files under ``in_dir`` (recursive), as sorted paths relative to it; only regular
    files (and links to them), see :func:`scan_inputs`."""
    return scan_inputs(in_dir)[0]


def scan_inputs(in_dir: str | os.PathLike[str]
                ) -> tuple[list[PurePosixPath], list[tuple[PurePosixPath, str]]]:
    """The CoNLL files under ``in_dir`` (recursive) as sorted relative paths, and the names
    with a CoNLL extension that are special files (a FIFO, a device, a socket), each with the
    reason it is not read. A name that cannot be looked up (a broken link) is an input, which
    then fails with the reason."""
    root = Path(in_dir)
    found, special = [], []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        rel = Path(folder).relative_to(root)
        for name in files:
            if not name.lower().endswith(EXTENSIONS):
                continue
            path = PurePosixPath(rel.as_posix(), name)
            try:
                problem = regular_file_problem(os.stat(os.path.join(folder, name)))
            except OSError:
                problem = None
            if problem:
                special.append((path, problem))
            else:
                found.append(path)
    return sorted(found), sorted(special)


def output_names(inputs: list[PurePosixPath], kbest: int) -> list[PurePosixPath]:
    """Output paths mirroring the inputs: ``a/b.conllu`` -> ``a/b.mrg`` (``.kbest`` for k-best
    output); inputs that share a folder and stem keep their extension (``b.conll.mrg``)."""
    ext = ".kbest" if kbest else ".mrg"
    stems: dict[PurePosixPath, int] = {}
    for p in inputs:
        stems[p.with_suffix("")] = stems.get(p.with_suffix(""), 0) + 1
    return [p.with_name(p.name + ext) if stems[p.with_suffix("")] > 1 else p.with_suffix(ext)
            for p in inputs]


def default_jobs() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


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
) -> BatchReport:
    """Convert every CoNLL file under ``in_dir`` into Penn trees under ``out_dir``.

    ``model_path`` None means the bundled model. ``jobs`` worker processes (default: every
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
    if model_path is None:
        model_file, sha256 = PER_FILE, _bundled_sha256()
    else:
        model_file = Path(model_path).resolve()
        sha256 = _sha256(model_file)
        _keep_engine((str(model_file), sha256), Engine(Model.load(model_file)))  # fails early
    out_root.mkdir(parents=True, exist_ok=True)
    with _output_lock(out_root):
        return _convert_locked(in_root, out_root, model_file, sha256, jobs, kbest, prune, pos,
                               scheduler, progress, cancel, encoding)


def _convert_locked(in_root: Path, out_root: Path, model_file: Path, sha256: str,
                    jobs: int | None, kbest: int, prune: bool, pos: str, scheduler: str | None,
                    progress: Callable[[BatchProgress], None] | None,
                    cancel: Callable[[], bool] | None, encoding: str | None) -> BatchReport:
    """The run of :func:`convert_folder`, its output folder locked."""
    _remove_temp_files(out_root)
    inputs, special = scan_inputs(in_root)
    sources = _inodes(in_root / p for p in inputs)
    for name in (STATE_NAME, f"{REPORT_NAME}.json", f"{REPORT_NAME}.txt"):
        clash = _input_at(out_root / name, sources)
        if clash:
            raise InputError(f"{name} here is the input file {clash}: refusing to overwrite it",
                             str(out_root))
    tasks = [_Task(i, str(in_root / src), str(out_root / dst), str(src), str(dst),
                   str(model_file), sha256, kbest, prune, pos, encoding)
             for i, (src, dst) in enumerate(zip(inputs, output_names(inputs, kbest)))]
    state = _State(out_root / STATE_NAME)
    results: dict[int, FileResult] = {}
    todo, clashes = [], []
    for t in tasks:
        earlier = state.up_to_date(t)
        clash = _input_at(Path(t.dst), sources)
        if clash:
            clashes.append((t, FileResult(t.input, t.output, FAILED, error=(
                f"the output is the input file {clash} (a link to it): not overwritten"))))
        elif earlier is not None:
            results[t.index] = earlier
        else:
            todo.append(t)
    skipped = [FileResult(str(p), "", SKIPPED, error=why) for p, why in special]
    jobs = max(1, min(jobs or default_jobs(), len(todo)))
    report = BatchReport(str(in_root), str(out_root), str(model_file), sha256, kbest, prune, pos,
                         f"Dask scheduler {scheduler}" if scheduler else
                         f"{jobs} process{'es' if jobs > 1 else ''}")
    tracker = _Tracker(todo, len(results), len(tasks), progress)

    def finish(task: _Task, result: FileResult, stamp: dict | None) -> None:
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
        _write_report(report, out_root)

    stop = cancel or (lambda: False)
    started = time.perf_counter()
    try:
        if scheduler:
            report.cancelled = _run_dask(scheduler, todo, finish, tracker, stop)
        elif jobs == 1:
            report.cancelled = _run_here(todo, finish, tracker, stop)
        else:
            report.cancelled = _run_pool(jobs, todo, finish, tracker, stop)
    except KeyboardInterrupt:
        report.cancelled = True
        close()
        raise
    close()
    return report


# -- the work on one file (runs in a worker) ------------------------------------------------

PER_FILE = "per file"  # the model of a run that chooses, for each file, the model fitting it
_ENGINES: dict[tuple[str, str], Engine] = {}
_ENGINES_LOCK = threading.Lock()


def _engine(task: _Task, sentences: list) -> tuple[Converter, str]:
    """The task's model, loaded once per worker process (and kept for the next files), and
    its name; per file, the one that fits the file's sentences."""
    with _ENGINES_LOCK:
        if task.model == PER_FILE:
            choice = choose(sentences, load=_bundled_engine)
            return choice.engine, f"{choice.name} ({choice.reason})"
        key = (task.model, task.sha256)
        if key not in _ENGINES:
            if _sha256(Path(task.model)) != task.sha256:
                raise PadError(f"{task.model}: the model file changed during the run")
            _keep_engine(key, Engine(Model.load(task.model)))
        return _ENGINES[key], Path(task.model).name


def _bundled_engine(path: Path) -> Engine:
    key = (str(path), PER_FILE)
    if key not in _ENGINES:
        _keep_engine(key, Engine.load(path))
    return _ENGINES[key]


def _keep_engine(key: tuple[str, str], engine: Engine) -> None:
    """Keep few models per process: the app may run many batches with different models
    (a run that chooses per file needs the two bundled ones)."""
    if len(_ENGINES) >= 2:
        _ENGINES.clear()
    _ENGINES[key] = engine


def _bundled_sha256() -> str:
    """One digest of the bundled models: a run choosing per file is up to date only with
    the models it chose from."""
    digest = hashlib.sha256()
    for name in (COLLINS_MODEL, UD_MODEL):
        digest.update(_sha256(resource_path("models", name)).encode())
    return digest.hexdigest()


def _convert_file(
    task: _Task, stopped: Callable[[], bool], post: Post | None
) -> tuple[FileResult, dict | None]:
    """Convert one file into its output, atomically; returns the result and, when an output
    was written, the stamps that later tell whether it is still up to date."""
    started = time.perf_counter()
    try:
        os.makedirs(os.path.dirname(task.dst), exist_ok=True)
        with open_write(task.dst, "w") as out:
            result, before = _convert_range(task, 0, 1, out, stopped, post)
        after = os.stat(task.dst)
    except _Stop:
        raise
    except Exception as err:  # noqa: BLE001 - one bad file must not end the whole batch
        return _failed(task, err, started), None
    result.seconds = time.perf_counter() - started
    return result, _stamp(before, after)


def _convert_range(task: _Task, part: int, parts: int, out, stopped: Callable[[], bool],
                   post: Post | None) -> tuple[FileResult, os.stat_result]:
    """Write the output of part ``part`` of ``parts`` (a range of sentences, with the empty
    lines of the malformed sentences after each) of the task's file to ``out``, reading the
    file as a stream (a file in parts is read once more before, to count its sentences)."""
    before = os.stat(task.src)
    problem = regular_file_problem(before)
    if problem:  # became one since the folder was scanned: reading it could block
        raise InputError(problem, task.input)
    whole = _whole_file(task) if parts > 1 else None
    n = whole[0] if whole else 0
    lo, hi = (part * n // parts, (part + 1) * n // parts) if whole else (0, -1)
    report = ConvertReport()
    with open_read(task.src) as f:  # streamed (memory stays flat), still bounded
        stream = ConllStream(f, task.src, task.pos, task.encoding)
        sample, items = first_sentences(stream, SAMPLE) if task.model == PER_FILE \
            else ([], iter(stream))
        engine, model_name = _engine(task, sample)
        size = max(1, before.st_size)

        def total(done: int) -> int:  # the part's sentences, or an estimate from bytes read
            return hi - lo if whole else max(done, round(done * size / max(1, f.tell())))

        chunks = convert_items(engine, _sentence_range(items, lo, hi, part == 0), report,
                               task.prune, task.kbest)
        for chunk in _watched(chunks, (task.index, part, parts), total, stopped, post):
            out.write(chunk)
    note, relations = (whole[1], whole[2]) if whole else (stream.note, report.relations)
    warning = "; ".join(w for w in (note, engine.relations_warning(relations)) if w) \
        if part == 0 else None
    problems = sorted([*report.unreadable, *report.problems], key=lambda e: e.line or 0)
    result = FileResult(task.input, task.output, CONVERTED)
    result.sentences = report.sentences + len(report.unreadable)
    result.converted = report.converted
    result.fallback = report.fallback
    result.kbest_cut = len(report.cut)
    result.skipped = [Skipped(task.input, e.line, e.problem) for e in problems]
    result.warning = warning or ""
    result.model = model_name
    return result, before


def _whole_file(task: _Task) -> tuple[int, str | None, Counter[str]]:
    """A file's sentences (malformed ones not counted), the note on its encoding and its
    relations' counts, from one pass that keeps nothing else."""
    relations: Counter[str] = Counter()
    count = 0
    with open_read(task.src) as f:
        stream = ConllStream(f, task.src, task.pos, task.encoding)
        for item in stream:
            if not isinstance(item, InputError):
                count += 1
                relations.update(item.rels or ["_"] * len(item.forms))
    return count, stream.note, relations


def _sentence_range(items: Iterable[DepSentence | InputError], lo: int, hi: int,
                    first: bool) -> Iterator[DepSentence | InputError]:
    """Sentences ``lo`` to ``hi`` - 1 of a stream (all when ``hi`` < 0), each malformed one
    with the sentence before it (the first part takes those before the first sentence)."""
    index = -1  # of the last sentence met
    for item in items:
        if not isinstance(item, InputError):
            index += 1
            if index == hi:
                return
        if (lo <= index or first) and (index < hi or hi < 0):
            yield item


def _failed(task: _Task, err: Exception, started: float) -> FileResult:
    result = FileResult(task.input, task.output, FAILED)
    result.error = str(err) if isinstance(err, (PadError, OSError)) else (
        f"internal error: {type(err).__name__}: {err}")
    result.seconds = time.perf_counter() - started
    return result


def _stamp(before: os.stat_result, after: os.stat_result) -> dict:
    return {"input_mtime_ns": before.st_mtime_ns, "input_size": before.st_size,
            "output_mtime_ns": after.st_mtime_ns, "output_size": after.st_size}


def _watched(chunks: Iterator[str], key: tuple[int, int, int], total: Callable[[int], int],
             stopped: Callable[[], bool], post: Post | None) -> Iterator[str]:
    """Pass the chunks through, posting progress (``total`` says of how many, from how many
    are done) and checking for a cancel every tick."""
    last = time.perf_counter()
    done = 0
    for chunk in chunks:
        done += 1
        yield chunk
        now = time.perf_counter()
        if now - last >= _TICK:
            last = now
            if stopped():
                raise _Stop()
            if post is not None:
                post(key, done, total(done))


# -- three ways to run the tasks ---------------------------------------------------------------

Finish = Callable[[_Task, FileResult, "dict | None"], None]
Post = Callable[[tuple[int, int, int], int, int], None]  # (file, part, parts), done, total


def _run_here(todo: list[_Task], finish: Finish, tracker: _Tracker,
              stop: Callable[[], bool]) -> bool:
    """Convert in this process, one file after another (the parts an earlier run left of a
    file, part after part); True when cancelled."""
    units = _Parts(todo, tracker, 1, finish)
    for task, part, parts in units.units:
        if stop():
            units.drop_unfinished()
            return True
        try:
            if part < 0:
                finish(task, *_convert_file(task, stop, tracker.post))
            else:
                try:
                    piece = _convert_part(task, part, parts, stop, tracker.post)
                except (PadError, OSError) as err:  # the file fails, as in a worker process
                    piece = err
                units.done(task, part, piece)
        except _Stop:
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


def _pool_task(task: _Task) -> tuple[FileResult, dict | None]:
    return _convert_file(task, _worker_cancel.is_set,
                         lambda *p: _worker_queue.put(p))  # type: ignore[union-attr]


def _pool_part(task: _Task, part: int, parts: int) -> tuple[FileResult, str, tuple[int, int]]:
    return _convert_part(task, part, parts, _worker_cancel.is_set,
                         lambda *p: _worker_queue.put(p))  # type: ignore[union-attr]


def _convert_part(task: _Task, part: int, parts: int, stopped: Callable[[], bool],
                  post: Post | None) -> tuple[FileResult, str, tuple[int, int]]:
    """A part of a large file: its result, the file its output text went to (under
    OUT/.pad-parts, written atomically) and the input's stamp."""
    started = time.perf_counter()
    text = _part_path(task, part, parts).with_suffix(".txt")
    text.parent.mkdir(parents=True, exist_ok=True)
    with open_write(text, "w") as out:
        result, before = _convert_range(task, part, parts, out, stopped, post)
    result.seconds = time.perf_counter() - started
    return result, str(text), (before.st_mtime_ns, before.st_size)


PARTS_DIR = ".pad-parts"  # finished parts of files not yet joined, kept across runs


class _Parts:
    """The work units of a run: whole files, and the parts of large files, which are joined
    and written (atomically) when the last one is back.

    Each finished part is also kept under OUT/.pad-parts until its file is joined, stamped
    with the input file's size and time and the run's options: a run that was cancelled (or
    killed) and started again takes the parts it finished instead of converting them again,
    so every sentence is converted once."""

    def __init__(self, todo: list[_Task], tracker: _Tracker, workers: int, finish: Finish):
        self.finish = finish
        self.pieces: dict[int, list] = {}  # file index -> the results of its parts, by part
        self.units: list[tuple[_Task, int, int]] = []  # (task, part or -1 for whole, parts)
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

    def done(self, task: _Task, part: int, result) -> None:
        """A unit came back with ``result`` (or the exception that ended it)."""
        if isinstance(result, _Stop):
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

    def _failed(self, task: _Task, error: str) -> None:
        self.finish(task, FileResult(task.input, task.output, FAILED, error=error), None)

    def _join(self, task: _Task, parts: list) -> None:
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
        self.finish(task, result, _stamp(before, after))


def _part_path(task: _Task, part: int, parts: int) -> Path:
    """Where a finished part of ``task`` is kept: named by its output and options."""
    return _parts_dir(task) / f"{_part_key(task)}.{part}-of-{parts}.json"


def _parts_dir(task: _Task) -> Path:
    return Path(task.dst).parents[len(PurePosixPath(task.output).parts) - 1] / PARTS_DIR


def _part_key(task: _Task) -> str:
    key = json.dumps([task.output, _options(task)], sort_keys=True)
    return hashlib.sha1(key.encode()).hexdigest()[:20]


def _kept_count(task: _Task) -> int | None:
    """Into how many parts an earlier run cut the file, if it kept any of them (the next
    run cuts it the same way, whatever its number of processes)."""
    for path in _parts_dir(task).glob(f"{_part_key(task)}.*-of-*.json"):
        count = path.name.rsplit("-of-", 1)[1].removesuffix(".json")
        if count.isdigit() and int(count) > 1:
            return int(count)
    return None


def _keep_part(task: _Task, part: int, parts: int, piece: tuple) -> None:
    """Record a finished part (its text is already in its file beside)."""
    result, _, stamp = piece
    path = _part_path(task, part, parts)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, json.dumps({"stamp": list(stamp), "result": asdict(result)}))
    except (OSError, PadError):
        pass  # keeping it only saves work later


def _kept_part(task: _Task, part: int, parts: int) -> tuple | None:
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


def _forget_parts(task: _Task, parts: int) -> None:
    for part in range(parts):
        _part_path(task, part, parts).unlink(missing_ok=True)
        _part_path(task, part, parts).with_suffix(".txt").unlink(missing_ok=True)
    try:
        _part_path(task, 0, parts).parent.rmdir()  # when no other file's parts are kept
    except OSError:
        pass


def file_parts(size: int, jobs: int) -> int:
    """How many parts a file of ``size`` bytes is cut into for ``jobs`` processes."""
    return 1 if jobs < 2 else max(1, min(2 * jobs, size // PART_BYTES))


def _run_pool(jobs: int, todo: list[_Task], finish: Finish, tracker: _Tracker,
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
    units = _Parts(todo, tracker, jobs, finish)
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

    cancelled = False
    try:
        while pending and not cancelled:
            done, _ = wait(pending, timeout=_TICK, return_when=FIRST_COMPLETED)
            collect(done)
            cancelled = stop()
    except KeyboardInterrupt:
        cancelled = True
        raise
    finally:
        if cancelled:
            cancel_event.set()
            units.drop_unfinished()
        pool.shutdown(wait=True, cancel_futures=True)
        collect([f for f in pending if f.done()])  # files finished before the stop still count
    return cancelled


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


def _dask_task(task: _Task, cancel_name: str) -> tuple[FileResult, dict | None]:
    """A whole file as a Dask task (the worker writes its output)."""
    return _convert_file(task, _dask_stopped(cancel_name), None)


def _dask_part(task: _Task, part: int, parts: int,
               cancel_name: str) -> tuple[FileResult, str, tuple[int, int]]:
    """Part of a large file as a Dask task (its text comes back to be joined)."""
    return _convert_part(task, part, parts, _dask_stopped(cancel_name), None)


def _run_dask(address: str, todo: list[_Task], finish: Finish, tracker: _Tracker,
              stop: Callable[[], bool]) -> bool:
    """Convert on a Dask cluster, large files in parts; True when cancelled. A task whose
    worker dies is rescheduled by the scheduler on another worker."""
    try:
        from distributed import Client, Event
    except ImportError as err:
        raise PadError(f"--scheduler needs dask.distributed ({err})") from None
    try:
        client = Client(address, timeout="20s", set_as_default=False)
    except (OSError, TimeoutError) as err:
        raise PadError(f"cannot reach the Dask scheduler at {address}: {err}") from None
    name = f"pad-convert-cancel-{uuid.uuid4().hex}"
    cancelled = False
    with client:
        event = Event(name, client=client)
        workers = max(1, sum(w.get("nthreads", 1) for w in
                             client.scheduler_info().get("workers", {}).values()))
        units = _Parts(todo, tracker, workers, finish)
        pending = {}
        for task, part, parts in units.units:
            key = f"pad-convert-{task.index}-{max(part, 0)}-{name[-8:]}"
            future = (client.submit(_dask_task, task, name, pure=False, key=key) if part < 0
                      else client.submit(_dask_part, task, part, parts, name, pure=False,
                                         key=key))
            pending[future] = (task, part)
        try:
            while pending and not cancelled:
                time.sleep(_TICK)
                for future in [f for f in pending if f.done()]:
                    task, part = pending.pop(future)
                    try:
                        result = future.result()
                    except Exception as err:  # noqa: BLE001 - reported per file
                        result = err
                    units.done(task, part, result)
                cancelled = stop()
        except KeyboardInterrupt:
            cancelled = True
            raise
        finally:
            if cancelled:
                event.set()
                units.drop_unfinished()
                client.cancel(list(pending))
    return cancelled


# -- progress, state and report ------------------------------------------------------------


class _Tracker:
    """Turns worker posts and finished files into :class:`BatchProgress` events."""

    def __init__(self, todo: list[_Task], up_to_date: int, total: int,
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

    def finish(self, task: _Task, result: FileResult) -> None:
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


class _State:
    """Which finished output came from which input, model and options (one JSON per line,
    appended as files finish so that a killed run's finished files are not redone)."""

    def __init__(self, path: Path):
        self.path = path
        self.records: dict[str, dict] = {}
        try:
            text = read_bytes(path).decode("utf-8") if os.path.lexists(path) else ""
        except UnicodeDecodeError:
            text = ""
        for line in text.splitlines():
            try:
                record = json.loads(line)
                self.records[record["output"]] = record
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a kill

    def up_to_date(self, task: _Task) -> FileResult | None:
        """The earlier result when the task's output is complete and still valid, else None."""
        r = self.records.get(task.output)
        try:
            src, dst = os.stat(task.src), os.stat(task.dst)
            if (r is None or r["input"] != task.input or r["options"] != _options(task)
                    or (dst.st_mtime_ns, dst.st_size) != (r["output_mtime_ns"], r["output_size"])
                    or (src.st_mtime_ns, src.st_size) != (r["input_mtime_ns"], r["input_size"])
                    or dst.st_mtime_ns < src.st_mtime_ns):
                return None
            result = FileResult.from_json(r["result"])
        except (OSError, KeyError, TypeError):
            return None
        result.status = UP_TO_DATE
        return result

    def record(self, task: _Task, result: FileResult, stamp: dict) -> None:
        record = {"input": task.input, "output": task.output, "options": _options(task),
                  **stamp, "result": asdict(result)}
        self.records[task.output] = record
        append_text(self.path, json.dumps(record) + "\n")

    def compact(self, tasks: list[_Task]) -> None:
        """Rewrite the file with one record per current output (it only grows otherwise)."""
        keep = [self.records[t.output] for t in tasks if t.output in self.records]
        write_text(self.path, "".join(json.dumps(r) + "\n" for r in keep))


def _options(task: _Task) -> dict:
    options = {"model_sha256": task.sha256, "kbest": task.kbest, "prune": task.prune,
               "pos": task.pos}
    if task.encoding is not None:  # runs without --encoding keep their earlier records
        options["encoding"] = task.encoding
    return options


def _write_report(report: BatchReport, out_root: Path) -> None:
    path = out_root / f"{REPORT_NAME}.json"
    report.report_path = str(path)
    write_text(path, json.dumps(report.to_json(), indent=1) + "\n")
    write_text(path.with_suffix(".txt"), report.to_text())


def _remove_temp_files(out_root: Path) -> None:
    """Temporary files that a killed run left behind (never under a final name); a writer
    still holding one (a Dask worker of a cancelled run) keeps it."""
    for folder, _, _ in os.walk(out_root):
        remove_stale_temps(folder, _TEMP, 0.0)


@contextmanager
def _output_lock(out_root: Path) -> Iterator[None]:
    """Hold the output folder's lock file for a run, or refuse: two runs into one folder
    would remove each other's temporary files and interleave their state records. The file
    goes when the run ends (a killed run's stays, unlocked, for the next run to take)."""
    if fcntl is None:
        yield
        return
    path = out_root / LOCK_NAME
    for _ in range(_LOCK_TRIES):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
            os.close(fd)
            raise InputError(
                "another pad convert-dir" + (f" (process {holder})" if holder.isdigit() else "")
                + " is writing into this folder: wait for it to end, or choose another output "
                "folder", str(out_root)) from None
        if _same_file(path, fd):
            break
        os.close(fd)  # the run that held it removed it meanwhile: take the new one
    else:
        raise InputError("cannot lock the output folder (its lock file keeps changing)",
                         str(out_root))
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        try:
            os.unlink(path)  # still locked: a run waiting on this file retries with a new one
        except OSError:
            pass
        os.close(fd)


def _same_file(path: Path, fd: int) -> bool:
    try:
        st, held = os.stat(path), os.fstat(fd)
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino)


def _inodes(paths: Iterator[Path]) -> dict[tuple[int, int], str]:
    """(device, inode) of each existing path -> the path."""
    out = {}
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue
        out[(st.st_dev, st.st_ino)] = str(path)
    return out


def _input_at(path: Path, sources: dict[tuple[int, int], str]) -> str | None:
    """The input file that ``path`` is (through a link), if it is one."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return sources.get((st.st_dev, st.st_ino))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open_read(path, "model", None) as f:  # Model.load bounds its size
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
