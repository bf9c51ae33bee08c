"""Batch conversion converts like the app. Each file gets the model the
app would give it (UD, Collins-style, rule-based) and the report says which; ``pad
convert-dir`` chooses per file too."""

from __future__ import annotations

import shutil

import pytest
from test_controllers import FakeSettings, pump

from pad_engine.api import convert_folder, read_conll, write_conll
from pad_engine.cli import main
from pad_gui.controllers.engine import EngineThread
from pad_gui.controllers.models import ModelVersions
from pad_gui.controllers.projects import Projects
from pad_gui.controllers.workspace import Workspace

EXPECTED = {"collins.conllu": "english-ptb-collins", "ud.conllu": "english-gum-ud",
            "chinese.conllu": "rule-based projection"}


@pytest.fixture
def folder(sample, ewt_dir, gsd_dir, tmp_path):
    """A UD English, a Collins-style English and a Chinese file."""
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(sample, src / "collins.conllu")
    write_conll(read_conll(ewt_dir / "en_ewt-ud-dev.conllu").sentences[:25], src / "ud.conllu")
    write_conll(read_conll(gsd_dir / "zh_gsd-ud-dev.conllu").sentences[:15],
                src / "chinese.conllu")
    return src


def app_export(path, tmp_path) -> list[str]:
    """What the app writes for the file with File > Export Penn Trees (no --model)."""
    w = Workspace(EngineThread(None), Projects(FakeSettings(), tmp_path / "data"))
    models = ModelVersions(w, None)
    w.engine.start()
    try:
        pump(w.engine.worker, until=lambda: w.engine_ready)
        assert w.open(path)
        pump(w.engine.worker, until=lambda: models.choice is not None and not models.loading
             and w.converter is models.choice.engine)
        out = tmp_path / f"{path.stem}.app.mrg"
        w.exports.penn(str(out), corrected_only=False)
        pump(w.engine.worker, until=lambda: w.exports.done)
        assert w.exports.done[0].startswith("Exported"), w.exports.done
        return out.read_text().splitlines()
    finally:
        w.close()
        w.engine.stop()


def test_a_folder_converts_each_file_as_the_app_does(folder, tmp_path):
    report = convert_folder(folder, tmp_path / "out", None, jobs=1)
    models = {f.input: f.model.split(" (")[0] for f in report.files}
    assert models == EXPECTED
    text = (tmp_path / "out" / "pad-convert-report.txt").read_text()
    assert all(name in text for name in EXPECTED.values())
    for name in EXPECTED:
        batch = (tmp_path / "out" / name.replace(".conllu", ".mrg")).read_text().splitlines()
        assert batch == app_export(folder / name, tmp_path), name


def test_pad_convert_dir_chooses_per_file(folder, tmp_path, capsys):
    assert main(["convert-dir", str(folder), str(tmp_path / "cli"), "--jobs", "1"]) == 0
    err = capsys.readouterr().err
    for name, model in EXPECTED.items():
        assert any(name in line and f"with {model}" in line for line in err.splitlines()), err


def test_pad_convert_dir_fast_takes_the_fast_twin_where_there_is_one(folder, tmp_path, capsys):
    assert main(["convert-dir", str(folder), str(tmp_path / "fast"), "--jobs", "1",
                 "--fast"]) == 0
    err = capsys.readouterr().err
    fast = {**EXPECTED, "collins.conllu": "english-ptb-collins-fast"}
    for name, model in fast.items():
        assert any(name in line and f"with {model} (" in line for line in err.splitlines()), err
    # a model file and the fast bundled models exclude each other
    with pytest.raises(Exception, match="exclude each other"):
        convert_folder(folder, tmp_path / "both", "some.padmodel", jobs=1, fast=True)
