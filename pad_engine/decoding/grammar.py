"""The binarized grammar read off training trees, and the two pruning tables of paper §3.2.

Rules are indexed for the decoder in CSR form by (row, direction, head-side symbol): row is
the head word's tag (pruning 1: only rules whose head side was seen with the tag's family, see
:meth:`Grammar._pruning_rows`) or the extra row ``ALL`` (exact decoding). Direction 0
attaches a right dependent (head child on the left), 1 a left dependent, 2 is a unary rule;
within a key, runs of rules of one modifier (:func:`rule_runs`).
Pruning 2 is p(side | tag(h), tag(next left), tag(next right)).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from pad_engine.decoding.features import rule_keys, symbol_keys
from pad_engine.jit import njit
from pad_engine.trees.binarize import (
    HEAD_LEFT,
    LEAF,
    UNARY,
    BinNode,
    is_intermediate,
    phrase_of,
)

UNKNOWN_TAG = "<unk>"
TOP = "TOP"
RIGHT_ATTACH, LEFT_ATTACH = 0, 1
# Pruning 2 decides the side of a head's next attachment only for tag triples seen at least
# this often: one seen 2-4 times, always on one side, is no evidence (PTB sample test split,
# a model reading the projection: pruned F1 97.77 with 2, 97.83 with 5 to 50, exact 97.89;
# the same speed up to 20).
SIDE_EVIDENCE = 5
# A rule by its symbols' names: (parent, head child, modifier, direction) or (parent, child)
RuleName = tuple[str, str, str, int] | tuple[str, str]


@dataclass
class Grammar:
    """Symbols, rules and pruning statistics. Rule ids are stable: new rules are appended."""

    symbols: list[str] = field(default_factory=lambda: [TOP, UNKNOWN_TAG])
    tags: list[str] = field(default_factory=list)
    binary: list[tuple[int, int, int, int]] = field(default_factory=list)  # A, H, M, dir
    unary: list[tuple[int, int]] = field(default_factory=list)  # A, B
    binary_tags: set[tuple[int, int]] = field(default_factory=set)  # (tag row, rule)
    unary_tags: set[tuple[int, int]] = field(default_factory=set)
    side_counts: dict[tuple[int, int, int], list[int]] = field(default_factory=dict)
    max_unary: int = 1

    def __post_init__(self) -> None:
        self._sym = {s: i for i, s in enumerate(self.symbols)}
        self._tag = {t: i for i, t in enumerate(self.tags)}
        self._bin = {r: i for i, r in enumerate(self.binary)}
        self._un = {r: i for i, r in enumerate(self.unary)}

    def copy(self) -> Grammar:
        """An independent copy: new containers, the same immutable rule tuples (a model's
        copy for continued training, on Retrain's path: deepcopy took 0.14 s of each for the
        bundled PTB model's 35,000 rules)."""
        return Grammar(list(self.symbols), list(self.tags), list(self.binary),
                       list(self.unary), set(self.binary_tags), set(self.unary_tags),
                       {k: list(v) for k, v in self.side_counts.items()}, self.max_unary)

    # -- lookups -------------------------------------------------------------------------
    def symbol(self, label: str) -> int:
        """Id of a symbol, added if new."""
        sid = self._sym.get(label)
        if sid is None:
            sid = self._sym[label] = len(self.symbols)
            self.symbols.append(label)
        return sid

    def tag_row(self, tag: str) -> int:
        """Pruning row of a tag; unknown tags use the ALL row (every rule)."""
        return self._tag.get(tag, len(self.tags))

    def tag_rows(self, tags: list[str]) -> np.ndarray:
        """:meth:`tag_row` of each tag, as an array (per sentence, on the hot path)."""
        get, unknown = self._tag.get, len(self.tags)
        return np.array([get(t, unknown) for t in tags], np.int64)

    @property
    def top(self) -> int:
        return 0

    # -- building ------------------------------------------------------------------------
    def add_tag(self, tag: str) -> int:
        """Row of a tag, added (with its symbol) if new."""
        row = self._tag.get(tag)
        if row is None:
            row = self._tag[tag] = len(self.tags)
            self.tags.append(tag)
            self.symbol(tag)
        return row

    def add_binary(self, a: int, h: int, m: int, direction: int) -> int:
        key = (a, h, m, direction)
        rid = self._bin.get(key)
        if rid is None:
            rid = self._bin[key] = len(self.binary)
            self.binary.append(key)
        return rid

    def add_unary(self, a: int, b: int) -> int:
        key = (a, b)
        rid = self._un.get(key)
        if rid is None:
            rid = self._un[key] = len(self.unary)
            self.unary.append(key)
        return rid

    def observe(self, tree: BinNode, tags: list[str], learned: bool = True,
                admit: Callable[[RuleName], bool] | None = None) -> None:
        """Add the tags, rules and unary depth of one tree; of a training tree (``learned``)
        also the rules' tag rows and the attachment-side counts, which a tree that only
        widens the grammar (see ``train.add_projection_rules``) must not sway. ``admit``
        decides, by its names, whether a rule the grammar lacks is added (with its tag row);
        by default every rule is."""
        rows = [self.add_tag(t) for t in tags]
        attachments: dict[int, list[bool]] = {}  # head word -> sides bottom-up (True=right)
        deps: dict[int, list[int]] = {}  # head word -> its dependents

        def visit(node: BinNode) -> tuple[int, int]:
            """Returns (head word, unary depth at the top of this node)."""
            if node.kind == LEAF:
                self.symbol(node.label)
                return node.word, 0
            a = self.symbol(node.label)
            if node.kind == UNARY:
                h, depth = visit(node.left)
                b = self.symbol(node.left.label)
                if (admit is None or (a, b) in self._un
                        or admit((node.label, node.left.label))):
                    rid = self.add_unary(a, b)
                    if learned:
                        self.unary_tags.add((rows[h], rid))
                self.max_unary = max(self.max_unary, depth + 1)
                return h, depth + 1
            hl, _ = visit(node.left)
            hr, _ = visit(node.right)
            if node.kind == HEAD_LEFT:
                h, m, d = hl, hr, RIGHT_ATTACH
                hs, ms = node.left.label, node.right.label
            else:
                h, m, d = hr, hl, LEFT_ATTACH
                hs, ms = node.right.label, node.left.label
            key = (a, self.symbol(hs), self.symbol(ms), d)
            if admit is None or key in self._bin or admit((node.label, hs, ms, d)):
                rid = self.add_binary(*key)
                if learned:
                    self.binary_tags.add((rows[h], rid))
            if learned:
                attachments.setdefault(h, []).append(d == RIGHT_ATTACH)
                deps.setdefault(h, []).append(m)
            return h, 0

        visit(tree)
        self.symbol(TOP)
        for h, sides in attachments.items():
            lefts = sorted((m for m in deps[h] if m < h), reverse=True)
            rights = sorted(m for m in deps[h] if m > h)
            a = b = 0
            for right in sides:
                if a < len(lefts) and b < len(rights):
                    key = (rows[h], rows[lefts[a]], rows[rights[b]])
                    self.side_counts.setdefault(key, [0, 0])[int(right)] += 1
                if right:
                    b += 1
                else:
                    a += 1

    # -- packing for the decoder ------------------------------------------------------------
    def pack(self, projections: dict[str, str] | None = None) -> GrammarArrays:
        """Dense arrays for the Numba decoder (rebuilt after the grammar changes).
        ``projections`` (tag -> the phrase it usually projects) name the phrase a glue rule
        builds over a tag; the most common one over other tags."""
        glue_parent = self._glue_parents(projections or {})
        nsym = len(self.symbols)
        nrows = len(self.tags) + 1  # + ALL
        binary = np.array(self.binary, dtype=np.int32).reshape(-1, 4)
        unary = np.array(self.unary, dtype=np.int32).reshape(-1, 2)
        ptr, ids = self._rule_index(binary, unary, nsym, nrows)
        run_ptr, run_sym, run_start = rule_runs(ptr, ids, binary)
        tag_sym = np.array([self._sym[t] for t in self.tags] + [1], dtype=np.int32)
        side_keys = np.array(
            sorted((a * nrows + b) * nrows + c for (a, b, c), n in self.side_counts.items()
                   if sum(n) >= SIDE_EVIDENCE), dtype=np.int64
        )
        side_p = np.zeros(len(side_keys), dtype=np.float32)
        side_n = np.zeros(len(side_keys), dtype=np.int32)
        lookup = {(a * nrows + b) * nrows + c: v for (a, b, c), v in self.side_counts.items()}
        for i, key in enumerate(side_keys):
            left, right = lookup[int(key)]
            side_p[i] = left / (left + right)
            side_n[i] = left + right
        sym_key = symbol_keys(self.symbols)
        rule_key, unary_key, parent_key = rule_keys(binary, unary, sym_key)
        b64 = binary.astype(np.int64)
        learned = np.unique(((b64[:, 0] * nsym + b64[:, 1]) * nsym + b64[:, 2]) * 2 + b64[:, 3])
        top_over = np.zeros(nsym, np.bool_)
        top_over[unary[unary[:, 0] == self.top, 1]] = True
        real = np.array([not is_intermediate(s) and s != TOP for s in self.symbols], np.bool_)
        return GrammarArrays(
            nsym, nrows, binary, unary, ptr, ids, run_ptr, run_sym, run_start, tag_sym,
            side_keys, side_p, side_n,
            self.max_unary, rule_key, unary_key, parent_key, self.top, sym_key, glue_parent,
            learned, top_over, real,
        )

    def _glue_parents(self, projections: dict[str, str]) -> np.ndarray:
        """Per symbol Y, the phrase A of the glue rules A -> Y Z and A -> Z Y the decoder may
        use where the learned rules derive nothing (:mod:`decoder`): a tag's usual projection,
        an intermediate's phrase, a phrase itself; -1 for TOP."""
        tags = set(self.tags) | {UNKNOWN_TAG}
        phrases = [s for s in self.symbols if s not in tags and s != TOP
                   and not is_intermediate(s)]
        # a tag's glue phrase must be a phrase: glue builds nothing over TOP (whose parent is
        # -1), so a projection to TOP would leave the tag's head without any glue tree
        phrase_ids = {self._sym[p] for p in phrases}
        common = [p for p, _ in Counter(projections.values()).most_common() if p in phrases]
        default = self._sym[(common or phrases)[0]] if common or phrases else -1
        parents = np.full(len(self.symbols), -1, np.int64)
        for y, label in enumerate(self.symbols):
            if label == TOP:
                continue
            if label in tags:
                projected = self._sym.get(projections.get(label, ""), -1)
                parents[y] = projected if projected in phrase_ids else default
            else:
                parents[y] = self._sym.get(phrase_of(label), y)
        return parents

    def _rule_index(self, binary: np.ndarray, unary: np.ndarray, nsym: int, nrows: int,
                    shared: int = 0, shared_unary: bool = True
                    ) -> tuple[np.ndarray, np.ndarray]:
        """The CSR rule index (ptr, ids; unary ids offset by nb) by key (row*3 + dir)*nsym
        + the head-side symbol (the child of a unary rule, dir 2): per tag row the rules
        pruning 1 allows, then every rule in the ALL row; in a key, by modifier, then by rule
        id (:func:`rule_runs`). Within a row the rules keep one order, so each row is that
        order filtered by the row's rules, made one row at a time: the index is all it keeps,
        an int32 per (row, rule) pair (``capacity.pack_bytes``). ``shared``: see
        :meth:`shared_rows`."""
        nb, nu, width = binary.shape[0], unary.shape[0], 3 * nsym
        local = np.concatenate([binary[:, 3].astype(np.int64) * nsym + binary[:, 1],
                                2 * nsym + unary[:, 1].astype(np.int64)])
        modifier = np.concatenate([binary[:, 2].astype(np.int64), np.zeros(nu, np.int64)])
        order = np.lexsort((modifier, local)).astype(np.int32)  # stable: then by rule id
        keys = local[order]
        allowed = self._pruning_rows(binary, unary)
        common = self._shared_rules(nb, shared, shared_unary) if shared else np.zeros(
            nb + nu, np.bool_)
        ptr = np.zeros(nrows * width + 1, np.int64)
        parts = []
        for row in range(nrows):
            kept = (allowed(row) | common)[order] if row < nrows - 1 else np.ones(nb + nu,
                                                                                  np.bool_)
            parts.append(order[kept])
            start = row * width
            ptr[start + 1:start + width + 1] = ptr[start] + np.cumsum(
                np.bincount(keys[kept], minlength=width))
        return ptr, np.concatenate(parts)

    def _pruning_rows(self, binary: np.ndarray, unary: np.ndarray
                      ) -> Callable[[int], np.ndarray]:
        """Pruning 1: per tag row, the rules a head word of the tag may use (a bool each). A rule
        whose head side (parent, head child, direction; a unary rule itself) was seen with
        a tag of the family, whatever the modifier (the modifier's own cell says which ones
        exist); a rule seen with no tag (back-off, a projection's), wherever its phrase was
        seen headed by the family, if it is unary or its head child is a tag of the family.
        On the PTB sample test split this keeps F1 within 0.12 of exact decoding at 1.4x the
        speed of allowing every rule of such a phrase (UD English: 1.2x); rules seen with the
        family whole lost 0.35 F1. Unseen binary rules over a phrase or a chain (the back-off
        grammar attaches every modifier of a phrase to every chain of its head children) were
        four in five of the rules in a row of a model trained with the back-off grammar and
        the projection (``pad train --projection``, all 3,396 train trees, 35,000 rules), and
        their edges seven in ten of those its pruned decoder scored: without them it decodes
        the test split at 2.3x the speed, pruned F1 98.17 instead of 98.23 (exact 98.23); on
        200 trees 1.5x, 96.51 instead of 96.63 (exact 96.51); on 50, 92.28 instead of 91.30
        (exact 92.68: more heads redone exactly); FarPaHC's John as `pad bench --farpahc`
        trains it (49,000 rules), 1.4x, held-out 75.93 instead of 75.88 (exact 75.90)."""
        nb, nu, ntags = binary.shape[0], unary.shape[0], len(self.tags)
        label = {p: i for i, p in enumerate(sorted({phrase_of(s) for s in self.symbols}))}
        sym_phrase = np.array([label[phrase_of(s)] for s in self.symbols], np.int64)
        rule_phrase = sym_phrase[np.concatenate([binary[:, 0], unary[:, 0]])]
        groups = self._tag_groups()
        family = np.full(len(self.symbols), -1, np.int64)  # a tag's family, per symbol
        for k, group in enumerate(groups):
            family[[self._sym[self.tags[row]] for row in group]] = k
        row_family = family[[self._sym[t] for t in self.tags]]
        # per rule, the family of its head child (-2 for a unary rule: any family)
        head_family = np.concatenate([family[binary[:, 1]], np.full(nu, -2, np.int64)])
        side = np.concatenate([(binary[:, 0].astype(np.int64) * len(self.symbols)
                                + binary[:, 1]) * 2 + binary[:, 3], -1 - np.arange(nu)])
        _, side_id = np.unique(side, return_inverse=True)
        sides = np.zeros((ntags, side_id.max() + 1 if side_id.size else 0), np.bool_)
        phrases = np.zeros((ntags, len(label)), np.bool_)
        seen_rules = np.zeros(nb + nu, np.bool_)
        for row, rid in [*self.binary_tags, *((row, nb + uid) for row, uid in self.unary_tags)]:
            sides[row, side_id[rid]] = phrases[row, rule_phrase[rid]] = seen_rules[rid] = True
        for group in groups:
            sides[group] = sides[group].any(axis=0)
            phrases[group] = phrases[group].any(axis=0)
        unseen = ~seen_rules
        return lambda row: sides[row, side_id] | (
            phrases[row, rule_phrase] & unseen
            & ((head_family == row_family[row]) | (head_family == -2)))

    def shared_rows(self, g: GrammarArrays, families: int, unary: bool = True
                    ) -> GrammarArrays:
        """``g`` (this grammar packed) whose tag rows also allow every rule seen with at least
        ``families`` tag families (:meth:`_tag_groups`): with content heads (UD) a clause is
        headed by a verb, a noun, an adjective, a number..., so its rules are shared by many
        families, and a family's own rows miss the rarer ones (pruning 1 cut a CD's or an
        RB's clause the exact search built). Bundled UD model, GUM's 952 held-out sentences:
        pruned 84.19 with its rows alone, 84.26 with 3 or 4 families, 84.24 with 5, 84.27
        with every rule (exact: 84.28); the pruned decoder at 0.95x, 0.99x, 0.99x and 0.84x
        the speed of its rows alone. Without ``unary``, the binary rules alone are shared."""
        ptr, ids = self._rule_index(g.binary, g.unary, g.nsym, g.nrows, families, unary)
        return with_index(g, ptr, ids)

    def _shared_rules(self, nb: int, families: int, unary: bool = True) -> np.ndarray:
        """Per rule (unary ids offset by ``nb``): seen with at least ``families`` families
        (without ``unary``, no unary rule)."""
        family = np.zeros(len(self.tags), np.int64)
        for k, group in enumerate(self._tag_groups()):
            family[group] = k
        pairs = {(rid, family[row]) for row, rid in self.binary_tags}
        pairs |= {(nb + uid, family[row]) for row, uid in self.unary_tags}
        rules = np.array([rid for rid, _ in pairs], np.int64)
        counts = np.bincount(rules, minlength=nb + len(self.unary))
        if not unary:
            counts[nb:] = 0
        return counts >= families

    def _tag_groups(self) -> list[list[int]]:
        """The tag families pruning 1 shares rules within: tags that share their first two
        letters (NN, NNS, NNP, NNPS; VB, VBD, ...). Pruning by exact (tag, rule) pairs, as in
        the paper, lost 0.4 F1 here: a few thousand training trees leave many pairs unseen."""
        groups: dict[str, list[int]] = {}
        for row, tag in enumerate(self.tags):
            groups.setdefault(tag[:2] if tag[:1].isalpha() else tag, []).append(row)
        return list(groups.values())

    def rule_names(self) -> set[RuleName]:
        """The rules by their symbols' names: (A, H, M, direction) and (A, B)."""
        s = self.symbols
        return {(s[a], s[h], s[m], d) for a, h, m, d in self.binary} | {
            (s[a], s[b]) for a, b in self.unary}

    def counts(self) -> dict[str, int]:
        return {
            "symbols": len(self.symbols),
            "tags": len(self.tags),
            "binary_rules": len(self.binary),
            "unary_rules": len(self.unary),
            "max_unary_chain": self.max_unary,
        }


class GrammarArrays(NamedTuple):
    """What the decoder needs of a grammar, as NumPy arrays (a named tuple: the kernels read
    it as part of their one input record)."""

    nsym: int
    nrows: int
    binary: np.ndarray  # (nb, 4) A, H, M, dir
    unary: np.ndarray  # (nu, 2) A, B
    ptr: np.ndarray  # CSR pointers by ((row*3)+dir)*nsym + head-side symbol
    ids: np.ndarray  # rule ids (unary offset by nb)
    run_ptr: np.ndarray  # per key as ptr, its runs of one modifier (rule_runs)
    run_sym: np.ndarray  # each run's modifier (-1: unary rules)
    run_start: np.ndarray  # each run's first entry in ids, and a last: len(ids)
    tag_sym: np.ndarray  # tag row -> symbol (last entry: unknown tag)
    side_keys: np.ndarray  # sorted (th*nrows + tl)*nrows + tr
    side_p: np.ndarray  # p(left | key)
    side_n: np.ndarray  # observations behind p
    max_unary: int
    rule_key: np.ndarray  # (nb, 3) feature parts: rule, parent+head, parent+modifier
    unary_key: np.ndarray  # (nu,) feature part of each unary rule
    parent_key: np.ndarray  # (nsym,) feature part of each symbol as a parent
    top: int  # the TOP symbol
    # glue rules, made up by the decoder where the learned ones derive nothing:
    sym_key: np.ndarray  # (nsym,) each symbol's key, for the glue rules' feature parts
    glue_parent: np.ndarray  # (nsym,) A of the glue rules A -> Y Z, A -> Z Y per Y (-1: none)
    learned: np.ndarray  # sorted ((A*nsym + H)*nsym + M)*2 + dir of the learned binary rules
    top_over: np.ndarray  # (nsym,) bool: a learned unary TOP -> Z exists
    real: np.ndarray  # (nsym,) bool: Z may be attached by glue (not TOP, not intermediate)


def without_tables(g: GrammarArrays) -> GrammarArrays:
    """``g`` with every tag row allowing every rule (the ALL row's, pruning 1 off) and no
    attachment-side decisions (pruning 2 off): pruned decoding keeps only its beam."""
    width = 3 * g.nsym
    first = (g.nrows - 1) * width
    counts = np.diff(g.ptr[first:])
    ptr = np.zeros(g.nrows * width + 1, np.int64)
    ptr[1:] = np.cumsum(np.tile(counts, g.nrows))
    ids = np.tile(g.ids[g.ptr[first]:], g.nrows)
    return with_index(g, ptr, ids)._replace(
        side_keys=g.side_keys[:0], side_p=g.side_p[:0], side_n=g.side_n[:0])


def with_index(g: GrammarArrays, ptr: np.ndarray, ids: np.ndarray) -> GrammarArrays:
    """``g`` with another rule index (and its runs)."""
    run_ptr, run_sym, run_start = rule_runs(ptr, ids, g.binary)
    return g._replace(ptr=ptr, ids=ids, run_ptr=run_ptr, run_sym=run_sym, run_start=run_start)


def rule_runs(ptr: np.ndarray, ids: np.ndarray, binary: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The runs of the rule index: in a key, the binary rules of one modifier M, which the
    decoder skips whole when the dependent has no complete M (it scanned every rule, about
    nine in ten of them for nothing with a back-off grammar, 130 rules a key). Per key the
    range of its runs (as ``ptr``), each run's M (-1 for unary rules, one run a key) and
    first entry, and a last start, ``len(ids)``."""
    run_ptr = np.zeros(ptr.shape[0], np.int64)
    count = _runs(ptr, ids, binary, run_ptr, np.zeros(0, np.int32), np.zeros(0, np.int32))
    run_sym, run_start = np.empty(count, np.int32), np.empty(count + 1, np.int32)
    _runs(ptr, ids, binary, run_ptr, run_sym, run_start)
    run_start[count] = ids.shape[0]
    return run_ptr, run_sym, run_start


@njit(cache=True)
def _runs(ptr, ids, binary, run_ptr, run_sym, run_start):
    """Count the runs (and fill the arrays, when they have room): no temporary per entry,
    so packing's peak stays that of the index (``capacity.pack_bytes``)."""
    nb = binary.shape[0]
    fill = run_sym.shape[0] > 0
    u = 0
    for key in range(ptr.shape[0] - 1):
        last = -2
        for e in range(ptr[key], ptr[key + 1]):
            mod = binary[ids[e], 2] if ids[e] < nb else -1
            if mod != last:
                if fill:
                    run_sym[u], run_start[u] = mod, e
                u += 1
                last = mod
        run_ptr[key + 1] = u
    return u
