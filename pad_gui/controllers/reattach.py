"""Re-attaching a word (dragging it onto its new head) as a small state machine; the tag
and relation edits wait for their decode the same way (``controllers.layers``).

A re-attachment changes the d-parse, so the tree shown must fit the new arcs before the
change can be one undo step (arcs and tree together). An edited tree keeps its edits: the
word's subtree moves under its new head and every phrase outside it stays
(``edits.reattach``, checked against the new arcs). Otherwise, or when no phrase of the new
head can take the subtree, the tree comes from a decode under the new arcs. It is refused
when the arcs would not form a tree (several roots count as a tree only in a sentence that
had them), done at once when the tree is kept or that d-parse is decoded already, and
otherwise waits for its decode;
while one waits, another is ignored (the annotator sees "Re-decoding…"). A new model or
another file forgets the waiting one. The re-attached arc gets the relation
``Session.propose_relation`` proposes (``proposal``), for the annotator to confirm or change.

Choosing the new head with the keyboard is a state machine of its own (:class:`HeadChoice`):
the parse view draws the choice and hands it keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from pad_engine.api import edits, tree_problem
from pad_gui.events import Event
from pad_gui.session import Session, View


@dataclass(frozen=True)
class Change:
    """Sentence ``idx`` goes from ``before`` to ``after`` (one undo step)."""

    idx: int
    before: View
    after: View


class Reattach:
    """At most one change waiting for its decode: ``pending``, logged as ``what`` (kind and
    undo text) once done."""

    def __init__(self) -> None:
        self.pending: Change | None = None
        self.what = ("reattach", "Re-attach word")
        self.proposal: tuple[int, str, str] | None = None  # word, relation proposed, why

    def ask(self, session: Session, idx: int, dep: int, head: int) -> Change | str | None:
        """Make ``head`` the head of word ``dep`` in sentence ``idx``: the change (done at
        once or after its decode: :meth:`wait`), or why not (a str); None while another
        change waits."""
        if self.pending is not None:
            return None
        view = session.view(idx)
        heads = list(view.heads)
        heads[dep - 1] = head
        # a sentence read with several roots (older CoNLL treebanks) may keep them
        problem = tree_problem(heads, several_roots=view.heads.count(0) > 1)
        if problem is not None:
            return f"Cannot re-attach word {dep} to {head}: {problem}"
        after = replace(view, heads=tuple(heads))
        proposal = session.propose_relation(idx, after, dep)
        self.proposal = None
        if proposal is not None:
            rels = session.rels(idx, view)
            rels[dep - 1] = proposal[0]
            after = replace(after, rels=tuple(rels))
            self.proposal = (dep, *proposal)
        if view.tree is not None:
            try:
                kept = edits.reattach(view.tree, dep, head)
            except ValueError:
                pass  # decoded afresh below: the edits cannot be kept with this arc
            else:
                return Change(idx, view, replace(after, tree=kept))
        return Change(idx, view, replace(after, chosen=0, tree=None))

    def wait(self, session: Session, change: Change, kind: str, text: str) -> Change | None:
        """``change``, and ``pending`` too when its tree must come from a decode not made
        yet; None while another change waits."""
        if self.pending is not None:
            return None
        after = change.after
        if after.tree is None and session.key(change.idx, after) not in session.cache:
            self.pending, self.what = change, (kind, text)
        return change

    def decoded(self, session: Session, key: tuple) -> Change | None:
        """A decode arrived: the waiting change if it was the one it waited for."""
        change = self.pending
        if change is not None and session.key(change.idx, change.after) == key:
            self.pending = None
            return change
        return None

    def forget(self) -> None:
        self.pending = self.proposal = None


class HeadChoice:
    """Choosing a word's new head with the keyboard (Edit > Re-attach Word): the word to
    re-attach and the head proposed, which keys move, until it is taken or cancelled. It
    keeps the arcs of the sentence drawn (``show``), so the view only draws the choice.

    Event: ``changed(choice)``: the (word, head) to show, 1-based, or None once it ends.
    """

    def __init__(self) -> None:
        self.forms: list[str] = []
        self.heads: tuple[int, ...] = ()
        self.choice: tuple[int, int] | None = None
        self.changed = Event()

    def show(self, forms: list[str], heads: Sequence[int]) -> None:
        """A sentence is drawn with these arcs: a choice in hand stays through a redraw of
        a sentence of the same length (a decode, an edit), and shows again."""
        if len(heads) != len(self.heads):
            self.choice = None
        self.forms, self.heads = list(forms), tuple(heads)
        self.changed.emit(self.choice)

    def start(self, dep: int | None) -> str:
        """Start choosing a new head for word ``dep`` (None: the selection names no one
        word), its present head first; says what to do next, or why not."""
        if dep is None:
            return "Select one node: its head word is the word to re-attach"
        head = self.heads[dep - 1] or (dep + 1 if dep < len(self.heads) else dep - 1)
        if head < 1:
            return "A one-word sentence has no other word to attach to"
        self._propose(dep, head)
        return (f"Re-attach word {dep} ({self.forms[dep - 1]}): Left/Right choose the new "
                "head, Up its head, Enter attaches, Escape cancels")

    def move(self, way: str) -> None:
        """"left"/"right": the next word either way (not the word itself); "up": the
        proposed head's own head."""
        dep, head = self.choice
        if way == "up":
            target = self.heads[head - 1] or head
        else:
            step = -1 if way == "left" else 1
            target = head + step
            if target == dep:
                target += step
        if 1 <= target <= len(self.heads) and target != dep:
            self._propose(dep, target)

    def end(self) -> tuple[int, int] | None:
        """Stop choosing; the word and the head chosen (None: nothing was being chosen)."""
        chosen, self.choice = self.choice, None
        if chosen is not None:
            self.changed.emit(None)
        return chosen

    def _propose(self, dep: int, head: int) -> None:
        self.choice = (dep, head)
        self.changed.emit(self.choice)
