"""The app by keyboard alone, its keys declared once, its screen and what it says.

Keys go to whichever widget has the focus, as a keyboard's do; nothing here clicks.
"""

from __future__ import annotations

import pytest
import test_gui_app
from guikit import head_marked, type_into_open_dialog
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from test_gui_app import LONG, go, new_window, node_item, tree

from pad_engine.decoding.candidate import Candidate
from pad_engine.trees.compare import describe
from pad_engine.trees.lextree import LexNode
from pad_gui import actions
from pad_gui import app as app_module
from pad_gui.candidates import change_line
from pad_gui.parse_items import DIFF, EDITED

pytestmark = pytest.mark.usefixtures("isolated_settings")
window = test_gui_app.window  # the sample open with the tiny model


def press(qtbot, window, key, modifier=Qt.NoModifier) -> None:
    """One key press where the keyboard focus is (the window active, as a person's is)."""
    if QApplication.activeWindow() is not window:
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=2000)
    qtbot.keyClick(QApplication.focusWidget() or window, key, modifier)


def walk_keys(root: LexNode, path: tuple[int, ...]) -> list[int]:
    """The keys that take the selection from the root to ``path``: Down goes to the head
    child, Left and Right to siblings."""
    keys, node = [], root
    for i in path:
        keys.append(Qt.Key_Down)
        step = Qt.Key_Right if i > node.head else Qt.Key_Left
        keys.extend([step] * abs(i - node.head))
        node = node.children[i]
    return keys


def path_of(root: LexNode, found) -> tuple[int, ...]:
    """The path of the first node (preorder) for which ``found(node)`` holds."""
    def search(node, path):
        if found(node):
            return path
        for i, child in enumerate(node.children):
            hit = search(child, (*path, i))
            if hit is not None:
                return hit
        return None

    return search(root, ())


def select(qtbot, window, path) -> None:
    press(qtbot, window, Qt.Key_Home)
    for k in walk_keys(tree(window), path):
        press(qtbot, window, k)
    assert window.scene.selected_paths() == [path]


def test_a_whole_correction_with_the_keyboard_only(qtbot, tiny_model, sample, monkeypatch):
    """Open, choose the sentence, pick candidates, re-attach a word (once cancelled),
    relabel (and take back a half-typed label), mark corrected, go to the next uncorrected:
    keys only."""
    window = new_window(qtbot, tiny_model)
    type_into_open_dialog(sample)
    press(qtbot, window, Qt.Key_O, Qt.ControlModifier)
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    assert QApplication.focusWidget() is window.sentences.table
    for _ in range(LONG):  # down the list to the long sentence
        press(qtbot, window, Qt.Key_Down)
    assert window.current == LONG
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    heads = window.session.sentences[LONG].heads
    # a word with a grandparent: it will go up one level
    dep = next(m for m, h in enumerate(heads, 1) if h > 0 and heads[h - 1] > 0)
    grandparent = heads[heads[dep - 1] - 1]

    # Tab walks the panels, not the table's cells
    press(qtbot, window, Qt.Key_Tab)
    assert QApplication.focusWidget() is window.view
    press(qtbot, window, Qt.Key_Tab)
    assert QApplication.focusWidget() is window.candidates.list
    press(qtbot, window, Qt.Key_Tab)
    assert QApplication.focusWidget() is window.label_edit
    press(qtbot, window, Qt.Key_Tab)
    assert QApplication.focusWidget() is window.sentences.table
    press(qtbot, window, Qt.Key_Backtab, Qt.ShiftModifier)
    assert QApplication.focusWidget() is window.label_edit
    press(qtbot, window, Qt.Key_Backtab, Qt.ShiftModifier)
    press(qtbot, window, Qt.Key_Backtab, Qt.ShiftModifier)
    assert QApplication.focusWidget() is window.view

    # the number keys pick candidates
    assert window.candidates.list.count() >= 2
    press(qtbot, window, Qt.Key_2)
    assert window.session.view(LONG).chosen == 1
    press(qtbot, window, Qt.Key_1)
    assert window.session.view(LONG).chosen == 0

    # re-attach the word to its head's head: its preterminal, A, Up to the head's head,
    # Enter (Left and Right would go word by word)
    select(qtbot, window, path_of(tree(window), lambda n: n.word == dep - 1))
    press(qtbot, window, Qt.Key_A)
    assert window.workspace.choosing.choice == (dep, heads[dep - 1])
    press(qtbot, window, Qt.Key_Escape)  # changed my mind
    assert window.workspace.choosing.choice is None
    press(qtbot, window, Qt.Key_A)
    press(qtbot, window, Qt.Key_Up)
    assert window.workspace.choosing.choice == (dep, grandparent)
    press(qtbot, window, Qt.Key_Return)
    qtbot.waitUntil(lambda: window.session.view(LONG).heads[dep - 1] == grandparent,
                    timeout=30000)
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    # the re-attached arc's relation is proposed in the relation box: Enter confirms it
    assert QApplication.focusWidget() is window.editor.rel_edit
    press(qtbot, window, Qt.Key_Return)
    assert QApplication.focusWidget() is window.view

    # relabel the top phrase: select it, F2, type, Enter
    top = (0,)
    select(qtbot, window, top)
    press(qtbot, window, Qt.Key_F2)
    assert QApplication.focusWidget() is window.label_edit
    qtbot.keyClicks(window.label_edit, "S-TPC")
    press(qtbot, window, Qt.Key_Return)
    assert node_item(window, top).node.label == "S-TPC"
    # a label typed then taken back with Escape changes nothing
    press(qtbot, window, Qt.Key_F2)
    qtbot.keyClicks(window.label_edit, "XP")
    press(qtbot, window, Qt.Key_Escape)
    assert window.label_edit.text() == "S-TPC"
    assert QApplication.focusWidget() is window.view
    assert node_item(window, top).node.label == "S-TPC"

    press(qtbot, window, Qt.Key_Return, Qt.ControlModifier)
    assert window.session.is_corrected(LONG)
    press(qtbot, window, Qt.Key_F8)
    assert window.current == LONG + 1
    view = window.session.view(LONG)
    assert view.heads[dep - 1] == grandparent
    assert view.tree is not None
    assert view.tree.children[0].label == "S-TPC"
    window.close()


def test_every_key_is_declared_once_and_listed_in_help(window, qtbot):
    keys = [k for a in actions.ACTIONS for k in a.keys]
    assert len(keys) == len(set(keys)), "two actions share a key"
    press(qtbot, window, Qt.Key_F1)
    shown = window.keys_box.text()
    for a in actions.ACTIONS:
        for k in a.keys:
            assert f"<b>{k}" in shown or f", {k}" in shown, (a.name, k)
        assert a.plain in shown or not a.keys
    for k in ("Ctrl+R", "Ctrl+Shift+E", "Ctrl+I", "Ctrl+1", "Ctrl+Y"):  # once forgotten
        assert k in shown
    # the window's shortcuts are the registry's, none twice
    bound = [s.toString() for a in window.findChildren(type(window.qactions["open"]))
             for s in a.shortcuts()]
    assert len(bound) == len(set(bound))
    assert window.qactions["retrain"].shortcut().toString() == "Ctrl+R"
    window.keys_box.close()


def test_first_start_fits_the_screen(qtbot, tiny_model, sample):
    """No settings yet: the window fits the screen's available area (offscreen: 800x600,
    smaller than any screen an annotator has), candidates and Mark corrected in sight."""
    window = app_module.open_window(app_module.parse_args(["--model", str(tiny_model),
                                                           str(sample)]))
    qtbot.addWidget(window)
    qtbot.waitExposed(window)
    room = window.screen().availableGeometry()
    assert room.contains(window.frameGeometry())
    assert window.width() >= room.width() * 0.9
    for widget in (window.candidates.list, window.candidates.mark_button, window.model_label,
                   window.sentences.table, window.view):
        assert widget.isVisible()
        assert widget.width() > 50
        corner = widget.mapTo(window, widget.rect().bottomRight())
        assert window.rect().contains(corner), widget
    table = window.sentences.table  # "#" holds five digits (EWT train: 12,544 sentences)
    assert table.columnWidth(0) >= table.fontMetrics().horizontalAdvance("12544") + 8
    window.close()


def test_plain_start_reopens_where_the_annotator_stopped(qtbot, tiny_model, sample):
    first = app_module.open_window(app_module.parse_args(["--model", str(tiny_model),
                                                          str(sample)]))
    qtbot.addWidget(first)
    qtbot.waitUntil(first.decoded_current, timeout=30000)
    first.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is first, timeout=2000)
    for _ in range(4):
        press(qtbot, first, Qt.Key_Down)
    press(qtbot, first, Qt.Key_Equal, Qt.ControlModifier)  # zoom in: a fixed zoom now
    zoom = first.view.transform().m11()
    first.resize(700, 500)
    sizes = first.splitter.sizes()
    first.close()

    again = app_module.open_window(app_module.parse_args(["--model", str(tiny_model)]))
    qtbot.addWidget(again)
    assert again.session.path == sample
    assert again.current == 4
    assert again.size().width() == 700
    assert again.size().height() == 500
    assert again.splitter.sizes() == sizes
    assert not again.view.fitting
    assert again.view.transform().m11() == pytest.approx(zoom)
    again.close()


def test_zoom_stays_from_sentence_to_sentence_and_fit_width_keeps_labels_legible(window,
                                                                                qtbot):
    window.view.setFocus()
    press(qtbot, window, Qt.Key_Minus, Qt.ControlModifier)
    zoom = window.view.transform().m11()
    press(qtbot, window, Qt.Key_F8)
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    assert window.view.transform().m11() == pytest.approx(zoom)
    # fit width: the 30-word sentence shrinks to the view, never below legible labels
    window.resize(700, 600)
    press(qtbot, window, Qt.Key_0, Qt.ControlModifier)
    go(window, qtbot, LONG)
    scale = window.view.transform().m11()
    assert window.view.fitting
    assert scale >= window.view.smallest
    assert window.scene.font.pointSizeF() * scale >= 7.0
    fits = window.scene.sceneRect().width() * scale <= window.view.viewport().width() + 1
    assert fits or scale == pytest.approx(window.view.smallest)
    go(window, qtbot, 0)
    assert window.view.fitting


def test_candidate_lines_name_the_first_change():
    first, words = head_marked("(S (NP (DT The) (NN* dog)) (VP* (VBD* barked)))")
    flat, _ = head_marked("(S (DT The) (NN dog) (VP* (VBD* barked)))")
    relabeled, _ = head_marked("(S (NX (DT The) (NN* dog)) (VP* (VBD* barked)))")
    one = Candidate(first, -1.0, "pruned")
    assert change_line(1, one, Candidate(flat, -2.0, "pruned"), words).endswith(
        "drops NP over 'The dog'")
    assert change_line(1, one, Candidate(relabeled, -3.0, "exact"), words).endswith(
        "'The dog' is NX, not NP")
    assert change_line(0, one, one, words) == " 1.     -1.00"
    rules = Candidate(flat, float("nan"), "rules")  # the projection's tree: no model score
    assert change_line(2, one, rules, words).startswith(" 3.         —  (rules)  drops NP")


def test_candidate_list_and_colours_say_what_differs(window, qtbot):
    go(window, qtbot, LONG)
    items = window.candidates.list
    decoded = window.session.decoded(LONG)
    forms = window.session.sentences[LONG].forms
    for i in range(1, items.count()):
        first_change = describe(decoded[0].tree, decoded[i].tree, forms, most=1)
        assert first_change
        assert items.item(i).text().endswith(first_change)
    window.view.setFocus()
    press(qtbot, window, Qt.Key_2)
    diff = [n for n in window.scene.nodes if n.fill == DIFF]
    assert diff
    assert not any(n.fill == EDITED for n in window.scene.nodes)
    # an edit is violet, not amber; the legend says which is which
    path = diff[0].path
    select(qtbot, window, path)
    press(qtbot, window, Qt.Key_F2)
    qtbot.keyClicks(window.label_edit, "FRAG")
    press(qtbot, window, Qt.Key_Return)
    assert node_item(window, path).fill == EDITED
    legend = window.legend.text().replace("&nbsp;", " ")
    assert "not in candidate 1" in legend
    assert "your edit" in legend


def test_a_file_no_model_fits_says_so_everywhere(qtbot, tmp_path):
    """Tags no bundled model knows: the rule-based projection, said in full and never
    called "the bundled model that fits this file"."""
    rows = ["1\tWa\t_\tQ\tQ1\t_\t2\tnsubj\t_\t_", "2\tbi\t_\tQ\tQ2\t_\t0\troot\t_\t_",
            "3\tco\t_\tQ\tQ3\t_\t2\tobj\t_\t_"]
    path = tmp_path / "unknown-tags.conllu"
    path.write_text("\n\n".join(["\n".join(rows)] * 5) + "\n\n")
    window = new_window(qtbot, None)
    messages = []
    window.statusBar().messageChanged.connect(messages.append)
    window.open_path(path)
    qtbot.waitUntil(lambda: any("Decoding with" in m for m in messages), timeout=30000)
    text = window.model_label.text()
    assert "rule-based" in text
    assert "no bundled model fits" in text
    assert "…" not in text
    assert window.model_label.wordWrap()
    said = next(m for m in messages if "Decoding with" in m)
    assert "rule-based" in said
    assert "fits this file" not in said
    window.close()


def test_xcb_libraries_missing_prints_the_install_command(monkeypatch, capsys):
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("QT_QPA_PLATFORM")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)

    def missing(path):
        raise OSError("libxcb-icccm.so.4: cannot open shared object file")

    monkeypatch.setattr(app_module, "_load", missing)
    assert app_module.main([]) == 1
    err = capsys.readouterr().err
    assert "libxcb-icccm.so.4" in err
    assert "apt-get install" in err
    assert "libxcb-icccm4" in err


def test_retrain_progress_moves_forward_during_training(window, qtbot):
    """Every value the bar takes during a run: busy until training reports, then forward
    only (per epoch here: 15 trees), training then cross-validation, full at the end."""
    for idx in range(15):
        go(window, qtbot, idx)
        window.view.setFocus()
        press(qtbot, window, Qt.Key_Return, Qt.ControlModifier)
    press(qtbot, window, Qt.Key_R, Qt.ControlModifier)
    dialog = window.model_dialogs.retrain
    assert dialog.isVisible()
    assert dialog.parent() is window
    bar = dialog.progress_bar
    seen: list[tuple[int, int, bool]] = []  # value, maximum, still training
    bar.valueChanged.connect(
        lambda v: seen.append((v, bar.maximum(), window.retraining.version is None)))
    busy = []
    window.retraining.changed.connect(lambda: busy.append(bar.maximum() == 0))
    dialog.start()
    qtbot.waitUntil(lambda: not dialog.running, timeout=120000)
    assert dialog.outcome == "measured"
    values = [v for v, top, _ in seen if top > 0]
    training = [v for v, top, during in seen if top > 0 and during and v > 0]
    assert busy[0]  # before the first epoch: busy, not 0%
    assert len(set(training)) >= 10  # one step per epoch at least
    assert values == sorted(values)
    assert values[-1] == bar.maximum()


def test_least_sure_first_orders_the_list_and_next_uncorrected(window, qtbot):
    """View > Least Sure First: once every sentence is decoded, the list shows them in the
    order the model is least sure of them, F8 goes to the first uncorrected one of that
    order, and unticking it brings file order back."""
    from test_gui_app import menu_action

    w, panel = window.workspace, window.sentences
    n = len(w.session)
    qtbot.waitUntil(lambda: all(w.session.scores(i) is not None for i in range(n)),
                    timeout=60000)  # the background pass decodes the whole file

    def shown() -> list[int]:
        proxy = panel.proxy
        return [proxy.mapToSource(proxy.index(r, 0)).row() for r in range(proxy.rowCount())]

    assert shown() == list(range(n))
    action = menu_action(window, "View", "Least Sure First")
    action.trigger()
    assert action.isChecked()
    order = sorted(range(n), key=w.sure_key)
    assert shown() == order != list(range(n))
    current = w.current
    press(qtbot, window, Qt.Key_F8)
    assert w.current == next(i for i in order if i != current and not w.session.is_corrected(i))
    row = panel.table.selectionModel().currentIndex().row()
    assert shown()[row] == w.current  # the list follows the sentence on screen
    action.trigger()
    assert not action.isChecked()
    assert shown() == list(range(n))
