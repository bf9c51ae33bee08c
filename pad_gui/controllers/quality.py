"""Treebank quality in the app: search the open file, check it for inconsistent bracketing
and apply the majority's, compare it with another annotation and adjudicate. No Qt; the
engine does the work (``pad_engine.api``), this decides what of the session it sees and
turns results into changes of the session's views (undo steps)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from pad_engine.api import (
    ConsistencyEntry,
    Flat,
    LexNode,
    PadError,
    SearchSentence,
    Treebank,
    agree_trees,
    apply_variant,
    edits,
    find,
    find_inconsistencies,
    parse_query,
    to_line,
    trees_for,
)
from pad_gui.controllers.reattach import Change
from pad_gui.session import CORRECTED, Session, View

MAX_HITS = 5000  # more than anyone reads in a list; the count says how many in all


@dataclass(frozen=True)
class Hit:
    idx: int  # the sentence
    status: str  # machine, edited or corrected
    text: str  # the matched subtree as a Penn line
    path: edits.Path  # the matched node (for a word: its preterminal)


@dataclass(frozen=True)
class SideBySide:
    """One sentence in two annotations: this project's tree (A) and the other's (B)."""

    idx: int
    a: LexNode | None
    b: LexNode
    f1: float | None
    exact: bool | None


def searchable(session: Session) -> tuple[list[SearchSentence], list[int]]:
    """The sentences that have a tree on screen (decoded or edited), as the engine searches
    them, with their indices."""
    out, where = [], []
    for idx, sent in enumerate(session.sentences):
        tree = session.shown_tree(idx)
        if tree is None:
            continue
        view = session.view(idx)
        out.append(SearchSentence(tree, sent.forms, session.tags(idx, view), list(view.heads),
                                  session.rels(idx, view), str(session.path), idx + 1,
                                  session.state(idx)))
        where.append(idx)
    return out, where


class SearchIndex:
    """The session's trees flattened for search, kept between searches: a sentence is
    flattened again only when what it shows may have changed (another view, kept tree,
    decode result, status or model), so a second query over a large file costs the query."""

    def __init__(self) -> None:
        self.session: Session | None = None
        self.flats: dict[int, tuple[tuple, Flat]] = {}

    def bank(self, session: Session) -> tuple[Treebank, list[int]]:
        if session is not self.session:
            self.session, self.flats = session, {}
        flats, where = [], []
        for idx, sent in enumerate(session.sentences):
            sig = (session.records.get(idx), session.serial,
                   session.key(idx) in session.cache)
            known = self.flats.get(idx)
            if known is None or len(known[0]) != len(sig) or \
                    any(a is not b for a, b in zip(known[0], sig)):
                tree = session.shown_tree(idx)
                if tree is None:
                    self.flats.pop(idx, None)
                    continue
                view = session.view(idx)
                known = sig, Flat(SearchSentence(
                    tree, sent.forms, session.tags(idx, view), list(view.heads),
                    session.rels(idx, view), str(session.path), idx + 1, session.state(idx)))
                self.flats[idx] = known
            flats.append(known[1])
            where.append(idx)
        return Treebank.of_flats(flats), where


def search(session: Session, query: str, index: SearchIndex | None = None
           ) -> tuple[list[Hit], int, int]:
    """The matches of ``query`` (at most MAX_HITS), how many there are in all, and how many
    sentences were searched (``index``: trees flattened by earlier searches). A bad query
    raises ``QueryError`` (a PadError) naming the column."""
    pattern = parse_query(query)
    bank, where = (index or SearchIndex()).bank(session)
    hits, count = [], 0
    for m in find(bank, pattern):
        count += 1
        if len(hits) < MAX_HITS:
            flat = bank.flats[m.sentence]
            hits.append(Hit(where[m.sentence], flat.sentence.status, flat.penn(m.node),
                            flat.path(m.node)))
    return hits, count, len(where)


@dataclass(frozen=True)
class Finding:
    """A consistency entry with its suspects' and supporters' sentence indices."""

    entry: ConsistencyEntry
    suspects: tuple[int, ...]
    supporters: tuple[int, ...]


def check(session: Session, limit: int = 200) -> tuple[list[Finding], int]:
    """The ranked consistency entries over the sentences with a tree, and how many
    sentences that was."""
    sentences, where = searchable(session)
    entries = find_inconsistencies(sentences, use_rels=True, limit=limit)
    return [Finding(e, tuple(where[o.sentence] for o in e.suspects),
                    tuple(where[o.sentence] for o in e.supporters)) for e in entries], \
        len(sentences)


def majority_changes(session: Session, finding: Finding, scheme: str = ""
                     ) -> tuple[list[Change], list[str]]:
    """What giving every suspect the majority's bracketing changes (one Change per
    sentence), and why some cannot take it; ``scheme``: how the model in use re-attaches
    d-parses (``edited_heads``)."""
    changes, refused = [], []
    entry = finding.entry
    if entry.kind == "dependents":
        return [], ["this finding is about where dependents attach: edit those by hand"]
    for idx, occ in zip(finding.suspects, entry.suspects):
        tree = session.shown_tree(idx)
        if tree is None:
            continue
        try:
            new = apply_variant(tree, occ.start, occ.end, entry.majority)
        except ValueError as err:
            refused.append(f"sentence {idx + 1}: {err}")
            continue
        before = session.view(idx)
        heads = session.heads_after(idx, before, new, scheme)
        changes.append(Change(idx, before, replace(before, heads=heads, tree=new)))
    return changes, refused


def compare(session: Session, path: str) -> list[SideBySide]:
    """Every sentence in both annotations (this project's shown tree, the other's from a
    Penn file of the same sentences), with EVALB's F1 and exact match where both have one.
    Raises PadError when the file does not fit the open one."""
    others = trees_for(path, session.sentences)
    rows, pairs = [], []
    for idx, b in enumerate(others):
        a = session.shown_tree(idx)
        rows.append((idx, a, b))
        if a is not None:
            forms = session.sentences[idx].forms
            pairs.append((to_line(a, forms), to_line(b, forms)))
    try:
        scored = agree_trees([p[0] for p in pairs], [p[1] for p in pairs]).sentences
    except ValueError as err:
        raise PadError(str(err)) from err
    it = iter(scored)
    out = []
    for idx, a, b in rows:
        s = next(it) if a is not None else None
        out.append(SideBySide(idx, a, b, s.f1 if s else None, s.exact if s else None))
    return out


def adjudicate(session: Session, idx: int, tree: LexNode, origin: str,
               corrected: bool = True, scheme: str = "") -> Change:
    """Sentence ``idx`` takes ``tree`` (as its corrected tree, unless the annotator is to
    edit it first); its origin (which side, which file) goes into the project's log. The
    Change is for the undo stack."""
    before = session.view(idx)
    heads = session.heads_after(idx, before, tree, scheme)
    session.log(idx, f"adjudicated:{origin}")
    after = View(heads, before.chosen, tree.copy())
    if corrected and not session.is_corrected(idx):
        session.set_status(idx, CORRECTED)
    return Change(idx, before, after)
