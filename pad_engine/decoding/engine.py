"""A converter turns one d-parse into c-parses: the learned ``Engine`` here, and the
rule-based projection (``rulebased.RuleBasedEngine``), behind one ``Converter`` protocol."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol, runtime_checkable

from pad_engine.decoding.candidate import Candidate, How
from pad_engine.decoding.model import Model, default_model_path
from pad_engine.decoding.parser import Parser
from pad_engine.decoding.rulebased import projected_tree
from pad_engine.trees.binarize import is_intermediate
from pad_engine.trees.compare import distinct
from pad_engine.trees.deptree import DepSentence
from pad_engine.trees.projectivize import Lift, projectivize

# Beside the model's best trees, a list of candidates offers other views of the sentence in
# its last places: the rule-based projection's tree, which the model's grammar may not derive,
# and the model's best with a bonus of each of these weights for every bracket of that tree
# (Parser.guided). On the PTB sample test split the best of 10 candidates scores 98.91 F1
# with them, 98.50 with ten of the model's (docs/EXPERIMENTS.md, issue 37).
GUIDE_WEIGHTS = (0.5, 0.1)
VIEWS_FROM = 5  # shorter lists are the model's alone: the views would crowd it out


@runtime_checkable
class Converter(Protocol):
    """What the app, ``pad convert`` and batch conversion decode with."""

    def phrase_labels(self) -> list[str]:
        """The phrase labels it can produce (offered when relabeling)."""
        ...

    def label_warning(self, sentences: Iterable[DepSentence]) -> str | None:
        """Why these sentences' dependency labels will give worse trees, if they will."""
        ...

    def relations_warning(self, relations: Counter[str]) -> str | None:
        """:meth:`label_warning` from how often each relation occurs ("_" for none), which
        a stream of sentences can count as it goes."""
        ...

    def candidates(self, sent: DepSentence, k: int = 10, prune: bool = True) -> list[Candidate]:
        """Up to k c-parses consistent with the sentence's d-parse, best first."""
        ...

    def best(self, sent: DepSentence, prune: bool = True) -> Candidate:
        """The best c-parse consistent with the sentence's d-parse."""
        ...

    def best_line(self, sent: DepSentence, prune: bool = True) -> tuple[str, str, list[Lift]]:
        """The best c-parse as a Penn line, with its ``how`` and the lifted arcs (conversion
        needs no tree)."""
        ...


class Engine:
    """A loaded model and its decoder (a :class:`Converter`)."""

    def __init__(self, model: Model):
        self.model = model
        self.parser = Parser(model)

    def label_warning(self, sentences: Iterable[DepSentence]) -> str | None:
        """A warning when the model reads dependency labels and most of these sentences'
        labels are ones it never saw (a file labeled in another scheme, or unlabeled): the
        trees will be worse than from a model that ignores labels. A model that reads the
        rule-based projection makes its labels itself."""
        return self.relations_warning(
            Counter(r for s in sentences for r in (s.rels or ["_"] * len(s.forms))))

    def relations_warning(self, relations: Counter[str]) -> str | None:
        """:meth:`label_warning` from how often each relation occurs."""
        if self.model.dep_labels in ("", "projection"):
            return None
        known = set(self.model.label_set)
        total = relations.total()
        unknown = sum(n for r, n in relations.items() if r not in known)
        if not total or unknown * 2 <= total:
            return None
        seen = ", ".join(self.model.label_set[:6]) + (", ..." if len(known) > 6 else "")
        return (f"the model reads dependency labels ({seen}), but {unknown} of the {total} "
                "words have labels it never saw in training: expect less accurate trees, or "
                "use a model trained without labels")

    @classmethod
    def load(cls, path: str | Path | None = None) -> Engine:
        """Load a model file, or the bundled default model when ``path`` is None."""
        return cls(Model.load(path if path is not None else default_model_path()))

    def phrase_labels(self) -> list[str]:
        """The phrase labels the model knows (for relabeling), without tags or chain symbols."""
        g = self.model.grammar
        tags = set(g.tags)
        return sorted(s for s in g.symbols
                      if s not in tags and not is_intermediate(s) and not s.startswith("<"))

    def candidates(self, sent: DepSentence, k: int = 10, prune: bool = True) -> list[Candidate]:
        """The k best c-parses consistent with the sentence's d-parse (lifted to a projective
        one first if need be), best first, distinct in their labeled brackets once unary
        chains of one label are merged: the search keeps the best of each such bracketing
        (``Parser.kbest(distinct=True)``), so the k are k bracketings, where k plain trees
        were mostly chains over a few (on the PTB sample test split 40 plain trees held 3.8
        bracketings, 10 distinct ones 9.9; k-best oracle F1 at 10: 98.30 -> 98.47). The
        search tells apart chains whose labels differ only in order (A over B over A, and A
        over B); :func:`distinct` merges those too. From :data:`VIEWS_FROM` on, the last
        places go to other views of the sentence where they differ from the model's trees
        (see :data:`GUIDE_WEIGHTS`): the projection's tree (no model score: NaN) and the
        model's trees guided by it."""
        heads, lifted = projectivize(sent.heads)
        parses = self.parser.kbest(sent.forms, sent.tags, heads, k, prune=prune,
                                   rels=sent.rels, distinct=True)
        model = [Candidate(p.tree, p.score, p.how, list(lifted), p.cut_to)
                 for p in distinct(parses, lambda p: p.tree, k)]
        if k < VIEWS_FROM or model[0].how == How.FALLBACK or model[0].cut_to:
            return model  # no room, or no chart (or none the memory budget allows k in)
        views = self._views(sent, heads, lifted)
        kept = k - len(views)
        return distinct(model[:kept] + views + model[kept:], lambda c: c.tree, k)

    def _views(self, sent: DepSentence, heads: list[int], lifted: list[Lift]
               ) -> list[Candidate]:
        """The projection's tree of the (projectivized) d-parse and the model's best trees
        guided by it. The projection is the one a model reading it has already made for the
        sentence's features (``rulebased.projected_tree`` remembers it); the candidate gets
        a copy of it, as a caller may edit a candidate's tree."""
        reference = projected_tree(sent.forms, sent.tags, heads, sent.rels)
        guided = self.parser.guided(sent.forms, sent.tags, heads, reference, GUIDE_WEIGHTS,
                                    sent.rels)
        return [Candidate(reference.copy(), float("nan"), How.RULES, list(lifted)),
                *(Candidate(g.tree, g.score, g.how, list(lifted)) for g in guided)]

    def best(self, sent: DepSentence, prune: bool = True) -> Candidate:
        """The best c-parse consistent with the sentence's (projectivized) d-parse."""
        heads, lifted = projectivize(sent.heads)
        p = self.parser.parse(sent.forms, sent.tags, heads, prune=prune, rels=sent.rels)
        return Candidate(p.tree, p.score, p.how, lifted)

    def best_line(self, sent: DepSentence, prune: bool = True) -> tuple[str, str, list[Lift]]:
        """The best c-parse's Penn line, written from the derivation without a tree."""
        heads, lifted = projectivize(sent.heads)
        line, how = self.parser.parse_line(sent.forms, sent.tags, heads, prune, sent.rels)
        return line, how, lifted
