"""The candidates panel: which model decodes and why (in full), the k best trees of the
sentence on screen (score, brackets added and removed against the first), a note on what is
shown, and the Mark corrected button."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from pad_engine.api import LexNode, PadError, edits
from pad_gui.session import Decoded, View


def against_first(first: LexNode, tree: LexNode) -> tuple[int, int]:
    """The brackets ``tree`` adds to and removes from the first candidate ``first``."""
    a, b = edits.brackets(first), edits.brackets(tree)
    return sum((b - a).values()), sum((a - b).values())


class CandidatePanel(QWidget):
    """Shows the model and a sentence's candidates; choosing one calls ``pick(row)``."""

    def __init__(self, pick: Callable[[int], None], parent: QWidget | None = None):
        super().__init__(parent)
        self.model = QLabel("Loading the model…")
        self.model.setWordWrap(True)
        self.model.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.model.setFrameShape(QLabel.StyledPanel)
        self.list = QListWidget()
        self.list.setFont(QFontDatabase.systemFont(QFontDatabase.FixedFont))
        self.list.currentRowChanged.connect(self._on_row)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.mark_button = QPushButton("Mark corrected (Ctrl+Enter)")
        self.mark_button.setCheckable(True)
        self.mark_button.setFocusPolicy(Qt.NoFocus)  # Tab walks the panels; Ctrl+Enter
        self._pick = pick
        self._filling = False
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.model)
        header = QLabel("Candidates (keys 1-9): model score, brackets added / removed "
                        "against candidate 1")
        header.setWordWrap(True)
        lay.addWidget(header)
        lay.addWidget(self.list, 1)
        lay.addWidget(self.note)
        lay.addWidget(self.mark_button)

    def _on_row(self, row: int) -> None:
        if not self._filling and row >= 0:
            self._pick(row)

    def clear(self) -> None:
        """No file open: no candidates, nothing to mark."""
        self._filling = True
        self.list.clear()
        self.note.clear()
        self.mark_button.setChecked(False)
        self._filling = False

    def show_candidates(self, decoded: Decoded | None, view: View, forms: list[str],
                        corrected: bool, model_problem: str | None,
                        file_tree: LexNode | None = None) -> None:
        """Fill the list (the picked one current), the note and the button; ``file_tree``:
        the tree the file itself gave the sentence, if any."""
        self._filling = True
        self.list.clear()
        if isinstance(decoded, list):
            first = decoded[0].tree if decoded else None
            for i, c in enumerate(decoded):
                more = "   +{} / -{}".format(*against_first(first, c.tree)) if i else ""
                how = f"  ({c.how})" if c.how not in ("pruned", "exact") else ""
                item = QListWidgetItem(f"{i + 1:2d}.  {c.score:8.2f}{how}{more}")
                item.setToolTip(c.penn(forms))
                self.list.addItem(item)
            if view.tree is None and decoded:
                self.list.setCurrentRow(min(view.chosen, len(decoded) - 1))
            note = ""
            if view.tree is not None and view.tree is file_tree:
                note = "The file's own tree (pick a candidate to replace it)"
            elif view.tree is not None:
                note = "Edited tree (pick a candidate to discard the edits)"
            if decoded and decoded[0].lifted and view.tree is None:
                arcs = ", ".join(f"word {x.dependent} from {x.original_head} to {x.new_head}"
                                 for x in decoded[0].lifted)
                note = (f"Non-projective d-parse: the trees lift {arcs} (dashed arcs). "
                        "Re-attach to change it.")
            if decoded and decoded[0].cut_to and view.tree is None:
                cut = decoded[0].cut_to
                note = (note + " " if note else "") + (
                    f"Only {cut} candidate{'s' if cut > 1 else ''} here: the k-best list was "
                    "cut for this sentence, its chart too large for more within memory.")
        elif isinstance(decoded, PadError):
            note = f"No tree: {decoded}"
        elif model_problem:
            note = f"No model: {model_problem}"
        else:
            note = "Decoding…"
        self.note.setText(note)
        self.mark_button.setChecked(corrected)
        self.mark_button.setText("Corrected ✓ (Ctrl+Enter)" if corrected
                                 else "Mark corrected (Ctrl+Enter)")
        self._filling = False
