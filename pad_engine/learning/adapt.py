"""The converter for a treebank that no bundled model fits, once some trees are corrected.

Measured on Dutch Alpino (``pad bench-labels``; held-out 1,000 trees, labeled EVALB F1,
mean of 3 draws of corrected trees): a PAD model retrained on the corrected trees ties the
rule-based projection with labels learned from them at 3 trees (58.1 against 58.4, and far
ahead unlabeled, 85.3 against 80.0) and is far ahead from 5 on (63.4 against 59.2 at 5, 77.3
against 62.2 at 20, 86.2 against 64.3 at 50): it learns the treebank's structure as well as
its labels, where a label mapping can only rename (and drop) the projection's English-shaped
phrases. With one or two trees the learned labels are better (56.4 against 50.1, 56.3
against 55.1)."""

from __future__ import annotations

from collections.abc import Callable

from pad_engine.decoding.choice import Choice
from pad_engine.decoding.engine import Engine
from pad_engine.decoding.rulebased import RuleBasedEngine, learn_label_set
from pad_engine.errors import InputError
from pad_engine.learning.train import Example

MODEL_FROM = 3  # corrected trees from which a retrained PAD model beats learned labels


def from_corrected(examples: list[Example]) -> Choice:
    """The better converter measured for this many corrected trees: from :data:`MODEL_FROM`
    on a PAD model retrained on them (reading their relations when they have some), below
    it the rule-based projection with the labels they give its phrases."""
    from pad_engine.learning.retrain import retrain

    if not examples:
        raise ValueError("no corrected trees to learn from")
    n = len(examples)
    if n >= MODEL_FROM:
        labels = "deprel" if any(r not in ("", "_") for ex in examples for r in ex.rels) else ""
        model = retrain(examples, labels=labels)
        return Choice(Engine(model), f"PAD model retrained on {n} corrected trees",
                      f"from {MODEL_FROM} corrected trees a retrained model beats labels "
                      "learned for the rule-based projection")
    learned = learn_label_set(
        ((ex.sentence(), ex.lex) for ex in examples),
        f"learned from {n} corrected tree{'s' if n > 1 else ''}")
    return Choice(RuleBasedEngine(learned), RuleBasedEngine.name,
                  f"labels learned from {n} corrected tree{'s' if n > 1 else ''} (below "
                  f"{MODEL_FROM} they beat a retrained model)")


def corrected_examples(trees: str, conll: str, encoding: str | None = None,
                       warn: Callable[[str], None] | None = None) -> list[Example]:
    """Corrected Penn trees paired with their d-parses, as training examples; ``warn`` hears
    of every pair that could not be used. InputError when none can."""
    from pad_engine.learning.pairs import examples_from_pairs, read_pairs

    per_file, problems = read_pairs([trees], [conll], encoding=encoding, warn=warn)
    made = examples_from_pairs(per_file[0])
    if warn is not None:
        for problem in [*map(str, problems), *made.skipped]:
            warn(f"skipped corrected tree {problem}")
    if not made.examples:
        raise InputError("no corrected tree could be paired with its d-parse", trees)
    return made.examples
