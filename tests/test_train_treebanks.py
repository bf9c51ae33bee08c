"""Every model ``pad train`` writes from the treebanks in ../shared/data loads and decodes
(a documented command must not write a model its loader refuses: FarPaHC's once wrote a
grammar refused as too large).

The treebanks ``pad train`` reads: the PTB sample (.mrg), GUM (.ptb, alone or paired with its
.conllu) and FarPaHC (.psd, alone or paired with UD). Sinica's and CESS-ESP's files are no
Penn trees it reads (every CESS-ESP leaf holds a word and its lemma), Alpino is XML. One
epoch each: the grammar, whose size is what these tests are about, is read off the trees
before the first epoch.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pad_engine.cli import main
from pad_engine.decoding.model import Model

FARPAHC_TREES = "1936.ntjohn.rel-bib.psd"
FARPAHC_DEPS = "fo_farpahc-ud-train.conllu"


def _converts(conll: Path, model: Path, out: Path) -> list[str]:
    """The lines ``pad convert`` writes for ``conll`` with ``model`` (it must succeed)."""
    assert main(["convert", str(conll), "--model", str(model), "-o", str(out)]) == 0
    return out.read_text(encoding="utf-8").splitlines()


@pytest.mark.slow
@pytest.mark.parametrize("labels", [[], ["--labels"]], ids=["plain", "labels"])
def test_farpahc_model_of_the_readme_command_loads_converts_and_bounds_the_oracle(
        farpahc_dir, tmp_path, labels):
    trees, deps = farpahc_dir / FARPAHC_TREES, farpahc_dir / FARPAHC_DEPS
    model = tmp_path / "fo.padmodel"
    assert main(["train", str(trees), "--deps", str(deps), "-o", str(model), "--epochs", "1",
                 *labels]) == 0
    g = Model.load(model).grammar
    assert (len(g.binary) + len(g.unary)) * (len(g.tags) + 1) > 5_000_000  # the old PTB-sized limit
    lines = _converts(deps, model, tmp_path / "fo.ptb")
    assert len(lines) == 1020
    assert all(line.startswith("(TOP ") for line in lines)
    # the oracle under the model's grammar, on gold trees aligned with the d-parses
    oracle = tmp_path / "oracle.ptb"
    assert main(["oracle", str(tmp_path / "fo.ptb"), str(deps), "--model", str(model),
                 "-o", str(oracle)]) == 0
    assert len(oracle.read_text(encoding="utf-8").splitlines()) == 1020


def _penn_case(tmp_path: Path, trees: list[Path], headrules: str, *options: str) -> None:
    model = tmp_path / "m.padmodel"
    assert main(["train", *map(str, trees), "-o", str(model), "--epochs", "1",
                 "--headrules", headrules, *options]) == 0
    Model.load(model)
    conll = tmp_path / "in.conll"
    assert main(["deps", str(trees[-1]), str(conll), "--headrules", headrules]) == 0
    lines = _converts(conll, model, tmp_path / "out.ptb")
    assert lines
    assert all(line.startswith("(TOP ") for line in lines)


@pytest.mark.slow
def test_ptb_sample_model_loads_and_converts(ptb_dir, tmp_path):
    _penn_case(tmp_path, sorted(ptb_dir.glob("*.mrg")), "collins", "--max-sentences", "1000")


@pytest.mark.slow
def test_farpahc_trees_alone_make_a_model_that_loads_and_converts(farpahc_dir, tmp_path):
    _penn_case(tmp_path, [farpahc_dir / FARPAHC_TREES], "icepahc")


@pytest.mark.slow
def test_gum_trees_alone_make_a_model_that_loads_and_converts(gum_dir, tmp_path):
    _penn_case(tmp_path, sorted((gum_dir / "const").glob("*.ptb"))[:20], "collins")


@pytest.mark.slow
def test_gum_trees_paired_with_ud_make_a_model_that_loads_and_converts(gum_dir, tmp_path):
    trees = sorted((gum_dir / "const").glob("*.ptb"))[:20]
    deps = [gum_dir / "dep" / f"{t.stem}.conllu" for t in trees]
    model = tmp_path / "gum.padmodel"
    assert main(["train", *map(str, trees), "--deps", *map(str, deps), "-o", str(model),
                 "--epochs", "1"]) == 0
    Model.load(model)
    lines = _converts(deps[-1], model, tmp_path / "out.ptb")
    assert lines
    assert all(line.startswith("(TOP ") for line in lines)
