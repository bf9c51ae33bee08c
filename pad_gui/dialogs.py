"""Small dialogs (the label and head of a node to insert, the effort summary) and the button
row of the dialogs that run a background job."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from pad_engine.api import DEFAULT_HEADRULES, HEADRULES, PSD_HEADRULES
from pad_gui.session import EDIT_KINDS, Session

REFERENCE = ("For comparison: annotators of the Annotate tool accepted about 70% of its "
             "suggestions at about 1,300 tokens an hour.")


def bring_to_front(dialog: QWidget) -> None:
    """Show a window's dialog in front of it and give it the keyboard (a dialog parented to
    the main window stays above it; raising and activating brings back one already open)."""
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()


class HelpDialog(QDialog):
    """A help text that fits the screen: as tall as its text where the screen allows,
    scrolling beyond that, its OK button always in reach."""

    def __init__(self, title: str, html: str, parent: QWidget | None):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.html = html
        self.browser = QTextBrowser(self)
        self.browser.setHtml(html)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok)
        buttons.accepted.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)
        room = self._room()
        document = self.browser.document().clone(self)  # the browser's own is laid out
        document.setTextWidth(min(720, room.width() - 80))  # to its (unshown) width
        want = document.size().toSize()
        self.resize(min(want.width() + 60, room.width() - 40),
                    min(want.height() + 90, room.height() - 80))

    def _room(self):
        parent = self.parentWidget()
        return (parent.screen() if parent is not None else self.screen()).availableGeometry()

    def showEvent(self, event) -> None:
        """Placed over its window, but moved onto the screen where that window is not."""
        super().showEvent(event)
        room, frame = self._room(), self.frameGeometry()
        x = max(room.left(), min(frame.left(), room.right() - frame.width()))
        y = max(room.top(), min(frame.top(), room.bottom() - frame.height()))
        if (x, y) != (frame.left(), frame.top()):
            self.move(x, y)

    def text(self) -> str:
        """The help as given (HTML), as QMessageBox.text() gives it."""
        return self.html


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


def table_layout(dialog: QDialog, headers: tuple[str, ...], note: str,
                 actions: list[tuple[str, object]]) -> tuple[QTableWidget, QLabel, list]:
    """Lay ``dialog`` out as a table of whole-row choices, a note under it and a row of
    buttons (``actions``: text and slot, then Close); returns the table, note and buttons."""
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().hide()
    table.setSelectionBehavior(QAbstractItemView.SelectRows)
    table.setSelectionMode(QAbstractItemView.SingleSelection)
    table.setEditTriggers(QAbstractItemView.NoEditTriggers)
    label = QLabel(note)
    label.setWordWrap(True)
    box = QDialogButtonBox()
    buttons = []
    for text, slot in actions:
        button = box.addButton(text, QDialogButtonBox.ActionRole)
        button.clicked.connect(slot)
        buttons.append(button)
    box.addButton(QDialogButtonBox.Close).clicked.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(table, 1)
    layout.addWidget(label)
    layout.addWidget(box)
    return table, label, buttons


AUTO = "Detect (UTF-8, else named in the status bar)"
ENCODINGS = (AUTO, "utf-8", "cp1252", "latin-1", "cp1250", "iso-8859-2", "cp1251", "koi8-r",
             "gb18030", "big5", "shift_jis", "euc-kr")


AUTO_HEADS = (f"Default: {DEFAULT_HEADRULES} (Penn), {PSD_HEADRULES} (Penn-Helsinki .psd)")
FILE_TYPES = ("Treebanks and text (*.conllu *.conll *.conllx *.mrg *.ptb *.psd *.txt)",
              "CoNLL (*.conllu *.conll *.conllx)", "Penn trees (*.mrg *.ptb)",
              "Penn-Helsinki trees (*.psd)", "Text, one sentence a line (*.txt)", "All files (*)")


class OpenDialog(QFileDialog):
    """File > Open: a treebank or text file, how its bytes are decoded, and for tree files
    the head table that reads their d-parses off them.

    Qt's own (not the platform's) file dialog, so that the Encoding and Head table boxes can
    sit under the file type; any codec name Python knows, or a head table file, may be typed
    into them."""

    def __init__(self, parent: QWidget | None, start: str):
        super().__init__(parent, "Open treebank or text", start, ";;".join(FILE_TYPES))
        self.setOption(QFileDialog.DontUseNativeDialog, True)
        self.setFileMode(QFileDialog.ExistingFile)
        self.encoding_box = self._box("Encoding:", "encoding", ENCODINGS)
        self.heads_box = self._box("Head table:", "headrules", (AUTO_HEADS, *HEADRULES))
        self.heads_box.setToolTip("Penn and .psd files: the table that reads each tree's "
                                  "d-parse (the arcs) off it; a table file's path may be typed")
        self.keep_tokens = QCheckBox("Text: keep its white-space tokens (punctuation and "
                                     "clitics are split off otherwise, as pad parse --tokenize)")
        self.layout().addWidget(self.keep_tokens, self.layout().rowCount(), 0, 1, -1)

    def _box(self, label: str, name: str, items) -> QComboBox:
        """An editable choice in a row of its own under the file type."""
        box = QComboBox(self)
        box.setEditable(True)
        box.addItems(items)
        box.setObjectName(name)
        grid = self.layout()
        row = grid.rowCount()
        grid.addWidget(QLabel(label, self), row, 0)
        grid.addWidget(box, row, 1)
        return box

    def encoding(self) -> str | None:
        """The chosen encoding, None to detect."""
        text = self.encoding_box.currentText().strip()
        return None if not text or text == AUTO else text

    def tokenize(self) -> bool:
        """Whether text is split into tokens (not kept as its white space splits it)."""
        return not self.keep_tokens.isChecked()

    def headrules(self) -> str | None:
        """The chosen head table, None for the file's default."""
        text = self.heads_box.currentText().strip()
        return None if not text or text == AUTO_HEADS else text
