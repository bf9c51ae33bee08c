"""Small dialogs (the label and head of a node to insert, the effort summary) and the button
row of the dialogs that run a background job."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from pad_gui.session import EDIT_KINDS, Session

REFERENCE = ("For comparison: annotators of the Annotate tool accepted about 70% of its "
             "suggestions at about 1,300 tokens an hour.")


def job_buttons(dialog) -> tuple[QDialogButtonBox, QPushButton, QPushButton, QPushButton]:
    """Start / Cancel / Close for a dialog with ``start`` and ``cancel`` slots; Cancel starts
    disabled (nothing runs yet) and Close rejects the dialog."""
    buttons = QDialogButtonBox()
    start = buttons.addButton("Start", QDialogButtonBox.ActionRole)
    cancel = buttons.addButton("Cancel", QDialogButtonBox.ActionRole)
    close = buttons.addButton(QDialogButtonBox.Close)
    cancel.setEnabled(False)
    start.clicked.connect(dialog.start)
    cancel.clicked.connect(dialog.cancel)
    close.clicked.connect(dialog.reject)
    return buttons, start, cancel, close


def label_completer(labels: list[str], parent) -> QCompleter:
    """Type-ahead over the label set, case-insensitive, matching label prefixes."""
    completer = QCompleter(labels, parent)
    completer.setCaseSensitivity(Qt.CaseInsensitive)
    completer.setCompletionMode(QCompleter.InlineCompletion)
    return completer


class InsertDialog(QDialog):
    """Ask for the new node's label and, when the run does not hold the parent's head,
    which member heads it (the other members re-attach to that member)."""

    def __init__(self, labels: list[str], members: list[str], fixed_head: int | None, parent):
        super().__init__(parent)
        self.setWindowTitle("Insert node")
        form = QFormLayout(self)
        self.label = QLineEdit()
        self.label.setCompleter(label_completer(labels, self.label))
        self.label.setPlaceholderText("e.g. NP")
        form.addRow("Label:", self.label)
        self.head = QComboBox()
        self.head.addItems([f"{i + 1}: {m}" for i, m in enumerate(members)])
        if fixed_head is not None:
            self.head.setCurrentIndex(fixed_head)
            self.head.setEnabled(False)
            self.head.setToolTip("The selection holds the parent's head child, which stays head.")
        else:
            self.head.setCurrentIndex(len(members) - 1)
        form.addRow("Head child:", self.head)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


class EffortDialog(QDialog):
    """Tokens per hour, share accepted as proposed, and the per-sentence effort log."""

    def __init__(self, session: Session, parent):
        super().__init__(parent)
        self.setWindowTitle("Effort summary")
        self.resize(720, 420)
        layout = QVBoxLayout(self)
        s = session.summary()
        minutes = s.seconds / 60
        actions = ", ".join(f"{k} {v}" for k, v in s.actions.items())
        self.summary = QLabel(
            f"<b>{s.corrected}</b> sentences corrected ({s.tokens} tokens) in "
            f"{minutes:.1f} min: <b>{s.tokens_per_hour:,.0f} tokens/hour</b>; "
            f"<b>{100 * s.share_as_proposed:.0f}%</b> accepted as proposed.<br>"
            f"Actions on corrected sentences: {actions}.<br><i>{REFERENCE}</i>")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        rows = session.effort_rows()
        headers = ["#", "Len", "Status", "Seconds", *EDIT_KINDS]
        self.table = QTableWidget(len(rows), len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.verticalHeader().hide()
        for r, (idx, length, status, seconds, counts) in enumerate(rows):
            values = [idx + 1, length, status, f"{seconds:.0f}",
                      *(counts.get(k, 0) for k in EDIT_KINDS)]
            for c, value in enumerate(values):
                self.table.setItem(r, c, QTableWidgetItem(str(value)))
        layout.addWidget(self.table)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
