"""The text model: training on a small treebank, its file round trip and refusing bad files
with one clear line; the bundled models on the real test sets (skipped without the data)."""

from __future__ import annotations

import io
import json
import pickle
import zipfile

import numpy as np
import pytest

from pad_engine.errors import ModelError
from pad_engine.parsing.model import TextModel
from pad_engine.parsing.train import jackknife, read_treebank, train_text_model
from pad_engine.resources import resource_path
from pad_engine.trees.deptree import tree_problem

SAMPLE = resource_path("sample", "sample.conllu")


@pytest.fixture(scope="module")
def bank():
    return read_treebank([str(SAMPLE)])


@pytest.fixture(scope="module")
def model(bank):
    return train_text_model(bank, epochs=10, tagger_epochs=8, arc_bits=16, tagger_bits=14)


def test_it_learns_its_training_sentences(bank, model):
    right = total = 0
    for sent, upos in zip(bank.sentences, bank.upos):
        heads = model.parse(sent.forms, *model.arc_tags({"xpos": sent.tags, "upos": upos}))
        right += sum(h == g for h, g in zip(heads, sent.heads))
        total += len(heads)
    assert right / total > 0.95
    assert set(model.taggers) == {"xpos", "upos"}  # the sample has both columns
    assert model.convention == "collins"  # prepositions head their nouns there
    first = bank.sentences[0]
    assert model.label(first.forms, bank.upos[0], first.heads) == first.rels


def test_the_arc_model_reads_upos_first_and_pad_gets_xpos(bank, model):
    """On a treebank with both columns the arc model reads UPOS first (better predicted;
    +0.3 UAS on EWT dev) and XPOS beside it, while PAD still gets the XPOS tags."""
    from pad_engine.parsing.arcs import A_CTAG, A_TAG, sentence_arrays
    from pad_engine.parsing.pipeline import TextPipeline
    from pad_engine.parsing.text import TextSentence

    first = bank.sentences[0]
    upos = bank.upos[0]
    assert (model.parse_column, model.arc_column, model.coarse_column) == \
        ("xpos", "upos", "xpos")
    assert model.arc_tags({"xpos": first.tags, "upos": upos}) == (upos, first.tags)
    both = sentence_arrays(first.forms, first.tags, upos)
    alone = sentence_arrays(first.forms, first.tags)
    assert (both[A_CTAG] != both[A_TAG]).any()  # the sample's UPOS differ from its XPOS
    assert (alone[A_CTAG] == alone[A_TAG]).all()  # one column: the tags again
    tagged = model.tag(first.forms)
    analysis = TextPipeline(model).analyze(TextSentence(list(first.forms), 1))
    assert analysis.parse_tags == tagged["xpos"] == analysis.dep_sentence().tags
    assert analysis.heads == model.parse(first.forms, tagged["upos"], tagged["xpos"])
    xpos_only = TextModel(model.taggers.copy(), model.arc_weights, model.arc_filter)
    del xpos_only.taggers["upos"]
    assert xpos_only.arc_column == "xpos"
    assert xpos_only.coarse_column is None
    assert xpos_only.arc_tags({"xpos": first.tags}) == (first.tags, None)


def test_jackknifed_d_parses_come_from_models_that_did_not_see_them(bank):
    """Each sentence parsed by a model trained on the other folds: real trees in input
    order, with the errors of unseen text (a model that saw them gets them all right)."""
    parsed = jackknife(bank, 2, epochs=3, tagger_epochs=3, arc_bits=16, tagger_bits=14)
    assert [s.forms for s in parsed] == [s.forms for s in bank.sentences]
    assert all(tree_problem(s.heads) is None for s in parsed)
    right = sum(h == g for p, s in zip(parsed, bank.sentences) for h, g in zip(p.heads, s.heads))
    assert right < sum(len(s.heads) for s in bank.sentences)
    assert all(len(p.rels) == len(p.forms) for p in parsed)  # the sample has labels


def test_a_model_file_round_trips(model, tmp_path, bank):
    path = tmp_path / "m.padparser"
    model.save(path)
    again = TextModel.load(path)
    assert again.labels == model.labels
    assert again.convention == model.convention
    assert (again.arc_weights == model.arc_weights).all()
    for col in model.taggers:
        assert (again.taggers[col].weights2 == model.taggers[col].weights2).all()
    for sent in bank.sentences[:5]:
        assert again.parse(sent.forms, sent.tags) == model.parse(sent.forms, sent.tags)
        assert again.tag(sent.forms) == model.tag(sent.forms)


def _rewrite(src, dst, change):
    """Copy a model file with its archive members changed by ``change(dict)``."""
    with np.load(src, allow_pickle=False) as data:
        members = {k: data[k] for k in data.files}
    change(members)
    with open(dst, "wb") as f:
        np.savez(f, **members)


def _meta(members):
    return json.loads(members["meta"].tobytes())


def _set_meta(members, meta):
    members["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)


def _set_field(key, value):
    """A change to a text model file's members setting one field of its metadata."""
    return lambda m: _set_meta(m, {**_meta(m), key: value})


def _index_past_the_table(m):
    m["arcs.index"] = np.append(m["arcs.index"], np.uint32(1 << 30))
    m["arcs.value"] = np.append(m["arcs.value"], np.float32(1))


def _one_tag_too_many(m):
    meta = _meta(m)
    meta["taggers"]["xpos"]["tags"].append("EXTRA")
    _set_meta(m, meta)


MEMBER_DAMAGE = {
    "newer": _set_field("version", 99),
    "older": _set_field("version", 4),
    "arc-column": _set_field("arc_column", "lemma"),
    "index": _index_past_the_table,
    "tags": _one_tag_too_many,
    "no-meta": lambda m: m.pop("meta"),
}


def _damaged(damage, good, tmp_path):
    """The file with the named damage, made from the good model file ``good``."""
    bad = tmp_path / "bad.padparser"
    if damage in MEMBER_DAMAGE:
        _rewrite(good, bad, MEMBER_DAMAGE[damage])
    elif damage == "text":
        bad.write_text("hello\n")
    elif damage == "truncated":
        bad.write_bytes(good.read_bytes()[:1000])
    elif damage == "pickle":
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("meta.npy", pickle.dumps({"format": "x"}))
        bad.write_bytes(buf.getvalue())
    elif damage == "padmodel":
        bad = resource_path("models", "english-ptb-collins.padmodel")
    elif damage == "missing":
        bad = tmp_path / "absent.padparser"
    return bad


@pytest.mark.parametrize(("damage", "message"), [
    ("missing", "no such text model file"),
    ("text", "damaged or not a PAD Studio text model"),
    ("truncated", "damaged or not a PAD Studio text model"),
    ("pickle", "damaged or not a PAD Studio text model"),
    ("padmodel", "not a PAD Studio text model (format 'pad-studio-model')"),
    ("newer", "newer than this PAD Studio understands"),
    ("older", "format version 4 is older than this PAD Studio's (5); retrain it"),
    ("arc-column", "arc_column must be xpos or upos, not 'lemma'"),
    ("index", "table arcs: indices not strictly increasing below its size"),
    ("tags", "table tagger.xpos.1 has"),
    ("no-meta", "not a PAD Studio text model (no meta)"),
])
def test_bad_files_are_refused_in_one_line(model, tmp_path, damage, message):
    good = tmp_path / "good.padparser"
    model.save(good)
    bad = _damaged(damage, good, tmp_path)
    with pytest.raises(ModelError) as err:
        TextModel.load(bad)
    text = str(err.value)
    assert message in text
    assert "\n" not in text
    assert str(bad) in text


def test_the_bundled_ptb_parser_on_the_test_split(ptb_dir):
    """Tagging and UAS of the bundled Collins-style model on part of the PTB test split."""
    from pad_engine.learning.bench import load_split
    from pad_engine.learning.evalb import is_punct
    from pad_engine.parsing.pipeline import load_text_model

    model, _ = load_text_model("ptb")
    test = load_split(ptb_dir, range(160, 170), "collins")
    tags = right = words = scored = 0
    for ex in test:
        predicted = model.taggers["xpos"].tag(ex.forms)
        tags += sum(p == g for p, g in zip(predicted, ex.tags))
        words += len(ex.forms)
        for w, h, g in zip(ex.forms, model.parse(ex.forms, ex.tags), ex.heads):
            if not is_punct(w):
                right += h == g
                scored += 1
    assert tags / words > 0.95
    assert right / scored > 0.86


def test_arc_weights_are_stored_at_half_precision(model, tmp_path):
    """The arc and tagger tables are written as float16 (the 2**24 arc table of the UD
    model would not fit 50 MB otherwise) and the model in memory already scores at that
    precision, so a saved model parses and tags exactly as the trained one; a table with a
    weight too large for float16 keeps float32."""
    path = tmp_path / "m.padparser"
    model.save(path)
    with np.load(path, allow_pickle=False) as data:
        assert data["arcs.value"].dtype == np.float16
        assert data["tagger.xpos.1.value"].dtype == np.float16
        assert data["labels.value"].dtype == np.float32
    again = TextModel.load(path)
    assert (again.arc_weights == model.arc_weights).all()
    assert (again.taggers["upos"].weights2 == model.taggers["upos"].weights2).all()
    big = TextModel(model.taggers, model.arc_weights.copy(), model.arc_filter,
                    parse_column=model.parse_column, arc_column=model.arc_column)
    big.arc_weights[np.flatnonzero(big.arc_weights)[0]] = 1e5
    big.save(path)
    with np.load(path, allow_pickle=False) as data:
        assert data["arcs.value"].dtype == np.float32
    assert (TextModel.load(path).arc_weights == big.arc_weights).all()


def test_jackknifed_tags_come_from_taggers_that_did_not_see_the_sentence(bank):
    from pad_engine.parsing.tagger import jackknife_tags

    pairs = [(s.forms, s.tags) for s in bank.sentences]
    two = jackknife_tags(pairs, 2, epochs=3, bits=14)
    assert [len(t) for t in two] == [len(f) for f, _ in pairs]
    assert two == jackknife_tags(pairs, 2, epochs=3, bits=14)  # deterministic
    wrong = sum(p != g for t, (_, gs) in zip(two, pairs) for p, g in zip(t, gs))
    assert wrong > 0  # unseen text: a tagger that saw them would get the sample right


def test_analyzing_stage_by_stage_gives_each_sentence_its_own_analysis(bank, model):
    """analyze_many tags every sentence before parsing any (faster: each stage's tables
    stay in the cache); mixed input must still get exactly what analyze gives each one."""
    from pad_engine.parsing.pipeline import TextPipeline
    from pad_engine.parsing.text import TextSentence

    a, b, c = bank.sentences[:3]
    sents = [TextSentence(list(a.forms), 1),  # plain words
             TextSentence(list(b.forms), 2, tags={"xpos": list(b.tags)}),  # one column given
             TextSentence(list(c.forms), 3, tags={"xpos": list(c.tags)}, heads=list(c.heads))]
    pipe = TextPipeline(model)
    many = pipe.analyze_many(sents)
    one = [pipe.analyze(s) for s in sents]
    assert [(x.tags, x.heads, x.rels, x.parse_tags) for x in many] == \
        [(x.tags, x.heads, x.rels, x.parse_tags) for x in one]
    assert many[1].tags["xpos"] == list(b.tags)
    assert "upos" in many[1].tags
    assert many[2].heads == list(c.heads)
    assert pipe.analyze_many([]) == []
