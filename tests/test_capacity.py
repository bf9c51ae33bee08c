"""The decoder's size limits (capacity.py): what packing really takes, a grammar past the
old PTB-sized limit loading, and training and saving refusing what loading would."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from toy import toy_examples

from pad_engine.decoding import capacity
from pad_engine.decoding.capacity import pack_bytes
from pad_engine.decoding.grammar import Grammar
from pad_engine.decoding.model import Model
from pad_engine.decoding.parser import Parser
from pad_engine.errors import ModelError
from pad_engine.learning.train import train


def _widened(grammar: Grammar, tags: int, rules: int) -> None:
    """Add ``tags`` tags of one family and back-off-like rules over them (seen with no tag:
    pruning 1 allows each on the family's rows wherever its phrase was seen, the most pairs
    it can), up to ``rules``."""
    new = [grammar.symbol(grammar.tags[grammar.add_tag(f"TT{i:03d}")]) for i in range(tags)]
    phrases = sorted({a for a, *_ in grammar.binary})
    for a in phrases:
        for h in new:
            for m in new:
                for d in (0, 1):
                    if len(grammar.binary) + len(grammar.unary) >= rules:
                        return
                    grammar.add_binary(a, h, m, d)


def test_packing_takes_no_more_memory_than_pack_bytes_says():
    """The budget's arithmetic is what packing allocates, measured at its worst: every rule
    allowed on every tag row."""
    model = train(toy_examples(), epochs=0, bits=12)
    model.grammar.pack()  # the first call loads compiled code, which is no grammar's cost
    g = model.grammar
    learned = len(g.binary)
    _widened(g, tags=200, rules=10_000)
    # every learned rule seen with every tag: each phrase seen headed by each
    g.binary_tags |= {(row, rid) for row in range(len(g.tags)) for rid in range(learned)}
    nrules, ntags = len(g.binary) + len(g.unary), len(g.tags)
    tracemalloc.start()
    try:
        packed = g.pack()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert packed.ids.shape[0] > 0.9 * nrules * (ntags + 1)  # nearly every pair allowed
    assert peak <= pack_bytes(len(g.symbols), ntags, nrules)


def test_a_grammar_past_the_ptb_sized_limit_saves_loads_and_decodes(tmp_path):
    """FarPaHC's John makes 49,256 rules over 120 tag rows, which the old limit
    (5 million rules x rows, set from the PTB model) refused on loading."""
    model = train(toy_examples(), epochs=2, bits=12)
    ex = toy_examples()[0]
    before = Parser(model).parse(ex.forms, ex.tags, ex.heads).tree
    _widened(model.grammar, tags=119, rules=50_000)
    model.invalidate()
    assert (len(model.grammar.binary) + len(model.grammar.unary)) * (
        len(model.grammar.tags) + 1) > 5_000_000
    path = tmp_path / "wide.padmodel"
    model.save(path)
    loaded = Model.load(path)
    assert len(loaded.grammar.binary) == len(model.grammar.binary)
    assert Parser(loaded).parse(ex.forms, ex.tags, ex.heads).tree == before


def test_training_refuses_up_front_what_loading_would_refuse(monkeypatch, tmp_path):
    """One limit for the loader, training and saving: past it, training stops before its
    first sentence with the reason, saving writes nothing, and loading refuses the same."""
    small = train(toy_examples(), epochs=1, bits=12, backoff=True)
    path = tmp_path / "made.padmodel"
    small.save(path)
    g = small.grammar
    need = pack_bytes(len(g.symbols), len(g.tags), len(g.binary) + len(g.unary))
    monkeypatch.setattr(capacity, "PACK_BUDGET", need - 1)
    seen = []
    with pytest.raises(ModelError, match=r"too large to decode: .*more than the decoder "
                                         r"packs.*--no-backoff"):
        train(toy_examples(), epochs=1, bits=12, backoff=True, progress=seen.append)
    assert seen == []
    target = tmp_path / "never.padmodel"
    with pytest.raises(ModelError, match=r"not written.*more than the decoder packs"):
        small.save(target)
    assert not target.exists()
    with pytest.raises(ModelError, match="more than the decoder packs"):
        Model.load(path)


def test_saving_refuses_a_model_its_file_could_not_be_loaded_from(tmp_path):
    """Not only sizes: any field loading refuses (here a NaN in the training record, which
    JSON would write as NaN and the loader refuses) stops the save."""
    model = train(toy_examples(), epochs=1, bits=12)
    model.training["f1"] = float("nan")
    assert "NaN" in model.problem()
    with pytest.raises(ModelError, match="not written"):
        model.save(tmp_path / "nan.padmodel")
    model.training["f1"] = 1.0
    assert model.problem() is None
    model.save(tmp_path / "ok.padmodel")
    assert np.array_equal(Model.load(tmp_path / "ok.padmodel").weights, model.weights)


def test_pad_train_refuses_in_one_line_before_its_first_epoch(monkeypatch, tmp_path, capsys):
    from pad_engine.cli import main
    from pad_engine.trees.lextree import to_line

    trees = tmp_path / "toy.ptb"
    trees.write_text("".join(to_line(ex.lex, ex.forms) + "\n" for ex in toy_examples()))
    out = tmp_path / "toy.padmodel"
    assert main(["train", str(trees), "-o", str(out), "--epochs", "1", "--bits", "16"]) == 0
    out.unlink()
    capsys.readouterr()
    monkeypatch.setattr(capacity, "PACK_BUDGET", 1)
    assert main(["train", str(trees), "-o", str(out), "--epochs", "1", "--bits", "16"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "epoch" not in err, err
    assert err.startswith("pad train: the grammar read off these trees is too large to decode")
    assert "more than the decoder packs" in err
    assert "--no-backoff" in err
    assert not out.exists()


def test_every_rule_id_the_decoder_makes_fits_its_int32_tables():
    """The glue rules' ids follow the learned and unary ones (decoder.glue_rule_id), and the
    chart stores rule ids as int32: the limits keep the largest inside."""
    from pad_engine.decoding.decoder import glue_rule_id

    nsym = capacity.MAX_SYMBOLS
    largest = glue_rule_id(capacity.MAX_RULES, 0, nsym, nsym - 1, nsym - 1, 1)
    assert largest < np.iinfo(np.int32).max
