"""A text model: POS taggers, the arc model and the label model, in one safe file.

File format (``.padparser``): a NumPy ``.npz`` archive read with ``allow_pickle=False``,
holding ``meta`` (UTF-8 JSON as a uint8 array: format name and version, tag sets, labels,
table sizes, which tag column the parser reads, the d-parse convention, a ``training``
record) and each table stored sparsely as ``NAME.index`` (uint32) and ``NAME.value``
(float32; float16 for the arc and tagger tables, which lose no UAS and 0.01 tagging accuracy
at that precision, on UD English EWT test):
hashed tables are mostly zeros, so this keeps files small. Never a pickle.

Version 5 (stop parts: each head's outermost dependent on each side) replaced version 4
(the arc model's first tag column named apart from the column PAD reads; eight more tagger
templates), which replaced version 3 (arc features of a second tag column, UPOS beside
XPOS), which replaced versions 2 and 1 (first-order arcs): an older file is refused with
the advice to retrain it.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pad_engine.io.gate import write_bytes
from pad_engine.parsing.arcs import sentence_arrays
from pad_engine.parsing.features import fits_half
from pad_engine.parsing.labels import predict_labels
from pad_engine.parsing.model_check import TAG_COLUMNS, read_text_model_file
from pad_engine.parsing.perceptron import parse_arrays
from pad_engine.parsing.tagger import Tagger

HALF_TABLES = ("arcs", "tagger.")  # names (or prefixes) stored as float16, see half_precision
FORMAT = "pad-studio-text-model"
VERSION = 5


@dataclass
class TextModel:
    """Taggers (by CoNLL column), the arc weights and the label model.

    ``parse_column`` names the tag column PAD gets: the finer treebank tags (XPOS) where
    the training data had them. ``arc_column`` is the one the arc model reads first (its
    filter, contexts and in-between tags), beside the other column where there are two: UPOS
    on UD treebanks, whose coarser, better-predicted tags gave +0.3 UAS on UD English EWT
    dev (predicted tags). ``convention`` says which d-parse style it learned ("ud" or
    "collins"), which picks the PAD model that pairs with it.
    """

    taggers: dict[str, Tagger]
    arc_weights: np.ndarray
    arc_filter: np.ndarray  # longest training span of each hashed (tag, tag, direction)
    labels: list[str] = field(default_factory=list)
    label_weights: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    parse_column: str = "xpos"
    convention: str = "collins"
    training: dict = field(default_factory=dict)
    arc_column: str = ""  # "": the parse column

    def __post_init__(self) -> None:
        self.arc_column = self.arc_column or self.parse_column

    @property
    def coarse_column(self) -> str | None:
        """The second tag column the arc model reads beside ``arc_column``, if the model
        tags one."""
        return next((c for c in TAG_COLUMNS if c != self.arc_column and c in self.taggers),
                    None)

    def arc_tags(self, tags: dict[str, list[str]]) -> tuple[list[str], list[str] | None]:
        """The arc model's first and second tags out of a sentence's tag columns."""
        coarse = self.coarse_column
        return tags[self.arc_column], tags.get(coarse) if coarse else None

    @property
    def arc_mask(self) -> int:
        return self.arc_weights.shape[0] - 1

    @property
    def label_mask(self) -> int:
        return self.label_weights.shape[0] - len(self.labels) - 1

    def tag(self, forms: Sequence[str]) -> dict[str, list[str]]:
        """The predicted tags of each column the model has a tagger for."""
        return {col: tagger.tag(forms) for col, tagger in self.taggers.items()}

    def parse(self, forms: Sequence[str], tags: Sequence[str],
              coarse: Sequence[str] | None = None) -> list[int]:
        """The best projective d-parse of a tagged sentence (heads, 0 = root); ``tags``: the
        :attr:`arc_column` tags, ``coarse``: the :attr:`coarse_column` ones, where the model
        has that column (:meth:`arc_tags` picks both)."""
        if not forms:
            return []
        arr = sentence_arrays(forms, tags, coarse)
        return parse_arrays(arr, self.arc_weights, self.arc_mask, self.arc_filter).tolist()

    def label(self, forms: Sequence[str], tags: Sequence[str], heads: Sequence[int],
              arr: np.ndarray | None = None) -> list[str]:
        """A DEPREL for each arc of a d-parse ("_" each when the model has no labels);
        ``tags``: the :attr:`arc_column` tags; ``arr`` is the sentence's arrays if the
        caller has them already."""
        if not self.labels:
            return ["_"] * len(forms)
        if arr is None:
            arr = sentence_arrays(forms, tags)
        ids = predict_labels(np.asarray(heads, np.int64), arr, self.label_weights,
                             self.label_mask, len(self.labels))
        return [self.labels[k] for k in ids]

    def parse_and_label(self, forms: Sequence[str], tags: Sequence[str],
                        coarse: Sequence[str] | None = None) -> tuple[list[int], list[str]]:
        """The d-parse of a tagged sentence and its labels (the sentence read once)."""
        if not forms:
            return [], []
        arr = sentence_arrays(forms, tags, coarse)
        heads = parse_arrays(arr, self.arc_weights, self.arc_mask, self.arc_filter)
        return heads.tolist(), self.label(forms, tags, heads, arr)

    # -- files --------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the model atomically (temporary file, then rename)."""
        tables = {"arcs": self.arc_weights, "filter": self.arc_filter.astype(np.float32),
                  "labels": self.label_weights}
        for col, tagger in self.taggers.items():
            tables[f"tagger.{col}.1"] = tagger.weights
            tables[f"tagger.{col}.2"] = tagger.weights2
        meta = {
            "format": FORMAT,
            "version": VERSION,
            "parse_column": self.parse_column,
            "arc_column": self.arc_column,
            "convention": self.convention,
            "labels": self.labels,
            "taggers": {col: {"tags": t.tags, "training": t.training}
                        for col, t in self.taggers.items()},
            "sizes": {name: int(a.shape[0]) for name, a in tables.items()},
            "training": self.training,
        }
        arrays = {"meta": np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)}
        for name, table in tables.items():
            index = np.flatnonzero(table).astype(np.uint32)
            arrays[f"{name}.index"] = index
            values = table[index]
            half = name.startswith(HALF_TABLES) and fits_half(values)
            arrays[f"{name}.value"] = values.astype(np.float16 if half else np.float32)
        buf = io.BytesIO()
        np.savez_compressed(buf, **arrays)
        write_bytes(path, buf.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> TextModel:
        """Load a text model; damaged, truncated, foreign or crafted files raise ModelError
        (every field and size is checked first, see :mod:`pad_engine.parsing.model_check`)."""
        meta, tables = read_text_model_file(str(path), FORMAT, VERSION)
        taggers = {col: Tagger(list(t["tags"]), tables[f"tagger.{col}.1"],
                               tables[f"tagger.{col}.2"], dict(t.get("training", {})))
                   for col, t in meta["taggers"].items()}
        return cls(taggers, tables["arcs"], tables["filter"].astype(np.int64),
                   list(meta["labels"]), tables["labels"], meta["parse_column"],
                   meta["convention"], dict(meta.get("training", {})), meta["arc_column"])
