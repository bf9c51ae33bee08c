"""Edits have honest side effects. Re-attaching a word keeps the tree's
earlier edits, edits that change the d-parse show on the arcs, and Export Dependencies
writes HEAD, DEPREL and DEPS that agree."""

from __future__ import annotations

import pytest
import test_controllers
from test_controllers import decoded

from pad_engine.api import edits, induced_heads, read_conll
from pad_gui.session import EDITED

workspace = test_controllers.workspace  # the Qt-free workspace fixture, shared

def path_of(tree, label: str, span: tuple[int, int]) -> tuple[int, ...]:
    return next(p for p, n in edits.phrases(tree) if n.label == label and n.span() == span)


def edit(w, kind: str, change) -> None:
    """An edit as the window makes it: one step, applied as the undo stack applies it."""
    assert w.edit(kind, kind, change), w.messages[-1]
    w.apply(w.current, w.steps[-1].change.after)


@pytest.fixture
def opened(workspace, sample):
    w = workspace
    assert w.open(sample)
    decoded(w, 0)
    # (TOP (S (NP The committee) (VP approved (NP the new budget) (PP on (NP Tuesday))) .))
    assert w.session.shown_tree(0).children[0].children[1].label == "VP"
    return w


def test_reattaching_after_a_delete_and_an_insert_keeps_both_edits(opened):
    w = opened
    s = w.session
    edit(w, "delete", lambda t: edits.delete_node(t, path_of(t, "NP", (0, 1))))
    edit(w, "insert", lambda t: edits.insert_node(t, path_of(t, "NP", (3, 5)), 0, 1, "QP"))
    before = s.view(0)
    assert before.heads[0] == 3
    assert before.heads[3] == 5
    w.reattach_word(7, 6)  # "on" to "budget"
    assert w.reattach.pending is None  # no decode needed: the edited tree is kept
    after = w.steps[-1].change.after
    w.apply(0, after)
    tree = s.shown_tree(0)
    spans = edits.brackets(tree)
    assert spans[("QP", 3, 4)] == 1  # the insert stays
    assert spans[("NP", 0, 1)] == 0  # the delete stays
    assert spans[("NP", 3, 7)] == 1
    assert spans[("PP", 6, 7)] == 1
    heads = list(before.heads)
    heads[6] = 6
    assert list(s.view(0).heads) == heads == induced_heads(tree, 9)
    assert s.state(0) == EDITED


def test_a_reattachment_no_phrase_can_take_is_decoded_afresh(opened):
    w = opened
    edit(w, "insert", lambda t: edits.insert_node(t, path_of(t, "NP", (3, 5)), 0, 1, "QP"))
    w.reattach_word(7, 1)  # "on" to "The", which heads no phrase
    assert w.reattach.pending is not None  # waits for the decode, as before


def conllu_with_deps(path) -> None:
    """Fill the DEPS column with each word's basic arc, as UD files have it."""
    out = []
    for line in path.read_text().split("\n"):
        cols = line.split("\t")
        if len(cols) == 10 and cols[0].isdigit():
            cols[8] = f"{cols[6]}:{cols[7]}"
        out.append("\t".join(cols))
    path.write_text("\n".join(out))


def test_export_dependencies_after_a_delete_and_a_make_head(workspace, sample,
                                                            tmp_path):
    conllu_with_deps(sample)
    w = workspace
    assert w.open(sample)
    decoded(w, 0)
    edit(w, "delete", lambda t: edits.delete_node(t, path_of(t, "NP", (0, 1))))
    vp = path_of(w.session.shown_tree(0), "VP", (2, 7))
    edit(w, "head", lambda t: edits.set_head_child(t, vp, 1)[0])  # "budget" heads the VP
    heads = w.session.view(0).heads
    assert heads[5] == 0
    assert heads[2] == 6
    assert heads[0] == 6
    out = tmp_path / "out.conllu"
    w.exports.conll(str(out))
    [sent, *_] = read_conll(out).sentences
    assert sent.heads == list(heads)
    rows = [line.split("\t") for line in sent.lines if line[:1].isdigit()]
    for cols in rows:
        assert cols[8] == f"{cols[6]}:{cols[7]}", cols
    assert rows[5][7] == "ROOT"
    assert rows[2][7] == "DEP"
