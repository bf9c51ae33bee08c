"""Penn (``.mrg``) and Penn-Helsinki (``.psd``) files opened in the app as a person opens
them: their own trees are shown and corrected, their arcs read off them by the head table
chosen in File > Open, and exported with the annotator's edits."""

from __future__ import annotations

import shutil

import pytest
from guikit import when_modal
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit
from test_gui_app import click_node, export, key, menu_action, new_window, save_dialog

from pad_engine.io.penn import read_penn, tree_to_line
from pad_engine.io.treefiles import without_empty
from pad_engine.trees.headrules import HeadRules, dependencies
from pad_engine.trees.lextree import to_line
from pad_gui.dialogs import OpenDialog

pytestmark = pytest.mark.usefixtures("isolated_settings")


def open_by_menu(window, path, headrules: str | None = None) -> list[str]:
    """File > Open: pick ``path`` (and a head table); returns the dialog's file types."""
    seen: list[str] = []

    def answer(dialog) -> None:
        seen.extend(dialog.nameFilters())
        if headrules is not None:
            dialog.heads_box.setCurrentText(headrules)
        dialog.findChild(QLineEdit, "fileNameEdit").setText(str(path))
        dialog.accept()

    when_modal(OpenDialog, answer)
    menu_action(window, "File", "Open…").trigger()
    return seen


def file_trees(path, table: str) -> list[tuple[str, list[int]]]:
    """Each tree of the file without its empty elements, and the d-parse ``table`` reads."""
    rules = HeadRules.load(table)
    out = []
    for tree in read_penn(path).trees:
        kept = without_empty(tree)
        out.append((tree_to_line(kept), dependencies(kept, rules)[2]))
    return out


def shown_line(window, idx: int) -> str:
    s = window.session
    return to_line(s.shown_tree(idx), s.sentences[idx].forms)


@pytest.fixture
def penn_file(ptb_dir, tmp_path):
    path = tmp_path / "wsj_0001.mrg"
    shutil.copy(ptb_dir / "wsj_0001.mrg", path)
    return path


def test_a_penn_file_opens_as_its_own_trees(qtbot, tiny_model, penn_file, tmp_path):
    window = new_window(qtbot, tiny_model)
    types = open_by_menu(window, penn_file)
    first = types[0]
    assert all(f"*{ext}" in first for ext in (".conllu", ".conll", ".mrg", ".psd", ".txt"))
    gold = file_trees(penn_file, "collins")
    s = window.session
    assert len(s) == len(gold) == 2
    for idx, (line, heads) in enumerate(gold):
        assert shown_line(window, idx) == line  # the file's tree, function tags and all
        assert list(s.view(idx).heads) == heads
    assert "(NP-SBJ (NP (NNP Pierre)" in shown_line(window, 0)
    assert [(a.dep, a.head) for a in window.scene.arcs] == list(enumerate(gold[0][1], 1))
    assert "collins head table" in window.statusBar().currentMessage()
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    assert "The file's own tree" in window.candidates.note.text()
    assert s.state(0) == "from file"  # not an edit of the annotator's, nor the machine's
    window.resize(1366, 768)
    window.grab().save(str(tmp_path / "penn.png"))
    # the head table chosen in the dialog gives the arcs
    open_by_menu(window, penn_file, "content")
    content = file_trees(penn_file, "content")
    assert [list(window.session.view(i).heads) for i in range(2)] == [h for _, h in content]
    assert content[0][1] != gold[0][1]
    assert "content head table" in window.statusBar().currentMessage()
    window.close()


def test_a_psd_file_is_corrected_and_exported(qtbot, tiny_model, farpahc_dir, tmp_path,
                                              monkeypatch):
    source = sorted(farpahc_dir.glob("*.psd"))[0]
    path = tmp_path / source.name
    shutil.copy(source, path)
    window = new_window(qtbot, tiny_model)
    open_by_menu(window, path)
    gold = file_trees(path, "icepahc")
    s = window.session
    assert len(s) == len(gold)
    assert shown_line(window, 0) == gold[0][0]
    assert list(s.view(0).heads) == gold[0][1]
    assert s.sentences[0].sent_id.startswith("1936.NTJOHN")  # the tree's ID
    assert "icepahc head table" in window.statusBar().currentMessage()
    window.resize(1366, 768)
    window.grab().save(str(tmp_path / "psd.png"))
    # correct: relabel the subject, mark corrected
    top = s.shown_tree(0).children[0]
    subject = next(i for i, c in enumerate(top.children) if c.label.startswith("NP-SBJ"))
    click_node(qtbot, window, (0, subject))
    window.label_edit.setFocus()
    window.label_edit.selectAll()
    qtbot.keyClicks(window.label_edit, "NP-SBJ-9")
    qtbot.keyClick(window.label_edit, Qt.Key_Return)
    key(qtbot, window, Qt.Key_Return, Qt.ControlModifier)
    assert s.is_corrected(0)
    assert s.state(0) == "corrected"
    out = tmp_path / "all.mrg"
    save_dialog(monkeypatch, out)
    assert export(qtbot, window, "File", "Export Penn Trees…").startswith("Exported")
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == gold[0][0].replace("(NP-SBJ ", "(NP-SBJ-9 ", 1)
    assert lines[1:] == [line for line, _ in gold[1:]]  # untouched: the file's own trees
    window.close()
    # reopened: the correction stays, the untouched sentences still show their own trees
    again = new_window(qtbot, tiny_model)
    again.open_path(path)
    assert again.session.is_corrected(0)
    assert shown_line(again, 0) == lines[0]
    assert shown_line(again, 1) == lines[1]
    again.close()


def test_a_head_table_that_cannot_be_read_keeps_the_window_and_says_why(
        qtbot, tiny_model, penn_file, sample):
    window = new_window(qtbot, tiny_model)
    window.open_path(sample)
    open_by_menu(window, penn_file, "no-such-table")
    assert window.session.path == sample
    message = window.statusBar().currentMessage()
    assert message.startswith(f"Cannot open {penn_file}")
    assert "no head-rule table" in message
    window.close()


def test_trees_are_told_from_text_by_their_brackets(tmp_path):
    from pad_engine.io.treefiles import is_tree_file

    trees = "( (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat)) (. .)) )\n(TOP (FRAG (NN x)))\n"
    assert is_tree_file(str(tmp_path / "trees.txt"), trees)  # no suffix: read as trees
    assert not is_tree_file(str(tmp_path / "news.txt"), "(Reuters) Shares fell.\nOk.\n")
    assert not is_tree_file(str(tmp_path / "notes.txt"), "(A note) on the (text)\n")
    assert is_tree_file(str(tmp_path / "a.psd"), "")  # by its suffix
