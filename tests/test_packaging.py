"""What a wheel carries and needs: the shipped files as package data of the package that
reads them, the cluster runner and the plot as extras a command names when they are missing.

`.ci/run` builds the wheel and uses it from outside the checkout; these tests catch the same
mistakes without a build.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pad_engine.cli import main

REPO = Path(__file__).resolve().parent.parent


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 on
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_wheel_carries_every_shipped_file():
    """package-data is a list of globs: a file they miss is in the checkout but not in a
    wheel, and only an installed copy would fail to find it."""
    data = _pyproject()["tool"]["setuptools"]["package-data"]
    for package in ("pad_engine", "pad_gui"):
        root = REPO / package
        matched = {p for pattern in data[package] for p in root.glob(pattern)}
        assert root / "py.typed" in matched
        if package == "pad_engine":
            shipped = {p for p in (root / "data").rglob("*") if p.is_file()}
            assert shipped, sorted(map(str, shipped - matched))
            assert shipped <= matched, sorted(map(str, shipped - matched))


def test_the_shipped_files_are_read_from_the_package():
    from pad_engine.resources import resource_path

    assert resource_path("sample", "sample.conllu") == \
        REPO / "pad_engine" / "data" / "sample" / "sample.conllu"
    assert {p.name for p in resource_path("models").iterdir()} >= {
        "english-ptb-collins.padmodel", "english-gum-ud.padmodel"}


def test_dask_and_matplotlib_are_extras_the_tests_pull_in():
    project = _pyproject()["project"]
    required = " ".join(project["dependencies"])
    assert "dask" not in required
    assert "matplotlib" not in required
    extras = project["optional-dependencies"]
    assert any(d.startswith("dask[distributed]") for d in extras["dask"])
    assert any(d.startswith("matplotlib") for d in extras["plot"])
    assert "pad-studio[dask,plot]" in extras["test"]


def test_a_plot_without_matplotlib_names_the_extra(tmp_path, monkeypatch, capsys):
    """Checked before the treebank is read and the models trained, in one line."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    assert main(["learning-curve", "--treebank", str(tmp_path),
                 "-o", str(tmp_path / "curve.png")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "Traceback" not in err
    assert "pip install 'pad-studio[plot]'" in err
