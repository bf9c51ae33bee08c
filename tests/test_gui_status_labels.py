"""The status bar on a first start, in a narrow window: background decoding's count stays
whole, the note on the decoder being prepared gives way (cut with an ellipsis, whole in its
tooltip) and counts the time it has lasted, so a minute of waiting visibly moves."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import test_gui_app

from pad_gui import status_labels
from pad_gui.controllers.engine import PREPARING_TEXT

pytestmark = pytest.mark.usefixtures("isolated_settings")
window = test_gui_app.window  # the sample open with the tiny model


def test_a_narrow_window_keeps_the_count_and_cuts_the_note(window, qtbot, monkeypatch):
    now = [100.0]
    monkeypatch.setattr(status_labels, "time", SimpleNamespace(monotonic=lambda: now[0]))
    count, note = window.background, window.preparing
    window.engine.preparing.emit(PREPARING_TEXT)  # as the engine thread says it
    window.workspace.background.emit("Decoding 12,544 / 12,544")
    window.resize(400, 600)  # as narrow as the window goes
    qtbot.waitUntil(lambda: window.width() < 800 and note.isVisible())
    qtbot.wait(50)
    metrics = count.fontMetrics()
    assert count.width() >= metrics.horizontalAdvance(count.text())
    assert metrics.horizontalAdvance(note.text()) <= note.width()
    assert note.text().startswith("0:00 Preparing the decoder")
    assert note.text().endswith("…")
    assert note.toolTip() == f"0:00 {PREPARING_TEXT}"
    now[0] += 65
    qtbot.waitUntil(lambda: note.toolTip().startswith("1:05 "), timeout=3000)  # its clock ticks
    window.resize(1366, 768)
    qtbot.waitUntil(lambda: note.text() == note.toolTip())  # room enough: the whole note
    window.engine.preparing.emit("")
    assert not note.isVisible()


def test_an_ambient_message_does_not_wipe_out_a_warning(window, monkeypatch):
    """The decoder finishing its compile ("Model ready") while the status bar says why the
    file's text model cannot be used: the warning stays for its first seconds, then an
    ambient message shows again; an answer to the annotator always shows at once."""
    now = [100.0]
    monkeypatch.setattr(status_labels, "time", SimpleNamespace(monotonic=lambda: now[0]))
    bar, w = window.statusBar(), window.workspace
    w.message.emit("2 sentences; the text model cannot be used (…)", 15000)
    now[0] += 2
    w.ambient.emit("Model ready", 3000)
    assert bar.currentMessage().startswith("2 sentences; the text model cannot be used")
    w.message.emit("Still opening story.txt: one file at a time", 5000)
    assert bar.currentMessage().startswith("Still opening")  # an answer: shown
    w.message.emit("2 sentences; the text model cannot be used (…)", 15000)
    now[0] += status_labels.KEEP
    w.ambient.emit("Model ready", 3000)
    assert bar.currentMessage() == "Model ready"
