"""Text to d-parses to c-parses: tag what the input did not tag, d-parse what it did not
parse, label the arcs, and hand the d-parse to the PAD model that pairs with the text model
(a UD text model with the UD PAD model, a Collins-style one with the PTB model)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pad_engine.decoding.choice import COLLINS_MODEL, UD_MODEL, Choice
from pad_engine.decoding.engine import Engine
from pad_engine.errors import ModelError
from pad_engine.parsing.model import TextModel
from pad_engine.parsing.text import TextSentence
from pad_engine.resources import resource_path
from pad_engine.trees.deptree import DepSentence

BUNDLED = {"ptb": "english-ptb-collins.padparser", "ud": "english-ewt-ud.padparser"}
PAD_MODEL_OF = {"collins": COLLINS_MODEL, "ud": UD_MODEL}


def load_text_model(name: str) -> tuple[TextModel, Path]:
    """A bundled text model by short name (``ptb``, ``ud``) or a model file by path."""
    path = resource_path("models", BUNDLED[name]) if name in BUNDLED else Path(name)
    if name in BUNDLED and not path.exists():
        raise ModelError(f"{path}: the bundled {name} text model is missing (docs/EXPERIMENTS.md, "
                         "'The bundled models', has the command that trains it)")
    return TextModel.load(path), path


def paired_choice(model: TextModel) -> Choice:
    """The bundled PAD model for the text model's d-parse convention."""
    file = PAD_MODEL_OF.get(model.convention, COLLINS_MODEL)
    path = resource_path("models", file)
    return Choice(Engine.load(path), file.removesuffix(".padmodel"),
                  f"pairs with the text model's {model.convention} d-parses", path)


@dataclass
class Analysis:
    """A sentence with its tags (given or predicted, by column), d-parse and labels."""

    sentence: TextSentence
    tags: dict[str, list[str]]
    heads: list[int]
    rels: list[str]
    parse_tags: list[str]  # the tags PAD reads (the text model's parse column)

    def dep_sentence(self) -> DepSentence:
        s = self.sentence
        return DepSentence(s.forms, self.parse_tags, self.heads, self.rels, [], None, s.line)


class TextPipeline:
    """Tagging, d-parsing and labeling with one text model."""

    def __init__(self, model: TextModel):
        self.model = model

    def analyze(self, sent: TextSentence) -> Analysis:
        """Tags the input lacks, the d-parse (unless the input had one) and its labels."""
        return self.analyze_many([sent])[0]

    def analyze_many(self, sents: Sequence[TextSentence]) -> list[Analysis]:
        """:meth:`analyze` of each sentence, a stage at a time (every sentence tagged, then
        every one parsed): each stage's tables stay in the cache, which makes text to trees
        about 10% faster than sentence by sentence (PTB sample test, pad bench-text)."""
        m = self.model
        tags = [dict(sent.tags) for sent in sents]
        for col, tagger in m.taggers.items():
            for sent, have in zip(sents, tags):
                if col not in have:
                    have[col] = tagger.tag(sent.forms)
        return [self._arcs(sent, have) for sent, have in zip(sents, tags)]

    def _arcs(self, sent: TextSentence, tags: dict[str, list[str]]) -> Analysis:
        """The d-parse (unless the input had one) and its labels, the tags complete."""
        m = self.model
        first, second = m.arc_tags(tags)
        parse_tags = tags[m.parse_column]
        if sent.heads is None:
            heads, rels = m.parse_and_label(sent.forms, first, second)
            return Analysis(sent, tags, heads, rels, parse_tags)
        given = [line.split("\t")[7] for line in sent.lines
                 if not line.startswith("#") and line.split("\t")[0].isdigit()]
        rels = given if given and "_" not in given else m.label(sent.forms, first,
                                                                 sent.heads)
        return Analysis(sent, tags, sent.heads, rels, parse_tags)
