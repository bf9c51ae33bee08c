"""The batch conversion controller driven without Qt (no QApplication, no qtbot): what the
dialog shows of a run, from the clicks it forwards."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from toy import BAD_LINE, OUTPUTS, conll_text, files_under, make_tree, toy_examples

from pad_engine.api import FileResult
from pad_gui.controllers.batch import BatchConversion, duration
from pad_gui.store import BUNDLED
from pad_gui.worker import Worker

WAIT = 120.0  # seconds: a safety net for a loaded machine, never a measured limit


class Run:
    """A controller whose workers start at once and whose events a test pumps, with what
    it told the view."""

    def __init__(self, models=None):
        self.workers: list[Worker] = []
        self.batch = BatchConversion(self._launch, models)
        self.rows: list[FileResult] = []
        self.said: list[str] = []
        self.batch.row.connect(self.rows.append)
        self.batch.cleared.connect(self.rows.clear)
        self.batch.changed.connect(lambda: self.said.append(self.batch.status))

    def _launch(self, worker: Worker) -> None:
        self.workers.append(worker)
        worker.start()

    def pump(self, until=lambda: False) -> None:
        """What the UI timer does: poll the worker until ``until()`` or the run ends."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            alive = self.workers[-1].poll()
            if until() or not alive:
                return
            time.sleep(0.005)
        raise AssertionError("nothing happened in time")


def test_a_run_to_the_end_shows_each_file_and_the_totals(tmp_path, toy_model_path):
    run, src, out = Run(), make_tree(tmp_path), tmp_path / "out"
    assert run.batch.start(str(src), str(out), str(toy_model_path), jobs=1)
    assert run.batch.running
    assert run.said[-1] == "Starting (loading the model)…"
    run.pump()
    b = run.batch
    assert not b.running
    assert b.error == ""
    assert not b.report.cancelled
    assert files_under(out) >= set(OUTPUTS)
    assert sorted(f.input for f in run.rows) == ["a.conllu", "x/b.conllx", "x/bad.conll",
                                                  "x/y/c.conll"]
    bad = next(f for f in run.rows if f.input == "x/bad.conll")
    assert (bad.status, bad.sentences, bad.converted, bad.skipped[0].line) == \
        ("converted", 8, 7, BAD_LINE)
    assert b.fraction == 1.0
    assert b.status.startswith("Done: 21 of 22 sentences converted in 4 files (0 failed, 1 "
                               "sentences skipped)")
    assert b.report_note == f"Report: {out / 'pad-convert-report.json'} (and .txt)"

    # Again into the same folder: the files are up to date, and come with the report.
    assert run.batch.start(str(src), str(out), str(toy_model_path), jobs=1)
    assert run.rows == []
    assert b.report is None
    assert b.report_note == ""
    run.pump()
    assert sorted(f.status for f in run.rows) == ["up to date"] * 4


def test_folders_are_asked_for_and_a_bad_one_is_said_not_raised(tmp_path, toy_model_path):
    run = Run()
    assert not run.batch.start(" ", str(tmp_path / "out"))
    assert run.batch.status == "Choose an input folder and an output folder first."
    assert not run.batch.running
    assert run.workers == []

    assert run.batch.start(str(tmp_path / "missing"), str(tmp_path / "out"),
                           str(toy_model_path))
    run.pump()
    assert "no such input folder" in run.batch.error
    assert not run.batch.running
    assert run.batch.status == f"Not converted: {run.batch.error}"


def test_cancel_stops_the_run_and_keeps_no_partial_file(tmp_path, toy_model_path):
    src, out = make_tree(tmp_path), tmp_path / "out"
    (src / "0big.conllx").write_text(conll_text(toy_examples()) * 4000, encoding="utf-8")
    run = Run()
    run.batch.start(str(src), str(out), str(toy_model_path), jobs=1)
    run.pump(until=lambda: "sentences/s" in run.batch.status)
    run.batch.cancel()
    assert run.batch.cancelling
    assert run.batch.status == "Cancelling…"
    run.pump()
    b = run.batch
    assert b.report.cancelled
    assert b.status.startswith("Cancelled: ")
    assert "Cancelling…" in run.said
    assert not b.running
    assert "0big.mrg" not in files_under(out)


def test_stop_cancels_and_waits_for_the_run(tmp_path, toy_model_path):
    """The dialog closing: no worker outlives it."""
    src = make_tree(tmp_path)
    (src / "0big.conllx").write_text(conll_text(toy_examples()) * 4000, encoding="utf-8")
    run = Run()
    run.batch.start(str(src), str(tmp_path / "out"), str(toy_model_path), jobs=1)
    run.batch.stop()
    assert not run.batch.running
    assert run.batch.report.cancelled


class Versions:
    """What the project store offers: a stored version's model file."""

    def __init__(self, files: dict[int, bytes]):
        self.files = files

    def version_bytes(self, version: int) -> bytes:
        if version not in self.files:
            raise KeyError(f"no model version {version}")
        return self.files[version]


def test_the_projects_version_in_use_converts(tmp_path, toy_model_path):
    """A retrained version is written to a file the workers read; version 0 is the model
    the app started with."""
    src = make_tree(tmp_path)
    models = SimpleNamespace(active=2, startup_path=None,
                             store=Versions({2: toy_model_path.read_bytes()}))
    run = Run(models)
    run.batch.start(str(src), str(tmp_path / "out"), project_model=True, jobs=1)
    run.pump()
    assert Path(run.batch.report.model).name == "version-2.padmodel"
    assert run.batch.report.count("converted") == 4

    models.active = BUNDLED
    models.startup_path = toy_model_path
    run.batch.start(str(src), str(tmp_path / "out0"), project_model=True, jobs=1)
    run.pump()
    assert run.batch.report.model == str(toy_model_path.resolve())

    models.active = 3
    assert not run.batch.start(str(src), str(tmp_path / "out3"), project_model=True)
    assert run.batch.status.startswith("Not converted: the project's model: ")


@pytest.mark.parametrize(("seconds", "said"), [(4.4, "4 s"), (185, "3 min 05 s"),
                                           (3720, "1 h 02 min")])
def test_time_left_reads_as_a_person_says_it(seconds, said):
    assert duration(seconds) == said
