"""The quality views driven as an annotator drives them (offscreen): the search panel (keys),
the consistency panel (clicks, one undo step), File > Compare With… (take a side)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog
from test_gui_app import menu_action, new_window

from pad_engine.api import edits, to_line
from pad_gui.parse_items import DIFF
from pad_gui.session import CORRECTED, View

pytestmark = pytest.mark.usefixtures("isolated_settings")


@pytest.fixture
def window(qtbot, tiny_model, sample):
    window = new_window(qtbot, tiny_model)
    window.open_path(sample)
    s = window.session
    qtbot.waitUntil(lambda: all(s.shown_tree(i) is not None for i in range(len(s))),
                    timeout=600000)  # a loaded machine decodes slowly
    yield window
    window.close()


def keys(qtbot, window, sequence: str) -> None:
    if QApplication.activeWindow() is not window:
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=2000)
    qtbot.keyClick(window, sequence[-1], Qt.ControlModifier | Qt.ShiftModifier)


def test_search_panel_lists_matches_and_jumps_with_the_match_selected(window, qtbot):
    keys(qtbot, window, "F")  # Ctrl+Shift+F: View > Search Treebank
    panel = window.quality.search
    assert panel.isVisible()
    assert panel.query.hasFocus()
    qtbot.keyClicks(panel.query, "NP < DT")
    qtbot.keyClick(panel.query, Qt.Key_Return)
    s = window.session
    want = [(i, p) for i in range(len(s)) for p, n in edits.phrases(s.shown_tree(i))
            if n.label == "NP" and any(c.label == "DT" for c in n.children)]
    assert [(h.idx, h.path) for h in panel.hits] == want
    assert panel.note.text().startswith(f"{len(want)} matches")
    assert {h.status for h in panel.hits} == {"machine"}
    assert panel.table.hasFocus()
    qtbot.keyClick(panel.table, Qt.Key_Down)
    qtbot.keyClick(panel.table, Qt.Key_Return)  # go to the second match
    hit = panel.hits[1]
    assert window.current == hit.idx
    assert window.scene.selected_paths() == [hit.path]
    # a bad query says where, and the old matches stay
    panel.query.setFocus()
    panel.query.clear()
    qtbot.keyClicks(panel.query, "NP <<< DT")
    qtbot.keyClick(panel.query, Qt.Key_Return)
    assert "column 6" in panel.note.text()
    assert len(panel.hits) == len(want)


def test_consistency_panel_applies_the_majority_in_one_undo_step(window, qtbot):
    s = window.session
    odd = next(i for i in range(len(s)) if any(
        n.label == "NP" and [c.label for c in n.children] == ["DT", "JJ", "NN"]
        for _, n in edits.phrases(s.shown_tree(i))))
    tree = s.shown_tree(odd)
    path = next(p for p, n in edits.phrases(tree) if n.label == "NP"
                and [c.label for c in n.children] == ["DT", "JJ", "NN"])
    s.set_view(odd, View(s.view(odd).heads, s.view(odd).chosen,
                         edits.relabel(tree, path, "ADJP")))  # the annotator's slip
    keys(qtbot, window, "K")  # Ctrl+Shift+K: View > Consistency Check
    panel = window.quality.consistency
    qtbot.mouseClick(panel.run_button, Qt.LeftButton)
    row = next(r for r, f in enumerate(panel.findings) if odd in f.suspects
               and f.entry.variant == "ADJP")
    panel.table.selectRow(row)
    qtbot.mouseClick(panel.apply_button, Qt.LeftButton)
    assert edits.node_at(s.shown_tree(odd), path).label == "NP"
    assert window.current == odd
    undo = window.qactions.get("undo")
    assert undo is None or undo.text().startswith("&Undo Apply majority")
    qtbot.keyClick(window.view, Qt.Key_Z, Qt.ControlModifier)  # Edit > Undo
    assert edits.node_at(s.shown_tree(odd), path).label == "ADJP"
    qtbot.keyClick(window.view, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert edits.node_at(s.shown_tree(odd), path).label == "NP"


def test_compare_with_another_export_and_take_b(window, qtbot, tmp_path, monkeypatch):
    s = window.session
    lines = [to_line(s.shown_tree(i), s.sentences[i].forms) for i in range(len(s))]
    lines[2] = lines[2].replace("(NP ", "(NX ", 1)
    other = tmp_path / "other.mrg"
    other.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(other), ""))
    menu_action(window, "File", "Compare With…").trigger()
    dialog = window.quality.compare_dialog
    qtbot.waitExposed(dialog)
    assert [r.idx for r in dialog.rows] == [2]
    assert dialog.rows[0].f1 < 100
    assert dialog.rows[0].exact is False
    marked = [n for n in dialog.scenes[1].nodes if n.node.label == "NX"]
    assert marked
    assert marked[0].fill == DIFF
    qtbot.mouseClick(dialog.buttons["b"], Qt.LeftButton)
    assert to_line(s.shown_tree(2), s.sentences[2].forms) == lines[2]
    assert s.record(2).status == CORRECTED
    assert any(k.startswith("adjudicated:B:other.mrg") for k in s.store.action_counts()[
        s.keys[2]])
    assert dialog.rows == []  # the only difference is settled
    # a file of other sentences is refused with a message, no dialog
    other.write_text(lines[0] + "\n", encoding="utf-8")
    window.quality.compare_dialog = None
    menu_action(window, "File", "Compare With…").trigger()
    assert window.quality.compare_dialog is None
    assert "Cannot compare" in window.statusBar().currentMessage()
