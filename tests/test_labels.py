"""Models that read dependency labels: the label templates, where labels come from, model
files, the warning for input labeled otherwise, and what labels are worth on real data."""

from __future__ import annotations

import numpy as np
import pytest
from nltk import Tree

from pad_engine.decoding.engine import Engine
from pad_engine.decoding.model import Model
from pad_engine.decoding.parser import Parser
from pad_engine.errors import ModelError
from pad_engine.learning.train import examples_from_penn, train
from pad_engine.trees.deplabels import tree_labels
from pad_engine.trees.deptree import DepSentence
from pad_engine.trees.lextree import to_line

# The same words, tags and d-parse, two trees: "visit" takes "friends" as its object, or
# "friends" is a bare noun phrase beside the clause. Only the labels tell them apart.
OBJECT = "(TOP (S (NP (NNS people)) (VP (VBP visit) (NP (NNS friends)))))"
BESIDE = "(TOP (S (NP (NNS people)) (VP (VBP visit)) (NP (NNS friends))))"


def examples(labels: str = ""):
    trees = [Tree.fromstring(t) for t in (OBJECT, BESIDE) * 10]
    return examples_from_penn(trees, "collins", labels)


def test_phrase_labels_join_the_attachment_phrase_and_the_dependents_phrase():
    [ex] = examples_from_penn([Tree.fromstring(
        "(TOP (S (NP (DT the) (NN dog)) (VP (VBD saw) (NP (PRP us))) (. .)))")], "collins")
    assert tree_labels(ex.lex, 5) == ["NP+*", "S+NP", "ROOT", "VP+NP", "S+*"]
    with pytest.raises(ValueError, match="unknown label scheme"):
        tree_labels(ex.lex, 5, "ud")


def test_labels_decide_what_the_d_parse_leaves_open():
    exs = examples("phrase")
    assert exs[0].heads == exs[1].heads
    assert exs[0].rels != exs[1].rels
    labeled = Parser(train(exs, epochs=5, bits=16, labels="phrase"))
    plain = Parser(train(exs, epochs=5, bits=16))
    for ex, gold in zip(exs[:2], (OBJECT, BESIDE)):
        got = labeled.parse(ex.forms, ex.tags, ex.heads, rels=ex.rels).tree
        assert to_line(got, ex.forms) == gold
    # without labels both sentences are the same input, so one of them must come out wrong
    outs = {to_line(plain.parse(ex.forms, ex.tags, ex.heads, rels=ex.rels).tree, ex.forms)
            for ex in exs[:2]}
    assert len(outs) == 1


def test_a_model_without_labels_ignores_them():
    exs = examples()
    parser = Parser(train(exs, epochs=2, bits=16))
    ex = exs[0]
    a = parser.parse(ex.forms, ex.tags, ex.heads)
    b = parser.parse(ex.forms, ex.tags, ex.heads, rels=["x", "y", "z"])
    assert (to_line(a.tree, ex.forms), a.score) == (to_line(b.tree, ex.forms), b.score)


def test_label_settings_survive_the_model_file(tmp_path):
    model = train(examples("phrase"), epochs=2, bits=16, labels="phrase")
    assert model.label_set == ["ROOT", "S+NP", "VP+NP"]
    model.save(tmp_path / "m.padmodel")
    back = Model.load(tmp_path / "m.padmodel")
    assert (back.dep_labels, back.label_set) == ("phrase", model.label_set)
    assert np.array_equal(back.weights, model.weights)
    plain = train(examples(), epochs=1, bits=16)
    plain.save(tmp_path / "p.padmodel")
    assert Model.load(tmp_path / "p.padmodel").dep_labels == ""


def test_damaged_label_settings_fail_clearly(tmp_path):
    import json

    model = train(examples("phrase"), epochs=1, bits=16, labels="phrase")
    model.save(tmp_path / "m.padmodel")
    with np.load(tmp_path / "m.padmodel") as data:
        meta = json.loads(data["meta"].tobytes())
        weights = data["weights"]
    meta["labels"] = "phrase"
    with open(tmp_path / "bad.padmodel", "wb") as f:  # np.savez would add ".npz" to a name
        np.savez(f, weights=weights, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8))
    with pytest.raises(ModelError, match="damaged model metadata"):
        Model.load(tmp_path / "bad.padmodel")


def test_input_labeled_otherwise_gets_a_warning():
    engine = Engine(train(examples("phrase"), epochs=1, bits=16, labels="phrase"))
    known = DepSentence(["people", "visit", "friends"], ["NNS", "VBP", "NNS"], [2, 0, 2],
                        ["S+NP", "ROOT", "VP+NP"])
    ud = DepSentence(known.forms, known.tags, known.heads, ["nsubj", "root", "obj"])
    bare = DepSentence(known.forms, known.tags, known.heads)
    assert engine.label_warning([known]) is None
    assert "3 of the 3 words have labels it never saw" in engine.label_warning([ud])
    assert engine.label_warning([bare]) is not None
    assert Engine(train(examples(), epochs=1, bits=16)).label_warning([ud]) is None


@pytest.mark.slow
def test_phrase_labels_help_on_ptb(ptb_dir):
    from pad_engine.learning.bench import load_split
    from pad_engine.learning.retrain import evaluate

    scores = {}
    for labels in ("", "phrase"):
        train_ex = load_split(ptb_dir, range(1, 40), "collins", labels)[:300]
        test = load_split(ptb_dir, range(160, 170), "collins", labels)
        scores[labels] = evaluate(train(train_ex, epochs=5, bits=18, labels=labels), test).f1
    assert scores["phrase"] > scores[""] + 0.5, scores  # measured: 95.86 against 95.01


def test_pad_train_labels_from_penn_trees_then_convert(tmp_path, capsys):
    from pad_engine.cli import main
    from pad_engine.io.conll import format_conllx

    penn = tmp_path / "two.mrg"
    penn.write_text(f"{OBJECT}\n{BESIDE}\n" * 5, encoding="utf-8")
    model = tmp_path / "labeled.padmodel"
    assert main(["train", str(penn), "--labels", "--epochs", "3", "--bits", "16",
                 "-o", str(model)]) == 0
    assert Model.load(model).dep_labels == "phrase"
    forms, tags, heads = ["people", "visit", "friends"], ["NNS", "VBP", "NNS"], [2, 0, 2]
    conll = tmp_path / "in.conll"
    conll.write_text(format_conllx(forms, tags, heads, ["S+NP", "ROOT", "S+NP"]) + "\n"
                     + format_conllx(forms, tags, heads, ["S+NP", "ROOT", "VP+NP"]) + "\n",
                     encoding="utf-8")
    out = tmp_path / "out.mrg"
    capsys.readouterr()
    assert main(["convert", str(conll), "-o", str(out), "--model", str(model)]) == 0
    assert out.read_text(encoding="utf-8").splitlines() == [
        "(TOP (S (NP (NNS people)) (VP (VBP visit)) (NP (NNS friends))))",
        "(TOP (S (NP (NNS people)) (VP (VBP visit) (NP (NNS friends)))))",
    ]
    assert "labels it never saw" not in capsys.readouterr().err
    conll.write_text(format_conllx(forms, tags, heads, []) + "\n", encoding="utf-8")
    assert main(["convert", str(conll), "-o", str(out), "--model", str(model)]) == 0
    assert "in.conll: the model reads dependency labels" in capsys.readouterr().err


def test_pad_train_labels_with_deps_reads_deprel(gum_dir, tmp_path):
    from pad_engine.cli import main

    docs = sorted(gum_dir.glob("dep/*.conllu"))[:2]
    trees = [str(gum_dir / "const" / (d.stem + ".ptb")) for d in docs]
    out = tmp_path / "ud.padmodel"
    assert main(["train", *trees, "--deps", *map(str, docs), "--labels", "--epochs", "1",
                 "-o", str(out)]) == 0
    model = Model.load(out)
    assert model.dep_labels == "deprel"
    assert {"nsubj", "obj", "det"} <= set(model.label_set)


def test_pad_bench_labels_trains_rather_than_reads_a_model(tmp_path, capsys):
    from pad_engine.cli import main

    (tmp_path / "wsj_0001.mrg").write_text(OBJECT + "\n", encoding="utf-8")
    assert main(["bench", "--treebank", str(tmp_path), "--labels", "--model", "m"]) == 1
    assert "--labels trains a model" in capsys.readouterr().err


def test_pad_deps_writes_the_labels_a_penn_trained_model_reads(ptb_dir, tmp_path, capsys):
    from pad_engine.cli import main

    files = [str(ptb_dir / "wsj_0001.mrg"), str(ptb_dir / "wsj_0002.mrg")]
    model = tmp_path / "labeled.padmodel"
    assert main(["train", *files, "--labels", "--epochs", "2", "--bits", "16",
                 "-o", str(model)]) == 0
    deps, out = tmp_path / "0003.conll", tmp_path / "0003.mrg"
    assert main(["deps", str(ptb_dir / "wsj_0003.mrg"), str(deps), "--labels", "phrase"]) == 0
    rels = [line.split("\t")[7] for line in deps.read_text().splitlines() if line]
    assert "S+NP" in rels
    assert "NP+*" in rels
    assert "ROOT" in rels
    capsys.readouterr()
    assert main(["convert", str(deps), "-o", str(out), "--model", str(model)]) == 0
    assert "never saw" not in capsys.readouterr().err
    assert main(["deps", str(ptb_dir / "wsj_0003.mrg"), str(deps)]) == 0  # S:NP>VP style
    assert main(["convert", str(deps), "-o", str(out), "--model", str(model)]) == 0
    assert "never saw" in capsys.readouterr().err


def test_convert_dir_reports_files_whose_labels_the_model_never_saw(tmp_path, capsys):
    import json

    from pad_engine.cli import main
    from pad_engine.io.conll import format_conllx

    model = tmp_path / "labeled.padmodel"
    train(examples("phrase"), epochs=2, bits=16, labels="phrase").save(model)
    forms, tags, heads = ["people", "visit", "friends"], ["NNS", "VBP", "NNS"], [2, 0, 2]
    src = tmp_path / "in"
    src.mkdir()
    (src / "known.conll").write_text(
        format_conllx(forms, tags, heads, ["S+NP", "ROOT", "VP+NP"]) + "\n", encoding="utf-8")
    (src / "ud.conll").write_text(
        format_conllx(forms, tags, heads, ["nsubj", "root", "obj"]) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["convert-dir", str(src), str(out), "--model", str(model), "--jobs", "1"]) == 0
    assert ("ud.conll: 1 of 1 sentences converted with labeled.padmodel; the model reads "
            "dependency labels") in (
        capsys.readouterr().err)
    report = json.loads((out / "pad-convert-report.json").read_text(encoding="utf-8"))
    warnings = {f["input"]: f["warning"] for f in report["files"]}
    assert warnings["known.conll"] == ""
    assert "never saw" in warnings["ud.conll"]
    assert "Warnings:\nud.conll: the model reads" in (
        out / "pad-convert-report.txt").read_text(encoding="utf-8")
