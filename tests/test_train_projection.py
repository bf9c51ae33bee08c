"""``pad train --projection``: the bundled PTB model's recipe (a model reading the rule-based
projection, the training d-parses' projections in its grammar, the warm-start pass)."""

from __future__ import annotations

from pad_engine.cli import main
from pad_engine.decoding.model import Model


def test_pad_train_projection_makes_a_model_reading_the_projection(ptb_dir, tmp_path):
    files = [str(ptb_dir / f"wsj_000{k}.mrg") for k in (1, 2, 3)]
    out, plain = tmp_path / "projection.padmodel", tmp_path / "plain.padmodel"
    assert main(["train", *files, "--projection", "--no-backoff", "--epochs", "1",
                 "--bits", "16", "-o", str(out)]) == 0
    assert main(["train", *files, "--no-backoff", "--epochs", "1", "--bits", "16",
                 "-o", str(plain)]) == 0
    model = Model.load(out)
    assert model.dep_labels == "projection"
    assert model.training["warm_start"] > 0
    # the projections' rules widen the grammar read off the trees
    assert len(model.grammar.binary) > len(Model.load(plain).grammar.binary)


def test_pad_train_projection_and_labels_exclude_each_other(ptb_dir, tmp_path, capsys):
    assert main(["train", str(ptb_dir / "wsj_0001.mrg"), "--projection", "--labels",
                 "-o", str(tmp_path / "m.padmodel")]) == 1
    assert "--projection and --labels exclude each other" in capsys.readouterr().err
