"""Cancel, then Start again: a large file's finished parts are kept and taken up again, so
every sentence is converted exactly once."""

from __future__ import annotations

import pytest
from toy import conll_text, toy_examples

from pad_engine.batch import parts
from pad_engine.batch.folders import convert_folder
from pad_engine.batch.parts import PARTS_DIR
from pad_engine.batch.report import CONVERTED, FileResult
from pad_engine.batch.tasks import Task


@pytest.mark.slow
def test_cancel_then_start_again_converts_each_sentence_once(tmp_path, toy_model_path,
                                                             monkeypatch):
    monkeypatch.setattr(parts, "PART_BYTES", 20_000)  # this file: 4 parts for 2 workers
    src = tmp_path / "in"
    src.mkdir()
    text = conll_text(toy_examples()) * 400
    (src / "big.conllx").write_text(text, encoding="utf-8")
    (src / "small.conllx").write_text(conll_text(toy_examples()), encoding="utf-8")  # 2 jobs
    total = text.count("\n\n")
    out = tmp_path / "out"
    kept = out / PARTS_DIR
    finished = []  # (run, part) of every part a run converted and kept
    keep = parts._keep_part
    monkeypatch.setattr(parts, "_keep_part", lambda task, part, parts, piece: (
        finished.append((run, part)), keep(task, part, parts, piece)))

    run = 1
    first = convert_folder(src, out, toy_model_path, jobs=2,
                           cancel=lambda: kept.is_dir() and any(kept.glob("*.json")))
    assert first.cancelled
    assert not (out / "big.mrg").exists()
    assert 1 <= len(list(kept.glob("*.json"))) < 4

    run = 2
    second = convert_folder(src, out, toy_model_path, jobs=2)
    big = next(f for f in second.files if f.output == "big.mrg")
    assert not second.cancelled
    assert big.converted == total
    again = [part for r, part in finished if r == 2]
    before = [part for r, part in finished if r == 1]
    assert sorted(before + again) == [0, 1, 2, 3]  # each part converted in exactly one run
    assert not kept.exists()  # joined: nothing left to keep

    clean = convert_folder(src, tmp_path / "clean", toy_model_path, jobs=1)
    assert next(f for f in clean.files if f.output == "big.mrg").converted == total
    assert (out / "big.mrg").read_bytes() == (tmp_path / "clean" / "big.mrg").read_bytes()


def test_kept_parts_of_a_changed_input_are_not_used(tmp_path, toy_model_path, monkeypatch):
    monkeypatch.setattr(parts, "PART_BYTES", 20_000)
    src = tmp_path / "in"
    src.mkdir()
    path = src / "big.conllx"
    path.write_text(conll_text(toy_examples()) * 400, encoding="utf-8")
    out = tmp_path / "out"
    task = Task(0, str(path), str(out / "big.mrg"), "big.conllx", "big.mrg",
                str(toy_model_path), "x", 0, True, "auto")
    result = FileResult("big.conllx", "big.mrg", CONVERTED, sentences=2)
    st = path.stat()
    text = parts._part_path(task, 1, 4).with_suffix(".txt")  # a part's text goes here
    text.parent.mkdir(parents=True)
    text.write_text("(TOP (X x))\n", encoding="utf-8")
    parts._keep_part(task, 1, 4, (result, str(text), (st.st_mtime_ns, st.st_size)))
    kept = parts._kept_part(task, 1, 4)
    assert kept is not None
    assert kept[1] == str(text)
    assert kept[0].sentences == 2
    assert parts._kept_part(task, 2, 4) is None  # another part
    text.rename(text.with_suffix(".gone"))
    assert parts._kept_part(task, 1, 4) is None  # its text is gone
    text.with_suffix(".gone").rename(text)
    path.write_text(path.read_text(encoding="utf-8") + conll_text(toy_examples()[:1]),
                    encoding="utf-8")
    assert parts._kept_part(task, 1, 4) is None  # the input changed since
