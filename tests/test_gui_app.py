"""The app driven the way an annotator drives it: menus, clicks, keys (offscreen).

A tiny model trained on the bundled sample's own gold trees stands in for the default
model, so these tests neither wait for nor depend on the shipped one.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from guikit import SAMPLE, answer_open_dialog, head_marked, when_modal
from nltk import Tree
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication, QFileDialog

from pad_engine.io.conll import read_conll
from pad_engine.resources import resource_path
from pad_engine.trees.compare import merged_brackets
from pad_engine.trees.deptree import is_projective
from pad_engine.trees.lextree import LexNode, induced_heads
from pad_gui import app as app_module
from pad_gui.dialogs import InsertDialog
from pad_gui.parse_items import CHANGED_ARC, DIFF, NodeItem
from pad_gui.session import CORRECTED
from pad_gui.window import MainWindow

LONG = 33  # 0-based index of the 30-word sample sentence

pytestmark = pytest.mark.usefixtures("isolated_settings")


def new_window(qtbot, model: Path) -> MainWindow:
    window = MainWindow(model)
    qtbot.addWidget(window)
    window.resize(1500, 850)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: window.engine_ready, timeout=60000)
    return window


@pytest.fixture
def window(qtbot, tiny_model, sample):
    window = new_window(qtbot, tiny_model)
    window.open_path(sample)
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    yield window
    window.close()


def menu_action(window: MainWindow, *path: str):
    """The QAction at a menu path such as ("File", "Export Penn Trees…")."""
    actions = window.menuBar().actions()
    for name in path:
        found = [a for a in actions if a.text().replace("&", "") == name]
        assert found, f"no menu entry {name!r} in {[a.text() for a in actions]}"
        action = found[0]
        actions = action.menu().actions() if action.menu() else []
    return action


def go(window: MainWindow, qtbot, idx: int) -> None:
    window.go_to(idx)
    qtbot.waitUntil(window.decoded_current, timeout=30000)


def node_item(window: MainWindow, path) -> NodeItem:
    return next(i for i in window.scene.nodes if i.path == path)


def click_node(qtbot, window: MainWindow, path, modifier=Qt.NoModifier) -> None:
    item = node_item(window, path)
    window.view.ensureVisible(item)
    pos = window.view.mapFromScene(item.scenePos())
    qtbot.mouseClick(window.view.viewport(), Qt.LeftButton, modifier, pos)


def word_pos(window: MainWindow, word: int) -> QPoint:
    item = window.scene.words[word - 1]
    window.view.ensureVisible(item)
    return window.view.mapFromScene(item.scenePos())


def key(qtbot, window: MainWindow, k, modifier=Qt.NoModifier) -> None:
    """A key press in the parse view (shortcuts need the window active: offscreen, a
    closed modal dialog does not hand activation back by itself)."""
    if QApplication.activeWindow() is not window:
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=2000)
    qtbot.keyClick(window.view, k, modifier)


def tree(window: MainWindow) -> LexNode:
    return window.session.shown_tree(window.current)


def export(qtbot, window: MainWindow, *menu_path: str) -> str:
    """Start an export from its menu entry and wait for its message."""
    done = len(window.workspace.exports.done)
    menu_action(window, *menu_path).trigger()
    qtbot.waitUntil(lambda: len(window.workspace.exports.done) > done, timeout=30000)
    return window.workspace.exports.done[-1]


def save_dialog(monkeypatch, path: Path) -> None:
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))


# -- the sample treebank itself ---------------------------------------------------------------
def test_sample_heads_match_its_gold_trees():
    sents = read_conll(SAMPLE).sentences
    lines = resource_path("sample", "sample.heads.ptb").read_text().splitlines()
    assert len(sents) == len(lines) >= 30
    for sent, line in zip(sents, lines):
        lex, words = head_marked(line)
        assert words == sent.forms
        assert [p.label for p in lex.preterminals()] == sent.tags
        assert induced_heads(lex, len(words)) == sent.heads
    assert len(sents[LONG]) == 30


# -- start-up and screenshot ----------------------------------------------------------------
def test_screenshot_of_the_long_sample_sentence(qapp, tiny_model, tmp_path):
    out = tmp_path / "shot.png"
    code = app_module.main(["--model", str(tiny_model), "--screenshot", str(out),
                            "--sentence", str(LONG + 1)])
    assert code == 0
    assert out.stat().st_size > 20000
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- navigation -----------------------------------------------------------------------------
def test_keyboard_navigation_and_filter(window, qtbot):
    table = window.sentences.table
    table.setFocus()
    qtbot.keyClick(table, Qt.Key_Down)
    assert window.current == 1
    qtbot.keyClick(table, Qt.Key_PageDown)
    assert window.current > 5
    qtbot.keyClick(table, Qt.Key_Home, Qt.ControlModifier)
    assert window.current == 0
    qtbot.keyClicks(window.sentences.filter, "bridge")
    assert window.sentences.proxy.rowCount() == 2  # the city's new bridge, the volunteers' old one
    window.sentences.table.setFocus()
    qtbot.keyClick(table, Qt.Key_Down)
    assert "bridge" in window.session.text(window.current)
    window.sentences.filter.clear()
    assert window.sentences.proxy.rowCount() == len(window.session)


def test_mark_corrected_and_next_uncorrected(window, qtbot):
    qtbot.mouseClick(window.candidates.mark_button, Qt.LeftButton)
    assert window.session.is_corrected(0)
    assert window.sentences.model.index(0, 2).data() == CORRECTED
    key(qtbot, window, Qt.Key_F8)
    assert window.current == 1
    key(qtbot, window, Qt.Key_Return, Qt.ControlModifier)
    assert window.session.is_corrected(1)
    window.go_to(0)
    key(qtbot, window, Qt.Key_F8)
    assert window.current == 2  # 0 and 1 are done
    qtbot.mouseClick(window.sentences.next_button, Qt.LeftButton)
    assert window.current == 3


# -- candidates -----------------------------------------------------------------------------
def test_pick_candidate_highlights_differences_and_undoes(window, qtbot):
    go(window, qtbot, LONG)
    assert window.candidates.list.count() >= 2
    item = window.candidates.list.item(1)
    rect = window.candidates.list.visualItemRect(item)
    qtbot.mouseClick(window.candidates.list.viewport(), Qt.LeftButton, pos=rect.center())
    view = window.session.view(LONG)
    assert view.chosen == 1
    assert view.tree is None
    assert any(n.fill == DIFF for n in window.scene.nodes)
    key(qtbot, window, Qt.Key_Z, Qt.ControlModifier)
    assert window.session.view(LONG).chosen == 0
    assert not any(n.fill == DIFF for n in window.scene.nodes)
    key(qtbot, window, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert window.session.view(LONG).chosen == 1


def test_candidates_after_the_first_say_what_they_change_and_all_differ(window, qtbot):
    go(window, qtbot, LONG)
    shown = window.candidates.list
    assert shown.count() >= 3
    lines = [shown.item(i).text() for i in range(shown.count())]
    tips = [shown.item(i).toolTip() for i in range(shown.count())]
    words = ("attaches to", " is ", "adds ", "drops ")
    assert not any(w in lines[0] for w in words)  # the first is what the others change
    for line, tip in zip(lines[1:], tips[1:]):
        said = line.split(maxsplit=2)[2]  # after the number and the score
        said = re.sub(r"^\([^)]*\)\s+", "", said)  # and how it was found: "(rules)"
        assert any(w in said for w in words), line
        assert said.split(";")[0].replace("'", "&#x27;") in tip  # the tooltip has all of it
    trees = [c.tree for c in window.session.decoded(LONG)]
    assert len({merged_brackets(t) for t in trees}) == len(trees) == shown.count()


# -- edits ----------------------------------------------------------------------------------
def test_relabel_with_type_ahead_then_undo_redo(window, qtbot):
    before = tree(window).children[0].children[0].label  # subject NP of sentence 1
    click_node(qtbot, window, (0, 0))
    assert window.scene.selected_paths() == [(0, 0)]
    assert window.label_edit.text() == before
    key(qtbot, window, Qt.Key_F2)
    assert window.label_edit.hasFocus()
    qtbot.keyClicks(window.label_edit, "NP-SBJ")
    qtbot.keyClick(window.label_edit, Qt.Key_Return)
    assert tree(window).children[0].children[0].label == "NP-SBJ"
    assert node_item(window, (0, 0)).isSelected()
    key(qtbot, window, Qt.Key_Z, Qt.ControlModifier)
    assert tree(window).children[0].children[0].label == before
    key(qtbot, window, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert tree(window).children[0].children[0].label == "NP-SBJ"


def test_refused_edit_explains_and_changes_nothing(window, qtbot):
    before = window.session.view(0)
    click_node(qtbot, window, (0, 0, 0))  # a preterminal
    key(qtbot, window, Qt.Key_Delete)
    assert window.session.view(0) == before
    assert "preterminal" in window.statusBar().currentMessage()


def test_delete_insert_and_head_change(window, qtbot):
    n = len(window.session.sentences[0])
    s = tree(window).children[0]
    labels = [c.label for c in s.children]
    # delete the object NP of "approved": its words move up into the VP
    vp = labels.index("VP")
    vp_kids = [c.label for c in s.children[vp].children]
    obj = (0, vp, vp_kids.index("NP"))
    click_node(qtbot, window, obj)
    key(qtbot, window, Qt.Key_Delete)
    after = [c.label for c in tree(window).children[0].children[vp].children]
    assert len(after) == len(vp_kids) + 2  # the, new, budget replace the NP
    assert len(window.session.view(0).heads) == n
    # insert it back over the three preterminals
    first = obj[-1]
    click_node(qtbot, window, (0, vp, first))
    click_node(qtbot, window, (0, vp, first + 1), Qt.ControlModifier)
    click_node(qtbot, window, (0, vp, first + 2), Qt.ControlModifier)
    assert len(window.scene.selected_paths()) == 3

    def fill(dialog):
        dialog.label.setText("NP")
        dialog.head.setCurrentIndex(2)
        dialog.accept()

    when_modal(InsertDialog, fill)
    key(qtbot, window, Qt.Key_Insert)
    restored = tree(window).children[0].children[vp].children
    assert [c.label for c in restored] == vp_kids
    assert list(window.session.view(0).heads) == window.session.sentences[0].heads
    # make the determiner head its NP: the arcs follow
    click_node(qtbot, window, (0, vp, first, 0))
    key(qtbot, window, Qt.Key_H)
    heads = window.session.view(0).heads
    the, new, budget = 4, 5, 6  # The committee approved the new budget ...
    assert heads[budget - 1] == the
    assert heads[new - 1] == the
    assert heads == tuple(induced_heads(tree(window), n))
    # each of the three edits undoes as one step
    for _ in range(3):
        key(qtbot, window, Qt.Key_Z, Qt.ControlModifier)
    assert list(window.session.view(0).heads) == window.session.sentences[0].heads
    assert [c.label for c in tree(window).children[0].children[vp].children] == vp_kids


def test_reattach_by_dragging_redecodes_and_undoes_in_one_step(window, qtbot):
    sent = window.session.sentences[0]  # The committee approved the new budget on Tuesday .
    on = sent.forms.index("on") + 1
    budget = sent.forms.index("budget") + 1
    assert sent.heads[on - 1] != budget
    viewport = window.view.viewport()
    qtbot.mousePress(viewport, Qt.LeftButton, pos=word_pos(window, on))
    qtbot.mouseMove(viewport, word_pos(window, budget))
    qtbot.mouseRelease(viewport, Qt.LeftButton, pos=word_pos(window, budget))
    qtbot.waitUntil(lambda: window.session.view(0).heads[on - 1] == budget, timeout=30000)
    assert induced_heads(tree(window), len(sent))[on - 1] == budget
    assert window.session.arcs_changed(0)
    changed = [a.dep for a in window.scene.arcs if a.base == CHANGED_ARC]
    assert changed == [on]
    key(qtbot, window, Qt.Key_Z, Qt.ControlModifier)
    assert list(window.session.view(0).heads) == sent.heads
    assert induced_heads(tree(window), len(sent)) == sent.heads


def test_reattach_refuses_a_cycle(window, qtbot):
    sent = window.session.sentences[0]
    root = sent.heads.index(0) + 1
    dep = sent.heads.index(root) + 1  # a dependent of the root word
    window.workspace.reattach_word(root, dep)  # would make a cycle
    assert list(window.session.view(0).heads) == sent.heads
    assert "Cannot re-attach" in window.statusBar().currentMessage()


def test_hover_lights_head_word_and_inner_arcs(window, qtbot):
    item = node_item(window, (0,))  # S: every arc but the root's is inside
    window.scene.hover(item)
    lit = [w.index for w in window.scene.words if w.lit]
    assert lit == [window.session.sentences[0].heads.index(0) + 1]
    assert sum(a.pen().widthF() > 2 for a in window.scene.arcs) == len(window.scene.arcs) - 1


def test_zoom_actions(window, qtbot):
    scale = window.view.transform().m11()
    menu_action(window, "View", "Zoom In").trigger()
    assert window.view.transform().m11() > scale
    menu_action(window, "View", "Actual Size").trigger()
    assert window.view.transform().m11() == 1
    menu_action(window, "View", "Fit Width").trigger()
    assert window.view.fitting


# -- project --------------------------------------------------------------------------------
def test_kill_and_reopen_keeps_confirmed_work(qtbot, tiny_model, sample):
    first = new_window(qtbot, tiny_model)
    first.open_path(sample)
    qtbot.waitUntil(first.decoded_current, timeout=30000)
    click_node(qtbot, first, (0, 0))
    first.editor.relabel("NP-SBJ")
    qtbot.mouseClick(first.candidates.mark_button, Qt.LeftButton)
    go(first, qtbot, 4)
    first.candidates.list.setCurrentRow(first.candidates.list.count() - 1)
    picked = first.session.view(4).chosen
    # no close, no save: a second window opens the same file as if after a crash
    second = new_window(qtbot, tiny_model)
    second.open_path(sample)
    qtbot.waitUntil(second.decoded_current, timeout=30000)
    assert second.session.is_corrected(0)
    assert tree(second).children[0].children[0].label == "NP-SBJ"
    assert second.session.view(4).chosen == picked
    assert second.session.store.path == sample.with_name("sample.conllu.padproject")
    first.close()
    second.close()


def test_effort_log_and_summary(window, qtbot):
    click_node(qtbot, window, (0, 0))
    window.editor.relabel("NP-SBJ")
    key(qtbot, window, Qt.Key_Return, Qt.ControlModifier)
    go(window, qtbot, 1)
    key(qtbot, window, Qt.Key_Return, Qt.ControlModifier)
    menu_action(window, "View", "Effort Summary…").trigger()
    dialog = window.effort_dialog
    summary = window.session.summary()
    assert summary.corrected == 2
    assert summary.as_proposed == 1
    assert summary.actions["relabel"] == 1
    assert "tokens/hour" in dialog.summary.text()
    assert "50%" in dialog.summary.text()
    assert dialog.table.rowCount() >= 2
    dialog.close()


# -- files ----------------------------------------------------------------------------------
def test_export_penn_corrected_set_and_conll(window, qtbot, tmp_path, monkeypatch):
    click_node(qtbot, window, (0, 0))
    window.editor.relabel("NP-SBJ")
    key(qtbot, window, Qt.Key_Return, Qt.ControlModifier)
    out = tmp_path / "all.mrg"
    save_dialog(monkeypatch, out)
    export(qtbot, window, "File", "Export Penn Trees…")
    lines = out.read_text().splitlines()
    assert len(lines) == len(window.session)
    assert lines[0].startswith("(TOP (S (NP-SBJ (DT The) (NN committee))")
    assert all(Tree.fromstring(line).leaves() == s.forms
               for line, s in zip(lines, window.session.sentences))
    out = tmp_path / "done.mrg"
    save_dialog(monkeypatch, out)
    export(qtbot, window, "File", "Export Corrected Set…")
    assert out.read_text().splitlines() == lines[:1]
    # a corrected arc goes back into the CoNLL file
    window.workspace.reattach_word(7, 6)  # "on Tuesday" now modifies "budget"
    qtbot.waitUntil(lambda: window.session.arcs_changed(0), timeout=30000)
    out = tmp_path / "deps.conllu"
    save_dialog(monkeypatch, out)
    export(qtbot, window, "File", "Export Dependencies (CoNLL)…")
    back = read_conll(out).sentences
    assert back[0].heads == list(window.session.view(0).heads)
    assert [s.heads for s in back[1:]] == [s.heads for s in window.session.sentences[1:]]


def test_malformed_file_opens_with_problems_panel(window, qtbot, tmp_path, monkeypatch):
    good = SAMPLE.read_text().split("\n\n")
    bad_cycle = "1\tA\t_\tX\tDT\t_\t2\tdep\t_\t_\n2\tB\t_\tX\tNN\t_\t1\tdep\t_\t_"
    bad_cols = "1\tOnly\tthree"
    path = tmp_path / "broken.conllu"
    path.write_text("\n\n".join([good[0], bad_cycle, good[1], bad_cols, good[2]]) + "\n\n")
    answer_open_dialog(path)
    menu_action(window, "File", "Open…").trigger()
    assert len(window.session) == 3
    assert window.problems_dock.isVisible()
    assert window.problems.rowCount() == 2
    rows = [[window.problems.item(r, c).text() for c in range(3)] for r in range(2)]
    assert all(row[0] == str(path) and row[1].isdigit() for row in rows)
    assert "not a tree" in rows[0][2]
    assert "columns" in rows[1][2]
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    # a missing file: no crash, the panel says why
    assert not window.open_path(tmp_path / "missing.conllu")
    assert "missing.conllu" in window.problems.item(0, 0).text()


def test_drop_and_recent_files(window, qtbot, tmp_path):
    other = tmp_path / "other.conllu"
    other.write_text("\n\n".join(SAMPLE.read_text().split("\n\n")[:5]) + "\n\n")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(other))])
    event = QDropEvent(QPointF(10, 10), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    window.dropEvent(event)
    assert window.session.path == other
    assert len(window.session) == 5
    recent = [a.text() for a in menu_action(window, "File", "Open Recent").menu().actions()]
    assert recent[0] == str(other.resolve())
    menu_action(window, "File", "Open Recent").menu().actions()[1].trigger()
    assert window.session.path.name == "sample.conllu"


# -- a real treebank ------------------------------------------------------------------------
def test_ewt_dev_opens_and_scrolls(qtbot, tiny_model, ewt_dir, tmp_path):
    """A real treebank of 2,000 sentences: the first is on screen and decoded, paging moves
    through the list, and non-projective sentences show what was lifted. (How fast is
    ``pad bench``'s business.)"""
    dev = tmp_path / "en_ewt-ud-dev.conllu"
    shutil.copy(next(ewt_dir.glob("*dev.conllu")), dev)
    window = new_window(qtbot, tiny_model)
    assert window.open_path(dev)
    assert len(window.session) > 1900
    assert window.current == 0
    assert "Sentence 1</b> of" in window.title.text()
    assert window.scene.words
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    assert window.candidates.list.count() > 0
    window.sentences.table.setFocus()
    for _ in range(20):
        qtbot.keyClick(window.sentences.table, Qt.Key_PageDown)
    assert window.current > 100
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    # a non-projective sentence gets trees of its lifted d-parse; the lifted arcs are marked
    bad = next(i for i, s in enumerate(window.session.sentences) if not is_projective(s.heads))
    go(window, qtbot, bad)
    assert window.candidates.list.count() > 0
    assert "Non-projective d-parse: the trees lift word" in window.candidates.note.text()
    assert len(window.scene.arcs) == len(window.session.sentences[bad])
    lifted = [a for a in window.scene.arcs if a.lifted_to]
    assert lifted
    assert all(a.pen().style() == Qt.DashLine for a in lifted)
    assert all(a.head == window.session.sentences[bad].heads[a.dep - 1] for a in lifted)
    window.close()


def test_each_file_gets_the_model_that_fits_it(qtbot, ewt_dir, sample, tmp_path):
    """No --model: UD input decodes with the UD model, Collins-style input with the Penn
    Treebank one, and the status bar says which and why."""
    dev = tmp_path / "dev.conllu"
    blocks = next(ewt_dir.glob("*dev.conllu")).read_text(encoding="utf-8").split("\n\n")
    dev.write_text("\n\n".join(blocks[:60]) + "\n\n", encoding="utf-8")
    window = new_window(qtbot, None)
    window.open_path(dev)
    qtbot.waitUntil(lambda: "english-gum-ud" in window.model_label.text(), timeout=30000)
    assert "UD-style" in window.model_label.text()
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    window.open_path(sample)
    qtbot.waitUntil(lambda: "english-ptb-collins" in window.model_label.text(), timeout=30000)
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    assert window.candidates.list.count() > 1
    window.close()


def test_tags_no_model_knows_start_from_the_rule_based_projection(qtbot, gsd_dir, tmp_path):
    blocks = next(gsd_dir.glob("*dev.conllu")).read_text(encoding="utf-8").split("\n\n")
    zh = tmp_path / "zh.conllu"
    zh.write_text("\n\n".join(blocks[:20]) + "\n\n", encoding="utf-8")
    window = new_window(qtbot, None)
    window.open_path(zh)
    qtbot.waitUntil(lambda: "rule-based" in window.model_label.text(), timeout=30000)
    assert "no bundled model fits" in window.model_label.text()
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    shown = window.candidates.list
    assert shown.count() == 1
    assert "(rules)" in shown.item(0).text()
    assert window.scene.nodes  # a tree is drawn
    window.close()


def test_save_project_as_is_reopened_with_its_treebank(window, qtbot, tmp_path, sample,
                                                       monkeypatch):
    key(qtbot, window, Qt.Key_Return, Qt.ControlModifier)
    chosen = tmp_path / "elsewhere" / "mine.padproject"
    chosen.parent.mkdir()
    save_dialog(monkeypatch, chosen)
    menu_action(window, "File", "Save Project As…").trigger()
    go(window, qtbot, 2)
    key(qtbot, window, Qt.Key_Return, Qt.ControlModifier)  # saved into the new project
    window.open_path(SAMPLE)  # another treebank, then back
    window.open_path(sample)
    assert window.session.store.path == chosen
    assert window.session.is_corrected(0)
    assert window.session.is_corrected(2)


def test_unusable_project_file_is_kept_aside_not_fatal(window, qtbot, tmp_path, sample):
    bad = tmp_path / "broken.padproject"
    data = b"this is not an SQLite database" * 100
    bad.write_bytes(data)
    assert window.open_path(sample, bad)
    [aside] = tmp_path.glob("broken.padproject.damaged-*")
    assert aside.read_bytes() == data
    assert f"kept as {aside}" in window.statusBar().currentMessage()
    assert window.session is not None
    assert window.session.store.path == bad


def test_project_option_on_the_command_line(qapp, tiny_model, sample, tmp_path):
    project = tmp_path / "chosen.padproject"
    out = tmp_path / "shot.png"
    assert app_module.main([str(sample), "--model", str(tiny_model), "--project", str(project),
                            "--screenshot", str(out)]) == 0
    assert project.exists()
    assert out.exists()
    assert not sample.with_name("sample.conllu.padproject").exists()


def test_help_lists_the_keys(window, qtbot):
    menu_action(window, "Help", "Keys and Mouse").trigger()
    assert "F8" in window.keys_box.text()
    assert window.keys_box.isVisible()
    window.keys_box.close()


def test_arrow_keys_walk_the_tree_and_shift_extends(window, qtbot):
    click_node(qtbot, window, (0, 0))  # the subject NP
    key(qtbot, window, Qt.Key_Up)
    assert window.scene.selected_paths() == [(0,)]
    key(qtbot, window, Qt.Key_Down)  # the head child of S: its VP
    s = tree(window).children[0]
    assert window.scene.selected_paths() == [(0, s.head)]
    key(qtbot, window, Qt.Key_Left)
    assert window.scene.selected_paths() == [(0, s.head - 1)]
    key(qtbot, window, Qt.Key_Right, Qt.ShiftModifier)
    assert window.scene.selected_paths() == [(0, s.head - 1), (0, s.head)]
    key(qtbot, window, Qt.Key_Up)  # from a run: to the parent
    assert window.scene.selected_paths() == [(0,)]


def test_batch_conversion_is_in_the_file_menu(window, qtbot):
    menu_action(window, "File", "Batch Convert Folder…").trigger()
    dialogs = [w for w in QApplication.topLevelWidgets()
               if w.isVisible() and type(w).__name__ == "BatchDialog"]
    assert len(dialogs) == 1
    dialogs[0].close()
