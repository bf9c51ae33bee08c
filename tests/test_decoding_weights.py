"""The decoder reads int16 copies of a model's weights (``Model.decoding_weights``): half
the memory, so more of the randomly read table stays in the processor's cache. It must
decode the trees the float weights decode, with the scores within the rounding."""

from __future__ import annotations

import numpy as np
import pytest

from pad_engine.decoding.model import MAX_STEP, Model, quantized
from pad_engine.decoding.parser import encode, run_decoder
from pad_engine.decoding.records import EXACT, PRUNED
from pad_engine.io.conll import read_conll
from pad_engine.resources import resource_path


@pytest.fixture(scope="module")
def bundled() -> Model:
    return Model.load(resource_path("models", "english-ptb-collins.padmodel"))


def test_the_weights_are_read_at_half_width_within_half_a_step(bundled):
    weights, unit = bundled.decoding_weights()
    assert weights.dtype == np.int16
    assert 2 * weights.nbytes == bundled.weights.nbytes
    assert np.abs(weights * unit - bundled.weights).max() <= unit / 2 * (1 + 1e-6)
    assert np.abs(weights).max() == 32767  # the largest weight sets the unit


@pytest.mark.parametrize("mode", [PRUNED, EXACT])
def test_the_decoder_decodes_the_float_weights_trees(bundled, mode):
    sentences = read_conll(resource_path("sample", "sample.conllu")).sentences
    assert len(sentences) >= 20
    for s in sentences:
        enc = encode(bundled, s.forms, s.tags, s.heads, s.rels)
        half = run_decoder(bundled, enc, mode, escalate=True)
        full = run_decoder(bundled, enc, mode, escalate=True, weights=bundled.weights)
        for a, b in zip(half[1:6], full[1:6]):  # kinds, syms, rules, cells, words
            assert np.array_equal(a, b), s.forms
        assert half.score == pytest.approx(full.score, abs=1e-3)


def test_new_weights_are_quantized_again():
    model = Model(weights=np.array([0.5, -2.0, 0.0, 1e-5], np.float32))
    first, unit = model.decoding_weights()
    assert model.decoding_weights()[0] is first  # made once per weights array
    assert unit == pytest.approx(2.0 / 32767)
    assert first.tolist() == [8192, -32767, 0, 0]
    model.weights = np.full(4, 0.25, np.float32)
    again, unit = model.decoding_weights()
    assert again.tolist() == [32767] * 4
    assert unit == pytest.approx(0.25 / 32767)
    assert quantized(np.zeros(4, np.float32))[1] == 1.0  # no weight yet: any unit


def test_a_model_whose_steps_would_be_too_wide_decodes_with_its_float_weights(bundled):
    """One weight of 100 would make every step 3e-3: the small weights would round to
    nothing, so the decoder reads the float weights, and decodes what they say."""
    weights = bundled.weights.copy()
    weights[0] = 100.0
    model = Model(grammar=bundled.grammar, weights=weights, headrules=bundled.headrules,
                  training=bundled.training, projections=bundled.projections,
                  dep_labels=bundled.dep_labels, label_set=bundled.label_set)
    assert quantized(weights)[1] > MAX_STEP
    read, unit = model.decoding_weights()
    assert read.dtype == np.float32
    assert unit == 1.0
    assert np.array_equal(read, weights)
    s = read_conll(resource_path("sample", "sample.conllu")).sentences[0]
    enc = encode(model, s.forms, s.tags, s.heads, s.rels)
    assert run_decoder(model, enc, PRUNED).score == run_decoder(model, enc, PRUNED,
                                                                 weights=weights).score


def test_integer_weights_are_summed_in_integers():
    """The decoder's int16 weights are summed as int64 (exact, no conversion per term: the
    scores of float64 sums at about half the cost of each addition); float weights, as
    training has them, in float64 as before."""
    from pad_engine.decoding.features import score_cache, sum_zero

    ints, floats = np.zeros(4, np.int16), np.zeros(4, np.float32)
    assert score_cache(3, ints)[0].dtype == np.int64
    assert score_cache(3, floats)[0].dtype == np.float64
    assert type(sum_zero(ints)) is np.int64  # without the JIT as well
    assert type(sum_zero(floats)) is np.float64
    assert type(sum_zero(ints) + np.int16(32767) + np.int16(32767)) is np.int64
