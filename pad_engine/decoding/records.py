"""The records that cross the decoder's boundary (:mod:`pad_engine.decoding.decoder`): what
a decode reads, what the chart holds and what a decode returns. They are named tuples of
arrays and scalars, which Numba passes into and out of compiled kernels; a kernel reads a
record's fields into locals once, at its top, since every field read counts references.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pad_engine.trees.structure import Structure

# Search modes, in the order a head escalates through them: pruned rows (pruning 1, rules by
# the head's tag, and 2, the attachment side); every rule; every rule plus glue rules.
PRUNED, EXACT, GLUE = 0, 1, 2
# The level a k-best decode returns when its chart would pass its budget of entries.
OVER_BUDGET = -2


class Inputs(NamedTuple):
    """Everything the kernels read, as one record (made by ``parser.chart_inputs``)."""

    sentence: tuple  # parser.Encoded: heads, rows, words, tags, rel_ids
    grammar: tuple  # grammar.GrammarArrays
    weights: np.ndarray  # int16 (Model.decoding_weights), or float32 (training's)
    scale: float  # a score is the sum of the weights read times this
    mask: int
    mode: int  # PRUNED, EXACT or GLUE: how every head starts
    escalate: bool  # a head without a complete phrase or tag is redone in the next mode
    alpha: float  # pruning 2 threshold
    beam: float  # pruned mode: items scoring more than this below their cell's best are dropped
    within: float  # pruned mode, k-best: so are an item's derivations below its best
    partial_cap: int  # pruned mode: a cell keeps, more than cap_margin below its best, only
    complete_cap: int  # its items of this many best scores (a head's complete cell: this many)
    cap_margin: float
    gold_bin: np.ndarray  # training: gold rule per (cell, side), per (cell, layer)
    gold_un: np.ndarray
    cell_cost: np.ndarray  # oracle: gain per (cell, symbol); (0, 0) when unused
    loss_weight: float


class Chart(NamedTuple):
    """A filled chart, as the backtrace reads it."""

    st: Structure
    lay: np.ndarray  # per cell and layer its items: (first, count)
    fin: np.ndarray  # per cell its final items: (first, count)
    items: np.ndarray  # (symbol, first entry, entries)
    finals: np.ndarray  # the same, and the layer whose list it is (-1: a merged list)
    ps: np.ndarray  # entries' scores
    pe: np.ndarray  # entries: rule (of a merged list: layer), rank i, rank j
    comp: np.ndarray  # per word and symbol the final item of its complete cell (-1: none)
    level: int  # the highest mode a head needed; -1: no derivation; or OVER_BUDGET
    reach: float  # the fraction of the chart's cells built (1.0 unless it stopped)


class Derivation(NamedTuple):
    """The best derivation (``decoder.decode``), as pre-order node arrays: per node its kind
    (``binarize.LEAF``, ``UNARY``, ``HEAD_LEFT``, ``HEAD_RIGHT``), symbol, rule (-1 at a
    leaf), cell and word (a leaf's; else -1). No derivation: score -inf, the arrays empty,
    level -1 (the caller backs off)."""

    score: float
    kinds: np.ndarray
    syms: np.ndarray
    rules: np.ndarray
    cells: np.ndarray
    words: np.ndarray
    level: int  # the highest mode a head needed: PRUNED, EXACT or GLUE


class Derivations(NamedTuple):
    """Up to K best derivations, best first (``decoder.decode_kbest``): derivation t is the
    slice offsets[t]:offsets[t + 1] of the node arrays (as :class:`Derivation`'s). Two nodes
    with the same ref head the same subtree (shared among the K), which ends before ``ends``
    of the node."""

    scores: np.ndarray
    offsets: np.ndarray
    kinds: np.ndarray
    syms: np.ndarray
    rules: np.ndarray
    cells: np.ndarray
    words: np.ndarray
    level: int  # as Derivation's, or OVER_BUDGET (no derivation): K per item would not fit
    refs: np.ndarray
    ends: np.ndarray
    reach: float  # the fraction of the chart's cells built before it stopped (1.0: all)
