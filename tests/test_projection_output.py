"""The projection's exact output, held still: a change made for speed must give the same trees,
labels and span keys. A deliberate change to the rules changes the digests below; check its
effect (``pad bench --rules-only``) and then update them."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from pad_engine.decoding.features import span_keys, stable_key
from pad_engine.decoding.projection import project, projection
from pad_engine.decoding.rulebased import projection_features
from pad_engine.trees.deplabels import tree_labels
from pad_engine.trees.edits import phrases
from pad_engine.trees.lextree import LexNode
from pad_engine.trees.projectivize import projectivize

# sha256 of every tree (labels, head children, words) of the PTB sample's test split, from
# Collins and content-head d-parses, and of EWT dev with UPOS, with and without relations
PTB_TEST_DIGEST = "58ca0e430bb5a668ea40c2c87efd5ea86434e121b1fe8716e780662211aad8a0"
EWT_DEV_DIGEST = "a6a47e05bfe9170113c3af177c66380f892b56abbae4b3b022cd303e1b478d5b"


def _shape(root: LexNode) -> str:
    """The whole tree as text: each phrase's label and head child, each word's index."""
    out = []
    stack: list[LexNode | str] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.append(node)
        elif node.word >= 0:
            out.append(f"{node.label}:{node.word} ")
        else:
            out.append(f"({node.label}/{node.head} ")
            stack.append(")")
            stack.extend(reversed(node.children))
    return "".join(out)


def _digest(sentences: list[tuple[list[str], list[str], list[int], list[str]]]) -> str:
    text = "\n".join(_shape(project(f, t, h, r or None)) for f, t, h, r in sentences)
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture(scope="module")
def ptb_test(ptb_dir):
    from pad_engine.learning.bench import TEST_FILES, load_split

    return {scheme: [(ex.forms, ex.tags, ex.heads, []) for ex in
                     load_split(ptb_dir, TEST_FILES, scheme)]
            for scheme in ("collins", "content")}


@pytest.fixture(scope="module")
def ewt_dev(ewt_dir):
    from pad_engine.io.conll import read_conll

    sentences = read_conll(ewt_dir / "en_ewt-ud-dev.conllu", pos="upos").sentences
    with_rels = [(s.forms, s.tags, projectivize(s.heads)[0], s.rels) for s in sentences]
    return with_rels + [(f, t, h, []) for f, t, h, _ in with_rels]


def test_ptb_test_trees_are_unchanged(ptb_test):
    assert _digest(ptb_test["collins"] + ptb_test["content"]) == PTB_TEST_DIGEST


def test_ewt_dev_trees_are_unchanged(ewt_dev):
    assert _digest(ewt_dev) == EWT_DEV_DIGEST


def _read_off(tree: LexNode, n: int) -> tuple[list[str], np.ndarray]:
    """The features as the tree itself gives them (what the build records must equal)."""
    chains: dict[tuple[int, int], str] = {}
    for _, node in phrases(tree.children[0]):  # pre-order: a chain lists its top first
        chains[node.span()] = chains.get(node.span(), "") + node.label + " "
    return tree_labels(tree, n), span_keys(n, {s: stable_key(c) for s, c in chains.items()})


def test_the_features_are_those_of_the_tree(ptb_test, ewt_dev):
    for forms, tags, heads, rels in ptb_test["collins"] + ewt_dev:
        labels, spans = projection_features(forms, tags, heads, rels)
        want_labels, want_spans = _read_off(projection(forms, tags, heads, rels).tree,
                                            len(forms))
        assert labels == want_labels, " ".join(forms)
        assert np.array_equal(spans, want_spans), " ".join(forms)
