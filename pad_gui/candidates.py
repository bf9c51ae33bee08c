"""The candidates panel: which model decodes and why (in full), the k best trees of the
sentence on screen (score, and in words what each changes against the first: its first change
on the line, every change in the tooltip), a note on what is shown, and the Mark corrected
button."""

from __future__ import annotations

import html
import math
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

from pad_engine.api import Candidate, LexNode, PadError, describe_change
from pad_gui.session import Decoded, View

ALL = 1_000  # changes named in a tooltip: every one


def change_line(i: int, first: Candidate, c: Candidate, forms: list[str]) -> str:
    """Candidate ``i``'s line: its number, score, how it was found when that is unusual, and
    (after the first) its first change against the first candidate, so the list reads
    "PP 'in town' attaches to VP, not NP" rather than a count of brackets."""
    how = f"  ({c.how})" if c.how not in ("pruned", "exact") else ""
    change = describe_change(first.tree, c.tree, forms, most=1) if i else ""
    score = f"{c.score:8.2f}" if math.isfinite(c.score) else f"{'—':>8}"  # no model score
    return f"{i + 1:2d}.  {score}{how}" + (f"  {change}" if change else "")


def change_tip(i: int, first: Candidate, c: Candidate, forms: list[str]) -> str:
    """The tooltip of candidate ``i``: every change against the first, then its Penn line
    (rich text, which Qt wraps, where a long plain line would run off the screen)."""
    changes = describe_change(first.tree, c.tree, forms, most=ALL) if i else ""
    said = f"<p>{html.escape(changes)}</p>" if changes else ""
    return f"{said}<p><tt>{html.escape(c.penn(forms))}</tt></p>"


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
        self.list.setWordWrap(True)  # a change in words is longer than the panel is wide
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
        header = QLabel("Candidates (keys 1-9): model score, what each changes against "
                        "candidate 1 (all of it on hover)")
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
            for i, c in enumerate(decoded):
                item = QListWidgetItem(change_line(i, decoded[0], c, forms))
                item.setToolTip(change_tip(i, decoded[0], c, forms))
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
