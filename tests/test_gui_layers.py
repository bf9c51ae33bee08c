"""Every layer editable, driven by keys and clicks: a word's POS tag and its relation
(DEPREL) change in place, a re-attached arc gets a relation to confirm, the candidates are
decoded again under the new tags, undo restores them, exports and the project keep them,
and function tags (NP-SBJ-1) survive it all."""

from __future__ import annotations

import pytest
import test_gui_app
from PySide6.QtCore import Qt
from test_gui_app import click_node, export, key, new_window, save_dialog, tree, word_pos

from pad_engine.io.conll import read_conll
from pad_gui.parse_items import CHANGED_ARC

pytestmark = pytest.mark.usefixtures("isolated_settings")
window = test_gui_app.window

COMMITTEE = (0, 0, 1)  # the preterminal of "committee" in sentence 1's subject NP
ON, BUDGET = 7, 6  # The committee approved the new budget on Tuesday .


def tags_of(window) -> list[str]:
    return [p.label for p in tree(window).preterminals()]


def type_tag(qtbot, window, path, tag: str) -> None:
    """Select a preterminal, T, type the tag, Enter."""
    click_node(qtbot, window, path)
    key(qtbot, window, Qt.Key_T)
    assert window.editor.tag_edit.hasFocus()
    qtbot.keyClicks(window.editor.tag_edit, tag)
    qtbot.keyClick(window.editor.tag_edit, Qt.Key_Return)


def drag(qtbot, window, dep: int, head: int) -> None:
    viewport = window.view.viewport()
    qtbot.mousePress(viewport, Qt.LeftButton, pos=word_pos(window, dep))
    qtbot.mouseMove(viewport, word_pos(window, head))
    qtbot.mouseRelease(viewport, Qt.LeftButton, pos=word_pos(window, head))


def test_tag_edited_by_key_redecodes_exports_and_undoes(window, qtbot, tmp_path, monkeypatch):
    s = window.session
    type_tag(qtbot, window, COMMITTEE, "NNS")
    qtbot.waitUntil(lambda: s.view(0).tags is not None, timeout=30000)
    assert s.tags(0)[1] == "NNS"
    assert tags_of(window)[1] == "NNS"
    # the candidates were decoded again with the tag as model input
    assert all(c.tree.preterminals()[1].label == "NNS" for c in s.decoded(0))
    assert not window.editor.tag_edit.hasFocus()
    assert window.editor.tag_edit.text() == "NNS"
    out = tmp_path / "all.mrg"
    save_dialog(monkeypatch, out)
    export(qtbot, window, "File", "Export Penn Trees…")
    assert "(NNS committee)" in out.read_text().splitlines()[0]
    deps = tmp_path / "deps.conllu"
    save_dialog(monkeypatch, deps)
    export(qtbot, window, "File", "Export Dependencies (CoNLL)…")
    assert read_conll(deps).sentences[0].tags[1] == "NNS"
    assert "2\tcommittee\t_\tNOUN\tNNS\t" in deps.read_text()
    key(qtbot, window, Qt.Key_Z, Qt.ControlModifier)
    assert s.view(0).tags is None
    assert tags_of(window)[1] == "NN"


def test_refused_tag_explains_and_does_not_stay_in_the_box(window, qtbot):
    before = window.session.view(0)
    type_tag(qtbot, window, COMMITTEE, "N N")
    assert window.session.view(0) == before
    assert "Cannot change the tag" in window.statusBar().currentMessage()
    assert window.editor.tag_edit.text() == "NN"
    # the label box on a preterminal edits the tag too, and a refusal reverts it
    click_node(qtbot, window, COMMITTEE)
    key(qtbot, window, Qt.Key_F2)
    qtbot.keyClicks(window.label_edit, "(bad")
    qtbot.keyClick(window.label_edit, Qt.Key_Return)
    assert window.label_edit.text() == "NN"


def test_double_click_a_tag_to_edit_it(window, qtbot):
    item = next(i for i in window.scene.nodes if i.path == COMMITTEE)
    qtbot.mouseDClick(window.view.viewport(), Qt.LeftButton,
                      pos=window.view.mapFromScene(item.scenePos()))
    assert window.editor.tag_edit.hasFocus()
    qtbot.keyClicks(window.editor.tag_edit, "NNP")
    qtbot.keyClick(window.editor.tag_edit, Qt.Key_Return)
    qtbot.waitUntil(lambda: window.session.tags(0)[1] == "NNP", timeout=30000)


def test_reattached_arc_gets_a_proposed_relation_to_confirm_or_change(window, qtbot, tmp_path,
                                                                       monkeypatch):
    s = window.session
    assert s.rels(0)[ON - 1] == "VMOD"
    drag(qtbot, window, ON, BUDGET)
    qtbot.waitUntil(lambda: s.view(0).heads[ON - 1] == BUDGET, timeout=30000)
    # proposed from the file: IN under NN to its right is NMOD; the box offers it
    assert s.rels(0)[ON - 1] == "NMOD"
    rel = window.editor.rel_edit
    assert rel.hasFocus()
    assert rel.text() == "NMOD"
    assert "proposed: NMOD" in window.statusBar().currentMessage()
    qtbot.keyClick(rel, Qt.Key_Return)  # confirmed
    assert "confirmed" in window.statusBar().currentMessage()
    # changed: double-click the arc's label, type another
    arc = next(a for a in window.scene.arcs if a.dep == ON)
    label = arc.label_item
    pos = window.view.mapFromScene(label.sceneBoundingRect().center())
    qtbot.mouseDClick(window.view.viewport(), Qt.LeftButton, pos=pos)
    assert rel.hasFocus()
    assert rel.text() == "NMOD"
    qtbot.keyClicks(rel, "LOC")
    qtbot.keyClick(rel, Qt.Key_Return)
    qtbot.waitUntil(lambda: s.rels(0)[ON - 1] == "LOC", timeout=30000)
    assert next(a for a in window.scene.arcs if a.dep == ON).label_item.text() == "LOC"
    deps = tmp_path / "deps.conllu"
    save_dialog(monkeypatch, deps)
    export(qtbot, window, "File", "Export Dependencies (CoNLL)…")
    back = read_conll(deps).sentences[0]
    assert back.heads[ON - 1] == BUDGET
    assert back.rels[ON - 1] == "LOC"
    assert "7\ton\t_\tADP\tIN\t_\t6\tLOC\t" in deps.read_text()
    key(qtbot, window, Qt.Key_Z, Qt.ControlModifier)  # the relation change
    assert s.rels(0)[ON - 1] == "NMOD"
    key(qtbot, window, Qt.Key_Z, Qt.ControlModifier)  # the re-attachment, relation and all
    assert s.rels(0)[ON - 1] == "VMOD"
    assert s.view(0).heads[ON - 1] != BUDGET


def test_relation_key_edits_the_selected_words_arc(window, qtbot):
    click_node(qtbot, window, COMMITTEE)
    key(qtbot, window, Qt.Key_R)
    assert window.editor.rel_edit.hasFocus()
    assert window.editor.rel_edit.text() == "SBJ"
    qtbot.keyClicks(window.editor.rel_edit, "nsubj")
    qtbot.keyClick(window.editor.rel_edit, Qt.Key_Escape)  # reverts
    assert window.editor.rel_edit.text() == "SBJ"
    assert window.session.rels(0)[1] == "SBJ"


def test_reopening_the_project_keeps_tags_and_relations(qtbot, tiny_model, sample):
    first = new_window(qtbot, tiny_model)
    first.open_path(sample)
    qtbot.waitUntil(first.decoded_current, timeout=30000)
    type_tag(qtbot, first, COMMITTEE, "NNS")
    qtbot.waitUntil(lambda: first.session.view(0).tags is not None, timeout=30000)
    click_node(qtbot, first, COMMITTEE)
    key(qtbot, first, Qt.Key_R)
    qtbot.keyClicks(first.editor.rel_edit, "nsubj")
    qtbot.keyClick(first.editor.rel_edit, Qt.Key_Return)
    qtbot.waitUntil(lambda: first.session.rels(0)[1] == "nsubj", timeout=30000)
    # no close: a second window opens the same file as if after a crash
    second = new_window(qtbot, tiny_model)
    second.open_path(sample)
    qtbot.waitUntil(second.decoded_current, timeout=30000)
    assert second.session.tags(0)[1] == "NNS"
    assert second.session.rels(0)[1] == "nsubj"
    assert tags_of(second)[1] == "NNS"
    assert [a.dep for a in second.scene.arcs if a.base == CHANGED_ARC] == [2]  # its relation
    click_node(qtbot, second, COMMITTEE)
    assert second.editor.tag_edit.text() == "NNS"
    assert second.editor.rel_edit.text() == "nsubj"
    first.close()
    second.close()


def test_function_tags_survive_tag_edits_reattaching_and_export(window, qtbot, tmp_path,
                                                                 monkeypatch):
    click_node(qtbot, window, (0, 0))
    key(qtbot, window, Qt.Key_F2)
    qtbot.keyClicks(window.label_edit, "NP-SBJ-1")
    qtbot.keyClick(window.label_edit, Qt.Key_Return)
    type_tag(qtbot, window, COMMITTEE, "NNS")  # an edited tree: its preterminal is retagged
    assert tree(window).children[0].children[0].label == "NP-SBJ-1"
    drag(qtbot, window, ON, BUDGET)
    qtbot.waitUntil(lambda: window.session.view(0).heads[ON - 1] == BUDGET, timeout=30000)
    assert tree(window).children[0].children[0].label == "NP-SBJ-1"
    window.grab().save(str(tmp_path / "layers.png"))
    out = tmp_path / "all.mrg"
    save_dialog(monkeypatch, out)
    export(qtbot, window, "File", "Export Penn Trees…")
    assert out.read_text().startswith("(TOP (S (NP-SBJ-1 (DT The) (NNS committee))")
