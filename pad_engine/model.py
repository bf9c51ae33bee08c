"""A PAD model: grammar, pruning tables and hashed weights, saved as a safe, versioned file.

File format (``.padmodel``): a NumPy ``.npz`` archive (loaded with ``allow_pickle=False``)
holding ``weights`` (float32, 2**bits entries) and ``meta`` (a UTF-8 JSON document as a
uint8 array) with the format name and version, the grammar (symbols, tags, rules, the tag
rows where each rule was seen, attachment-side counts), feature settings, the head table, the
dependency labels the model reads (if any) and a free-form ``training`` record (data, epochs,
date, scores). Never a pickle. A model that reads labels is written as version 2, so that a
PAD Studio which would ignore them refuses it instead of decoding badly.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pad_engine.atomic import atomic_open
from pad_engine.errors import ModelError
from pad_engine.grammar import Grammar, GrammarArrays

FORMAT = "pad-studio-model"
VERSION = 2
DEFAULT_BITS = 21


@dataclass
class Model:
    """Everything the decoder needs, plus how the model was made."""

    grammar: Grammar = field(default_factory=Grammar)
    weights: np.ndarray = field(
        default_factory=lambda: np.zeros(1 << DEFAULT_BITS, dtype=np.float32)
    )
    headrules: str = "collins"
    pos_column: str = "xpos"
    alpha: float = 0.98
    training: dict = field(default_factory=dict)
    projections: dict[str, str] = field(default_factory=dict)  # tag -> usual phrase label
    # Dependency labels: "" when the model ignores them, else where its training labels came
    # from ("deprel": the CoNLL column; "phrase": read off Penn trees, see deplabels.py)
    labels: str = ""
    label_set: list[str] = field(default_factory=list)  # the labels seen in training
    _packed: GrammarArrays | None = field(default=None, repr=False)

    @property
    def mask(self) -> int:
        return self.weights.shape[0] - 1

    def packed(self) -> GrammarArrays:
        """The grammar as decoder arrays (cached; call :meth:`invalidate` after changes)."""
        if self._packed is None:
            self._packed = self.grammar.pack()
        return self._packed

    def invalidate(self) -> None:
        self._packed = None

    # -- files --------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the model atomically (temporary file, then rename)."""
        g = self.grammar
        meta = {
            "format": FORMAT,
            "version": VERSION if self.labels else 1,
            "headrules": self.headrules,
            "pos_column": self.pos_column,
            "alpha": self.alpha,
            "feature_bits": int(np.log2(self.weights.shape[0])),
            "training": self.training,
            "projections": self.projections,
            **({"labels": {"source": self.labels, "known": self.label_set}} if self.labels else {}),
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
        buf = io.BytesIO()
        np.savez_compressed(
            buf,
            weights=self.weights.astype(np.float32),
            meta=np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8),
        )
        with atomic_open(path, "wb") as out:
            out.write(buf.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> Model:
        """Load a model file; damaged, truncated or foreign files raise ModelError."""
        path = str(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                if "meta" not in data or "weights" not in data:
                    raise ModelError(f"{path}: not a PAD Studio model (missing weights/meta)")
                meta = json.loads(data["meta"].tobytes().decode("utf-8"))
                weights = np.ascontiguousarray(data["weights"], dtype=np.float32)
        except ModelError:
            raise
        except FileNotFoundError:
            raise ModelError(f"{path}: no such model file") from None
        except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError) as err:
            raise ModelError(f"{path}: damaged or not a PAD Studio model ({err})") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise ModelError(f"{path}: not a PAD Studio model (format {meta.get('format')!r})")
        if meta.get("version", 0) > VERSION:
            raise ModelError(
                f"{path}: model format version {meta['version']} is newer than this "
                f"PAD Studio understands ({VERSION}); upgrade PAD Studio"
            )
        try:
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
            bits = int(meta["feature_bits"])
            labels = meta.get("labels", {"source": "", "known": []})
            source, known = str(labels["source"]), [str(x) for x in labels["known"]]
        except (KeyError, TypeError, ValueError) as err:
            raise ModelError(f"{path}: damaged model metadata ({err})") from None
        if weights.shape != (1 << bits,):
            raise ModelError(f"{path}: weights have {weights.shape} entries, expected 2**{bits}")
        return cls(
            grammar=grammar,
            weights=weights,
            headrules=meta.get("headrules", "collins"),
            pos_column=meta.get("pos_column", "xpos"),
            alpha=float(meta.get("alpha", 0.98)),
            training=meta.get("training", {}),
            projections=dict(meta.get("projections", {})),
            labels=source,
            label_set=known,
        )


def default_model_path() -> Path:
    """The bundled English model (Penn Treebank sample, Collins head rules)."""
    from pad_resources import resource_path

    return resource_path("models", "english-ptb-collins.padmodel")
