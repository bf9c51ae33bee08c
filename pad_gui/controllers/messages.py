"""What a worker thread reports to its controller (``Worker.report``) and returns: one small
frozen type per kind, so the controller dispatches on the type (``match``) and a message
with a missing or extra field fails where it is made, not where it is read."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Ready:
    """The engine thread loaded its start-up converter (None, with why, when it could not)."""

    problem: str
    converter: Any


@dataclass(frozen=True)
class Decoded:
    """A sentence's candidates (or the PadError why not) under the decode request ``key``."""

    key: Hashable
    result: Any


@dataclass(frozen=True)
class JobDone:
    """A job or a model swap ended: its result, or the exception it raised."""

    job: int
    result: Any


@dataclass(frozen=True)
class Trained:
    """Retraining made a model: it, its ``.padmodel`` bytes and the seconds it took."""

    model: Any
    data: bytes
    seconds: float


@dataclass(frozen=True)
class Adapted:
    """Adapting the d-parser got through ``done`` of ``total`` sentence steps."""

    done: int
    total: int


@dataclass(frozen=True)
class FoldDone:
    """Cross-validation finished ``done`` of ``total`` folds."""

    done: int
    total: int


@dataclass(frozen=True)
class Measured:
    """A retrained model's cross-validated F1 beside the version in use, on the same folds;
    ``confidence``: the share of resamplings of the held-out sentences where it scores
    higher, ``better``: higher by more than their noise (``retrain.Comparison.better``)."""

    f1: float
    folds: int
    current: float
    confidence: float
    better: bool


@dataclass(frozen=True)
class NotMeasured:
    """A retrained model that could not be cross-validated, and why."""

    why: str


@dataclass(frozen=True)
class Preparing:
    """What the engine thread does before the model can decode ("" once it can)."""

    text: str


@dataclass(frozen=True)
class Compared:
    """The new model's trees were compared with the shown ones on ``done`` of ``total``
    sentences not yet corrected."""

    done: int
    total: int


@dataclass(frozen=True)
class TreeChange:
    """A sentence not yet corrected whose best tree a new model changes: its index, the
    arcs it was decoded under, the tree shown now and the new model's."""

    idx: int
    heads: tuple[int, ...]
    old: Any
    new: Any


@dataclass(frozen=True)
class Changes:
    """What a new model would change: the sentences whose trees differ, of ``compared``."""

    changed: tuple[TreeChange, ...]
    compared: int
