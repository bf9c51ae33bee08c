"""Issue 35, point 4, driven as an annotator drives it (offscreen): correct a few sentences,
Retrain, and before the new version decodes, see how many uncorrected sentences it changes,
step through them with the keys, then keep the current version or use the new one. Issue
36: corrected trees with function tags are noted as not scored.

The tiny model trained on the sample's gold trees stands in for the default model; a model
trained from scratch on three corrected trees gives other trees for many sentences.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from test_gui_retrain import (
    TIMEOUT,
    correct_some,
    go,
    key,
    open_window,
    penn,
    retrain_dialog,
    tick,
)

from pad_engine.api import to_line
from pad_gui.parse_items import DIFF
from pad_gui.store import BUNDLED

pytestmark = pytest.mark.usefixtures("isolated_settings")


@pytest.fixture
def window(qtbot, tiny_model, sample):
    window = open_window(qtbot, tiny_model, sample)
    yield window
    window.close()


def retrained(window, qtbot):
    """Correct three sentences, retrain from scratch and wait for the comparison."""
    correct_some(window, qtbot)
    dialog = retrain_dialog(window)
    tick(qtbot, dialog.scratch)
    qtbot.mouseClick(dialog.start_button, Qt.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running, timeout=TIMEOUT)
    return dialog


def reviewed(dialog, qtbot):
    """Open Review… and step through it with the keys, checking what each step shows."""
    r = dialog.retraining
    n = len(r.review)
    assert n >= 2, dialog.status_label.text()
    assert f"changes {n} of {r.review.compared} uncorrected sentences" in \
        dialog.status_label.text()
    assert dialog.review_button.isEnabled()
    assert dialog.keep_button.isEnabled()
    assert dialog.use_new_button.isEnabled()
    qtbot.mouseClick(dialog.review_button, Qt.LeftButton)
    review = dialog.review
    qtbot.waitExposed(review)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is review, timeout=2000)
    assert review.count.text().startswith(f"1 of {n}")
    seen = [marked(review)]
    qtbot.keyClick(review, Qt.Key_PageDown)
    assert review.count.text().startswith(f"2 of {n}")
    seen.append(marked(review))
    qtbot.keyClick(review, Qt.Key_Right)
    assert review.count.text().startswith(f"{min(3, n)} of {n}")
    qtbot.keyClick(review, Qt.Key_PageUp)
    qtbot.keyClick(review, Qt.Key_Left)
    assert review.count.text().startswith(f"1 of {n}")
    assert marked(review) == seen[0]
    qtbot.mouseClick(review.next_button, Qt.LeftButton)
    assert marked(review) == seen[1]
    return review


def marked(review) -> tuple[int, frozenset]:
    """What the review shows: the sentence, its amber phrases (those the new tree adds),
    the removed ones and the description; checked against the change it stands for."""
    change = review.review.current
    amber = {(i.node.label, *i.span) for i in review.scene.nodes if i.fill == DIFF}
    assert amber == set(review.review.added())
    assert review.description.text().startswith("Changes: ")
    assert len(review.description.text()) > len("Changes: ")
    assert review.removed.text().startswith("Remove")
    assert amber or "Removes:" in review.removed.text()
    assert len(review.scene.words) == len(review.review.sentence().forms)
    return change.idx, frozenset(amber)


def test_review_then_keep_current(window, qtbot):
    dialog = retrained(window, qtbot)
    r = dialog.retraining
    assert window.models.active == BUNDLED
    assert not r.in_use
    changed = [c.idx for c in r.review.changes]
    shown = {i: penn_of(window, qtbot, i) for i in changed[:4]}  # version 0's trees
    review = reviewed(dialog, qtbot)
    qtbot.mouseClick(review.keep_button, Qt.LeftButton)
    assert not review.isVisible()
    assert window.models.active == BUNDLED
    assert r.kept
    assert "stays in use, as you chose" in dialog.status_label.text()
    assert not dialog.keep_button.isEnabled()
    assert not dialog.review_button.isEnabled()
    assert dialog.use_new_button.isEnabled()  # still in Model Versions: a change of mind
    assert len(window.models.versions()) == 1
    for i, tree in shown.items():
        go(window, qtbot, i)
        assert penn(window, i) == tree


def test_review_then_use_new_version(window, qtbot):
    dialog = retrained(window, qtbot)
    r = dialog.retraining
    changes = {c.idx: c for c in r.review.changes}
    shown = {i: penn_of(window, qtbot, i) for i in list(changes)[:4]}
    review = reviewed(dialog, qtbot)
    qtbot.mouseClick(review.use_new_button, Qt.LeftButton)
    assert not review.isVisible()
    [v] = window.models.versions()
    assert window.models.active == v.id
    assert r.in_use
    for i, before in shown.items():
        go(window, qtbot, i)
        forms = window.session.sentences[i].forms
        assert before == to_line(changes[i].old, forms)  # compared with what was shown
        assert penn(window, i) == to_line(changes[i].new, forms) != before


def test_closing_the_review_decides_nothing(window, qtbot):
    dialog = retrained(window, qtbot)
    review = reviewed(dialog, qtbot)
    qtbot.keyClick(review, Qt.Key_Escape)
    assert not review.isVisible()
    dialog.close()
    assert window.models.active == BUNDLED
    assert len(window.models.versions()) == 1


def test_function_tags_in_corrected_trees_are_noted(window, qtbot):
    idx = next(i for i in range(3, len(window.session)) if "(PP " in penn_of(window, qtbot, i))
    item = next(i for i in window.scene.nodes if i.node.label == "PP")
    window.view.ensureVisible(item)
    qtbot.mouseClick(window.view.viewport(), Qt.LeftButton,
                     pos=window.view.mapFromScene(item.scenePos()))
    window.label_edit.setFocus()
    window.label_edit.selectAll()
    qtbot.keyClicks(window.label_edit, "PP-TMP")
    qtbot.keyClick(window.label_edit, Qt.Key_Return)
    dialog = retrain_dialog(window)
    assert not dialog.tags_note.isVisible()  # edited, not yet corrected
    key(qtbot, window, Qt.Key_Return, Qt.ControlModifier)
    assert window.session.is_corrected(idx)
    assert dialog.tags_note.isVisible()
    note = dialog.tags_note.text()
    assert "1 corrected tree carries function tags or indices (PP-TMP)" in note
    assert "kept in the trees and exports" in note
    assert "not scored" in note


def penn_of(window, qtbot, idx: int) -> str:
    go(window, qtbot, idx)
    return penn(window, idx)
