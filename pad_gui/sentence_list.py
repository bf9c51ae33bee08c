"""The sentence list: a cheap table model over the session (rows are computed on demand,
so a treebank of thousands of sentences opens at once), a text filter, and the panel that
shows them with the Next uncorrected button."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QAbstractTableModel, QItemSelectionModel, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from pad_gui.session import Session

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
                return self.session.state(row)
            return self.session.text(row)
        if role == Qt.ForegroundRole and col == 2 and self.session.is_corrected(row):
            return CORRECTED_INK
        if role == Qt.TextAlignmentRole and col < 2:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None

    def refresh(self, row: int) -> None:
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(HEADERS) - 1))


class SentenceFilter(QSortFilterProxyModel):
    """Case-insensitive substring filter on the sentence text, in file order or in the order
    ``key`` gives each sentence (None: not known yet, after the others in file order)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFilterKeyColumn(TEXT_COLUMN)
        self.setFilterCaseSensitivity(Qt.CaseInsensitive)
        self.key: Callable[[int], tuple | None] | None = None

    def order(self, key: Callable[[int], tuple | None] | None) -> None:
        """Sort by ``key`` (kept up as rows change), or back to file order with None."""
        self.key = key
        self.invalidate()
        self.sort(0 if key is not None else -1)

    def lessThan(self, left, right) -> bool:
        if self.key is None:
            return left.row() < right.row()
        return self._rank(left.row()) < self._rank(right.row())

    def _rank(self, row: int) -> tuple:
        key = self.key(row)
        return (1, row) if key is None else (0, key)


class SentencePanel(QWidget):
    """Filter box, sentence table and Next uncorrected; choosing a row calls ``show(idx)``."""

    def __init__(self, show: Callable[[int], None], parent: QWidget | None = None):
        super().__init__(parent)
        self.model = SentenceModel()
        self.proxy = SentenceFilter(self)
        self.proxy.setSourceModel(self.model)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter sentences…")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setTabKeyNavigation(False)  # Tab goes to the next panel, not cell
        digits = self.table.fontMetrics().horizontalAdvance("0") * 5 + 16  # "#" up to 99,999
        for col, width in enumerate((digits, 36, 72)):
            self.table.setColumnWidth(col, width)
        self._show = show
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        self.filter.setFocusPolicy(Qt.ClickFocus)  # Ctrl+F; Tab walks the panels
        self.next_button = QPushButton("Next uncorrected (F8)")
        self.next_button.setFocusPolicy(Qt.NoFocus)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.filter)
        lay.addWidget(self.table)
        lay.addWidget(self.next_button)

    def _row_changed(self, current, previous) -> None:
        if current.isValid():
            self._show(self.proxy.mapToSource(current).row())

    def focus_filter(self) -> None:
        self.filter.setFocus(Qt.ShortcutFocusReason)
        self.filter.selectAll()

    def select(self, idx: int) -> None:
        """Make sentence ``idx`` the current row (clearing a filter that hides it)."""
        source = self.model.index(idx, 0)
        proxied = self.proxy.mapFromSource(source)
        if not proxied.isValid():
            self.filter.clear()
            proxied = self.proxy.mapFromSource(source)
        self.table.selectionModel().setCurrentIndex(
            proxied, QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)
        self.table.scrollTo(proxied)
