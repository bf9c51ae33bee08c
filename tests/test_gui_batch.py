"""The batch conversion dialog, driven offscreen as a person would: from the File menu, a run
to the end, a cancelled run, and closing the dialog while a run goes on."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_gui_app
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QWidget
from test_batch import BAD_LINE, OUTPUTS, conll_text, files_under, make_tree
from test_gui_app import menu_action
from toy import toy_examples

from pad_engine.batch.state import STATE_NAME
from pad_engine.learning.train import train
from pad_gui.batch_dialog import BatchDialog, show_batch_dialog


@pytest.fixture(scope="module")
def toy_model_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("model") / "toy.padmodel"
    train(toy_examples(), epochs=2, bits=14).save(path)
    return path


def start(qtbot, dialog: BatchDialog, src: Path, dst: Path) -> None:
    dialog.input_edit.setText(str(src))
    dialog.output_edit.setText(str(dst))
    dialog.jobs_spin.setValue(1)
    qtbot.mouseClick(dialog.start_button, Qt.LeftButton)
    assert dialog.running
    assert not dialog.start_button.isEnabled()


def test_dialog_converts_a_folder_then_cancels_a_second_run(qtbot, tmp_path, toy_model_path):
    src, out = make_tree(tmp_path), tmp_path / "out"
    dialog = BatchDialog(None, toy_model_path)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.model_edit.text() == str(toy_model_path)

    start(qtbot, dialog, src, out)
    qtbot.waitUntil(lambda: not dialog.running, timeout=30000)
    assert dialog.error == ""
    assert dialog.report is not None
    assert not dialog.report.cancelled
    assert files_under(out) >= set(OUTPUTS)
    rows = {dialog.results.topLevelItem(i).text(0): dialog.results.topLevelItem(i)
            for i in range(dialog.results.topLevelItemCount())}
    assert sorted(rows) == ["a.conllu", "x/b.conllx", "x/bad.conll", "x/y/c.conll"]
    bad = rows["x/bad.conll"]
    assert [bad.text(c) for c in range(1, 5)] == ["converted", "8", "7", "1"]
    assert bad.child(0).text(0).startswith(f"x/bad.conll:{BAD_LINE}: HEAD")
    assert dialog.progress_bar.value() == 1000
    assert "Done: 21 of 22 sentences" in dialog.status_label.text()
    assert str(out / "pad-convert-report.json") in dialog.report_label.text()
    assert dialog.start_button.isEnabled()
    assert not dialog.cancel_button.isEnabled()

    (src / "0big.conllx").write_text(conll_text(toy_examples()) * 4000, encoding="utf-8")
    new_out = tmp_path / "out2"
    start(qtbot, dialog, src, new_out)
    qtbot.waitUntil(lambda: "sentences/s" in dialog.status_label.text(), timeout=30000)
    qtbot.mouseClick(dialog.cancel_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running, timeout=30000)
    assert dialog.report.cancelled
    assert dialog.status_label.text().startswith("Cancelled")
    assert "0big.mrg" not in files_under(new_out)
    assert files_under(new_out) == {f.output for f in dialog.report.files} | {
        STATE_NAME, "pad-convert-report.json", "pad-convert-report.txt"}


def test_bad_input_folder_is_shown_not_raised(qtbot, tmp_path, toy_model_path):
    dialog = BatchDialog(None, toy_model_path)
    qtbot.addWidget(dialog)
    qtbot.mouseClick(dialog.start_button, Qt.LeftButton)
    assert not dialog.running
    assert "Choose an input folder" in dialog.status_label.text()
    start(qtbot, dialog, tmp_path / "missing", tmp_path / "out")
    qtbot.waitUntil(lambda: not dialog.running, timeout=30000)
    assert "no such input folder" in dialog.error
    assert dialog.start_button.isEnabled()


def test_menu_action_opens_one_dialog(qtbot, toy_model_path):
    window = QWidget()
    qtbot.addWidget(window)
    dialog = show_batch_dialog(window, toy_model_path)
    dialogs = window.findChildren(BatchDialog)
    assert dialogs == [dialog]
    assert dialog.isVisible()
    assert dialog.model_edit.text() == str(toy_model_path)
    assert show_batch_dialog(window) is dialog
    assert window.findChildren(BatchDialog) == dialogs


def test_closing_the_dialog_while_it_converts_cancels_the_run(qtbot, tmp_path, toy_model_path):
    src = make_tree(tmp_path)
    (src / "0big.conllx").write_text(conll_text(toy_examples()) * 4000, encoding="utf-8")
    dialog = BatchDialog(None, toy_model_path)
    qtbot.addWidget(dialog)
    dialog.show()
    start(qtbot, dialog, src, tmp_path / "out")
    qtbot.waitUntil(lambda: "sentences/s" in dialog.status_label.text(), timeout=30000)
    qtbot.mouseClick(dialog.close_button, Qt.LeftButton)
    assert not dialog.isVisible()
    assert not dialog.running
    assert dialog.report.cancelled
    assert "0big.mrg" not in files_under(tmp_path / "out")


window = test_gui_app.window  # the sample open with the tiny model


@pytest.mark.usefixtures("isolated_settings")
def test_file_menu_converts_with_the_projects_model(qtbot, window, tiny_model, tmp_path):
    """File > Batch Convert Folder…, the folders typed in, the project's version in use
    ticked (version 0: the model the app started with), Start."""
    src = make_tree(tmp_path)
    menu_action(window, "File", "Batch Convert Folder…").trigger()
    dialog = window.findChild(BatchDialog)
    qtbot.waitUntil(dialog.isVisible, timeout=10000)
    assert dialog.project_check.isEnabled()
    assert not dialog.cancel_button.isEnabled()
    qtbot.keyClicks(dialog.input_edit, str(src))
    qtbot.keyClicks(dialog.output_edit, str(tmp_path / "out"))
    box = dialog.project_check
    qtbot.mouseClick(box, Qt.LeftButton, pos=QPoint(8, box.height() // 2))  # its tick box
    assert dialog.project_check.isChecked()
    dialog.jobs_spin.setValue(1)
    qtbot.mouseClick(dialog.start_button, Qt.LeftButton)
    assert dialog.running
    assert not dialog.project_check.isEnabled()
    qtbot.waitUntil(lambda: not dialog.running, timeout=60000)
    assert dialog.error == ""
    assert dialog.report.model == str(Path(tiny_model).resolve())
    assert dialog.results.topLevelItemCount() == 4
    assert dialog.status_label.text().startswith("Done: ")
    assert dialog.project_check.isEnabled()
    assert dialog.start_button.isEnabled()
    qtbot.mouseClick(dialog.close_button, Qt.LeftButton)
    assert not dialog.isVisible()
