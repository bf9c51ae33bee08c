"""UD coordinators and punctuation re-attached where Penn trees put them (``Model.reattach``):
the arcs moved, the model file, training and decoding with them, Retrain continuing from such
a model, an edited tree read back."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest
from nltk import Tree

from pad_engine.cli import main
from pad_engine.decoding.model import Model
from pad_engine.decoding.parser import Parser
from pad_engine.errors import ModelError
from pad_engine.learning.pairs import Pair, examples_from_pairs, reattached
from pad_engine.learning.train import example_from_lextree, train
from pad_engine.trees.attachment import PENN, reattach
from pad_engine.trees.lextree import induced_heads, to_line
from pad_engine.trees.projectivize import Lift
from pad_engine.trees.structure import is_projective_tree

# "cats , dogs and birds sleep": UD hangs "," and "and" on the conjunct after them
FORMS = ["cats", ",", "dogs", "and", "birds", "sleep"]
TAGS = ["NNS", ",", "NNS", "CC", "NNS", "VBP"]
HEADS = [6, 3, 1, 5, 1, 0]
RELS = ["nsubj", "punct", "conj", "cc", "conj", "root"]
GOLD = "(TOP (S (NP (NP (NNS cats)) (, ,) (NP (NNS dogs)) (CC and) (NP (NNS birds))) " \
       "(VP (VBP sleep))))"


def test_coordinator_and_comma_move_to_the_coordination_head():
    heads, moved = reattach(HEADS, TAGS, RELS, PENN)
    assert heads == [6, 1, 1, 1, 1, 0]
    assert moved == [Lift(2, 3, 1), Lift(4, 5, 1)]
    assert reattach(heads, TAGS, RELS, PENN) == (heads, [])  # a second call moves nothing


@pytest.mark.parametrize(("rels", "heads", "why"), [
    (None, HEADS, "no relations"),
    (["nsubj", "punct", "conj", "cc:preconj", "conj", "root"], [6, 1, 1, 5, 1, 0],
     "a preconjunct stays (only the comma moves)"),
    (["nsubj", "punct", "appos", "cc", "conj", "root"], [6, 1, 1, 1, 1, 0],
     "not a conjunct: its comma leaves the edge of its phrase all the same"),
])
def test_what_stays(rels, heads, why):
    assert reattach(HEADS, TAGS, rels, PENN)[0] == heads, why
    assert reattach(HEADS, TAGS, RELS, "")[0] == HEADS


def test_punctuation_at_a_phrase_edge_climbs_until_inside():
    # "Smith , the boss , left": UD hangs both commas on "boss", the edges of its phrase
    tags = ["NNP", ",", "DT", "NN", ",", "VBD"]
    rels = ["nsubj", "punct", "det", "appos", "punct", "root"]
    heads, moved = reattach([6, 4, 4, 1, 4, 0], tags, rels, PENN)
    assert heads == [6, 1, 4, 1, 6, 0]  # the first inside "Smith"'s phrase, the last above it
    assert moved == [Lift(2, 4, 1), Lift(5, 4, 6)]
    assert reattach(heads, tags, rels, PENN)[0] == heads
    # a quotation mark or bracket stays where it is: Penn trees keep those inside
    quoted = ["NNP", "``", "DT", "NN", "\'\'", "VBD"]
    assert reattach([6, 4, 4, 1, 4, 0], quoted, rels, PENN)[0] == [6, 4, 4, 1, 4, 0]


def test_a_coordinator_with_dependents_or_after_another_word_stays():
    # "cats and also dogs": "also" opens nothing, "and" heads "also"
    assert reattach([0, 4, 2, 1], ["NNS", "CC", "RB", "NNS"], ["root", "cc", "advmod", "conj"],
                    PENN)[0] == [0, 4, 2, 1]
    # "cats big and dogs"? the conjunct's left edge is "big", not the coordinator
    assert reattach([0, 4, 4, 1], ["NNS", "JJ", "CC", "NNS"], ["root", "amod", "cc", "conj"],
                    PENN)[0] == [0, 4, 4, 1]


def test_real_ud_dparses_stay_projective_trees(gum_dir):
    from pad_engine.io.conll import read_conll
    from pad_engine.trees.projectivize import projectivize

    moved = 0
    for path in sorted((gum_dir / "dep").glob("*.conllu"))[:20]:
        for s in read_conll(str(path)).sentences:
            heads, _ = projectivize(s.heads)
            new, lifts = reattach(heads, s.tags, s.rels, PENN)
            moved += len(lifts)
            assert is_projective_tree([h - 1 for h in new])
            assert reattach(new, s.tags, s.rels, PENN)[0] == new
    assert moved > 100


def _pair(line: str, forms, tags, heads, rels) -> Pair:
    return Pair(list(forms), list(tags), list(heads), Tree.fromstring(line), "x:1", list(rels))


def _model(scheme: str) -> Model:
    pairs = reattached([_pair(GOLD, FORMS, TAGS, HEADS, RELS)] * 3, scheme)
    return train(examples_from_pairs(pairs).examples, epochs=3, bits=16, labels="deprel",
                 reattach=scheme)


def test_a_model_with_the_reattachment_decodes_the_penn_coordination():
    model = _model(PENN)
    parse = Parser(model).parse(FORMS, TAGS, HEADS, rels=RELS, prune=False)
    assert to_line(parse.tree, FORMS) == to_line_of(GOLD)
    assert induced_heads(parse.tree, len(FORMS)) == [6, 1, 1, 1, 1, 0]
    # without it, every tree that keeps UD's arcs brackets "and birds": never the Penn tree
    plain = Parser(_model("")).parse(FORMS, TAGS, HEADS, rels=RELS, prune=False)
    assert to_line(plain.tree, FORMS) != to_line_of(GOLD)
    assert induced_heads(plain.tree, len(FORMS)) == HEADS


def to_line_of(line: str) -> str:
    return " ".join(Tree.fromstring(line).pformat(margin=10**9).split())


def test_the_model_file_keeps_it_and_refuses_strangers(tmp_path):
    model = _model(PENN)
    path = tmp_path / "m.padmodel"
    model.save(path)
    assert Model.load(path).reattach == PENN
    with zipfile.ZipFile(path) as z:
        meta = json.loads(np.load(z.open("meta.npy")).tobytes())
    assert meta["version"] == 5
    assert meta["reattach"] == PENN
    plain = tmp_path / "plain.padmodel"
    _model("").save(plain)
    with zipfile.ZipFile(plain) as z:
        assert "reattach" not in json.loads(np.load(z.open("meta.npy")).tobytes())
    meta["reattach"] = "../../etc"
    bad = tmp_path / "bad.padmodel"
    with zipfile.ZipFile(path) as z, zipfile.ZipFile(bad, "w") as out:
        out.writestr("weights.npy", z.read("weights.npy"))
        with out.open("meta.npy", "w") as f:
            np.save(f, np.frombuffer(json.dumps(meta).encode(), np.uint8))
    with pytest.raises(ModelError, match="reattach must be"):
        Model.load(bad)


def test_retrain_turns_a_tree_that_keeps_ud_arcs_into_one_that_fits_the_model():
    base = _model(PENN)
    # an annotator's tree made for UD's own arcs: "and birds" bracketed together
    ud_tree = ("(TOP (S (NP (NP (NNS cats)) (NP (, ,) (NNS dogs)) (NP (CC and) (NNS birds))) "
               "(VP (VBP sleep))))")
    pair = _pair(ud_tree, FORMS, TAGS, HEADS, RELS)
    ex = examples_from_pairs([pair]).examples[0]
    assert ex.heads == HEADS
    adapted = train([ex], init=base, epochs=2, anchored=True, eta=0.03)
    assert adapted.reattach == PENN
    parse = Parser(adapted).parse(FORMS, TAGS, HEADS, rels=RELS, prune=False)
    assert induced_heads(parse.tree, len(FORMS)) == [6, 1, 1, 1, 1, 0]


def test_train_refuses_reattach_without_deps(tmp_path, capsys, ptb_dir):
    out = tmp_path / "m.padmodel"
    assert main(["train", str(ptb_dir / "wsj_0001.mrg"), "--reattach", "penn",
                 "-o", str(out)]) == 1
    assert "--reattach needs --deps" in capsys.readouterr().err
    assert not out.exists()


def test_example_from_a_reattached_tree_keeps_its_heads():
    base = _model(PENN)
    parse = Parser(base).parse(FORMS, TAGS, HEADS, rels=RELS, prune=False)
    ex = example_from_lextree(parse.tree, FORMS, RELS)
    assert ex.heads == reattach(HEADS, TAGS, RELS, PENN)[0]


def test_an_edited_tree_leaves_the_files_coordinator_arcs_as_they_were():
    from pad_engine.trees.attachment import edited_heads
    from pad_engine.trees.edits import phrases, relabel

    tree = Parser(_model(PENN)).parse(FORMS, TAGS, HEADS, rels=RELS, prune=False).tree
    path = next(p for p, n in phrases(tree) if n.label == "NP" and len(n.children) == 5)
    edited = relabel(tree, path, "UCP")
    assert edited_heads(edited, HEADS, TAGS, RELS, PENN) == HEADS
    # read without the model's re-attachment, the tree's own heads would replace them
    assert edited_heads(edited, HEADS, TAGS, RELS, "") == [6, 1, 1, 1, 1, 0]
    # where the file's arc is not the tree's even re-attached, the tree's wins: had the
    # file hung "dogs" on "birds", the tree's "dogs" on "cats" is what the edit leaves
    other = [6, 3, 5, 5, 1, 0]
    assert edited_heads(edited, other, TAGS, RELS, PENN)[2] == 1


def test_retrain_from_scratch_on_ud_trees_reattaches_as_the_ud_model_does():
    from pad_engine.learning.retrain import retrain

    ud = examples_from_pairs([_pair(GOLD, FORMS, TAGS, HEADS, RELS)] * 3).examples
    model = retrain(ud)
    assert model.reattach == PENN
    parse = Parser(model).parse(FORMS, TAGS, HEADS, rels=RELS, prune=False)
    assert induced_heads(parse.tree, len(FORMS)) == [6, 1, 1, 1, 1, 0]
    # relations of another scheme (the sample's CoNLL-X names): the d-parses as they are
    conllx = ["SBJ", "P", "COORD", "COORD", "CONJ", "ROOT"]
    other = examples_from_pairs([_pair(GOLD, FORMS, TAGS, HEADS, conllx)] * 3).examples
    assert retrain(other).reattach == ""


def test_heads_that_are_no_tree_are_refused_by_name_not_by_a_crash():
    from pad_engine.errors import InputError

    assert reattach([9, 0, -3, 1, 1, 6], TAGS, RELS, PENN) == ([9, 0, -3, 1, 1, 6], [])
    # conjuncts heading each other: their coordinator moved around the cycle for ever
    cycle = ([2, 3, 2, 0], ["CC", "NN", "NN", "VB"], ["cc", "conj", "conj", "root"])
    assert reattach(*cycle, PENN) == ([2, 3, 2, 0], [])
    parser = Parser(_model(PENN))
    for heads in ([6, 3, 1, 5, 9, 0], [2, 3, 1, 5, 1, 0]):  # out of range; a cycle
        with pytest.raises(InputError):
            parser.parse(FORMS, TAGS, heads, rels=RELS)
