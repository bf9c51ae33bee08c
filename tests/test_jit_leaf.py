"""The helpers the chart calls per scored rule, layer and cell are compiled without Numba's
reference counting (``pad_engine.jit.leaf``): compiled with it, each call counted a
reference to every array it was handed, atomically, a third of the time of ``pad convert``.
A helper that allocates cannot be made a leaf: it fails to compile, it never runs wrong."""

from __future__ import annotations

import numpy as np
import pytest
from numba.core.errors import TypingError

from pad_engine.decoding import decoder, features, kbest, tables
from pad_engine.jit import leaf
from pad_engine.trees import structure

PER_RULE_OR_CELL = [
    features.binary_score, features.unary_score, features.binary_context,
    features.unary_context, features.binary_indices, features.unary_indices,
    decoder._transition, decoder._side_mode, structure.cell_span, kbest.keep_best,
    kbest.finish_cell, kbest.combine, tables.keep_within, tables.compact, tables.find,
]


@pytest.mark.parametrize("helper", PER_RULE_OR_CELL, ids=lambda f: f.__name__)
def test_the_chart_helpers_count_no_references(helper):
    assert helper.targetoptions.get("_nrt") is False


def test_a_leaf_that_allocates_fails_to_compile():
    @leaf()
    def allocates(n):
        return np.zeros(n)

    with pytest.raises(TypingError):
        allocates(3)


def test_a_leaf_computes_what_it_computes_with_references():
    def window_sum(values, lo, hi):
        total = 0.0
        for t in range(lo, hi):
            total += values[t]
        return total

    values = np.arange(10.0)
    assert leaf()(window_sum)(values, 2, 7) == window_sum(values, 2, 7) == 20.0
