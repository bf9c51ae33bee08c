"""The work on one file, or on a range of its sentences, as a worker runs it: read as a
stream, convert, write, post progress and check for a cancel every tick."""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from pad_engine.batch.engines import PER_FILE_RUNS, engine_for
from pad_engine.batch.files import ConvertReport, convert_items, first_sentences
from pad_engine.batch.report import CONVERTED, FAILED, FileResult, Skipped
from pad_engine.batch.state import stamp
from pad_engine.batch.tasks import TICK, Post, Stop, Task
from pad_engine.decoding.choice import SAMPLE
from pad_engine.errors import InputError, PadError
from pad_engine.io.conll_stream import ConllStream
from pad_engine.io.gate import open_read, open_write
from pad_engine.io.special import regular_file_problem
from pad_engine.trees.deptree import DepSentence


def convert_file(
    task: Task, stopped: Callable[[], bool], post: Post | None
) -> tuple[FileResult, dict | None]:
    """Convert one file into its output, atomically; returns the result and, when an output
    was written, the stamps that later tell whether it is still up to date."""
    started = time.perf_counter()
    try:
        os.makedirs(os.path.dirname(task.dst), exist_ok=True)
        with open_write(task.dst, "w") as out:
            result, before = convert_range(task, 0, 1, out, stopped, post)
        after = os.stat(task.dst)
    except Stop:
        raise
    except Exception as err:  # noqa: BLE001 - one bad file must not end the whole batch
        return _failed(task, err, started), None
    result.seconds = time.perf_counter() - started
    return result, stamp(before, after)


def convert_range(task: Task, part: int, parts: int, out, stopped: Callable[[], bool],
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
        sample, items = first_sentences(stream, SAMPLE) if task.model in PER_FILE_RUNS \
            else ([], iter(stream))
        engine, model_name = engine_for(task, sample)
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


def _whole_file(task: Task) -> tuple[int, str | None, Counter[str]]:
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


def _failed(task: Task, err: Exception, started: float) -> FileResult:
    result = FileResult(task.input, task.output, FAILED)
    result.error = str(err) if isinstance(err, (PadError, OSError)) else (
        f"internal error: {type(err).__name__}: {err}")
    result.seconds = time.perf_counter() - started
    return result


def _watched(chunks: Iterator[str], key: tuple[int, int, int], total: Callable[[int], int],
             stopped: Callable[[], bool], post: Post | None) -> Iterator[str]:
    """Pass the chunks through, posting progress (``total`` says of how many, from how many
    are done) and checking for a cancel every tick."""
    last = time.perf_counter()
    for done, chunk in enumerate(chunks, 1):
        yield chunk
        now = time.perf_counter()
        if now - last >= TICK:
            last = now
            if stopped():
                raise Stop()
            if post is not None:
                post(key, done, total(done))
