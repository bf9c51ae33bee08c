"""``pad train --projection``: the bundled PTB model's recipe (a model reading the rule-based
projection, the training d-parses' projections in its grammar, the warm-start pass)."""

from __future__ import annotations

import pytest
from toy import TREES, toy_examples

from pad_engine.cli import main
from pad_engine.decoding.features import label_ids
from pad_engine.decoding.model import Model
from pad_engine.decoding.model_check import DEPREL_AND_PROJECTION
from pad_engine.decoding.parser import Parser, encode
from pad_engine.io.conll import format_conllx
from pad_engine.learning import train as training
from pad_engine.learning.train import PROJECTION_DROPOUT, train


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
    assert model.training["projection_dropout"] == PROJECTION_DROPOUT
    # the projections' rules widen the grammar read off the trees
    assert len(model.grammar.binary) > len(Model.load(plain).grammar.binary)


def test_pad_train_projection_and_labels_on_penn_trees_reads_both(ptb_dir, tmp_path):
    """The strongest labeled recipe (``pad bench --labels``): the trees' S+NP labels per word
    and the projection's phrases over each span; ``pad bench --model`` labels the test
    d-parses in that scheme for it, and refuses a model of labels the sample lacks."""
    from pad_engine.errors import InputError
    from pad_engine.learning.bench import _scheme

    out = tmp_path / "both.padmodel"
    assert main(["train", str(ptb_dir / "wsj_0001.mrg"), "--projection", "--labels",
                 "--epochs", "1", "--bits", "16", "-o", str(out)]) == 0
    model = Model.load(out)
    assert model.dep_labels == DEPREL_AND_PROJECTION
    assert "S+NP" in model.label_set
    assert _scheme(model, out) == "phrase"
    model.label_set = ["nsubj", "obj", "root"]  # a UD model reading the projection too
    with pytest.raises(InputError, match="do not have"):
        _scheme(model, out)


RELS = {"DT": "det", "JJ": "amod", "PRP": "nsubj", "IN": "case", "RB": "advmod", ".": "punct"}


def test_pad_train_deps_labels_projection_reads_deprel_and_the_projections_spans(tmp_path):
    """A UD-style model that reads both: DEPREL per word (its label templates) and the
    rule-based projection's phrases over each span (its span templates)."""
    trees, deps = tmp_path / "toy.ptb", tmp_path / "toy.conllu"
    examples = toy_examples()
    trees.write_text("\n\n".join(TREES) + "\n", encoding="utf-8")
    deps.write_text("".join(format_conllx(ex.forms, ex.tags, ex.heads,
                                          [RELS.get(t, "dep") for t in ex.tags]) + "\n"
                            for ex in examples), encoding="utf-8")
    out = tmp_path / "both.padmodel"
    assert main(["train", str(trees), "--deps", str(deps), "--labels", "--projection",
                 "--epochs", "2", "--bits", "16", "--no-backoff", "-o", str(out)]) == 0
    model = Model.load(out)
    assert model.dep_labels == DEPREL_AND_PROJECTION
    assert model.reads_deprel
    assert model.reads_projection
    assert "det" in model.label_set
    ex = examples[0]
    rels = [RELS.get(t, "dep") for t in ex.tags]
    enc = encode(model, ex.forms, ex.tags, ex.heads, rels)
    assert list(enc.rel_ids) == list(label_ids(rels))  # the labels are DEPREL's...
    assert enc.spans.shape[1] > 1  # ...and the projection's spans are read as well
    relabelled = encode(model, ex.forms, ex.tags, ex.heads, ["dep"] * len(rels))
    assert list(relabelled.rel_ids) != list(enc.rel_ids)
    assert Parser(model).parse(ex.forms, ex.tags, ex.heads, rels=rels).how != "fallback"


def _decodes_seeing_the_projection(monkeypatch, **options) -> tuple[Model, list[bool]]:
    """Train on the toy trees, recording for each decode of training whether the sentence's
    projection was shown (some phrase over a span) or hidden."""
    seen = []
    decode = training.decode

    def spy(inp):
        seen.append(inp.sentence.spans.shape[1] > 1)
        return decode(inp)

    monkeypatch.setattr(training, "decode", spy)
    examples = toy_examples()
    model = train(examples, epochs=20, bits=16, labels="projection",
                  pool=[ex.sentence() for ex in examples], **options)
    return model, seen


def test_projection_dropout_hides_the_projection_from_that_share_of_the_trees(monkeypatch):
    """Feature dropout: with ``projection_dropout`` a share of the trees' decodes see neither
    the projection's labels nor its phrases, so the trees also teach the other templates;
    the warm pass over projections always sees them."""
    trees = len(toy_examples())
    _, shown = _decodes_seeing_the_projection(monkeypatch, warm_start=trees)
    assert len(shown) == 21 * trees
    assert all(shown)
    model, shown = _decodes_seeing_the_projection(monkeypatch, warm_start=trees,
                                                  projection_dropout=0.3)
    assert model.training["warm_start"] == trees
    assert model.training["projection_dropout"] == 0.3
    warm, epochs = shown[:trees], shown[trees:]
    assert all(warm)
    assert 0.15 < epochs.count(False) / len(epochs) < 0.45


def test_projection_dropout_leaves_a_model_that_reads_no_projection_as_it_was():
    examples = toy_examples()
    plain = train(examples, epochs=3, bits=16)
    dropped = train(examples, epochs=3, bits=16, projection_dropout=0.5)
    assert (plain.weights == dropped.weights).all()
    assert "projection_dropout" not in dropped.training
