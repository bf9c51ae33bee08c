"""Helpers of the GUI tests: the app's sample and its head-marked trees (their fixtures, a tiny
model trained on those trees and settings kept apart from the user's, are in conftest.py)."""

from __future__ import annotations

from nltk import Tree
from pad_resources import resource_path

from pad_engine.lextree import LexNode

SAMPLE = resource_path("sample", "sample.conllu")


def head_marked(line: str) -> tuple[LexNode, list[str]]:
    """A tree from the sample's head-marked Penn format (``*`` marks head children)."""
    words: list[str] = []

    def build(t: Tree) -> LexNode:
        if isinstance(t[0], str):
            words.append(t[0])
            return LexNode(t.label().rstrip("*"), [], 0, len(words) - 1)
        kids = [build(c) for c in t]
        heads = [i for i, c in enumerate(t) if c.label().endswith("*")] or [0]
        return LexNode(t.label().rstrip("*"), kids, heads[0], -1)

    return build(Tree.fromstring(line)), words
