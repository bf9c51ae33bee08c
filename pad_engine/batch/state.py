"""Resuming: a state file in the output folder records which input, model and options made
each finished output, so that a rerun skips outputs that are complete and up to date."""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path

from pad_engine.batch.report import UP_TO_DATE, FileResult
from pad_engine.batch.tasks import Task, options
from pad_engine.io.gate import append_text, read_bytes, write_text

STATE_NAME = ".pad-convert-state.jsonl"


class State:
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

    def up_to_date(self, task: Task) -> FileResult | None:
        """The earlier result when the task's output is complete and still valid, else None."""
        r = self.records.get(task.output)
        try:
            src, dst = os.stat(task.src), os.stat(task.dst)
            if (r is None or r["input"] != task.input or r["options"] != options(task)
                    or (dst.st_mtime_ns, dst.st_size) != (r["output_mtime_ns"], r["output_size"])
                    or (src.st_mtime_ns, src.st_size) != (r["input_mtime_ns"], r["input_size"])
                    or dst.st_mtime_ns < src.st_mtime_ns):
                return None
            result = FileResult.from_json(r["result"])
        except (OSError, KeyError, TypeError):
            return None
        result.status = UP_TO_DATE
        return result

    def record(self, task: Task, result: FileResult, stamp: dict) -> None:
        record = {"input": task.input, "output": task.output, "options": options(task),
                  **stamp, "result": asdict(result)}
        self.records[task.output] = record
        append_text(self.path, json.dumps(record) + "\n")

    def compact(self, tasks: list[Task]) -> None:
        """Rewrite the file with one record per current output (it only grows otherwise)."""
        keep = [self.records[t.output] for t in tasks if t.output in self.records]
        write_text(self.path, "".join(json.dumps(r) + "\n" for r in keep))


def stamp(before: os.stat_result, after: os.stat_result) -> dict:
    """The input's and the output's times and sizes, which tell later whether the output
    is still up to date."""
    return {"input_mtime_ns": before.st_mtime_ns, "input_size": before.st_size,
            "output_mtime_ns": after.st_mtime_ns, "output_size": after.st_size}
