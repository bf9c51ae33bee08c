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

from pad_engine.decoding.model_check import read_archive
from pad_engine.errors import ModelError
from pad_engine.io.gate import write_bytes
from pad_engine.parsing.arcs import FILTER_BITS, sentence_arrays
from pad_engine.parsing.features import fits_half
from pad_engine.parsing.labels import predict_labels
from pad_engine.parsing.perceptron import parse_arrays
from pad_engine.parsing.tagger import Tagger

MAX_MEMBERS = 64  # a model with two taggers has 15
MAX_TABLE_BYTES = 256 << 20
MAX_TABLE_SIZE = 1 << 26  # entries of one hashed table (the bundled models use 2**22 to 2**24)
TABLE_DTYPES = {"index": ("<u4", "<i4", "<i8", "<u8"), "value": ("<f4", "<f2")}
HALF_TABLES = ("arcs", "tagger.")  # names (or prefixes) stored as float16, see half_precision
FORMAT = "pad-studio-text-model"
VERSION = 5
TAG_COLUMNS = ("xpos", "upos")


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
        """Load a text model; damaged, truncated or foreign files raise ModelError."""
        path = str(path)
        meta, arrays = read_archive(path, FORMAT, "text model", MAX_MEMBERS, MAX_TABLE_BYTES,
                                    TABLE_DTYPES)
        version = meta.get("version")
        if not isinstance(version, int) or version > VERSION:
            raise ModelError(f"{path}: text model format version {str(version)[:20]} is "
                             f"newer than this PAD Studio understands ({VERSION}); "
                             "upgrade PAD Studio")
        if version != VERSION:
            raise ModelError(f"{path}: text model format version {version} is older than "
                             f"this PAD Studio's ({VERSION}); retrain it with pad train-deps")
        try:
            tables = {name: _dense(arrays, name, int(size), path)
                      for name, size in meta["sizes"].items()}
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise ModelError(f"{path}: damaged text model metadata ({err})") from None
        try:
            taggers = {col: Tagger(list(map(str, t["tags"])), tables[f"tagger.{col}.1"],
                                   tables[f"tagger.{col}.2"], dict(t.get("training", {})))
                       for col, t in meta["taggers"].items()}
            model = cls(taggers, tables["arcs"], tables["filter"].astype(np.int64),
                        list(map(str, meta["labels"])),
                        tables["labels"], str(meta["parse_column"]), str(meta["convention"]),
                        dict(meta.get("training", {})), str(meta["arc_column"]))
        except (KeyError, TypeError, ValueError) as err:
            raise ModelError(f"{path}: damaged text model metadata ({err})") from None
        problem = model._problem()
        if problem:
            raise ModelError(f"{path}: damaged text model ({problem})")
        return model

    def _problem(self) -> str | None:
        for column in (self.parse_column, self.arc_column):
            if column not in self.taggers:
                return f"no tagger for the tag column {column!r}"
        if not _power_of_two(self.arc_weights.shape[0]):
            return "arc table size is not a power of two"
        if self.arc_filter.shape != (1 << FILTER_BITS,) or self.arc_filter.min() < 0:
            return "bad arc filter table"
        for col, t in self.taggers.items():
            if col not in TAG_COLUMNS or not t.tags:
                return f"bad tagger {col!r}"
            if t.weights.shape != t.weights2.shape or not _power_of_two(
                    t.weights.shape[0] - len(t.tags)):
                return f"tagger {col!r} tables do not fit its {len(t.tags)} tags"
        if self.labels and not _power_of_two(self.label_weights.shape[0] - len(self.labels)):
            return f"label table does not fit its {len(self.labels)} labels"
        return None


def _power_of_two(k: int) -> bool:
    return k > 0 and k & (k - 1) == 0


def _dense(data, name: str, size: int, path: str) -> np.ndarray:
    index = data[f"{name}.index"]
    value = data[f"{name}.value"]
    if not 0 <= size <= MAX_TABLE_SIZE:
        raise ModelError(f"{path}: damaged text model (table {name!r} of {size} entries)")
    if not np.all(np.isfinite(value)):
        raise ModelError(f"{path}: damaged text model (table {name!r} has weights that are "
                         "not finite)")
    if index.shape != value.shape or index.ndim != 1 or (index.size and index.max() >= size):
        raise ModelError(f"{path}: damaged text model (table {name!r} does not fit its size)")
    table = np.zeros(size, np.float32)
    table[index.astype(np.int64)] = value
    return table
