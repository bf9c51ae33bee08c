"""Tree edits: each returns a new well-formed tree, keeps the words, refuses bad edits."""

from __future__ import annotations

import pytest
from guikit import head_marked

from pad_engine.trees.edits import (
    brackets,
    delete_node,
    insert_node,
    new_brackets,
    node_at,
    phrases,
    relabel,
    set_head_child,
)
from pad_engine.trees.lextree import LexNode, induced_heads, to_line

SENT = ("(TOP (S* (NP (DT The) (JJ old) (NN* dog)) (VP* (VBD* saw) (NP (DT a) (NN* cat))"
        " (PP (IN* in) (NP (DT the) (NN* garden)))) (. .)))")


@pytest.fixture
def tree():
    return head_marked(SENT)


def line(t: LexNode, words: list[str]) -> str:
    return to_line(t, words)


def check_well_formed(t: LexNode, n: int) -> None:
    assert [p.word for p in t.preterminals()] == list(range(n))
    for _, node in phrases(t):
        assert node.children
        assert 0 <= node.head < len(node.children)


def test_node_at_and_bad_path(tree):
    t, _ = tree
    assert node_at(t, (0, 1, 0)).label == "VBD"
    with pytest.raises(ValueError, match=r"no node at \(0, 9\)"):
        node_at(t, (0, 9))
    with pytest.raises(ValueError, match=r"no node at \(0, 1, 0, 0\)"):
        node_at(t, (0, 1, 0, 0))


def test_relabel_copies(tree):
    t, words = tree
    before = line(t, words)
    new = relabel(t, (0, 0), "NP-SBJ")
    assert node_at(new, (0, 0)).label == "NP-SBJ"
    assert line(t, words) == before
    for bad, why in (("", "cannot be empty"), ("A B", "spaces or brackets"),
                     ("(X", "spaces or brackets"), ("@S", "reserved for binarization")):
        with pytest.raises(ValueError, match=why):
            relabel(t, (0, 0), bad)
    with pytest.raises(ValueError, match="POS tags"):
        relabel(t, (0, 0, 0), "NN")


def test_delete_moves_children_up(tree):
    t, words = tree
    heads = induced_heads(t, len(words))
    new = delete_node(t, (0, 1, 2))  # the PP
    assert line(new, words).count("(PP") == 0
    assert [c.label for c in node_at(new, (0, 1)).children] == ["VBD", "NP", "IN", "NP"]
    # the PP's non-head child now attaches to the VP's head: garden -> saw instead of in
    assert induced_heads(new, len(words)) == [*heads[:8], 4, *heads[9:]]
    check_well_formed(new, len(words))
    # deleting the head child (VP) of S: S's head becomes the VP's head (the verb)
    new = delete_node(t, (0, 1))
    s = node_at(new, (0,))
    assert s.children[s.head].label == "VBD"
    assert induced_heads(new, len(words)) == heads
    # deleting a non-head child left of the head shifts the head index
    new = delete_node(t, (0, 0))
    s = node_at(new, (0,))
    assert s.children[s.head].label == "VP"
    assert induced_heads(new, len(words))[:3] == [4, 4, 4]  # The, old, dog -> saw


def test_delete_refuses_root_and_preterminals(tree):
    t, _ = tree
    with pytest.raises(ValueError, match="root"):
        delete_node(t, ())
    with pytest.raises(ValueError, match="preterminal"):
        delete_node(t, (0, 0, 2))


def test_insert_over_run_with_parent_head(tree):
    t, words = tree
    heads = induced_heads(t, len(words))
    new = insert_node(t, (0, 0), 1, 2, "NX")  # "old dog" holds the NP's head
    np = node_at(new, (0, 0))
    assert [c.label for c in np.children] == ["DT", "NX"]
    assert np.head == 1
    assert node_at(new, (0, 0, 1)).head == 1
    assert induced_heads(new, len(words)) == heads
    check_well_formed(new, len(words))
    with pytest.raises(ValueError, match="must stay"):
        insert_node(t, (0, 0), 1, 2, "NX", head=0)


def test_insert_without_parent_head_uses_chosen_head(tree):
    t, words = tree
    vp_path = (0, 1)
    new = insert_node(t, vp_path, 1, 2, "XP", head=1)  # "a cat" + PP, headed by the PP
    vp = node_at(new, vp_path)
    assert [c.label for c in vp.children] == ["VBD", "XP"]
    assert vp.head == 0
    heads = induced_heads(new, len(words))
    assert heads[5] == 7  # cat now depends on "in"
    check_well_formed(new, len(words))
    # default head is the last member of the run
    assert line(insert_node(t, vp_path, 1, 2, "XP"), words) == line(new, words)
    # after the parent's head: indices after the run shift down
    new = insert_node(t, (0,), 0, 0, "X")  # a unary over the subject NP
    s = node_at(new, (0,))
    assert s.children[s.head].label == "VP"


def test_insert_refuses_bad_runs(tree):
    t, _ = tree
    with pytest.raises(ValueError, match=r"children 2\.\.1 are not a run"):
        insert_node(t, (0, 0), 2, 1, "X")
    with pytest.raises(ValueError, match=r"children 0\.\.5 are not a run"):
        insert_node(t, (0, 0), 0, 5, "X")
    with pytest.raises(ValueError, match="only be inserted under a phrase"):
        insert_node(t, (0, 0, 0), 0, 0, "X")
    with pytest.raises(ValueError, match="head 4 is not one of the 2 selected children"):
        insert_node(t, (0, 1), 1, 2, "X", head=4)


def test_set_head_child_returns_induced_heads(tree):
    t, words = tree
    old = induced_heads(t, len(words))
    new, heads = set_head_child(t, (0, 1, 2), 1)  # PP headed by its NP
    assert heads == induced_heads(new, len(words))
    saw, in_, garden = 3, 6, 8  # 0-based word indices
    assert old[in_] == saw + 1
    assert old[garden] == in_ + 1
    assert heads[in_] == garden + 1
    assert heads[garden] == saw + 1
    assert induced_heads(t, len(words)) == old  # input untouched
    with pytest.raises(ValueError, match="has no child 5"):
        set_head_child(t, (0, 1, 2), 5)
    with pytest.raises(ValueError, match="preterminal has no head child"):
        set_head_child(t, (0, 0, 0), 0)


def test_brackets_and_new_brackets(tree):
    t, _words = tree
    b = brackets(t)
    assert b[("PP", 6, 8)] == 1
    assert b[("TOP", 0, 9)] == 1
    other = relabel(t, (0, 1, 2), "ADVP")
    assert new_brackets(t, other) == {("ADVP", 6, 8)}
    assert new_brackets(t, t) == set()
    unary = insert_node(t, (0,), 0, 0, "NP")  # a repeated NP over the same span counts
    assert new_brackets(t, unary) == {("NP", 0, 2)}
