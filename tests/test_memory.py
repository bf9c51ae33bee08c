"""Chart memory: storage for the items a sentence builds, not for every cell x layer
x symbol, and a clear per-sentence refusal above MAX_CHART instead of an out-of-memory kill."""

from __future__ import annotations

import tracemalloc
from copy import deepcopy

import pytest

from pad_engine.decoding.engine import Engine
from pad_engine.decoding.model import Model, default_model_path
from pad_engine.decoding.parser import MAX_CHART, Parser
from pad_engine.errors import InputError
from pad_engine.trees.deptree import DepSentence


def flat(n: int) -> tuple[list[str], list[str], list[int]]:
    """A flat sentence: one verb heading every other word."""
    h = n // 2
    tags = ["NN"] * n
    tags[h - 1] = "VBD"
    return [f"w{i}" for i in range(n)], tags, [0 if i == h else h for i in range(1, n + 1)]


@pytest.fixture(scope="module")
def bundled() -> Model:
    return Model.load(default_model_path())


def test_chart_memory_does_not_grow_with_the_grammar(bundled):
    """A flat 300-word sentence with 1,000 unused symbols added to the bundled grammar: the
    kernels' allocations stay small (a chart of cells x layers x symbols took 3.1 GB)."""
    grown = deepcopy(bundled)
    for i in range(1000):
        grown.grammar.symbol(f"UNUSED{i}")
    grown.invalidate()
    parser = Parser(grown)
    forms, tags, heads = flat(300)
    parser.kbest(forms[:2], tags[:2], [2, 0], 10)  # compiled before measuring
    for k in (1, 10):
        tracemalloc.start()
        try:
            parser.kbest(forms, tags, heads, k)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 100 * 2**20, (k, peak)  # measured: 6 MB (k = 1), 10 MB (k = 10)


def test_a_sentence_too_large_is_refused_with_its_size(bundled):
    parser = Parser(bundled)
    forms, tags, heads = flat(500)  # 250 x 250 cells of the head, one for each dependent
    assert 63_249 * 11 > MAX_CHART > 63_249 * 2
    with pytest.raises(InputError, match=r"500 words .* 63,249 chart cells \(word 250 has 499 "
                                         r"dependents\); the limit is 54,545 cells for 10 trees"):
        parser.kbest(forms, tags, heads, 10)
    assert parser.parse(forms, tags, heads).tree.label == "TOP"  # k = 1 fits


def test_batch_conversion_reports_the_refused_sentence_and_goes_on(bundled):
    from pad_engine.batch.files import ConvertReport, convert_items

    big, small = flat(500), flat(5)
    sents = [DepSentence(*s, path="in.conll", line=line)
             for s, line in ((big, 1), (small, 503))]
    report = ConvertReport()
    out = list(convert_items(Engine(bundled), sents, report, kbest=10))
    assert out[0] == "\n"
    assert out[1].count("(TOP ") >= 1
    assert report.converted == 1
    assert [str(p) for p in report.problems] == [
        "in.conll:1: sentence too large to decode: 500 words whose d-parse needs 63,249 chart "
        "cells (word 250 has 499 dependents); the limit is 54,545 cells for 10 trees"]


def test_a_flat_300_word_sentence_fits_in_250_mb_for_one_tree_and_ten():
    """The bound on the whole process (model, compiled kernels, chart), as ``pad bench``
    reports it: a chart for every cell took 532 MB for the best tree and 1.08 GB for 10."""
    from pad_engine.learning.bench import flat_sentence_peak_mb

    for k in (1, 10):
        assert flat_sentence_peak_mb(default_model_path(), 300, k) < 250, k


def test_long_sentences_of_the_memory_rows_have_their_shapes():
    from pad_engine.learning.bench import long_sentence

    flat_ud, chain_ptb = long_sentence("flat", "ud", 300), long_sentence("chain", "ptb", 300)
    assert flat_ud.heads.count(0) == 1
    assert set(flat_ud.heads) == {0, 150}
    assert flat_ud.tags[149] == "VBD"
    assert flat_ud.rels[149] == "root"
    assert {"nsubj", "obj", "amod", "punct"} <= set(flat_ud.rels)
    assert chain_ptb.heads == list(range(300))
    assert chain_ptb.rels == []
    assert len(set(chain_ptb.tags)) > 10  # common tags in turn, not one


def test_repeated_file_repeats_a_file_s_sentences_to_the_count(tmp_path):
    from toy import conll_text, toy_examples

    from pad_engine.io.conll import read_conll
    from pad_engine.learning.bench import repeated_file

    src, out = tmp_path / "in.conll", tmp_path / "out.conll"
    src.write_text(conll_text(toy_examples()[:3]), encoding="utf-8")
    repeated_file(src, 7, out)
    forms = [s.forms for s in read_conll(out).sentences]
    first = [s.forms for s in read_conll(src).sentences]
    assert forms == (first * 3)[:7]
