"""View > Consistency Check: material bracketed differently in different sentences, most
suspicious first; a finding's sentences, each a double click away; and the majority's
bracketing given to the odd ones in one undoable step."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from pad_gui.controllers.quality import Finding, check
from pad_gui.session import Session

HEADERS = ("#", "Kind", "Material", "Majority", "Odd", "Score")


def shown(variant: str) -> str:
    return variant or "(no phrase)"


class ConsistencyPanel(QWidget):
    """``apply``: give a finding's odd sentences the majority's bracketing (one undo step);
    ``go``: show a sentence."""

    def __init__(self, session: Callable[[], Session | None], go: Callable[[int], None],
                 apply: Callable[[Finding], None], parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.go = go
        self.findings: list[Finding] = []
        self.run_button = QPushButton("Check the File")
        self.run_button.clicked.connect(self.run)
        self.apply_button = QPushButton("Apply Majority to Odd Ones")
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(lambda: self.current() and apply(self.current()))
        self.note = QLabel("Finds words and d-subtrees bracketed differently in different "
                           "sentences.")
        self.note.setWordWrap(True)
        self.table = QTableWidget(0, len(HEADERS))
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.Stretch)
        self.table.itemSelectionChanged.connect(self._selected)
        self.sentences = QListWidget()
        self.sentences.itemActivated.connect(lambda item: self.go(item.data(Qt.UserRole)))
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.apply_button)
        buttons.addStretch(1)
        split = QSplitter(Qt.Vertical)
        split.addWidget(self.table)
        split.addWidget(self.sentences)
        split.setStretchFactor(0, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(buttons)
        layout.addWidget(self.note)
        layout.addWidget(split, 1)

    def current(self) -> Finding | None:
        rows = self.table.selectionModel().selectedRows()
        return self.findings[rows[0].row()] if rows else None

    def run(self) -> None:
        session = self.session()
        if session is None:
            self.note.setText("Open a file first.")
            return
        self.findings, searched = check(session)
        self.table.setRowCount(len(self.findings))
        for r, f in enumerate(self.findings):
            e = f.entry
            cells = (str(r + 1), e.kind, e.text, f"{shown(e.majority)} ×{len(e.supporters)}",
                     f"{shown(e.variant)} ×{len(e.suspects)}", f"{e.score:.2f}")
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(r, c, item)
        for c in (0, 1, 3, 4, 5):
            self.table.resizeColumnToContents(c)
        waiting = len(session) - searched
        many = "finding" if len(self.findings) == 1 else "findings"
        self.note.setText(f"{len(self.findings)} {many} over {searched} sentences"
                          + (f" ({waiting} not decoded yet)" if waiting else "")
                          + "; corrected sentences weigh most.")
        if self.findings:
            self.table.selectRow(0)
            self.table.setFocus(Qt.OtherFocusReason)

    def _selected(self) -> None:
        finding = self.current()
        self.sentences.clear()
        self.apply_button.setEnabled(finding is not None)
        if finding is None:
            return
        session = self.session()
        for kind, indices, occs in (("odd", finding.suspects, finding.entry.suspects),
                                    ("majority", finding.supporters,
                                     finding.entry.supporters[:50])):
            for idx, occ in zip(indices, occs):
                words = " ".join(session.sentences[idx].forms[occ.start:occ.end + 1])
                state = session.state(idx)
                item = QListWidgetItem(f"{kind}: sentence {idx + 1} ({state}): {words}")
                item.setData(Qt.UserRole, idx)
                self.sentences.addItem(item)
