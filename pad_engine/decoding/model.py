"""A PAD model: grammar, pruning tables and hashed weights, saved as a safe, versioned file.

File format (``.padmodel``): a NumPy ``.npz`` archive (loaded with ``allow_pickle=False``)
holding ``weights`` (float32, 2**bits entries) and ``meta`` (a UTF-8 JSON document as a
uint8 array) with the format name and version, the grammar (symbols, tags, rules, the tag
rows where each rule was seen, attachment-side counts), feature settings, the head table, the
dependency labels the model reads (if any) and a free-form ``training`` record (data, epochs,
date, scores). Never a pickle.

Versions: 1 and 2 (2: the model reads labels) keyed the parent+child templates by symbol ids
and the grammar's size; 3 keyed the rule parts by the symbols' names but the tag templates by
the tags' rows, so a tag added by retraining moved the sentence-boundary and unknown-tag
features; 4 keys every template by names (see features.py). Older weights mean nothing to
this decoder: such files are refused with a message saying to retrain (the weights alone
cannot be converted: each mixes several features).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pad_engine.decoding.grammar import Grammar, GrammarArrays
from pad_engine.decoding.model_check import (
    DEPREL_AND_PROJECTION,
    meta_problem,
    read_model_bytes,
    read_model_file,
)
from pad_engine.errors import ModelError
from pad_engine.io.gate import write_bytes

FORMAT = "pad-studio-model"
VERSION = 5  # 5: the d-parses' re-attachment (Model.reattach), written only by models with one
PLAIN_VERSION = 4  # what a model without one is written as, so older readers still open it
FIRST_VERSION = 4  # the oldest version whose feature hashing this decoder shares
DEFAULT_BITS = 21
# The widest step of the int16 weights the decoder reads (Model.decoding_weights): a rule's
# score (about 25 weights) moves by at most 2.5e-3 of the beam's 6. A model with a weight
# beyond 6.5 (the bundled ones reach 1.3-2.2) decodes with its float weights instead.
MAX_STEP = 2e-4


def quantized(weights: np.ndarray) -> tuple[np.ndarray, float]:
    """``weights`` rounded to int16 steps of one unit, and the unit: the largest magnitude
    over 32,767. The bundled PTB model's weights reach 1.64, so a step is 5e-5, and a rule's
    score (about 25 weights) moves by at most 6e-4 (the search's beam is 6)."""
    top = max(float(weights.max()), -float(weights.min())) if weights.size else 0.0
    unit = top / 32767 if top > 0 else 1.0
    steps = np.multiply(weights, 1.0 / unit, dtype=np.float64)  # one pass, no float32 rounding
    return np.rint(steps, out=steps).astype(np.int16), unit


@dataclass
class Model:
    """Everything the decoder needs, plus how the model was made."""

    grammar: Grammar = field(default_factory=Grammar)
    weights: np.ndarray = field(
        default_factory=lambda: np.zeros(1 << DEFAULT_BITS, dtype=np.float32)
    )
    headrules: str = "collins"
    alpha: float = 0.98
    training: dict = field(default_factory=dict)
    projections: dict[str, str] = field(default_factory=dict)  # tag -> usual phrase label
    # Dependency labels: "" when the model ignores them, else where its training labels came
    # from ("deprel": the CoNLL column; "phrase": read off Penn trees, see deplabels.py;
    # "projection": made from each d-parse by the rule-based projection, rulebased.py;
    # "deprel+projection": the CoNLL column, and the projection's phrases over each span)
    dep_labels: str = ""
    label_set: list[str] = field(default_factory=list)  # the labels seen in training
    # How the model's d-parses are re-attached before decoding (trees/attachment.py):
    # "" as they are; "penn": coordinators and punctuation where Penn trees attach them
    # (for UD d-parses, which hang them on the conjunct or phrase they open or close)
    reattach: str = ""
    _packed: GrammarArrays | None = field(default=None, repr=False)
    # (the weights array it was made from, its int16 copy, the unit): decoding_weights
    _quantized: tuple | None = field(default=None, repr=False)

    @property
    def reads_deprel(self) -> bool:
        """Whether the model reads the d-parses' DEPREL column (its input must have it)."""
        return self.dep_labels in ("deprel", DEPREL_AND_PROJECTION)

    @property
    def reads_projection(self) -> bool:
        """Whether the model reads the rule-based projection of each d-parse."""
        return self.dep_labels in ("projection", DEPREL_AND_PROJECTION)

    @property
    def mask(self) -> int:
        return self.weights.shape[0] - 1

    def packed(self) -> GrammarArrays:
        """The grammar as decoder arrays (cached; call :meth:`invalidate` after changes)."""
        if self._packed is None:
            self._packed = self.grammar.pack(self.projections)
        return self._packed

    def invalidate(self) -> None:
        self._packed = None

    def decoding_weights(self) -> tuple[np.ndarray, float]:
        """The weights as the decoder reads them, and their unit: int16 copies of the float32
        weights (:func:`quantized`), which take half the memory, so more of the randomly read
        table stays in the processor's cache: the same trees, 1.05-1.15x the pruned
        decoder's speed (docs/EXPERIMENTS.md, "The decoder reads int16 weights"). A model
        whose steps would pass :data:`MAX_STEP` decodes with a writable copy of its float
        weights (training's build of the decoder: nothing more to compile). Made again
        whenever ``weights`` is another array (training assigns a new one; it decodes with
        its own float weights meanwhile)."""
        made = self._quantized
        if made is None or made[0] is not self.weights:
            weights, unit = quantized(self.weights)
            if unit > MAX_STEP:
                weights, unit = np.array(self.weights, np.float32), 1.0
            made = self._quantized = (self.weights, weights, unit)
        return made[1], made[2]

    # -- files --------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the model atomically (temporary file, then rename); a model its file could
        not be loaded from (:meth:`problem`) is refused, and nothing written."""
        write_bytes(path, self.to_bytes(str(path)))

    def to_bytes(self, name: str = "model") -> bytes:
        """The model's ``.padmodel`` file as bytes (a project keeps them); refused, as
        :meth:`save` refuses, when it could not be loaded back (``name`` says whose)."""
        text = self._meta_json()
        problem = meta_problem(text, self.weights)
        if problem:
            raise ModelError(f"{name}: not written, the model could not be loaded: {problem}")
        buf = io.BytesIO()
        np.savez_compressed(
            buf,
            weights=self.weights.astype(np.float32),
            meta=np.frombuffer(text, dtype=np.uint8),
        )
        return buf.getvalue()

    def problem(self) -> str | None:
        """Why the model's file would be refused on loading (a size the decoder cannot hold,
        see ``capacity``, or a field out of range), or None. Training asks before it trains,
        saving before it writes: the loader's own check, on the metadata a file would hold."""
        return meta_problem(self._meta_json(), self.weights)

    def _meta_json(self) -> bytes:
        """The metadata of the model's file, as UTF-8 JSON."""
        g = self.grammar
        meta = {
            "format": FORMAT,
            "version": VERSION if self.reattach else PLAIN_VERSION,
            "headrules": self.headrules,
            "alpha": self.alpha,
            "feature_bits": int(np.log2(self.weights.shape[0])),
            "training": self.training,
            "projections": self.projections,
            **({"labels": {"source": self.dep_labels, "known": self.label_set}}
               if self.dep_labels else {}),
            **({"reattach": self.reattach} if self.reattach else {}),
            "grammar": {
                "symbols": g.symbols,
                "tags": g.tags,
                "binary": [list(r) for r in g.binary],
                "unary": [list(r) for r in g.unary],
                "binary_tags": sorted([list(x) for x in g.binary_tags]),
                "unary_tags": sorted([list(x) for x in g.unary_tags]),
                "side_counts": [[*k, *v] for k, v in sorted(g.side_counts.items())],
                "max_unary": g.max_unary,
            },
        }
        return json.dumps(meta).encode("utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Model:
        """Load a model file; damaged, truncated or foreign files raise ModelError."""
        # every field is checked there (types, ranges, sizes, the weights' count, the format)
        return cls._checked(*read_model_file(str(path), FORMAT, VERSION, FIRST_VERSION))

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "model") -> Model:
        """Inverse of :meth:`to_bytes`: the bytes are untrusted (a project file travels), so
        they pass the file loader's checks; ModelError naming ``name`` otherwise."""
        return cls._checked(*read_model_bytes(data, name, FORMAT, VERSION, FIRST_VERSION))

    @classmethod
    def _checked(cls, meta: dict, weights: np.ndarray) -> Model:
        """The model of metadata and weights that passed ``model_check``."""
        gm = meta["grammar"]
        grammar = Grammar(
            symbols=list(gm["symbols"]),
            tags=list(gm["tags"]),
            binary=[tuple(r) for r in gm["binary"]],
            unary=[tuple(r) for r in gm["unary"]],
            binary_tags={tuple(x) for x in gm["binary_tags"]},
            unary_tags={tuple(x) for x in gm["unary_tags"]},
            side_counts={tuple(x[:3]): list(x[3:]) for x in gm["side_counts"]},
            max_unary=int(gm["max_unary"]),
        )
        labels = meta.get("labels", {"source": "", "known": []})
        source, known = str(labels["source"]), [str(x) for x in labels["known"]]
        return cls(
            grammar=grammar,
            weights=weights,
            headrules=meta.get("headrules", "collins"),
            alpha=float(meta.get("alpha", 0.98)),
            training=meta.get("training", {}),
            projections=dict(meta.get("projections", {})),
            dep_labels=source,
            label_set=known,
            reattach=str(meta.get("reattach", "")),
        )


def default_model_path() -> Path:
    """The bundled English model (Penn Treebank sample, Collins head rules)."""
    from pad_engine.resources import resource_path

    return resource_path("models", "english-ptb-collins.padmodel")
