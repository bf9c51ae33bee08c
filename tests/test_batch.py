"""Batch conversion of folders: mirroring, malformed files, the report, cancel, resume, jobs,
and the same conversion on a local Dask cluster."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path, PurePosixPath

import pytest
from toy import BAD_LINE, OUTPUTS, conll_text, files_under, make_tree, toy_examples

from pad_engine.batch.folders import convert_folder
from pad_engine.batch.inputs import find_inputs, output_names
from pad_engine.batch.report import CONVERTED, FAILED, UP_TO_DATE
from pad_engine.batch.state import STATE_NAME
from pad_engine.cli import main


@pytest.fixture
def tree(tmp_path) -> Path:
    return make_tree(tmp_path)


def outputs(root: Path) -> dict[str, str]:
    return {name: (root / name).read_text(encoding="utf-8") for name in OUTPUTS}


def big_input(root: Path) -> None:
    """A file that takes the toy model a second or two: long enough to cancel in."""
    (root / "0big.conllx").write_text(conll_text(toy_examples()) * 2000, encoding="utf-8")


def test_cli_mirrors_nested_folders_and_reports_the_malformed_sentence(
        tree, tmp_path, toy_model_path, capsys):
    out = tmp_path / "out"
    assert main(["convert-dir", str(tree), str(out), "--model", str(toy_model_path),
                 "--jobs", "1"]) == 0
    assert files_under(out) == {*OUTPUTS, STATE_NAME, "pad-convert-report.json",
                                "pad-convert-report.txt"}
    exs = toy_examples()
    lines = (out / "x/bad.mrg").read_text(encoding="utf-8").split("\n")[:-1]
    assert len(lines) == len(exs) + 1
    assert lines[2] == ""
    assert all(line.startswith("(TOP ") for line in lines[:2] + lines[3:])
    assert len((out / "a.mrg").read_text(encoding="utf-8").splitlines()) == len(exs)

    report = json.loads((out / "pad-convert-report.json").read_text(encoding="utf-8"))
    assert report["model"] == str(toy_model_path.resolve())
    assert report["totals"]["files"] == 4
    assert report["totals"]["converted_files"] == 4
    assert report["totals"]["sentences"] == 3 * len(exs) + 1
    assert report["totals"]["skipped_sentences"] == 1
    assert report["totals"]["sentences_per_second"] > 0
    by_file = {f["input"]: f for f in report["files"]}
    assert set(by_file) == {"a.conllu", "x/b.conllx", "x/bad.conll", "x/y/c.conll"}
    assert by_file["x/y/c.conll"]["output"] == "x/y/c.mrg"
    bad = by_file["x/bad.conll"]
    assert (bad["sentences"], bad["converted"]) == (len(exs) + 1, len(exs))
    [skipped] = bad["skipped"]
    assert skipped["file"] == "x/bad.conll"
    assert skipped["line"] == BAD_LINE
    assert "HEAD" in skipped["reason"]
    text = (out / "pad-convert-report.txt").read_text(encoding="utf-8")
    assert f"x/bad.conll:{BAD_LINE}: " in text
    assert "sentences/s" in text
    err = capsys.readouterr().err
    assert f"skipped x/bad.conll:{BAD_LINE}:" in err
    assert "4 files" in err


def test_api_progress_events_and_report(tree, tmp_path, toy_model_path):
    events = []
    report = convert_folder(tree, tmp_path / "out", toy_model_path, jobs=1, progress=events.append)
    assert [f.status for f in report.files] == [CONVERTED] * 4
    assert report.report_path == str((tmp_path / "out" / "pad-convert-report.json").resolve())
    finished = [e.file.input for e in events if e.file is not None]
    assert sorted(finished) == ["a.conllu", "x/b.conllx", "x/bad.conll", "x/y/c.conll"]
    last = events[-1]
    assert (last.files_done, last.files_total, last.fraction) == (4, 4, 1.0)
    assert last.sentences_done == report.sentences
    assert last.seconds_left == 0
    assert [s.line for s in report.skipped] == [BAD_LINE]


def test_output_names_mirror_and_keep_colliding_stems_apart(tree):
    assert [str(p) for p in find_inputs(tree)] == [
        "a.conllu", "x/b.conllx", "x/bad.conll", "x/y/c.conll"]
    names = output_names([PurePosixPath("d/b.conll"), PurePosixPath("d/b.conllu"),
                          PurePosixPath("d/c.conllu")], kbest=0)
    assert [str(p) for p in names] == ["d/b.conll.mrg", "d/b.conllu.mrg", "d/c.mrg"]
    assert str(output_names([PurePosixPath("c.conllu")], kbest=5)[0]) == "c.kbest"


def test_kbest_blocks_and_an_unreadable_file_fails_alone(tree, tmp_path, toy_model_path):
    (tree / "x" / "gone.conllu").symlink_to(tmp_path / "nowhere")
    out = tmp_path / "out"
    code = main(["convert-dir", str(tree), str(out), "--model", str(toy_model_path),
                 "--jobs", "1", "--kbest", "3"])
    assert code == 1  # one file failed; the others are converted
    report = json.loads((out / "pad-convert-report.json").read_text(encoding="utf-8"))
    status = {f["input"]: (f["status"], f["error"]) for f in report["files"]}
    assert status["x/gone.conllu"][0] == FAILED
    assert "No such file" in status["x/gone.conllu"][1]
    assert not (out / "x" / "gone.kbest").exists()
    blocks = (out / "a.kbest").read_text(encoding="utf-8").split("\n\n")[:-1]
    assert len(blocks) == len(toy_examples())
    score, penn = blocks[0].split("\n")[0].split("\t")
    assert float(score) <= 0 or float(score) > 0  # a number
    assert penn.startswith("(TOP ")


def test_resume_skips_finished_files_and_reconverts_touched_ones(
        tree, tmp_path, toy_model_path, random_model):
    out = tmp_path / "out"
    first = convert_folder(tree, out, toy_model_path, jobs=1)
    stamps = {n: (out / n).stat().st_mtime_ns for n in OUTPUTS}
    again = convert_folder(tree, out, toy_model_path, jobs=1)
    assert [f.status for f in again.files] == [UP_TO_DATE] * 4
    assert {n: (out / n).stat().st_mtime_ns for n in OUTPUTS} == stamps
    assert again.skipped == first.skipped  # the report still covers the whole folder

    later = (tree / "x" / "b.conllx").stat().st_mtime + 10
    os.utime(tree / "x" / "b.conllx", (later, later))
    touched = convert_folder(tree, out, toy_model_path, jobs=1)
    assert {f.input: f.status for f in touched.files} == {
        "a.conllu": UP_TO_DATE, "x/b.conllx": CONVERTED, "x/bad.conll": UP_TO_DATE,
        "x/y/c.conll": UP_TO_DATE}

    (out / "a.mrg").write_text("truncated", encoding="utf-8")  # not the output we recorded
    assert convert_folder(tree, out, toy_model_path, jobs=1).files[0].status == CONVERTED
    other = tmp_path / "other.padmodel"
    random_model.save(other)
    assert {f.status for f in convert_folder(tree, out, other, jobs=1).files} == {CONVERTED}
    assert {f.status for f in convert_folder(tree, out, other, jobs=1, prune=False).files} \
        == {CONVERTED}


@pytest.mark.parametrize("jobs", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_cancel_leaves_no_partial_files_and_a_rerun_finishes(tree, tmp_path, toy_model_path,
                                                             jobs):
    big_input(tree)
    out = tmp_path / "out"
    seen = threading.Event()
    polls = []

    def cancel() -> bool:
        # in this process the first poll comes before the big file, the second at its first
        # progress tick; worker processes report progress, which the parent sees
        polls.append(1)
        return len(polls) > 1 if jobs == 1 else seen.is_set()

    report = convert_folder(tree, out, toy_model_path, jobs=jobs,
                            progress=lambda p: seen.set() if p.sentences_done else None,
                            cancel=cancel)
    assert report.cancelled
    done = {f.output for f in report.files}
    assert "0big.mrg" not in done
    assert len(done) < 5
    # only finished outputs under final names, no temporary files left
    assert files_under(out) == done | {STATE_NAME, "pad-convert-report.json",
                                       "pad-convert-report.txt"}
    assert "CANCELLED" in (out / "pad-convert-report.txt").read_text(encoding="utf-8")
    rerun = convert_folder(tree, out, toy_model_path, jobs=1)
    assert not rerun.cancelled
    assert {f.output for f in rerun.files if f.status == UP_TO_DATE} == done
    assert len((out / "0big.mrg").read_text(encoding="utf-8").splitlines()) == 14000


def test_ctrl_c_leaves_no_partial_files(tree, tmp_path, toy_model_path):
    big_input(tree)
    out = tmp_path / "out"
    calls = []

    def interrupt() -> bool:
        calls.append(1)
        if len(calls) > 1:  # inside the big file, not before it
            raise KeyboardInterrupt
        return False

    with pytest.raises(KeyboardInterrupt):
        convert_folder(tree, out, toy_model_path, jobs=1, cancel=interrupt)
    assert files_under(out) == {STATE_NAME, "pad-convert-report.json", "pad-convert-report.txt"}
    assert json.loads((out / "pad-convert-report.json").read_text())["cancelled"]


@pytest.mark.slow
def test_cli_jobs_2_gives_the_same_outputs(tree, tmp_path, toy_model_path):
    assert main(["convert-dir", str(tree), str(tmp_path / "one"), "--model",
                 str(toy_model_path), "--jobs", "1"]) == 0
    assert main(["convert-dir", str(tree), str(tmp_path / "two"), "--model",
                 str(toy_model_path), "--jobs", "2"]) == 0
    assert outputs(tmp_path / "two") == outputs(tmp_path / "one")
    report = json.loads((tmp_path / "two" / "pad-convert-report.json").read_text())
    assert report["workers"] == "2 processes"
    assert report["totals"]["skipped_sentences"] == 1


def test_bad_arguments_fail_with_one_line(tmp_path, toy_model_path, capsys):
    assert main(["convert-dir", str(tmp_path / "none"), str(tmp_path / "out"),
                 "--model", str(toy_model_path)]) == 1
    assert "no such input folder" in capsys.readouterr().err
    tmp_path.joinpath("in").mkdir()
    assert main(["convert-dir", str(tmp_path / "in"), str(tmp_path / "out"),
                 "--model", str(tmp_path / "missing.padmodel")]) == 1
    assert "no such model file" in capsys.readouterr().err


@pytest.mark.slow
def test_dask_local_cluster_converts_and_survives_a_dying_worker(tree, tmp_path,
                                                                  toy_model_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    assert main(["convert-dir", str(tree), str(tmp_path / "here"), "--model",
                 str(toy_model_path), "--jobs", "1"]) == 0
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        out = tmp_path / "dask"
        assert main(["convert-dir", str(tree), str(out), "--model", str(toy_model_path),
                     "--scheduler", address]) == 0
        assert outputs(out) == outputs(tmp_path / "here")
        report = json.loads((out / "pad-convert-report.json").read_text())
        assert report["workers"] == f"Dask scheduler {address}"
        assert report["totals"]["converted_files"] == 4

        # large files go out in parts (the malformed file here), joined in order
        import pad_engine.batch.parts as batch

        with monkeypatch.context() as patch:
            patch.setattr(batch, "PART_BYTES", (tree / "x" / "bad.conll").stat().st_size // 3)
            parts = convert_folder(tree, tmp_path / "parts", toy_model_path, scheduler=address)
        assert outputs(tmp_path / "parts") == outputs(tmp_path / "here")
        assert [f.skipped for f in parts.files] == [f.skipped for f in
                                                    convert_folder(tree, tmp_path / "one",
                                                                   toy_model_path, jobs=1).files]

        # Kill the worker converting the big file: the file is retried elsewhere, and the
        # outputs finished before are kept.
        big_input(tree)
        out = tmp_path / "dying"
        with distributed.Client(address) as client:
            killed = []

            def kill_big_file_worker(_progress) -> None:
                for worker, keys in client.processing().items():
                    if not killed and any(str(k).startswith("pad-convert-0-") for k in keys):
                        pid = client.run(os.getpid, workers=[worker])[worker]
                        os.kill(pid, signal.SIGKILL)
                        killed.append(worker)

            report = convert_folder(tree, out, toy_model_path, scheduler=address,
                                    progress=kill_big_file_worker)
        assert killed
        assert {f.status for f in report.files} == {CONVERTED}
        assert len(report.files) == 5
        assert len((out / "0big.mrg").read_text(encoding="utf-8").splitlines()) == 14000
        assert outputs(out) == outputs(tmp_path / "here")


@pytest.mark.slow
def test_large_files_are_cut_into_parts_and_joined_in_order(tree, tmp_path, toy_model_path,
                                                             monkeypatch):
    """With 2 processes a large file is converted in parts on both; the joined output, the
    malformed sentence's empty line and the report are exactly those of one process."""
    import pad_engine.batch.parts as batch

    one = convert_folder(tree, tmp_path / "one", toy_model_path, jobs=1)
    bad = (tree / "x" / "bad.conll").stat().st_size
    monkeypatch.setattr(batch, "PART_BYTES", bad // 3)
    assert batch.file_parts(bad, 2) == 3
    assert batch.file_parts(bad, 1) == 1
    two = convert_folder(tree, tmp_path / "two", toy_model_path, jobs=2)
    assert outputs(tmp_path / "two") == outputs(tmp_path / "one")
    assert [(f.input, f.sentences, f.converted, f.skipped) for f in two.files] == \
        [(f.input, f.sentences, f.converted, f.skipped) for f in one.files]
    assert files_under(tmp_path / "two") == {*OUTPUTS, STATE_NAME, "pad-convert-report.json",
                                             "pad-convert-report.txt"}
    again = convert_folder(tree, tmp_path / "two", toy_model_path, jobs=2)
    assert {f.status for f in again.files} == {UP_TO_DATE}
