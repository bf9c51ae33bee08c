"""Which converter fits an input: a bundled model or, when none does, the rule-based one.

A model learned the attachment conventions of its training d-parses, and a tree consistent
with d-parses of another convention is a poor tree: UD's content-head d-parses (a noun heads
its preposition, a main verb its auxiliaries) need the UD model, Collins-style d-parses (the
preposition heads its noun) the Penn Treebank one. The input tells which: its relation names,
and whether prepositions have dependents. Tags no bundled model knows (another language, a
tag set of its own) leave the rule-based projection, which needs no training.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pad_engine.decoding.engine import Engine
from pad_engine.decoding.model import Model
from pad_engine.decoding.rulebased import RuleBasedEngine
from pad_engine.trees.deptree import DepSentence

COLLINS_MODEL = "english-ptb-collins.padmodel"
UD_MODEL = "english-gum-ud.padmodel"
# A bundled model's faster twin, for conversions where throughput matters more than F1: the
# PTB model reads the rule-based projection and has the back-off grammar (PTB sample test
# 98.2 pruned; GUM and GENTLE with Collins d-parses +2.2 over the fast one) and converts
# about a third as many sentences a second (docs/EXPERIMENTS.md, "The bundled models").
# The UD model has no twin: it is the fast recipe already.
FAST_TWIN = {COLLINS_MODEL: "english-ptb-collins-fast.padmodel"}
MIN_KNOWN_TAGS = 0.95  # share of tokens whose tag the model knows, below which it does not fit
SAMPLE = 500  # the first sentences of a file that tell which converter fits it

UD_RELATIONS = frozenset(
    "acl advcl advmod amod appos aux case cc ccomp clf compound conj cop csubj dep det "
    "discourse dislocated expl fixed flat goeswith iobj list mark nmod nsubj nummod obj obl "
    "orphan parataxis punct reparandum root vocative xcomp".split())
PREPOSITION_TAGS = frozenset({"IN", "TO", "ADP"})
UD_SHARE = 0.8  # the share of UD relation names above which relations alone say UD


@dataclass
class Style:
    """What the d-parses look like, and the evidence."""

    name: str  # "ud" or "collins"
    ud_relations: float  # share of relations that are UD relations
    heading_prepositions: float  # share of prepositions with a dependent of their own
    prepositions: int

    def describe(self) -> str:
        kind = "UD-style" if self.name == "ud" else "Collins-style"
        return (f"{kind} d-parses ({self.ud_relations:.0%} UD relations; "
                f"{self.heading_prepositions:.0%} of {self.prepositions} prepositions head words)")


def dependency_style(sentences: Sequence[DepSentence]) -> Style:
    """UD (content heads) or Collins-style (function heads), from relations and structure."""
    rels = ud = preps = heading = 0
    for sent in sentences:
        has_dependent = set(sent.heads)
        for i, tag in enumerate(sent.tags):
            if tag in PREPOSITION_TAGS:
                preps += 1
                heading += (i + 1) in has_dependent
        for rel in sent.rels:
            if rel and rel != "_":
                rels += 1
                ud += rel.split(":")[0].lower() in UD_RELATIONS
    ud_share = ud / rels if rels else 0.0
    heading_share = heading / preps if preps else 0.0
    if preps >= 5:  # structure decides: it holds whatever the relations are called
        name = "collins" if heading_share > 0.5 else "ud"
    else:
        name = "ud" if ud_share > UD_SHARE else "collins"
    return Style(name, ud_share, heading_share, preps)


def known_tags(model: Model, sentences: Sequence[DepSentence]) -> float:
    """Share of tokens whose tag the model was trained with."""
    tags = set(model.grammar.tags)
    total = known = 0
    for sent in sentences:
        total += len(sent.tags)
        known += sum(t in tags for t in sent.tags)
    return known / total if total else 1.0


@dataclass
class Choice:
    """The converter for an input and why, in words for a person."""

    engine: Engine | RuleBasedEngine
    name: str
    reason: str
    path: Path | None = None  # the model file (None for the rule-based projection)


def choose(sentences: Sequence[DepSentence], sample: int = SAMPLE,
           load: Callable[[Path], Engine] = Engine.load, fast: bool = False) -> Choice:
    """The bundled model that fits the first ``sample`` sentences, else the rule-based one
    (``load`` reads a model: a batch passes one that keeps them); with ``fast``, its
    :data:`FAST_TWIN` where it has one."""
    from pad_engine.resources import resource_path

    head = list(sentences[:sample])
    style = dependency_style(head)
    file = UD_MODEL if style.name == "ud" else COLLINS_MODEL
    if fast:
        file = FAST_TWIN.get(file, file)
    path = resource_path("models", file)
    engine = load(path)
    share = known_tags(engine.model, head)
    name = file.removesuffix(".padmodel")
    if share < MIN_KNOWN_TAGS:
        return Choice(RuleBasedEngine(), RuleBasedEngine.name,
                      f"{style.describe()}, but {name} knows the tags of only {share:.0%} "
                      "of the words: no bundled model fits")
    return Choice(engine, name, style.describe(), path)
