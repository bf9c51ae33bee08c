"""A model as bytes (how a project keeps its versions): the round trip, and the same
refusals as a model file, since a project's bytes are as untrusted as any file."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_hostile_models import damage
from toy import toy_examples

from pad_engine.decoding.model import Model
from pad_engine.decoding.model_check import MAX_FILE_BYTES
from pad_engine.errors import ModelError
from pad_engine.learning.train import train


@pytest.fixture(scope="module")
def good() -> bytes:
    return train(toy_examples(), epochs=1, bits=12).to_bytes()


def test_bytes_round_trip_and_match_the_file(good, tmp_path):
    model = Model.from_bytes(good)
    assert model.to_bytes() == good
    model.save(tmp_path / "m.padmodel")
    assert (tmp_path / "m.padmodel").read_bytes() == good
    loaded = Model.load(tmp_path / "m.padmodel")
    assert loaded.grammar.binary == model.grammar.binary
    assert np.array_equal(loaded.weights, model.weights)


def test_every_damage_a_file_is_refused_for_is_refused_as_bytes(good, tmp_path):
    path = tmp_path / "good.padmodel"
    path.write_bytes(good)
    with np.load(path) as data:
        meta = json.loads(data["meta"].tobytes())
        weights = data["weights"].copy()
    kinds = damage(meta, weights, good)
    assert len(kinds) >= 25
    for kind, (data, says) in kinds.items():
        with pytest.raises(ModelError) as refused:
            Model.from_bytes(data, "version 3")
        line = str(refused.value)
        assert line.startswith("version 3: "), (kind, line)
        assert says in line, (kind, line)
        assert "\n" not in line, kind


def test_too_many_bytes_are_refused_before_reading():
    with pytest.raises(ModelError, match="at most"):
        Model.from_bytes(bytes(MAX_FILE_BYTES + 1), "version 2")
