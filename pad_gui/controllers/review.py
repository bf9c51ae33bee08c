"""What a retrained version would change before it decodes: the sentences not yet corrected
whose tree it changes, and stepping through them (Retrain's Review…).

The cross-validated F1 says whether a version is better on the corrected trees; it says
nothing of what the annotator will find changed in the rest of the file, and a version put
in use silently re-decodes every sentence not yet corrected. So after cross-validation the
retrain worker decodes those sentences with the new model (pruned, as the app decodes) and
compares its best tree with the one the version in use shows: the session's decoded best,
or, where the background pass has not reached a sentence yet, the version in use's best
decoded there. Only sentences that show a model's tree take part: an edited tree, or the
tree a Penn file gave a sentence, stays whatever model decodes.

The 1-best decode is four times faster than the k-best list the app shows; its tree is
the list's first but for ties (2 of 2,000 EWT dev sentences), so a sentence found changed
is decoded again as the app would (k best) before it counts. Measured on two cores shared
with other work, the bundled UD model against itself: UD English EWT train (12,544
sentences) compares in 47 s when none is decoded yet (both models decode each), 3 ms a
sentence once the background pass has decoded them (1.3 of it the new model's decode); so
it reports progress every :data:`STEP` sentences and stops when cancelled.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pad_engine.api import (
    Cancelled,
    Converter,
    DepSentence,
    PadError,
    describe_change,
    edits,
    merged_brackets,
    removed_brackets,
)
from pad_gui.controllers.decoded import DecodedCache, Packed, first_tree
from pad_gui.controllers.engine import K_BEST
from pad_gui.controllers.messages import Changes, Compared, TreeChange
from pad_gui.events import Event
from pad_gui.session import Session

STEP = 50  # sentences between progress reports (and looks at the cancel button)


@dataclass(frozen=True)
class Pending:
    """A sentence to compare: its index, itself under the arcs it is shown with, and the
    version in use's candidates when they are decoded already (read on the worker)."""

    idx: int
    sent: DepSentence
    shown: Packed | None


def pending(session: Session) -> list[Pending]:
    """The sentences not yet corrected that show a model's tree, taken on the UI thread
    (the worker must not read the session, which the UI thread changes)."""
    out = []
    for idx in range(len(session)):
        if session.is_corrected(idx):
            continue
        view = session.view(idx)
        if view.tree is None:
            out.append(Pending(idx, session.as_viewed(idx, view),
                               session.cache.packed(session.key(idx, view))))
    return out


def compare_uncorrected(todo: Sequence[Pending], new: Converter, old: Converter | None,
                        report: Callable[[Compared], None],
                        cancel: Callable[[], bool]) -> Changes:
    """The sentences of ``todo`` whose best tree under ``new`` differs (in its brackets,
    unary chains of one label merged) from the one shown; run on a worker. A sentence
    either model cannot decode is left out (it shows no tree to change)."""
    changed = []
    for n, p in enumerate(todo):
        if n % STEP == 0:
            if cancel():
                raise Cancelled()
            report(Compared(n, len(todo)))
        try:
            change = _compared(p, new, old)
        except PadError:
            continue
        if change is not None:
            changed.append(change)
    report(Compared(len(todo), len(todo)))
    return Changes(tuple(changed), len(todo))


def _compared(p: Pending, new: Converter, old: Converter | None) -> TreeChange | None:
    if p.shown is None and old is None:
        return None  # nothing decodes now: no tree is shown to change
    shown = first_tree(p.shown, DecodedCache.labels) if p.shown is not None else \
        old.best(p.sent).tree
    if merged_brackets(new.best(p.sent).tree) == merged_brackets(shown):
        return None
    tree = new.candidates(p.sent, k=K_BEST)[0].tree  # what the app would show
    if p.shown is None:
        shown = old.candidates(p.sent, k=K_BEST)[0].tree
    if merged_brackets(tree) == merged_brackets(shown):
        return None
    return TreeChange(p.idx, tuple(p.sent.heads), shown, tree)


class Review:
    """The sentences a new version changes, one at a time: ``at`` (0-based) of ``len``;
    ``compared``: how many sentences not yet corrected were compared. Built when the
    comparison ends, from the changes still true then (a sentence corrected, edited or
    re-attached meanwhile is left out). Event: ``moved()`` when another one is current."""

    def __init__(self, session: Session, changes: Changes):
        self.session = session
        self.compared = changes.compared
        self.changes = [c for c in changes.changed if not session.is_corrected(c.idx)
                        and session.view(c.idx).tree is None
                        and session.view(c.idx).heads == c.heads]
        self.at = 0
        self.moved = Event()

    def __len__(self) -> int:
        return len(self.changes)

    @property
    def current(self) -> TreeChange | None:
        return self.changes[self.at] if self.changes else None

    def step(self, by: int) -> None:
        """The next (``by`` 1) or previous (-1) changed sentence; stays at either end."""
        at = max(0, min(len(self.changes) - 1, self.at + by))
        if at != self.at:
            self.at = at
            self.moved.emit()

    def position(self) -> str:
        """"3 of 17"."""
        return f"{self.at + 1} of {len(self.changes)}" if self.changes else "none"

    def sentence(self) -> DepSentence:
        """The current sentence under the arcs its trees were decoded with."""
        c = self.current
        return dataclasses.replace(self.session.as_viewed(c.idx), heads=list(c.heads))

    def added(self) -> Counter[tuple[str, int, int]]:
        """The brackets the new tree adds: marked in it, as a candidate's are."""
        c = self.current
        return edits.brackets(c.new) - edits.brackets(c.old)

    def removed(self) -> str:
        """The brackets the new tree removes, in words ("NP 'the old man'; PP 'in it'")."""
        c = self.current
        forms = self.session.sentences[c.idx].forms
        return "; ".join(f"{label} '{_span(forms, i, j)}'"
                         for label, i, j in sorted(removed_brackets(c.old, c.new),
                                                   key=lambda b: (b[1], -b[2], b[0])))

    def description(self) -> str:
        """What the new tree changes, in one line ("PP attaches to VP, not NP")."""
        c = self.current
        return describe_change(c.old, c.new, self.session.sentences[c.idx].forms)


def _span(forms: list[str], i: int, j: int) -> str:
    words = forms[i:j + 1]
    return " ".join(words) if len(words) <= 6 else f"{' '.join(words[:3])} … {words[-1]}"
