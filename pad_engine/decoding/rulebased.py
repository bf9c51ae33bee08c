"""The rule-based projection put to use: the no-model ``Converter`` (``RuleBasedEngine``), its
label sets (named or learned from corrected trees), and what a model retrained from scratch
reads off the projection (``projection_features``). The rules themselves are in
:mod:`pad_engine.decoding.projection`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

import numpy as np

from pad_engine.decoding.candidate import Candidate, How
from pad_engine.decoding.features import span_keys, stable_key
from pad_engine.decoding.labelsets import ANY, DROP, LabelSet, load_label_set, relation_key
from pad_engine.decoding.projection import LABELS, Projection, project, projection, word_class
from pad_engine.decoding.reuse_cache import remembered_on_reuse
from pad_engine.trees.deplabels import ROOT
from pad_engine.trees.deptree import DepSentence
from pad_engine.trees.edits import phrase_nodes
from pad_engine.trees.lextree import LexNode, Spans
from pad_engine.trees.projectivize import Lift, projectivize
from pad_engine.trees.structure import is_projective_tree
from pad_engine.trees.walk import fold

REMEMBERED = 16_384  # sentences whose projection_features are kept (about 4 kB each)
# sentences whose projections are kept (EWT dev: about 3 kB each, 8 kB once the tree is made)
TREES_REMEMBERED = 4_096


def phrase_labels(tree: LexNode) -> set[str]:
    """The labels of a tree's phrases (TOP left out)."""
    return {node.label for node in phrase_nodes(tree)} - {"TOP"}


def projected_tree(forms: list[str], tags: list[str], heads: list[int],
                   rels: list[str] | None = None) -> LexNode:
    """:func:`~pad_engine.decoding.projection.project` of a projective d-parse, remembered
    for the last :data:`TREES_REMEMBERED` sentences asked for more than once
    (:mod:`~pad_engine.decoding.reuse_cache`): a file's d-parses are projected for every
    retraining, each fold of its cross-validation, and the features of its warm start, while
    a conversion asks for each sentence once (the tree is shared: the caller must not change
    it)."""
    return _projected(tuple(forms), tuple(tags), tuple(heads), tuple(rels) if rels else ()).tree


@remembered_on_reuse(TREES_REMEMBERED)
def _projected(forms: tuple[str, ...], tags: tuple[str, ...], heads: tuple[int, ...],
               rels: tuple[str, ...]) -> Projection:
    return projection(list(forms), list(tags), list(heads), list(rels) or None)


def projection_features(forms: list[str], tags: list[str], heads: list[int],
                        rels: list[str] | None = None) -> tuple[list[str], np.ndarray]:
    """What a model that reads the rule-based tree of a d-parse sees: each word's label in
    it, in deplabels' phrase scheme (``S+NP``), and a hash of the labels of its phrases over
    each span they cover (:func:`~pad_engine.decoding.features.span_keys`). "_" and no
    spans where the heads are not a projective tree. Remembered for the last
    :data:`REMEMBERED` sentences asked for more than once: retraining, cross-validation and
    simulated annotation decode the same sentences again and again (the caller must not
    change the result)."""
    return _projection_features(tuple(forms), tuple(tags), tuple(heads),
                                tuple(rels) if rels else ())


def unprojected(n: int) -> tuple[list[str], np.ndarray]:
    """What a model reading the projection sees of an n-word d-parse it cannot project:
    every word labeled "_" and no phrase over any span (training hides the projection this
    way too, ``train(projection_dropout=...)``)."""
    return ["_"] * n, span_keys(n, {})


@remembered_on_reuse(REMEMBERED)
def _projection_features(forms: tuple[str, ...], tags: tuple[str, ...], heads: tuple[int, ...],
                         rels: tuple[str, ...]) -> tuple[list[str], np.ndarray]:
    n = len(forms)
    if not forms or not is_projective_tree(np.asarray(heads, np.int64) - 1):
        return unprojected(n)
    chains, attached, maximal = _projected(forms, tags, heads, rels).read()
    # deplabels' scheme: the phrase a word attaches in + its maximal projection ("*" bare)
    labels = [f"{phrase}+{own or '*'}" if phrase else ROOT
              for phrase, own in zip(attached, maximal)]
    return labels, span_keys(n, {span: stable_key(chain) for span, chain in chains.items()})


def label_set(name: str) -> LabelSet:
    """A label set for the projection by name or file (``ptb``, ``ud-generic``, a .labels
    file); InputError naming the file and line of a bad rule."""
    return load_label_set(name, LABELS)


def learn_label_set(corrected: Iterable[tuple[DepSentence, LexNode]], name: str = "learned"
                    ) -> LabelSet:
    """The labels corrected trees give the projection's phrases: each projected phrase of a
    sentence takes the label of the corrected tree's bracket over the same words
    (punctuation aside; in a chain of brackets over the same words, bottom up), or ``-``
    when the corrected tree has none there; the most frequent outcome per (phrase, tag,
    relation) wins, backed off to (phrase, tag) and the phrase alone, and only rules that
    differ from their back-off are kept."""
    counts: dict[tuple[str, str, str], Counter] = defaultdict(Counter)
    for sent, gold in corrected:
        heads, _ = projectivize(sent.heads)
        tree = project(sent.forms, sent.tags, heads, sent.rels or None)
        punct = [word_class(t, f) == "PUNCT" for t, f in zip(sent.tags, sent.forms)]
        wanted = _brackets_by_span(gold, punct)
        at = Spans(tree)
        for span, chain in _brackets_by_span(tree, punct).items():
            labels = wanted.get(span, [])
            for k, node in enumerate(chain):
                w = at.head_word(node)
                rel = relation_key(sent.rels[w] if w < len(sent.rels) else "")
                outcome = labels[k].label if k < len(labels) else DROP
                for key in ((node.label, ANY, ANY), (node.label, sent.tags[w], ANY),
                            (node.label, sent.tags[w], rel)):
                    counts[key][outcome] += 1
    best = {key: _majority(c) for key, c in counts.items()}
    rules = {}
    for (phrase, tag, rel), label in best.items():
        backoff = phrase if tag == ANY else best[phrase, ANY, ANY] if rel == ANY else \
            best[phrase, tag, ANY]
        if label != backoff:
            rules[phrase, tag, rel] = label
    return LabelSet(name, rules)


def _majority(outcomes: Counter) -> str:
    """The most frequent outcome; ties go to a label over ``-``, then alphabetically."""
    return min(outcomes.items(), key=lambda kv: (-kv[1], kv[0] == DROP, kv[0]))[0]


def _brackets_by_span(root: LexNode, punct: list[bool]) -> dict[tuple[int, int], list[LexNode]]:
    """Phrases below the root by the span of their words that are not punctuation, each
    chain bottom up (phrases over punctuation only are left out, as EVALB leaves them)."""
    out: dict[tuple[int, int], list[LexNode]] = defaultdict(list)

    def combine(node: LexNode, kids: list[tuple[int, int] | None]) -> tuple[int, int] | None:
        """The node's first and last word that are not punctuation (None: it has none)."""
        if node.word >= 0:
            return None if punct[node.word] else (node.word, node.word)
        inner = [k for k in kids if k is not None]
        if not inner:
            return None
        span = inner[0][0], inner[-1][1]
        out[span].append(node)
        return span

    for top in root.children if root.label == "TOP" else [root]:
        # children first, so a chain over the same words lists its lowest phrase first
        fold(top, lambda node: node.children, combine)
    return out


class RuleBasedEngine:
    """The ``Converter`` over the rule-based projection, with a label set (PTB by default)."""

    name = "rule-based projection (no model)"

    def __init__(self, labels: LabelSet | None = None):
        self.labels = labels or LabelSet("ptb")
        if self.labels.rules:
            self.name = f"rule-based projection (no model), {self.labels.name} labels"

    def phrase_labels(self) -> list[str]:
        """The phrase labels the projection produces (for relabeling)."""
        return self.labels.labels(set(LABELS) - {"TOP"})

    def label_warning(self, sentences: Iterable[DepSentence]) -> str | None:
        """None: the projection reads relations where it knows them and copes without."""
        return None

    def relations_warning(self, relations: Counter[str]) -> str | None:
        """None, as :meth:`label_warning`."""
        return None

    def candidates(self, sent: DepSentence, k: int = 10, prune: bool = True) -> list[Candidate]:
        """The one rule-based c-parse (``k`` and ``prune`` do not apply)."""
        return [self.best(sent, prune)]

    def best(self, sent: DepSentence, prune: bool = True) -> Candidate:
        """The c-parse of the sentence's d-parse, lifted to a projective one first if need be.
        Raises InputError when the heads are not a tree."""
        heads, lifted = projectivize(sent.heads)
        tree = project(sent.forms, sent.tags, heads, sent.rels or None)
        tree = self.labels.apply(tree, sent.tags, sent.rels)
        return Candidate(tree, 0.0, How.RULES, list(lifted))

    def best_line(self, sent: DepSentence, prune: bool = True) -> tuple[str, str, list[Lift]]:
        """:meth:`best`'s Penn line, how it was made and the lifted arcs."""
        cand = self.best(sent, prune)
        return cand.penn(sent.forms), cand.how, cand.lifted
