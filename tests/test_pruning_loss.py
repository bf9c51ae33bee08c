"""Pruned decoding (the default) costs nothing measurable against exact decoding for the
models that read more than heads: the bundled PTB model, which reads the rule-based
projection, and a model reading the d-parse labels of the original PAD's scripts, trained
as ``pad bench --labels`` trains it (issue 37: within 0.05 F1 on the PTB sample test split;
the labeled model is not there yet)."""

from __future__ import annotations

import pytest

from pad_engine.decoding.model import Model
from pad_engine.learning.bench import BITS, TEST_FILES, TRAIN_FILES, load_split
from pad_engine.learning.retrain import evaluate
from pad_engine.learning.train import train
from pad_engine.resources import resource_path

LOSS = 0.05


def _loss(model: Model, test) -> tuple[float, float]:
    return evaluate(model, test, prune=False).f1, evaluate(model, test, prune=True).f1


@pytest.mark.slow
def test_the_bundled_projection_model_loses_nothing_to_pruning(ptb_dir):
    model = Model.load(resource_path("models", "english-ptb-collins.padmodel"))
    assert model.dep_labels == "projection"
    exact, pruned = _loss(model, load_split(ptb_dir, TEST_FILES, "collins"))
    assert exact - pruned <= LOSS, (exact, pruned)


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="measured 98.56 exact, 98.40 pruned: the tag rows, "
                   "the beam and the side model each cost it (docs/EXPERIMENTS.md, issue 37)")
def test_a_labeled_model_loses_nothing_to_pruning(ptb_dir):
    model = train(load_split(ptb_dir, TRAIN_FILES, "collins", "phrase"), labels="phrase",
                  bits=BITS)
    exact, pruned = _loss(model, load_split(ptb_dir, TEST_FILES, "collins", "phrase"))
    assert exact - pruned <= LOSS, (exact, pruned)
