"""Errors injected into clean trees, for measuring how many the consistency check finds.

Two kinds, as an annotator or a converter makes them: a phrase relabeled (to another label
of the treebank), and a re-attachment (a phrase's first or last non-head child leaves it
for the phrase's parent, or a phrase moves into the phrase beside it). Each keeps the words
and their order; what changed is the set of brackets, whose spans say where the error is.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from pad_engine.trees import edits
from pad_engine.trees.lextree import LexNode, strip_label


@dataclass(frozen=True)
class Injected:
    sentence: int
    kind: str  # "relabel" or "reattach"
    spans: frozenset[tuple[int, int]]  # spans of the brackets one tree has and the other not


def inject(trees: Sequence[LexNode], rate: float, rng: random.Random
           ) -> tuple[list[LexNode], list[Injected]]:
    """Copies of the trees with one error in each of ``rate`` of them (at least one)."""
    labels = sorted({strip_label(n.label) for t in trees for n in edits.phrase_nodes(t)
                     if n is not t})
    out = list(trees)
    done = []
    chosen = rng.sample(range(len(trees)), max(1, round(rate * len(trees))))
    for k in sorted(chosen):
        for _ in range(20):  # a tree too small for one kind may take the other
            kind = rng.choice(("relabel", "reattach"))
            new = _relabel(trees[k], labels, rng) if kind == "relabel" else \
                _reattach(trees[k], rng)
            if new is not None:
                diff = (edits.brackets(new) - edits.brackets(trees[k])) + \
                    (edits.brackets(trees[k]) - edits.brackets(new))
                out[k] = new
                done.append(Injected(k, kind, frozenset((a, b) for _, a, b in diff)))
                break
    return out, done


def _relabel(tree: LexNode, labels: list[str], rng: random.Random) -> LexNode | None:
    nodes = [n for n in edits.phrase_nodes(tree) if n is not tree]
    if not nodes:
        return None
    node = rng.choice(nodes)
    path = edits.paths_to(tree, [node])[0]
    other = [x for x in labels if x != strip_label(node.label)]
    return edits.relabel(tree, path, rng.choice(other)) if other else None


def _reattach(tree: LexNode, rng: random.Random) -> LexNode | None:
    """Raise an edge child out of its phrase, or lower a phrase into its neighbour."""
    moves: list[tuple] = []
    for node in edits.phrase_nodes(tree):
        if node is tree or len(node.children) < 2:
            continue
        for i in (0, len(node.children) - 1):
            if i != node.head:
                moves.append(("raise", node, i))
        for i in range(len(node.children)):
            for j in (i - 1, i + 1):
                if 0 <= j < len(node.children) and i != node.head and \
                        node.children[j].word < 0:
                    moves.append(("lower", node, i, j))
    if not moves:
        return None
    move = rng.choice(moves)
    move = (move[0], edits.paths_to(tree, [move[1]])[0], *move[2:])
    new = tree.copy()
    node = edits.node_at(new, move[1])
    if move[0] == "raise":
        parent = edits.node_at(new, move[1][:-1])
        at = move[1][-1]
        i = move[2]
        child = node.children.pop(i)
        if i < node.head:
            node.head -= 1
        place = at if i == 0 else at + 1
        parent.children.insert(place, child)
        if parent.head >= place:
            parent.head += 1
        return new
    _, _, i, j = move
    child = node.children[i]
    target = node.children[j]
    if j < i:
        target.children.append(child)
    else:
        target.children.insert(0, child)
        target.head += 1
    node.children.pop(i)
    if node.head > i:
        node.head -= 1
    return new
