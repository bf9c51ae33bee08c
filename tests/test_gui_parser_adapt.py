"""Retraining the d-parser in the app, driven as an annotator drives it
(offscreen): open a plain text file (arcs predicted by the bundled text model), correct
sentences (one arc re-attached), Model > Retrain with the d-parser box; the untouched
sentences' arcs change only once the adapted parser is in use, corrected ones never; the
parser is saved beside the project and used on reopening; a damaged one is reported and the
bundled one takes its place."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from test_gui_retrain import go, key, retrain_dialog, tick

from pad_engine.api import TextModel, predict_arcs
from pad_gui.controllers.parser_adaptation import PARSER_META, parser_path
from pad_gui.window import MainWindow

TIMEOUT = 180000
TEXT = "".join(f"The {n} sat on the {m} near the {k} .\n" for n, m, k in [
    ("cat", "mat", "door"), ("dog", "rug", "fire"), ("man", "bench", "lake"),
    ("girl", "chair", "window"), ("boy", "step", "gate"), ("bird", "roof", "tree")])

pytestmark = pytest.mark.usefixtures("isolated_settings")


def open_text(qtbot, path) -> MainWindow:
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    qtbot.waitUntil(lambda: window.engine_ready, timeout=60000)
    window.said = []
    window.workspace.message.connect(lambda text, *_: window.said.append(text))
    assert window.open_path(path)
    qtbot.waitUntil(window.decoded_current, timeout=60000)
    return window


def heads(window: MainWindow) -> list[tuple[int, ...]]:
    return [window.session.view(i).heads for i in range(len(window.session))]


@pytest.mark.slow
def test_retrain_adapts_the_d_parser_to_corrected_arcs(qtbot, tmp_path):
    path = tmp_path / "story.txt"
    path.write_text(TEXT, encoding="utf-8")
    window = open_text(qtbot, path)
    s = window.session
    assert s.predicted_by == "english-ewt-ud.padparser"
    # sentence 0: "near" (word 8) re-attached to the verb "sat" (word 3); 1-2 as predicted
    go(window, qtbot, 0)
    window.workspace.reattach_word(8, 3)
    qtbot.waitUntil(lambda: s.view(0).heads[7] == 3, timeout=30000)
    for idx in (0, 1, 2):
        go(window, qtbot, idx)
        key(qtbot, window, Qt.Key_Return, Qt.ControlModifier)
    corrected = heads(window)[:3]
    before = heads(window)

    dialog = retrain_dialog(window)
    assert dialog.use_parser.isEnabled()
    assert dialog.use_parser.isChecked()
    tick(qtbot, dialog.scratch)
    qtbot.mouseClick(dialog.start_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running and bool(dialog.parser.outcome), timeout=TIMEOUT)
    assert dialog.parser.outcome == "measured", dialog.parser_label.text()
    text = dialog.parser_label.text()
    assert text.count("UAS") == 1
    assert "d-parser in use" in text
    c = dialog.parser.comparison
    assert f"{c.new:.2f}" in text
    assert f"{c.current:.2f}" in text
    dialog.grab().save(str(tmp_path / "retrain-parser.png"))
    if not dialog.parser.in_use:  # not better: nothing changed until the annotator picks it
        assert heads(window) == before
        assert not parser_path(s.store.path).exists()
        assert dialog.use_parser_button.isEnabled()
        qtbot.mouseClick(dialog.use_parser_button, Qt.LeftButton)
    assert dialog.parser.in_use
    assert not dialog.use_parser_button.isEnabled()
    assert heads(window)[:3] == corrected  # the annotator's arcs never change
    saved = parser_path(s.store.path)
    assert saved.exists()
    assert s.store.meta(PARSER_META) == saved.name
    model = TextModel.load(saved)
    assert model.training["adapted"]["sentences"] == 3
    predicted = [h for h, _ in predict_arcs(model, s.sentences[3:])]
    assert [list(h) for h in heads(window)[3:]] == predicted
    assert s.predicted_by == saved.name
    after = heads(window)
    dialog.close()
    window.close()

    # reopening predicts with the adapted parser; the corrected arcs stay as corrected
    window = open_text(qtbot, path)
    assert window.session.predicted_by == saved.name
    assert heads(window) == after
    window.close()


def test_a_damaged_or_missing_adapted_parser_falls_back_to_the_bundled_one(qtbot, tmp_path):
    path = tmp_path / "story.txt"
    path.write_text(TEXT, encoding="utf-8")
    window = open_text(qtbot, path)
    project = window.session.store.path
    bundled = heads(window)
    window.session.store.set_meta(PARSER_META, parser_path(project).name)
    window.close()
    parser_path(project).write_bytes(b"PK\x03\x04 not a model at all")
    window = open_text(qtbot, path)
    assert window.session.predicted_by == "english-ewt-ud.padparser"
    assert heads(window) == bundled
    assert any("cannot be used" in t and "bundled" in t for t in window.said), window.said
    window.close()
    parser_path(project).unlink()
    window = open_text(qtbot, path)
    assert heads(window) == bundled
    assert any("is missing" in t for t in window.said), window.said
    window.close()


def test_save_project_as_carries_the_adapted_parser(qtbot, tmp_path, monkeypatch):
    from test_gui_app import menu_action, save_dialog

    from pad_engine.resources import resource_path

    path = tmp_path / "story.txt"
    path.write_text(TEXT, encoding="utf-8")
    window = open_text(qtbot, path)
    project = window.session.store.path
    window.session.store.set_meta(PARSER_META, parser_path(project).name)
    window.close()
    adapted = resource_path("models", "english-ewt-ud.padparser").read_bytes()
    parser_path(project).write_bytes(adapted)  # a valid parser standing in for an adapted one
    window = open_text(qtbot, path)
    assert window.session.predicted_by == parser_path(project).name
    chosen = tmp_path / "elsewhere" / "mine.padproject"
    chosen.parent.mkdir()
    save_dialog(monkeypatch, chosen)
    menu_action(window, "File", "Save Project As…").trigger()
    assert parser_path(chosen).read_bytes() == adapted
    assert window.session.store.meta(PARSER_META) == parser_path(chosen).name
    window.close()
    parser_path(project).unlink()  # the old project's parser is not what the new one reads
    window = open_text(qtbot, path)
    assert window.session.store.path == chosen
    assert window.session.predicted_by == parser_path(chosen).name
    window.close()


def test_a_parser_written_but_never_used_is_removed_when_the_project_closes(qtbot, tmp_path):
    path = tmp_path / "story.txt"
    path.write_text(TEXT, encoding="utf-8")
    window = open_text(qtbot, path)
    adaptation = window.retraining.parser
    candidate = parser_path(window.session.store.path).with_suffix(".padparser-new")
    candidate.write_bytes(b"an adapted parser nobody put in use")
    adaptation.session = window.session  # as a finished run leaves it
    other = tmp_path / "other.txt"
    other.write_text("A short one .\n", encoding="utf-8")
    assert window.open_path(other)  # text: read by a worker, the project closes after it
    qtbot.waitUntil(lambda: window.session.path == other, timeout=60000)
    assert not candidate.exists()
    window.close()
