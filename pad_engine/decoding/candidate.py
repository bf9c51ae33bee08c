"""One c-parse of a sentence as every converter returns it (the learned engine and the
rule-based projection alike), apart from both so that neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from pad_engine.trees.lextree import LexNode, induced_heads, to_line
from pad_engine.trees.projectivize import Lift


class How(str, Enum):
    """How a c-parse was made. A string, written and compared as its value ("pruned"...), so
    reports, counts and the app show the same words as before it was named."""

    PRUNED = "pruned"  # the model, every head decoded with pruning
    EXACT = "exact"  # the model, some head (or its subtree) redone without pruning
    GLUE = "glue"  # the model, some head built with glue rules the learned ones could not
    FALLBACK = "fallback"  # no derivation under the model's grammar: the flat projection
    RULES = "rules"  # the rule-based projection, no model
    GUIDED = "model+rules"  # the model's best with a bonus for the projection's brackets
    ORACLE = "oracle"  # the tree closest to a gold tree that the grammar derives
    ORACLE_GLUE = "oracle+glue"  # the same, which needed glue rules

    __str__ = str.__str__
    __format__ = str.__format__


@dataclass
class Candidate:
    """One c-parse of a sentence: the lexicalized tree, its model score, its Penn line.
    ``how`` says which pass or converter made it (:class:`How`).
    ``lifted`` lists the arcs moved to make a non-projective d-parse projective, as
    (dependent, original head, new head); the tree is consistent with the lifted d-parse.
    ``cut_to`` (k-best) is nonzero when the sentence's chart was too large for k derivations
    per item within the k-best memory budget: its list was decoded with this many instead
    (and may hold fewer than k trees)."""

    tree: LexNode
    score: float
    how: How
    lifted: list[Lift] = field(default_factory=list)
    cut_to: int = 0

    def penn(self, forms: list[str]) -> str:
        return to_line(self.tree, forms)

    def heads(self) -> list[int]:
        return induced_heads(self.tree, len(self.tree.preterminals()))
