"""View > Search Treebank: a query over the open file's trees and d-parses, its matches
listed with each sentence's status; Enter or a double click shows the sentence with the
match selected. The language is ``pad search``'s (its help is the field's tooltip)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from pad_engine.api import PadError, edits
from pad_gui.controllers.quality import Hit, SearchIndex, search
from pad_gui.session import Session

TOOLTIP = ("NP < PP: an NP with a PP child.  Relations: < child, << descendant, > parent, "
           ">> ancestor, $ sister, . immediately precedes, .. precedes, , immediately follows, "
           ",, follows; -rel-> arc from the node's head word to the other's (-/re/->, --> any; "
           "<-rel- the other way); ! negates; NP|VP, /regex/, __ any node; NP=name names a "
           "node, =name refers to it.")


class SearchPanel(QWidget):
    """The query field, the matches, and what the last search found."""

    def __init__(self, session: Callable[[], Session | None],
                 go: Callable[[int, edits.Path], None], parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.go = go
        self.hits: list[Hit] = []
        self.index = SearchIndex()
        self.query = QLineEdit()
        self.query.setPlaceholderText("Query, e.g.  VP < (VBD -nsubj-> NP)   (Enter to search)")
        self.query.setToolTip(TOOLTIP)
        self.query.returnPressed.connect(self.run)
        button = QPushButton("Search")
        button.clicked.connect(self.run)
        self.note = QLabel("Search the open file's trees and d-parses.")
        self.note.setWordWrap(True)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Sentence", "Status", "Match"])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.Stretch)
        self.table.activated.connect(lambda index: self.show_hit(index.row()))
        row = QHBoxLayout()
        row.addWidget(self.query, 1)
        row.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.note)
        layout.addWidget(self.table, 1)

    def run(self) -> None:
        session = self.session()
        if session is None:
            self.note.setText("Open a file first.")
            return
        try:
            self.hits, count, searched = search(session, self.query.text(), self.index)
        except PadError as err:
            self.note.setText(f"<span style='color:#b00020'>{err}</span>")
            return
        self.table.setRowCount(len(self.hits))
        for r, hit in enumerate(self.hits):
            for c, text in enumerate((str(hit.idx + 1), hit.status, hit.text)):
                item = QTableWidgetItem(text)
                if c == 2:
                    item.setToolTip(text)
                self.table.setItem(r, c, item)
        self.table.resizeColumnToContents(0)
        self.table.resizeColumnToContents(1)
        shown = f" (the first {len(self.hits)} listed)" if count > len(self.hits) else ""
        sentences = len({h.idx for h in self.hits})
        waiting = len(session) - searched
        self.note.setText(f"{count} matches in {sentences} sentences{shown}; "
                          f"{searched} sentences searched" +
                          (f", {waiting} not decoded yet" if waiting else ""))
        if self.hits:
            self.table.selectRow(0)
            self.table.setFocus(Qt.OtherFocusReason)

    def show_hit(self, row: int) -> None:
        if 0 <= row < len(self.hits):
            hit = self.hits[row]
            self.go(hit.idx, hit.path)
