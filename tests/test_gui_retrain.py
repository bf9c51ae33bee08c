"""Retraining in the app, driven as an annotator drives it (offscreen): correct a few trees,
Model > Retrain, watch the uncorrected sentences change and the corrected ones stay; cancel;
the learning curve; model versions (switch back, export, reopen).

A tiny model trained on the bundled sample's own gold trees stands in for the default model,
so the tests neither wait for nor depend on the shipped one.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog

from pad_engine import cli
from pad_engine.decoding.model import Model
from pad_engine.io.penn import read_penn
from pad_engine.learning.train import examples_from_penn
from pad_engine.trees.lextree import to_line
from pad_gui.controllers import retraining as retraining_module
from pad_gui.controllers.messages import Trained
from pad_gui.controllers.retraining import retrain_work
from pad_gui.retrain_dialog import RetrainDialog
from pad_gui.store import BUNDLED, CONTINUED, SCRATCH, ProjectStore
from pad_gui.window import MainWindow
from pad_gui.worker import Worker

TIMEOUT = 120000  # ms: training and cross-validation on a loaded 2-core machine

pytestmark = pytest.mark.usefixtures("isolated_settings")


def open_window(qtbot, model: Path, treebank: Path) -> MainWindow:
    window = MainWindow(model)
    qtbot.addWidget(window)
    window.resize(1500, 850)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: window.engine_ready, timeout=60000)
    window.open_path(treebank)
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    return window


@pytest.fixture
def window(qtbot, tiny_model, sample):
    window = open_window(qtbot, tiny_model, sample)
    yield window
    window.close()


def menu_action(window: MainWindow, *path: str):
    """The QAction at a menu path such as ("Model", "Model Versions…")."""
    actions = window.menuBar().actions()
    for name in path:
        found = [a for a in actions if a.text().replace("&", "") == name]
        assert found, f"no menu entry {name!r} in {[a.text() for a in actions]}"
        action = found[0]
        actions = action.menu().actions() if action.menu() else []
    return action


def key(qtbot, window: MainWindow, k, modifier=Qt.NoModifier) -> None:
    if QApplication.activeWindow() is not window:
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=2000)
    qtbot.keyClick(window.view, k, modifier)


def go(window: MainWindow, qtbot, idx: int) -> None:
    window.go_to(idx)
    qtbot.waitUntil(window.decoded_current, timeout=30000)


def scores(window: MainWindow, qtbot, idx: int) -> list[float]:
    """The candidate scores the app shows for sentence ``idx``."""
    go(window, qtbot, idx)
    return [c.score for c in window.session.decoded(idx)]


def penn(window: MainWindow, idx: int) -> str:
    return to_line(window.session.shown_tree(idx), window.session.sentences[idx].forms)


def correct_some(window: MainWindow, qtbot) -> list[int]:
    """Accept sentence 0 as proposed, pick candidate 2 of sentence 1 and relabel a phrase
    of sentence 2, marking each corrected with Ctrl+Enter; returns their indices."""
    go(window, qtbot, 0)
    key(qtbot, window, Qt.Key_Return, Qt.ControlModifier)
    go(window, qtbot, 1)
    rect = window.candidates.list.visualItemRect(window.candidates.list.item(1))
    qtbot.mouseClick(window.candidates.list.viewport(), Qt.LeftButton, pos=rect.center())
    assert window.session.view(1).chosen == 1
    key(qtbot, window, Qt.Key_Return, Qt.ControlModifier)
    go(window, qtbot, 2)
    item = next(i for i in window.scene.nodes if i.path == (0, 0))
    window.view.ensureVisible(item)
    qtbot.mouseClick(window.view.viewport(), Qt.LeftButton,
                     pos=window.view.mapFromScene(item.scenePos()))
    window.label_edit.setFocus()
    window.label_edit.selectAll()
    qtbot.keyClicks(window.label_edit, "FRAG")
    qtbot.keyClick(window.label_edit, Qt.Key_Return)
    assert window.session.shown_tree(2).children[0].children[0].label == "FRAG"
    key(qtbot, window, Qt.Key_Return, Qt.ControlModifier)
    assert all(window.session.is_corrected(i) for i in (0, 1, 2))
    return [0, 1, 2]


def tick(qtbot, button) -> None:
    """Click a radio button or check box on its indicator, as a person does (its text may end
    well before the middle of the widget, where a click would miss)."""
    qtbot.mouseClick(button, Qt.LeftButton, pos=QPoint(8, button.height() // 2))


def retrain_dialog(window: MainWindow) -> RetrainDialog:
    menu_action(window, "Model", "Retrain on Corrected Sentences…").trigger()
    dialog = window.model_dialogs.retrain
    assert dialog is not None
    assert dialog.isVisible()
    return dialog


def run_retrain(window: MainWindow, qtbot, continued: bool = False) -> RetrainDialog:
    dialog = retrain_dialog(window)
    tick(qtbot, dialog.resume if continued else dialog.scratch)
    qtbot.mouseClick(dialog.start_button, Qt.LeftButton)
    assert dialog.running
    qtbot.waitUntil(lambda: not dialog.running, timeout=TIMEOUT)
    assert dialog.outcome == "measured", dialog.status_label.text()
    use_new(dialog, qtbot)
    return dialog


def use_new(dialog: RetrainDialog, qtbot) -> None:
    """Put the new version in use as the annotator would when it did not score better (the
    tiny model, version 0, was trained on the sample's own trees: it usually does better)."""
    r = dialog.retraining
    assert dialog.use_new_button.isEnabled() != r.in_use
    if not r.in_use:
        assert "stays in use" in dialog.status_label.text()
        qtbot.mouseClick(dialog.use_new_button, Qt.LeftButton)
    assert r.models.active == r.version


def test_retrain_redecodes_uncorrected_and_keeps_corrected(window, qtbot, tiny_model, sample,
                                                           monkeypatch):
    done = correct_some(window, qtbot)
    kept = {i: penn(window, i) for i in done}
    kept_scores = {i: [c.score for c in window.session.decoded(i)] for i in done}
    before = {i: scores(window, qtbot, i) for i in (5, 20)}

    # The app stays responsive: at its first progress report, training waits (wherever it
    # runs) until the UI thread has handled a timer event posted after training began,
    # which only happens if the UI keeps processing events while training is under way.
    training, handled = threading.Event(), threading.Event()
    seen: list[bool] = []
    timer = QTimer()
    timer.timeout.connect(lambda: training.is_set() and handled.set())

    def watched(examples, base=None, *, progress=None, **kw):
        def report(p):
            if not seen:
                training.set()
                seen.append(handled.wait(60))  # a safety net, not a measured limit
            progress(p)
        return real_retrain(examples, base, progress=report, **kw)

    real_retrain = retraining_module.retrain
    monkeypatch.setattr(retraining_module, "retrain", watched)
    timer.start(5)
    dialog = retrain_dialog(window)
    tick(qtbot, dialog.resume)  # the tiny model's grammar: k > 1 trees
    qtbot.mouseClick(dialog.start_button, Qt.LeftButton)
    assert dialog.running
    qtbot.waitUntil(lambda: not dialog.running, timeout=TIMEOUT)
    timer.stop()
    assert dialog.outcome == "measured", dialog.status_label.text()
    assert seen == [True]
    use_new(dialog, qtbot)

    [v] = window.models.versions()
    assert (v.how, v.base, v.sentences) == (CONTINUED, BUNDLED, 3)
    assert v.cv_f1 is not None
    assert 0.0 <= v.cv_f1 <= 100.0
    assert v.cv_folds == 3
    assert window.models.active == v.id
    after = {i: scores(window, qtbot, i) for i in before}
    for i, old in before.items():
        assert after[i] != old, f"sentence {i} was not re-decoded"
    for i in done:
        go(window, qtbot, i)
        assert window.session.is_corrected(i)
        assert penn(window, i) == kept[i]
        assert [c.score for c in window.session.decoded(i)] == kept_scores[i]

    # Reopening the project: the retrained version decodes (it ranks the picked candidate
    # of sentence 1 first now), the corrected trees stay.
    window.close()
    again = open_window(qtbot, tiny_model, sample)
    assert again.models.active == v.id
    qtbot.waitUntil(lambda: again.workspace.converter.model.training.get("sentences") == 3,
                    timeout=30000)
    for i in done:
        go(again, qtbot, i)
        assert again.session.is_corrected(i)
        assert penn(again, i) == kept[i]
    assert scores(again, qtbot, 5) == after[5]
    again.close()


def test_retrain_from_scratch_starts_from_the_files_projections(window, qtbot):
    """The status line says what the first pass does, and the new version was trained so."""
    correct_some(window, qtbot)
    dialog = retrain_dialog(window)
    said: list[str] = []
    dialog.retraining.changed.connect(lambda: said.append(dialog.retraining.status))
    tick(qtbot, dialog.scratch)
    assert not dialog.use_labels.isChecked()  # by default: a model that reads no labels
    qtbot.mouseClick(dialog.start_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running, timeout=TIMEOUT)
    assert dialog.outcome == "measured", dialog.status_label.text()
    assert any(s.startswith("Training: starting from the projections of") for s in said)
    first_epoch = next(i for i, s in enumerate(said) if s.startswith("Training: epoch 1 of"))
    assert all("projections" not in s for s in said[first_epoch:])
    use_new(dialog, qtbot)
    model = window.models.current_model()
    assert model.dep_labels == "projection"
    assert model.training["warm_start"] > 3


def test_cancel_keeps_the_current_model(window, qtbot):
    correct_some(window, qtbot)
    before = scores(window, qtbot, 5)
    dialog = retrain_dialog(window)
    qtbot.mouseClick(dialog.start_button, Qt.LeftButton)
    qtbot.mouseClick(dialog.cancel_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running, timeout=TIMEOUT)
    assert dialog.outcome == "cancelled"
    assert "Cancelled" in dialog.status_label.text()
    assert window.models.versions() == []
    assert window.models.active == BUNDLED
    assert window.session.store.chosen_version() == BUNDLED
    assert scores(window, qtbot, 5) == before
    assert dialog.start_button.isEnabled()


def test_cancelling_cross_validation_keeps_the_new_model(window, qtbot, monkeypatch):
    correct_some(window, qtbot)
    reached, go_on = threading.Event(), threading.Event()

    def paused(examples, folds, new, current, *, progress=None, **kw):
        def report(done, total):
            reached.set()
            go_on.wait(5)
            progress(done, total)
        return real_cv(examples, folds, new, current, progress=report, **kw)

    real_cv = retraining_module.compare
    monkeypatch.setattr(retraining_module, "compare", paused)
    dialog = retrain_dialog(window)
    qtbot.mouseClick(dialog.start_button, Qt.LeftButton)
    qtbot.waitUntil(reached.is_set, timeout=TIMEOUT)
    qtbot.mouseClick(dialog.cancel_button, Qt.LeftButton)
    go_on.set()
    qtbot.waitUntil(lambda: not dialog.running, timeout=TIMEOUT)
    assert "Cross-validation cancelled" in dialog.status_label.text()
    [v] = window.models.versions()
    assert v.cv_f1 is None
    assert window.models.active == BUNDLED
    assert dialog.use_new_button.isEnabled()
    assert dialog.plot.points == []  # no F1, no point on the curve


def test_opening_another_file_stops_a_retrain(window, qtbot, sample, monkeypatch):
    correct_some(window, qtbot)
    reached, go_on = threading.Event(), threading.Event()

    def paused(examples, base=None, *, progress=None, **kw):
        def report(p):
            reached.set()
            go_on.wait(5)
            progress(p)
        return real_retrain(examples, base, progress=report, **kw)

    real_retrain = retraining_module.retrain
    monkeypatch.setattr(retraining_module, "retrain", paused)
    dialog = retrain_dialog(window)
    qtbot.mouseClick(dialog.start_button, Qt.LeftButton)
    qtbot.waitUntil(reached.is_set, timeout=TIMEOUT)
    other = sample.with_name("other.conllu")
    shutil.copy(sample, other)
    go_on.set()
    assert window.open_path(other)
    assert not dialog.running
    assert dialog.outcome == "cancelled"
    assert window.models.versions() == []
    assert window.models.active == BUNDLED
    assert window.open_path(sample)
    assert window.models.versions() == []
    assert window.session.is_corrected(2)


def test_versions_curve_switch_back_and_export(window, qtbot, tmp_path, monkeypatch):
    correct_some(window, qtbot)
    original = scores(window, qtbot, 5)
    dialog = run_retrain(window, qtbot)
    assert len(dialog.plot.points) == 1
    assert dialog.plot.points[0][0] == 3
    first = scores(window, qtbot, 5)
    go(window, qtbot, 6)
    key(qtbot, window, Qt.Key_Return, Qt.ControlModifier)
    run_retrain(window, qtbot, continued=True)
    v1, v2 = window.models.versions()
    assert (v2.how, v2.base, v2.sentences) == (CONTINUED, v1.id, 4)
    assert [n for n, _ in dialog.plot.points] == [3, 4]  # a point per retrain

    menu_action(window, "Model", "Learning Curve…").trigger()
    assert window.model_dialogs.curve.plot.points == dialog.plot.points
    dialog.close()

    menu_action(window, "Model", "Model Versions…").trigger()
    versions = window.model_dialogs.versions
    table = versions.table
    assert table.rowCount() == 3
    assert table.item(2, 6).text() == "current"

    # Back to the start-up model: the uncorrected sentences get their first candidates back.
    table.selectRow(0)
    qtbot.mouseClick(versions.use_button, Qt.LeftButton)
    assert window.models.active == BUNDLED
    assert table.item(0, 6).text() == "current"
    assert scores(window, qtbot, 5) == original
    assert window.session.is_corrected(6)

    table.selectRow(1)
    qtbot.mouseClick(versions.use_button, Qt.LeftButton)
    assert window.models.active == v1.id
    assert scores(window, qtbot, 5) == first

    out = tmp_path / "exported.padmodel"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    table.selectRow(2)
    qtbot.mouseClick(versions.export_button, Qt.LeftButton)
    model = Model.load(out)
    assert model.training["sentences"] == 4
    converted = tmp_path / "sample.mrg"
    assert cli.main(["convert", str(window.session.path), "-o", str(converted),
                     "--model", str(out)]) == 0
    lines = converted.read_text().splitlines()
    assert len(lines) == len(window.session)
    assert all(line.startswith("(") for line in lines)


def test_the_files_labels_are_offered_from_scratch_and_learned(window, qtbot):
    correct_some(window, qtbot)
    dialog = retrain_dialog(window)
    tick(qtbot, dialog.scratch)
    assert dialog.use_labels.isEnabled()  # the sample has DEPREL: offered, not ticked
    assert not dialog.use_labels.isChecked()
    assert "6.4 F1 below" in dialog.labels_why.text()
    tick(qtbot, dialog.use_labels)
    run_retrain(window, qtbot)
    model = window.models.current_model()
    assert model.dep_labels == "deprel"
    assert {"SBJ", "NMOD", "ROOT"} <= set(model.label_set)
    assert "reads dependency labels" in window.model_label.toolTip()

    tick(qtbot, dialog.use_labels)  # untick: a model that ignores labels
    assert not dialog.use_labels.isChecked()
    qtbot.mouseClick(dialog.start_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running, timeout=TIMEOUT)
    use_new(dialog, qtbot)  # it reads the rule-based projection of each d-parse instead
    assert window.models.current_model().dep_labels == "projection"
    assert "labels" not in window.model_label.toolTip()
    assert "rule-based projection" in window.model_label.toolTip()

    tick(qtbot, dialog.resume)  # continuing: the base model decides
    assert not dialog.use_labels.isEnabled()
    assert not dialog.use_labels.isChecked()
    qtbot.wait(QApplication.doubleClickInterval() + 50)  # two clicks, not a double click
    tick(qtbot, dialog.scratch)
    assert dialog.use_labels.isEnabled()
    for sent in window.session.sentences:  # a file without labels has none to offer
        sent.rels = []
    dialog.refresh()
    assert not dialog.use_labels.isEnabled()
    assert not dialog.use_labels.isChecked()


def test_reopened_project_restores_the_chosen_version(window, qtbot, tiny_model, sample):
    correct_some(window, qtbot)
    run_retrain(window, qtbot)
    [_v] = window.models.versions()
    menu_action(window, "Model", "Model Versions…").trigger()
    table = window.model_dialogs.versions.table
    table.selectRow(0)
    qtbot.mouseClick(window.model_dialogs.versions.use_button, Qt.LeftButton)
    window.close()
    again = open_window(qtbot, tiny_model, sample)
    assert again.models.active == BUNDLED
    assert len(again.models.versions()) == 1
    again.close()


def test_a_damaged_version_is_reported_and_the_model_stays(window, qtbot):
    before = scores(window, qtbot, 5)
    bad = window.session.store.add_version(SCRATCH, None, 3, 0.1, b"not a model file")
    menu_action(window, "Model", "Model Versions…").trigger()
    versions = window.model_dialogs.versions
    versions.table.selectRow(1)
    qtbot.mouseClick(versions.use_button, Qt.LeftButton)
    assert window.models.active == bad
    qtbot.waitUntil(lambda: window.models.active == BUNDLED, timeout=30000)
    assert "Cannot use model version" in window.statusBar().currentMessage()
    assert window.session.store.chosen_version() == BUNDLED
    assert scores(window, qtbot, 5) == before


def test_store_keeps_versions_and_upgrades_old_projects(tmp_path):
    path = tmp_path / "old.padproject"
    db = sqlite3.connect(path)  # a project written before model versions and kept trees
    db.executescript("CREATE TABLE sentence (idx INTEGER PRIMARY KEY, words TEXT NOT NULL, "
                     "status TEXT NOT NULL DEFAULT 'machine', chosen INTEGER NOT NULL DEFAULT 0, "
                     "heads TEXT, tree TEXT, penn TEXT, seconds REAL NOT NULL DEFAULT 0);"
                     "INSERT INTO sentence (idx, words, status) VALUES (0, 'a b', 'corrected');")
    db.close()
    store = ProjectStore(path)
    assert store.load(["w:a b"], ["a b"], [2])[0].kept is None
    assert store.versions() == []
    assert store.chosen_version() == BUNDLED
    first = store.add_version(SCRATCH, None, 12, 1.5, b"one")
    second = store.add_version(CONTINUED, first, 20, 0.5, b"two")
    store.set_cv(first, 81.25, 5)
    store.choose_version(second)
    store.close()
    store = ProjectStore(path)
    assert [(v.id, v.how, v.base, v.sentences, v.cv_f1) for v in store.versions()] == [
        (first, SCRATCH, None, 12, 81.25), (second, CONTINUED, first, 20, None)]
    assert store.learning_curve() == [(12, 81.25)]
    assert store.version_bytes(second) == b"two"
    assert store.chosen_version() == second
    store.choose_version(99)  # a version that is not there falls back to the start-up model
    assert store.chosen_version() == BUNDLED
    with pytest.raises(KeyError):
        store.version_bytes(99)
    store.close()


def test_retrain_time_on_200_corrected_ptb_trees(qtbot, ptb_dir, capsys):
    """Measured, not asserted: how long an annotator waits (target <= 10 s). The gold trees
    of the first 200 PTB sample sentences stand in for 200 corrected sentences; the app's
    worker trains on them as Retrain does (cross-validation is cancelled once trained)."""
    trees = []
    for path in sorted(ptb_dir.glob("wsj_0*.mrg")):
        trees.extend(read_penn(path).trees)
        if len(trees) >= 200:
            break
    examples = examples_from_penn(trees[:200])
    worker = Worker(retrain_work([(e.lex, e.forms, e.rels) for e in examples], None,
                                 lambda: None, False, lambda: None, lambda w, model: None))
    events: list = []
    worker.yielded.connect(events.append)
    worker.errored.connect(lambda e: events.append(("error", e)))

    def trained() -> bool:
        worker.poll()
        return any(isinstance(e, Trained | tuple) for e in events)

    start = time.perf_counter()
    worker.start()
    qtbot.waitUntil(trained, timeout=TIMEOUT)
    total = time.perf_counter() - start
    worker.cancel()
    worker.join()
    done = next(e for e in events if isinstance(e, Trained | tuple))
    assert isinstance(done, Trained), done
    data, seconds = done.data, done.seconds
    assert data[:2] == b"PK"  # a .padmodel (npz) file
    with capsys.disabled():
        print(f"\nretrain from scratch on {len(examples)} corrected PTB trees: {seconds:.2f} s "
              f"training, {total:.2f} s including examples and the model file")


def test_a_model_reading_other_labels_warns_on_open(qtbot, sample, tmp_path):
    """A model trained on phrase labels meets the sample's Penn2Malt-style DEPREL."""
    from guikit import head_marked

    from pad_engine.learning.train import example_from_lextree, train
    from pad_engine.resources import resource_path
    from pad_engine.trees.deplabels import tree_labels

    lines = resource_path("sample", "sample.heads.ptb").read_text().splitlines()
    examples = [example_from_lextree(lex, forms, tree_labels(lex, len(forms)))
                for lex, forms in map(head_marked, lines)]
    path = tmp_path / "phrase.padmodel"
    train(examples, epochs=2, bits=16, labels="phrase").save(path)
    window = open_window(qtbot, path, sample)
    assert "labels it never saw" in window.statusBar().currentMessage()
    window.close()
