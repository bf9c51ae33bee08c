"""Retrain's Review…: the uncorrected sentences a new version would change, one at a time,
before it decodes them.

Each is drawn with the new version's tree, the phrases it adds marked amber as a picked
candidate's are; the phrases it removes are listed under it, with what changes in one line.
Next and Previous (buttons, PgDown/PgUp or Right/Left) step through them; Use New Version
and Keep Current decide, as in the retrain dialog. The state is ``controllers.review``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from pad_gui.controllers.retraining import Retraining
from pad_gui.parse_items import DIFF
from pad_gui.parse_view import ParseScene, ParseView

NEXT_KEYS = ("PgDown", "Right")
PREVIOUS_KEYS = ("PgUp", "Left")


class ReviewDialog(QDialog):
    """The review of ``retraining.review``; closing it decides nothing."""

    def __init__(self, retraining: Retraining, parent: QWidget | None = None):
        super().__init__(parent)
        self.retraining = retraining
        self.review = review = retraining.review
        version, against = retraining.version, retraining.against
        self.setWindowTitle(f"Review version {version}: the sentences it changes")
        self.resize(1180, 620)  # fits a 1366x768 screen with its window frame and panel

        summary = QLabel(
            f"Version {version} changes the tree of <b>{len(review)}</b> of the "
            f"{review.compared:,} sentences not yet corrected; version {against} stays in "
            f"use until you choose. Drawn: the new tree, "
            f"<span style='background:{DIFF.name()}'>&nbsp;phrases it adds&nbsp;</span>; "
            "listed under it: the phrases it removes.")
        summary.setWordWrap(True)
        self.count = QLabel()
        self.count.setStyleSheet("font-weight: bold")
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.removed = QLabel()
        self.removed.setWordWrap(True)
        self.removed.setTextFormat(Qt.PlainText)
        self.scene = ParseScene(self)
        self.view = ParseView(self.scene)
        self.view.setFocusPolicy(Qt.NoFocus)  # the keys step through the sentences

        self.previous_button = QPushButton("◀ Previous (PgUp)")
        self.next_button = QPushButton("Next (PgDown) ▶")
        for button in (self.previous_button, self.next_button):
            button.setAutoDefault(False)
        self.previous_button.clicked.connect(lambda: review.step(-1))
        self.next_button.clicked.connect(lambda: review.step(1))
        for keys, by in ((NEXT_KEYS, 1), (PREVIOUS_KEYS, -1)):
            for key in keys:
                QShortcut(QKeySequence(key), self, activated=lambda by=by: review.step(by))
        buttons = QDialogButtonBox()
        self.use_new_button = buttons.addButton("Use New Version", QDialogButtonBox.AcceptRole)
        self.keep_button = buttons.addButton("Keep Current", QDialogButtonBox.RejectRole)
        close = buttons.addButton(QDialogButtonBox.Close)
        self.use_new_button.clicked.connect(self._use_new)
        self.keep_button.clicked.connect(self._keep)
        close.clicked.connect(self.close)
        for button in buttons.buttons():
            button.setAutoDefault(False)

        stepper = QHBoxLayout()
        stepper.addWidget(self.previous_button)
        stepper.addWidget(self.count)
        stepper.addWidget(self.next_button)
        stepper.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(summary)
        layout.addLayout(stepper)
        layout.addWidget(self.description)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.removed)
        layout.addWidget(buttons)
        review.moved.connect(self.show_current)
        self.show_current()

    def show_current(self) -> None:
        """Draw the current sentence's new tree, its marks and what it changes."""
        r = self.review
        change = r.current
        sent = r.sentence()
        self.count.setText(f"{r.position()}  ·  sentence {change.idx + 1}")
        self.description.setText(f"Changes: {r.description()}")
        removed = r.removed()
        self.removed.setText(f"Removes: {removed}" if removed else "Removes no phrase.")
        self.scene.show_sentence(sent.forms, sent.tags, list(sent.heads), sent.rels,
                                 change.new, r.added(), set())
        self.view.show_new()
        self.previous_button.setEnabled(r.at > 0)
        self.next_button.setEnabled(r.at < len(r) - 1)

    def showEvent(self, event) -> None:
        """Fit the tree to the width the dialog really has, once it has it."""
        super().showEvent(event)
        self.view.show_new()

    def _use_new(self) -> None:
        self.retraining.use_new()
        self.accept()

    def _keep(self) -> None:
        self.retraining.keep_current()
        self.reject()
