"""Small things a person meets at once: Help > Keys and Mouse fits the screen
(its text scrolls, its OK button stays on screen), the background decoding shows how far it
is, and the export dialogs start in the opened file's folder."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
import test_gui_app
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QDialogButtonBox, QFileDialog
from test_gui_app import menu_action, new_window

from pad_gui.controllers.exports import proposed

pytestmark = pytest.mark.usefixtures("isolated_settings")
window = test_gui_app.window  # the sample open with the tiny model


def test_help_fits_the_screen_and_scrolls(window, qtbot, tmp_path):
    menu_action(window, "Help", "Keys and Mouse").trigger()
    box = window.keys_box
    qtbot.waitExposed(box)
    room = box.screen().availableGeometry()
    assert room.contains(box.frameGeometry()), (box.frameGeometry(), room)
    ok = box.findChild(QDialogButtonBox).buttons()[0]
    corner = ok.mapToGlobal(QPoint(ok.width(), ok.height()))
    assert ok.isVisible()
    assert room.contains(ok.mapToGlobal(QPoint(0, 0)))
    assert room.contains(corner)
    text = box.browser
    if text.document().size().height() > text.viewport().height():
        assert text.verticalScrollBar().maximum() > 0  # the rest is a scroll away
    assert "F8" in box.text()
    box.grab().save(str(tmp_path / "help.png"))
    qtbot.mouseClick(ok, test_gui_app.Qt.LeftButton)
    assert not box.isVisible()


def test_background_decoding_shows_a_count(qtbot, tiny_model, ewt_dir, tmp_path):
    window = new_window(qtbot, tiny_model)
    dev = tmp_path / "dev.conllu"
    shutil.copy(ewt_dir / "en_ewt-ud-dev.conllu", dev)
    window.open_path(dev)
    total = len(window.session)
    assert total > 1000
    shown = re.compile(rf"Decoding ([\d,]+) / {total:,}")
    assert shown.fullmatch(window.background.text()), window.background.text()
    qtbot.waitUntil(lambda: int(shown.fullmatch(window.background.text()).group(1)
                                .replace(",", "")) >= 5, timeout=60000)
    window.close()


def test_the_count_goes_once_every_sentence_is_decoded(window, qtbot):
    qtbot.waitUntil(lambda: window.background.text() == "", timeout=120000)
    assert all(window.session.decoded(i) is not None for i in range(len(window.session)))


def test_export_dialogs_start_in_the_opened_files_folder(window, qtbot, monkeypatch):
    asked: list[str] = []

    def answer(parent, title, start, filters):
        asked.append(start)
        return "", ""  # the person cancels

    monkeypatch.setattr(QFileDialog, "getSaveFileName", answer)
    folder = window.session.path.parent
    for entry in (("File", "Export Penn Trees…"), ("File", "Export Dependencies (CoNLL)…"),
                  ("Model", "Export Model File…")):
        menu_action(window, *entry).trigger()
    assert [Path(a).parent for a in asked] == [folder] * 3, asked
    assert Path(asked[2]).name.startswith("sample-v")


def test_an_export_never_proposes_the_opened_file(tmp_path):
    source = tmp_path / "wsj_0001.mrg"
    assert proposed(source, "wsj_0001.mrg") == str(tmp_path / "wsj_0001.pad.mrg")
    assert proposed(source, "wsj_0001.corrected.conllu") == \
        str(tmp_path / "wsj_0001.corrected.conllu")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root may write into any folder: no folder is unwritable")
def test_an_export_from_an_unwritable_folder_proposes_home(tmp_path):
    locked = tmp_path / "locked"  # as the installed package's sample folder
    locked.mkdir()
    locked.chmod(0o500)
    try:
        assert Path(proposed(locked / "sample.conllu", "sample.mrg")).parent == Path.home()
    finally:
        locked.chmod(0o700)
