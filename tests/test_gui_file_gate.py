"""Refusing unsuitable files, in the app (offscreen, driven from its menus and dialogs): every
export the File and Model menus offer refuses a character device, a FIFO, a read-only file
and the treebank itself, says so and leaves the file as it was; a project file that is a
FIFO is refused instead of hanging the app. A new export action without an entry here
fails the test."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
import test_gui_app
from guikit import answer_open_dialog
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog
from test_gui_app import menu_action
from test_hostile_gate import Watchdog, hostile, snapshot

from pad_gui.actions import ACTIONS
from pad_gui.batch_dialog import BatchDialog

pytestmark = pytest.mark.usefixtures("isolated_settings")

WRITES = re.compile(r"\b(export|save|write|convert)\b", re.IGNORECASE)
KINDS = {"device": "not a regular file (a character device)",
         "FIFO": "not a regular file (a FIFO)", "read-only": "read-only (mode 0444)",
         "input": "refusing to overwrite|the output is the input"}
FOLDER_KINDS = {"device": "not a folder (a character device)",
                "FIFO": "not a folder (a FIFO)", "read-only": "read-only folder (mode 0555)",
                "input": "the output folder is the input folder"}


window = test_gui_app.window  # the sample open with the tiny model


def messages(window) -> list[str]:
    said: list[str] = []
    window.workspace.message.connect(lambda text, *_: said.append(text))
    return said


def menu(window, name: str):
    decl = next(a for a in ACTIONS if a.name == name)
    return menu_action(window, decl.menu, decl.text.replace("&", ""))


def done(said: list[str], target: Path) -> bool:
    """Whether the app has said how an export to ``target`` ended."""
    return any(str(target) in m and not m.startswith("Exporting to") for m in said)


def from_menu(name: str):
    """An export that asks for its file in a save dialog after its menu entry."""
    def export(qtbot, window, target: Path, said: list[str]) -> str:
        count = len(said)
        menu(window, name).trigger()
        qtbot.waitUntil(lambda: done(said[count:], target), timeout=30000)
        return said[-1]
    return export


def from_dialog(name: str, dialog_of):
    """An export behind a dialog's Export button (the dialog opened from its menu entry)."""
    def export(qtbot, window, target: Path, said: list[str]) -> str:
        menu(window, name).trigger()
        dialog = dialog_of(window)
        qtbot.waitUntil(dialog.isVisible, timeout=10000)
        count = len(said)
        qtbot.mouseClick(dialog.export_button, Qt.LeftButton)
        qtbot.waitUntil(lambda: done(said[count:], target), timeout=30000)
        dialog.close()
        return said[-1]
    return export


def batch(qtbot, window, target: Path, said: list[str]) -> str:
    menu(window, "batch").trigger()
    dialog = window.findChild(BatchDialog)
    dialog.input_edit.setText(str(window.session.path.parent))
    dialog.output_edit.setText(str(target))
    qtbot.mouseClick(dialog.start_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running and bool(dialog.error), timeout=30000)
    dialog.close()
    return dialog.error


EXPORTS = {
    "save-project-as": from_menu("save-project-as"),
    "export-penn": from_menu("export-penn"),
    "export-corrected": from_menu("export-corrected"),
    "export-conll": from_menu("export-conll"),
    "export-model": from_menu("export-model"),
    "detached": from_dialog("detached", lambda w: w.detached_dialog),
    "model-versions": from_dialog("model-versions", lambda w: w.model_dialogs.versions),
    "batch": batch,
}


def test_every_action_that_writes_a_file_is_covered():
    writes = {a.name for a in ACTIONS if WRITES.search(f"{a.text} {a.description}")}
    assert writes == set(EXPORTS)


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_every_export_refuses_a_device_a_fifo_a_read_only_file_and_the_treebank(
        window, qtbot, tmp_path, monkeypatch, name):
    said = messages(window)
    folder = name == "batch"
    for kind, expected in (FOLDER_KINDS if folder else KINDS).items():
        if kind == "input":
            target = window.session.path.parent if folder else window.session.path
        else:
            target = hostile(tmp_path / f"{kind}-target",
                             "read-only folder" if folder and kind == "read-only" else kind)
        before = snapshot(target)
        monkeypatch.setattr(QFileDialog, "getSaveFileName",
                            lambda *a, t=target, **k: (str(t), ""))
        with Watchdog(target if kind == "FIFO" else None) as dog:
            message = EXPORTS[name](qtbot, window, target, said)
        assert not dog.hung, f"{name} waited on the FIFO {target}"
        assert any(e in message for e in expected.split("|")), (name, kind, message)
        assert snapshot(target) == before, f"{name} changed the {kind} {target}"


def test_a_fifo_as_the_project_file_is_refused_not_waited_on(window, qtbot, tmp_path):
    treebank = tmp_path / "other.conllu"
    treebank.write_bytes(window.session.path.read_bytes())
    project = window.workspace.projects.project_for(treebank)
    os.mkfifo(project)
    said = messages(window)
    answer_open_dialog(treebank)
    with Watchdog(project) as dog:
        menu(window, "open").trigger()
        qtbot.waitUntil(lambda: any("Cannot open" in m for m in said), timeout=60000)
    assert not dog.hung, "the app waited on the FIFO"
    assert "not a regular file (a FIFO)" in said[-1], said
    assert str(project) in said[-1], said
    assert stat.S_ISFIFO(os.lstat(project).st_mode)


@pytest.mark.parametrize("kind", ["device", "read-only", "input"])
def test_the_screenshot_is_not_written_over_a_device_a_read_only_file_or_the_treebank(
        qapp, tiny_model, sample, tmp_path, capsys, kind):
    from pad_gui import app as app_module

    target = sample if kind == "input" else hostile(tmp_path / "shot.png", kind)
    before = snapshot(target)
    code = app_module.main(["--model", str(tiny_model), "--screenshot", str(target),
                            str(sample)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1, err
    assert len(err) == 1, err
    assert str(target) in err[0], err
    assert any(e in err[0] for e in KINDS[kind].split("|")), err
    assert snapshot(target) == before
