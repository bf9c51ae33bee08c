"""The strong recipe's decoder (issue 37): a back-off grammar puts about 130 rules under a
key of the rule index, most of whose modifiers the dependent never completes, so the index
groups a key's rules into runs of one modifier (``grammar.rule_runs``) and the decoder skips
a run whole; the trees are those of scanning every rule."""

from __future__ import annotations

import random

import numpy as np
from toy import random_projective

from pad_engine.decoding import decoder
from pad_engine.decoding.grammar import rule_runs, without_tables
from pad_engine.decoding.parser import chart_inputs, decoder_grammar, encode


def _scan_every_rule(g):
    """``g`` with one run per rule: the decoder visits every rule of a key, as it did
    before the runs."""
    nb = g.binary.shape[0]
    mod = np.where(g.ids < nb, g.binary[np.minimum(g.ids, nb - 1), 2], -1).astype(np.int32)
    return g._replace(run_ptr=g.ptr.copy(), run_sym=mod,
                      run_start=np.arange(g.ids.shape[0] + 1, dtype=np.int32))


def test_runs_cover_each_key_in_order_with_one_modifier_each(random_backoff_model):
    g = random_backoff_model.packed()
    nb = g.binary.shape[0]
    assert g.run_start[-1] == g.ids.shape[0]
    assert g.run_sym.shape[0] < g.ids.shape[0]  # a back-off grammar shares modifiers
    for key in np.flatnonzero(np.diff(g.ptr)):
        runs = range(g.run_ptr[key], g.run_ptr[key + 1])
        assert g.run_start[runs[0]] == g.ptr[key]
        assert g.run_start[runs[-1] + 1] == g.ptr[key + 1]
        for u in runs:
            rules = g.ids[g.run_start[u]:g.run_start[u + 1]]
            mods = np.where(rules < nb, g.binary[np.minimum(rules, nb - 1), 2], -1)
            assert (mods == g.run_sym[u]).all()
            assert (np.diff(rules) > 0).all()  # by rule id within a run
        assert len(set(g.run_sym[list(runs)].tolist())) == len(runs)  # each M once a key


def test_the_runs_of_a_grammar_without_tables_are_its_own(random_backoff_model):
    g = without_tables(random_backoff_model.packed())
    expected = rule_runs(g.ptr, g.ids, g.binary)
    assert all(np.array_equal(a, b) for a, b in zip((g.run_ptr, g.run_sym, g.run_start),
                                                    expected))


def test_skipping_runs_finds_the_trees_scanning_every_rule_finds(random_backoff_model):
    model = random_backoff_model
    rng = random.Random(7)
    tags = model.grammar.tags
    for s in range(150):
        n = rng.randint(2, 9)
        enc = encode(model, [f"w{s}_{i}" for i in range(n)],
                     [rng.choice(tags) for _ in range(n)], random_projective(n, rng))
        for mode in (decoder.PRUNED, decoder.EXACT):
            runs = chart_inputs(model, enc, mode, escalate=True)
            scan = runs._replace(grammar=_scan_every_rule(decoder_grammar(model)))
            a, b = decoder.decode(runs), decoder.decode(scan)
            assert a.score == b.score
            assert np.array_equal(a.syms, b.syms)
