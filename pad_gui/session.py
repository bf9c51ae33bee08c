"""An open treebank and its project: the sentences, what the annotator made of each one,
the candidates decoded so far, and the effort spent. No Qt here, so it is easy to test.

A corrected sentence keeps its tree whatever model decodes later: an edited tree is stored
as such, and a candidate accepted unchanged is kept too (``kept``), because a retrained or
switched model would rank different candidates under the same index.

The project knows a sentence by its key (``store.sentence_keys``), not its position, so
corrections follow their sentences when the file changes; those that lost their sentence
are listed (``detached``) and may be applied to a sentence by hand.

A Penn or ``.psd`` file brings its own trees (``from_file``): a sentence's view starts as
that tree, so the annotator corrects it (or picks a candidate instead) and exports it.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from pad_engine.api import (
    Candidate,
    ConllResult,
    DepSentence,
    LexNode,
    PadError,
    TreeFileResult,
    edited_heads,
    edits,
    to_line,
)
from pad_gui.controllers.decoded import DecodedCache
from pad_gui.controllers.project_rows import CORRECTED, MACHINE, SavedSentence
from pad_gui.store import Detached, ProjectStore, sentence_keys

EDITED = "edited"  # not corrected yet, but the annotator changed something
FROM_FILE = "from file"  # the tree a Penn or .psd file gave it, untouched
EDIT_KINDS = ("pick", "relabel", "insert", "delete", "head", "reattach", "tag", "relation")
IDLE_CAP = 300.0  # seconds: a longer pause on one sentence counts as a break, not work

Decoded = list[Candidate] | PadError


@dataclass(frozen=True)
class View:
    """What the annotator has made of one sentence: its d-parse, the candidate picked, the
    edited tree (None while the picked candidate is shown unchanged), and the POS tags and
    relations (DEPREL) when the annotator changed them (None: the file's). Tags are model
    input, and so are relations for a model that reads them: both are in the decode key."""

    heads: tuple[int, ...]
    chosen: int = 0
    tree: LexNode | None = None
    tags: tuple[str, ...] | None = None
    rels: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Record:
    """What the project holds for one sentence: the annotator's view (None until changed),
    its status, the seconds spent on it, and the tree a corrected sentence was accepted with
    (``kept``). Replaced on every change, never changed in place, so that a reader tells by
    identity that nothing changed (the search index does)."""

    view: View | None = None
    status: str = MACHINE
    seconds: float = 0.0
    kept: LexNode | None = None


UNTOUCHED = Record()


@dataclass
class Summary:
    """Effort over the corrected sentences."""

    corrected: int
    tokens: int
    seconds: float
    as_proposed: int  # corrected with the first candidate, untouched
    actions: dict[str, int]

    @property
    def tokens_per_hour(self) -> float:
        return self.tokens / (self.seconds / 3600) if self.seconds > 0 else 0.0

    @property
    def share_as_proposed(self) -> float:
        return self.as_proposed / self.corrected if self.corrected else 0.0


class Session:
    """Holds everything about the open treebank; writes to the project as it changes."""

    def __init__(self, path: Path, result: ConllResult, store: ProjectStore, serial: int = 0):
        self.path = path
        self.serial = serial  # the workspace numbers sessions and models: older is stale
        self.sentences = result.sentences
        self.skipped = result.skipped
        self.format = result.format
        self.predicted_by = result.predicted_by  # text model whose arcs these are, if any
        self.store = store
        self.cache = DecodedCache()  # decode key -> candidates (packed) or the error
        self._words = [" ".join(s.forms) for s in self.sentences]
        self.keys = sentence_keys([s.sent_id for s in self.sentences], self._words)
        self._index = {k: i for i, k in enumerate(self.keys)}
        self.records: dict[int, Record] = {}  # the sentences the project has a row for
        self.from_file: dict[int, LexNode] = dict(enumerate(result.trees)) \
            if isinstance(result, TreeFileResult) else {}
        saved_rows = store.load(self.keys, self._words, [len(s) for s in self.sentences])
        for idx, saved in saved_rows.items():
            if saved.heads is None and idx in self.from_file:  # its view was never changed
                self.records[idx] = Record(None, saved.status, saved.seconds)
                continue
            heads = tuple(saved.heads) if saved.heads else tuple(self.sentences[idx].heads)
            self.records[idx] = Record(_saved_view(heads, saved), saved.status,
                                       saved.seconds, _accepted(saved))
        self._relations: dict | None = None  # the file's relation counts, made when asked
        store.set_meta("treebank", str(path))

    def __len__(self) -> int:
        return len(self.sentences)

    def text(self, idx: int) -> str:
        return self._words[idx]

    def record(self, idx: int) -> Record:
        return self.records.get(idx, UNTOUCHED)

    def _update(self, idx: int, **changes: object) -> None:
        self.records[idx] = dataclasses.replace(self.record(idx), **changes)

    def view(self, idx: int) -> View:
        return self.record(idx).view or self.first_view(idx)

    def first_view(self, idx: int) -> View:
        """The view before the annotator changed anything: the file's arcs, the first
        candidate, or the file's own tree when it has one."""
        return View(tuple(self.sentences[idx].heads), 0, self.from_file.get(idx))

    def key(self, idx: int, view: View | None = None) -> tuple:
        """The decode request for the sentence under its current (or given) view: serial,
        index, heads, tags and relations (the last two None while the file's)."""
        view = view or self.view(idx)
        return self.serial, idx, view.heads, view.tags, view.rels

    def tags(self, idx: int, view: View | None = None) -> list[str]:
        """The sentence's POS tags as the annotator left them."""
        tags = (view or self.view(idx)).tags
        return list(tags) if tags is not None else list(self.sentences[idx].tags)

    def rels(self, idx: int, view: View | None = None) -> list[str]:
        """The sentence's relations (DEPREL) as the annotator left them."""
        rels = (view or self.view(idx)).rels
        return list(rels) if rels is not None else list(self.sentences[idx].rels)

    def heads_after(self, idx: int, view: View, tree: LexNode, scheme: str
                    ) -> tuple[int, ...]:
        """The d-parse sentence ``idx`` keeps when ``tree`` replaces ``view``'s: the tree's
        heads, read back through the re-attachment ``scheme`` of the model in use
        (``edited_heads``), so the file's arcs the model only re-attached stay."""
        return tuple(edited_heads(tree, view.heads, self.tags(idx, view), self.rels(idx, view),
                                  scheme))

    def as_viewed(self, idx: int, view: View | None = None) -> DepSentence:
        """The sentence with the annotator's heads, tags and relations: what is decoded and
        exported."""
        view = view or self.view(idx)
        return dataclasses.replace(self.sentences[idx], heads=list(view.heads),
                                   tags=self.tags(idx, view), rels=self.rels(idx, view))

    def propose_relation(self, idx: int, view: View, dep: int) -> tuple[str, str] | None:
        """A relation for word ``dep``'s arc in ``view`` and why: the most frequent one for
        its (dependent tag, head tag, direction) among the file's arcs as read, backing off
        as ``edits.propose_relation`` says; None when the file has no relations. These
        counts, not the text pipeline's labeler, because they are always there: the
        labeler is loaded only while a text file is read, and a text file's relations are
        the ones it predicted."""
        if self._relations is None:
            self._relations = edits.relation_table(self.sentences)
        key = edits.arc_key(self.tags(idx, view), dep, view.heads[dep - 1])
        return edits.propose_relation(self._relations, key)

    def decoded(self, idx: int, view: View | None = None) -> Decoded | None:
        return self.cache.get(self.key(idx, view))

    def scores(self, idx: int) -> list[float] | None:
        """The scores of the sentence's candidates under its current d-parse, best first
        (None until decoded, or when it could not be), without rebuilding their trees."""
        return self.cache.scores(self.key(idx))

    def shown_tree(self, idx: int, view: View | None = None) -> LexNode | None:
        """The tree on screen: the edited one, else the tree a corrected sentence was
        accepted with, else the picked candidate (None if not decoded yet or not
        decodable)."""
        view = view or self.view(idx)
        if view.tree is not None:
            return view.tree
        kept = self.record(idx).kept
        if kept is not None and view == self.view(idx):
            return kept
        return self._picked(idx, view)

    def _picked(self, idx: int, view: View) -> LexNode | None:
        found = self.decoded(idx, view)
        if isinstance(found, list) and found:
            return found[min(view.chosen, len(found) - 1)].tree
        return None

    def is_corrected(self, idx: int) -> bool:
        return self.record(idx).status == CORRECTED

    def state(self, idx: int) -> str:
        """MACHINE (or FROM_FILE), EDITED (changed but not marked corrected) or CORRECTED."""
        if self.is_corrected(idx):
            return CORRECTED
        if self.changed(idx):
            return EDITED
        return FROM_FILE if idx in self.from_file else MACHINE

    def changed(self, idx: int) -> bool:
        """Whether the annotator changed the sentence's view (trees by identity: comparing
        them node by node would recurse as deep as a tree nests)."""
        view, first = self.view(idx), self.first_view(idx)
        return view.heads != first.heads or view.chosen != first.chosen or \
            view.tree is not first.tree or view.tags is not None or view.rels is not None

    def marks(self, idx: int) -> tuple[Counter, Counter]:
        """The brackets of the tree on screen to mark: those of the picked candidate not in
        candidate 1, and those the annotator's edits made (against the file's tree when the
        sentence has one, else the picked candidate)."""
        view, decoded = self.view(idx), self.decoded(idx)
        tree = self.shown_tree(idx)
        diff: Counter = Counter()
        edited: Counter = Counter()
        picked = self._picked(idx, view) if tree is not None else None
        if picked is not None:
            diff = edits.brackets(picked) - edits.brackets(decoded[0].tree)
        base = self.from_file.get(idx, picked)
        if view.tree is not None and base is not None:
            edited = edits.brackets(tree) - edits.brackets(base)
        return diff, edited

    @property
    def read_only(self) -> bool:
        return self.store.read_only

    def arcs_changed(self, idx: int) -> bool:
        return list(self.view(idx).heads) != self.sentences[idx].heads

    # -- changes (each one is saved at once) ---------------------------------------------
    def set_view(self, idx: int, view: View) -> None:
        self._update(idx, view=view)
        self._keep(idx)
        self._save_view(idx)

    def set_status(self, idx: int, status: str) -> None:
        self._update(idx, status=status)
        self._keep(idx)
        self._save_status(idx)

    def _keep(self, idx: int) -> None:
        """Remember the candidate a corrected sentence shows (an edited tree is kept as is)."""
        view = self.view(idx)
        picked = self._picked(idx, view) if view.tree is None else None
        self._update(idx, kept=picked if self.is_corrected(idx) else None)

    def renew(self, serial: int) -> None:
        """Another model decodes from now on (requests carry ``serial``): forget the
        candidates of sentences not corrected; corrected ones keep theirs, and their trees."""
        for idx, record in list(self.records.items()):
            if record.status == CORRECTED and record.kept is None and \
                    self.view(idx).tree is None:
                self._keep(idx)  # corrected before its candidates arrived, or an older project
                if self.record(idx).kept is not None:
                    self._save_status(idx)
        old, self.cache = self.cache, DecodedCache()
        for key in list(old):  # only the corrected ones are unpacked
            _, idx, *rest = key
            if self.is_corrected(idx):
                self.cache[(serial, idx, *rest)] = old[key]
        self.serial = serial

    def pin_heads(self, idx: int) -> None:
        """Write the sentence's arcs into the project as they are now, so that they stay
        when another parser predicts the file's arcs (here or on reopening)."""
        self.store.save_heads(self.keys[idx], idx, self._words[idx], list(self.view(idx).heads))

    def repredict(self, arcs: dict[int, tuple[list[int], list[str]]]) -> list[int]:
        """Give untouched sentences the arcs (heads, relations) a new parser predicted; their
        candidates are decoded again. Returns the indices whose heads changed."""
        changed = []
        self._relations = None  # counted again from the new relations when asked
        for idx, (heads, rels) in arcs.items():
            if self.state(idx) != MACHINE:
                continue  # the annotator's work is never replaced
            old = self.sentences[idx]
            self.sentences[idx] = dataclasses.replace(old, heads=list(heads), rels=list(rels))
            if self.record(idx).view is not None:  # a saved row keeps its heads: new ones
                self._update(idx, view=View(tuple(heads)))
                self.store.save_heads(self.keys[idx], idx, self._words[idx], list(heads))
            if list(heads) != old.heads:
                changed.append(idx)
        return changed

    def corrected_trees(self) -> list[tuple[LexNode, list[str], list[str]]]:
        """The tree, words and dependency labels (DEPREL) of every corrected sentence that
        has a tree (training data)."""
        out = []
        for idx in sorted(i for i, r in self.records.items() if r.status == CORRECTED):
            tree = self.shown_tree(idx)
            if tree is not None:
                out.append((tree, self.sentences[idx].forms, self.rels(idx)))
        return out

    def labeled_share(self) -> float:
        """The share of words whose DEPREL is given (not "_"): a model may learn from labels
        only where the file has them."""
        words = sum(len(s.forms) for s in self.sentences)
        given = sum(1 for s in self.sentences for r in s.rels if r not in ("", "_"))
        return given / words if words else 0.0

    def add_time(self, idx: int, seconds: float) -> None:
        """Count time spent on a sentence (a long idle stretch counts as IDLE_CAP)."""
        seconds = min(seconds, IDLE_CAP)
        self._update(idx, seconds=self.record(idx).seconds + seconds)
        self.store.add_seconds(self.keys[idx], idx, self._words[idx], seconds)

    def log(self, idx: int, kind: str) -> None:
        self.store.log(self.keys[idx], idx, kind)

    def _penn(self, idx: int) -> str | None:
        tree = self.shown_tree(idx)
        return to_line(tree, self.sentences[idx].forms) if tree is not None else None

    def _save_view(self, idx: int) -> None:
        view, record = self.view(idx), self.record(idx)
        self.store.save_view(self.keys[idx], idx, self._words[idx], view.chosen,
                             list(view.heads), view.tree, record.kept, self._penn(idx),
                             _listed(view.tags), _listed(view.rels))

    def _save_status(self, idx: int) -> None:
        record = self.record(idx)
        self.store.save_status(self.keys[idx], idx, self._words[idx], record.status,
                               record.kept, self._penn(idx))

    # -- corrections that lost their sentence -----------------------------------------------
    def detached(self) -> list[Detached]:
        """The kept-aside rows that hold a correction."""
        return [d for d in self.store.detached() if d.has_work]

    def apply_detached(self, item: Detached, idx: int) -> str | None:
        """Give sentence ``idx`` the detached correction (the row stays, marked applied);
        why not, when its tree or arcs do not fit that sentence."""
        saved = item.saved
        if saved is None:
            return "it cannot be read"
        n = len(self.sentences[idx])
        if (saved.heads is not None and len(saved.heads) != n) or (saved.tree is not None and \
                len(saved.tree.preterminals()) != n):
            return f"it has {len(item.words.split())} words, sentence {idx + 1} has {n}"
        heads = tuple(saved.heads) if saved.heads else tuple(self.sentences[idx].heads)
        self._update(idx, view=_saved_view(heads, saved), status=saved.status,
                     kept=_accepted(saved))
        self._save_view(idx)
        self._save_status(idx)
        self.store.mark_applied(item.id, self.keys[idx])
        return None

    # -- effort ---------------------------------------------------------------------------
    def summary(self) -> Summary:
        counts = self._counts()
        done = [i for i, r in self.records.items() if r.status == CORRECTED]
        actions = dict.fromkeys(EDIT_KINDS, 0)
        as_proposed = 0
        for idx in done:
            mine = counts.get(idx, {})
            for kind in EDIT_KINDS:
                actions[kind] += mine.get(kind, 0)
            if not self.changed(idx):
                as_proposed += 1
        return Summary(len(done), sum(len(self.sentences[i]) for i in done),
                       sum(self.records[i].seconds for i in done), as_proposed, actions)

    def effort_rows(self) -> list[tuple[int, int, str, float, dict[str, int]]]:
        """Per touched sentence: index, length, status, seconds, action counts."""
        counts = self._counts()
        touched = sorted(set(self.records) | set(counts))
        return [(i, len(self.sentences[i]), self.record(i).status, self.record(i).seconds,
                 counts.get(i, {})) for i in touched]

    def _counts(self) -> dict[int, dict[str, int]]:
        """Logged actions per sentence index (those of sentences no longer here left out)."""
        return {self._index[k]: c for k, c in self.store.action_counts().items()
                if k in self._index}


def _accepted(saved: SavedSentence) -> LexNode | None:
    """The tree a corrected row was accepted with, as accepted (an edited one has its own)."""
    return saved.kept if saved.status == CORRECTED and saved.tree is None else None


def _saved_view(heads: tuple[int, ...], saved: SavedSentence) -> View:
    return View(heads, saved.chosen, saved.tree, _tupled(saved.tags), _tupled(saved.rels))


def _tupled(values: list[str] | None) -> tuple[str, ...] | None:
    return tuple(values) if values is not None else None


def _listed(values: tuple[str, ...] | None) -> list[str] | None:
    return list(values) if values is not None else None
