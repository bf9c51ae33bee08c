"""``pad bench --farpahc``: long sentences with a large grammar (FarPaHC, Faroese)."""

from __future__ import annotations

import pytest

from pad_engine.learning.bench import format_farpahc

FIGURES = {"fo_sentences": 955, "fo_held_out": 95, "fo_trained": 860,
           "fo_training_seconds": 46.2, "fo_packing_seconds": 0.25,
           "fo_mean_words": 22.1, "fo_max_words": 99, "fo_mean_ms": 0.91, "fo_max_ms": 5.34,
           "fo_passes": {"pruned": 954, "glue": 1}, "fo_f1": 75.938,
           "fo_grammar": {"symbols": 155, "tags": 118, "binary_rules": 29055,
                          "unary_rules": 162, "max_unary_chain": 4}}


def test_farpahc_row_names_every_figure():
    row = format_farpahc(FIGURES)
    assert "\n" not in row
    for part in ("955 sentences", "mean 22.1 words, max 99", "0.9 ms each", "max 5.3 ms",
                 "glue 1, pruned 954", "held-out 95 F1 75.94", "155 symbols",
                 "29,055 binary and 162 unary rules", "unary chains up to 4", "packing 0.25 s",
                 "trained on 860"):
        assert part in row, part


def test_bench_farpahc_alone_needs_no_treebank_but_a_farpahc_folder(tmp_path):
    from pad_engine.cli import main

    assert main(["bench"]) == 1  # neither --treebank nor --farpahc
    assert main(["bench", "--farpahc", str(tmp_path)]) == 1  # not FarPaHC


@pytest.mark.slow
def test_farpahc_figures_on_the_real_pair(farpahc_dir):
    from pad_engine.learning.bench import farpahc_figures

    f = farpahc_figures(farpahc_dir)
    assert f["fo_sentences"] > 0
    assert f["fo_sentences"] == f["fo_held_out"] + f["fo_trained"] == sum(f["fo_passes"].values())
    assert set(f["fo_passes"]) <= {"pruned", "exact", "glue", "fallback"}
    assert f["fo_f1"] > 50
    assert 0 < f["fo_mean_ms"] <= f["fo_max_ms"]
    assert 1 <= f["fo_mean_words"] <= f["fo_max_words"]
    assert f["fo_grammar"]["binary_rules"] > 0
    assert str(f["fo_sentences"]) in format_farpahc(f).replace(",", "")
