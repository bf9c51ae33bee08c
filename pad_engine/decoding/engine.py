"""A converter turns one d-parse into c-parses: the learned ``Engine`` here, and the
rule-based projection (``rulebased.RuleBasedEngine``), behind one ``Converter`` protocol."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from pad_engine.decoding.candidate import Candidate
from pad_engine.decoding.model import Model, default_model_path
from pad_engine.decoding.parser import MAX_CHART, Parser
from pad_engine.trees.binarize import is_intermediate
from pad_engine.trees.compare import distinct
from pad_engine.trees.deptree import DepSentence
from pad_engine.trees.projectivize import Lift, projectivize
from pad_engine.trees.structure import cell_count

# Trees decoded per candidate shown: most of a k-best list are unary chains of one label
# over another candidate (NP over NP), which are dropped. On EWT dev, 10 of 10, 20, 30 and
# 40 decoded trees give 6.3, 8.9, 9.7 and 9.9 distinct ones on average.
OVERDRAW = 4


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
        chains of one label are merged (:data:`OVERDRAW` times as many are decoded)."""
        heads, lifted = projectivize(sent.heads)
        parses = self.parser.kbest(sent.forms, sent.tags, heads, self._draw(heads, k),
                                   prune=prune, rels=sent.rels)
        return [Candidate(p.tree, p.score, p.how, list(lifted), p.cut_to if p.cut_to < k else 0)
                for p in distinct(parses, lambda p: p.tree, k)]

    @staticmethod
    def _draw(heads: list[int], k: int) -> int:
        """How many trees to decode for ``k`` distinct ones: :data:`OVERDRAW` times ``k``,
        fewer where a chart for that many would pass the size a chart for ``k`` passes."""
        cells = max(1, cell_count(np.asarray(heads, dtype=np.int64) - 1))
        return max(k, min(k * OVERDRAW, MAX_CHART // cells - 1))

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
