"""Re-attaching a word (dragging it onto its new head) as a small state machine.

A re-attachment changes the d-parse, so the tree shown must fit the new arcs before the
change can be one undo step (arcs and tree together). An edited tree keeps its edits: the
word's subtree moves under its new head and every phrase outside it stays
(``edits.reattach``, checked against the new arcs). Otherwise, or when no phrase of the new
head can take the subtree, the tree comes from a decode under the new arcs. It is refused
when the arcs would not form a tree (several roots count as a tree only in a sentence that
had them), done at once when the tree is kept or that d-parse is decoded already, and
otherwise waits for its decode;
while one waits, another is ignored (the annotator sees "Re-decoding…"). A new model or
another file forgets the waiting one.
"""

from __future__ import annotations

from dataclasses import dataclass

from pad_engine.api import edits, tree_problem
from pad_gui.session import Session, View


@dataclass(frozen=True)
class Change:
    """Sentence ``idx`` goes from ``before`` to ``after`` (one undo step)."""

    idx: int
    before: View
    after: View


class Reattach:
    """At most one re-attachment waiting for its decode."""

    def __init__(self) -> None:
        self.pending: Change | None = None

    def ask(self, session: Session, idx: int, dep: int, head: int) -> Change | str | None:
        """Make ``head`` the head of word ``dep`` in sentence ``idx``: the change (then
        ``pending`` too when it waits for its decode), or why not (a str); None while
        another change waits."""
        if self.pending is not None:
            return None
        view = session.view(idx)
        heads = list(view.heads)
        heads[dep - 1] = head
        # a sentence read with several roots (older CoNLL treebanks) may keep them
        problem = tree_problem(heads, several_roots=view.heads.count(0) > 1)
        if problem is not None:
            return f"Cannot re-attach word {dep} to {head}: {problem}"
        if view.tree is not None:
            try:
                kept = edits.reattach(view.tree, dep, head)
            except ValueError:
                pass  # decoded afresh below: the edits cannot be kept with this arc
            else:
                return Change(idx, view, View(tuple(heads), view.chosen, kept))
        change = Change(idx, view, View(tuple(heads)))
        if session.key(idx, change.after) not in session.cache:
            self.pending = change
        return change

    def decoded(self, idx: int, heads: tuple[int, ...]) -> Change | None:
        """A decode arrived: the waiting change if it was the one it waited for."""
        change = self.pending
        if change is not None and change.idx == idx and change.after.heads == heads:
            self.pending = None
            return change
        return None

    def forget(self) -> None:
        self.pending = None
