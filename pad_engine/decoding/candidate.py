"""One c-parse of a sentence as every converter returns it (the learned engine and the
rule-based projection alike), apart from both so that neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass, field

from pad_engine.trees.lextree import LexNode, induced_heads, to_line
from pad_engine.trees.projectivize import Lift


@dataclass
class Candidate:
    """One c-parse of a sentence: the lexicalized tree, its model score, its Penn line.
    ``how`` is "pruned", "exact" or "fallback" (no model derivation: flat projection).
    ``lifted`` lists the arcs moved to make a non-projective d-parse projective, as
    (dependent, original head, new head); the tree is consistent with the lifted d-parse.
    ``cut_to`` (k-best) is nonzero when the sentence's chart was too large for k derivations
    per item within the k-best memory budget: its list was decoded with this many instead
    (and may hold fewer than k trees)."""

    tree: LexNode
    score: float
    how: str
    lifted: list[Lift] = field(default_factory=list)
    cut_to: int = 0

    def penn(self, forms: list[str]) -> str:
        return to_line(self.tree, forms)

    def heads(self) -> list[int]:
        return induced_heads(self.tree, len(self.tree.preterminals()))
