"""Model files: save/load round trip, and clear errors for damaged, truncated or foreign files."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest
from toy import toy_examples

from pad_engine.decoding.model import Model
from pad_engine.decoding.parser import Parser
from pad_engine.errors import ModelError
from pad_engine.learning.train import Cancelled, train
from pad_engine.trees.lextree import to_line


def test_round_trip_gives_identical_parses(toy_model, tmp_path):
    path = tmp_path / "toy.padmodel"
    toy_model.save(path)
    loaded = Model.load(path)
    assert loaded.grammar.symbols == toy_model.grammar.symbols
    assert loaded.grammar.binary == toy_model.grammar.binary
    assert np.array_equal(loaded.weights, toy_model.weights)
    for ex in toy_examples():
        a = Parser(toy_model).parse(ex.forms, ex.tags, ex.heads)
        b = Parser(loaded).parse(ex.forms, ex.tags, ex.heads)
        assert to_line(a.tree, ex.forms) == to_line(b.tree, ex.forms)
        assert a.score == pytest.approx(b.score)


def test_file_is_npz_without_pickles(toy_model, tmp_path):
    path = tmp_path / "toy.padmodel"
    toy_model.save(path)
    with zipfile.ZipFile(path) as z:
        assert sorted(z.namelist()) == ["meta.npy", "weights.npy"]
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(data["meta"].tobytes())
    assert meta["format"] == "pad-studio-model"
    assert meta["version"] == 4
    assert meta["training"]["sentences"] == len(toy_examples())


def test_truncated_file(toy_model, tmp_path):
    path = tmp_path / "toy.padmodel"
    toy_model.save(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match="damaged or not a PAD Studio model"):
        Model.load(path)


def test_foreign_files(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(ModelError, match=r"notes\.txt"):
        Model.load(text)
    other = tmp_path / "other.npz"
    np.savez(other, x=np.zeros(3))
    with pytest.raises(ModelError, match="missing weights/meta"):
        Model.load(other)
    with pytest.raises(ModelError, match="no such model file"):
        Model.load(tmp_path / "absent.padmodel")


def test_newer_version_and_bad_metadata(tmp_path):
    for meta, message in (
        ({"format": "pad-studio-model", "version": 99}, "newer than this"),
        ({"format": "something-else", "version": 4}, "not a PAD Studio model"),
        ({"format": "pad-studio-model", "version": 4}, "damaged model metadata"),
        # versions 1 and 2 hashed features by symbol ids, 3 its tag templates by tag rows:
        # their weights no longer apply
        ({"format": "pad-studio-model", "version": 2}, "version 2 hashes .* retrain"),
        ({"format": "pad-studio-model", "version": 3}, "version 3 hashes .* retrain"),
    ):
        buf = io.BytesIO()
        np.savez(buf, weights=np.zeros(4, np.float32),
                 meta=np.frombuffer(json.dumps(meta).encode(), np.uint8))
        path = tmp_path / "m.padmodel"
        path.write_bytes(buf.getvalue())
        with pytest.raises(ModelError, match=message):
            Model.load(path)


def test_training_is_deterministic_and_cancellable():
    a = train(toy_examples(), epochs=2, bits=12, seed=4)
    b = train(toy_examples(), epochs=2, bits=12, seed=4)
    assert np.array_equal(a.weights, b.weights)
    seen = []
    with pytest.raises(Cancelled):
        train(toy_examples(), epochs=2, bits=12, cancel=lambda: bool(seen.append(1)) or
              len(seen) > 3)


def test_a_repeated_grammar_row_is_named_in_file_order():
    """The rows' uniqueness is checked in NumPy (a tenth of a second of every load as
    tuples); the row named is still the first, in file order, that an earlier row equals."""
    from pad_engine.decoding.model_check import _Bad, _unique_rows

    _unique_rows(np.array([[1, 2], [2, 1], [1, 3]]), "rule")
    with pytest.raises(_Bad, match=r"rule \(5, 5\) appears twice"):
        _unique_rows(np.array([[5, 5], [1, 1], [5, 5], [1, 1]]), "rule")
