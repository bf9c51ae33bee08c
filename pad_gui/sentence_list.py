"""The sentence list: a cheap table model over the session (rows are computed on demand,
so a treebank of thousands of sentences opens at once) and a text filter."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor

from pad_gui.session import CORRECTED, MACHINE, Session

HEADERS = ("#", "Len", "Status", "Text")
TEXT_COLUMN = 3
CORRECTED_INK = QColor("#2e7d32")


class SentenceModel(QAbstractTableModel):
    """One row per sentence: index (1-based), length, status, text."""

    def __init__(self, session: Session | None = None, parent=None):
        super().__init__(parent)
        self.session = session

    def set_session(self, session: Session | None) -> None:
        self.beginResetModel()
        self.session = session
        self.endResetModel()

    def rowCount(self, parent=None) -> int:
        if (parent is not None and parent.isValid()) or self.session is None:
            return 0
        return len(self.session)

    def columnCount(self, parent=None) -> int:
        return 0 if (parent is not None and parent.isValid()) else len(HEADERS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role == Qt.DisplayRole and orientation == Qt.Horizontal:
            return HEADERS[section]
        return None

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or self.session is None:
            return None
        row, col = index.row(), index.column()
        if role == Qt.DisplayRole:
            if col == 0:
                return row + 1
            if col == 1:
                return len(self.session.sentences[row])
            if col == 2:
                return CORRECTED if self.session.is_corrected(row) else MACHINE
            return self.session.text(row)
        if role == Qt.ForegroundRole and col == 2 and self.session.is_corrected(row):
            return CORRECTED_INK
        if role == Qt.TextAlignmentRole and col < 2:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None

    def refresh(self, row: int) -> None:
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(HEADERS) - 1))


class SentenceFilter(QSortFilterProxyModel):
    """Case-insensitive substring filter on the sentence text."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFilterKeyColumn(TEXT_COLUMN)
        self.setFilterCaseSensitivity(Qt.CaseInsensitive)
