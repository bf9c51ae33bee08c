"""The quality controller without a window: what of the session is searched and checked,
the changes the majority's bracketing makes, comparing and adjudicating."""

from __future__ import annotations

import pytest

from pad_engine.api import PadError, RuleBasedEngine, edits, read_conll, to_line
from pad_gui.controllers import quality
from pad_gui.session import CORRECTED, EDITED, Session, View
from pad_gui.store import ProjectStore


@pytest.fixture
def session(sample, tmp_path) -> Session:
    """The sample with its first ten sentences decoded (by the rule-based projection)."""
    s = Session(sample, read_conll(sample), ProjectStore(tmp_path / "p.padproject"))
    engine = RuleBasedEngine()
    for idx in range(10):
        s.cache[s.key(idx)] = engine.candidates(s.sentences[idx], k=2)
    return s


def test_only_sentences_with_a_tree_are_searched(session):
    hits, count, searched = quality.search(session, "NP")
    assert searched == 10
    assert count == len(hits) > 0
    assert {h.idx for h in hits} <= set(range(10))
    assert all(h.status == "machine" for h in hits)
    tree = session.shown_tree(hits[0].idx)
    assert edits.node_at(tree, hits[0].path).label == "NP"
    with pytest.raises(PadError, match="column 4"):
        quality.search(session, "NP >")


def test_an_edited_sentence_is_searched_as_edited(session):
    tree = session.shown_tree(0)
    path = next(p for p, n in edits.phrases(tree) if n.label == "NP")
    session.set_view(0, View(session.view(0).heads, 0, edits.relabel(tree, path, "QQ")))
    hits, count, _ = quality.search(session, "QQ")
    assert count == 1
    assert hits[0].idx == 0
    assert hits[0].status == EDITED


def test_majority_changes_fix_the_odd_one(session):
    tree = session.shown_tree(0)
    np = [(p, n) for p, n in edits.phrases(tree) if n.label == "NP" and len(n.children) > 1]
    path, _node = np[0]
    session.set_view(0, View(session.view(0).heads, 0, edits.relabel(tree, path, "ADJP")))
    findings, searched = quality.check(session)
    assert searched == 10
    finding = next(f for f in findings if f.suspects == (0,) and f.entry.variant == "ADJP"
                   and f.entry.kind != "dependents")
    changes, refused = quality.majority_changes(session, finding)
    assert refused == []
    assert [c.idx for c in changes] == [0]
    assert edits.node_at(changes[0].after.tree, path).label == "NP"
    assert changes[0].before == session.view(0)


def test_compare_and_adjudicate(session, tmp_path):
    s = session
    lines = []
    for idx in range(len(s)):
        tree = s.shown_tree(idx) or RuleBasedEngine().best(s.sentences[idx]).tree
        lines.append(to_line(tree, s.sentences[idx].forms))
    lines[1] = lines[1].replace("(NP ", "(NX ", 1)
    other = tmp_path / "b.mrg"
    other.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = quality.compare(s, str(other))
    assert len(rows) == len(s)
    assert [r.idx for r in rows if r.f1 is not None and not r.exact] == [1]
    assert all(r.f1 is None for r in rows[10:])  # not decoded here: nothing to score
    change = quality.adjudicate(s, 1, rows[1].b, "B:b.mrg")
    assert to_line(change.after.tree, s.sentences[1].forms) == lines[1]
    assert s.record(1).status == CORRECTED
    assert s.store.action_counts()[s.keys[1]]["adjudicated:B:b.mrg"] == 1
    other.write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")
    with pytest.raises(PadError, match="3 trees here but"):
        quality.compare(s, str(other))


def test_the_search_index_flattens_again_only_what_changed(session):
    index = quality.SearchIndex()
    quality.search(session, "NP", index)
    before = {idx: flat for idx, (_, flat) in index.flats.items()}
    assert sorted(before) == list(range(10))
    tree = session.shown_tree(3)
    path = next(p for p, n in edits.phrases(tree) if n.label == "NP")
    session.set_view(3, View(session.view(3).heads, 0, edits.relabel(tree, path, "QQ")))
    hits, count, _ = quality.search(session, "QQ", index)
    assert count == 1
    assert hits[0].idx == 3
    after = {idx: flat for idx, (_, flat) in index.flats.items()}
    assert [i for i in range(10) if after[i] is not before[i]] == [3]
