"""Test helpers around the app's sample: its path and its head-marked tree format (also what
the edit tests write their trees in). The GUI tests' fixtures, a tiny model trained on the
sample's trees and settings kept apart from the user's, are in conftest.py."""

from __future__ import annotations

from nltk import Tree
from pad_resources import resource_path

from pad_engine.lextree import LexNode

SAMPLE = resource_path("sample", "sample.conllu")


def head_marked(line: str) -> tuple[LexNode, list[str]]:
    """A tree from the head-marked Penn format: a trailing ``*`` marks the one head child of
    every phrase."""
    words: list[str] = []

    def build(t: Tree) -> LexNode:
        if isinstance(t[0], str):
            words.append(t[0])
            return LexNode(t.label().rstrip("*"), [], 0, len(words) - 1)
        kids = [build(c) for c in t]
        heads = [i for i, c in enumerate(t) if c.label().endswith("*")]
        assert len(heads) == 1, t
        return LexNode(t.label().rstrip("*"), kids, heads[0], -1)

    return build(Tree.fromstring(line)), words
