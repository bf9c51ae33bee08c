"""What the decoder can hold: the one definition of the size limits of a grammar.

A model file is untrusted input, so loading refuses a grammar past these limits before
anything is allocated for it (``model_check``); and training makes grammars as large as its
trees ask (the back-off rules grow with the tags and phrases seen: FarPaHC's Gospel of John
makes 49,256 rules over 119 tags). Training checks the same limits before it trains, and
saving before it writes (``Model.problem``), so every model PAD Studio makes loads.

The limits follow what the decoder allocates, not the size of any one model:

- packing (``Grammar.pack``) keeps an int32 rule id per (tag row, rule) pair pruning 1
  allows, every pair at worst (the tags and the ALL row), and its run of one modifier at
  worst, two pointers per (row, direction, symbol), and a few arrays per rule:
  :func:`pack_bytes`, at most ``PACK_BUDGET``;
- a chart cell keeps an item per symbol and unary layer: symbols x (max_unary + 1) at most
  ``MAX_CHART_WIDTH``, and a sentence's chart a row of symbols per word; ``MAX_SYMBOLS``
  also keeps the ids of the glue rules the decoder makes up (2 x symbols**2 past the learned
  ones) far inside the int32 its tables store rule ids in;
- ``MAX_TAGS`` rows and ``MAX_UNARY`` layers bound the pruning tables and a cell's layers.
"""

from __future__ import annotations

PACK_BUDGET = 1 << 30  # bytes; pack_bytes of FarPaHC's John: 60 MB (37 MB measured)
# per (tag row, rule): its int32 id, twice while the rows are joined; pruning; its run
# (``grammar.rule_runs``: an int32 modifier and first entry) where each is a run of its own
PAIR_BYTES = 13
RULE_BYTES = 192  # per rule: its parts, keys, sort orders and feature keys
# per (tag row, symbol): three int64 pointers and three to runs; pruning's phrase table
ROW_SYMBOL_BYTES = 49
MAX_SYMBOLS = 4096
MAX_TAGS = 1024
MAX_UNARY = 16
MAX_CHART_WIDTH = 65_536
MAX_RULES = PACK_BUDGET // (RULE_BYTES + 2 * PAIR_BYTES)  # the most any grammar packs


def pack_bytes(symbols: int, tags: int, rules: int) -> int:
    """The most memory packing a grammar of these sizes takes at its peak (the worst case:
    pruning allows every rule on every row; ``tests/test_capacity.py`` measures it)."""
    rows = tags + 1
    return PAIR_BYTES * rules * rows + RULE_BYTES * rules + ROW_SYMBOL_BYTES * rows * symbols


def grammar_problem(symbols: int, tags: int, rules: int, max_unary: int) -> str | None:
    """Why the decoder cannot hold a grammar of these sizes (one line), or None."""
    if symbols > MAX_SYMBOLS:
        return f"{symbols} symbols is more than the decoder holds ({MAX_SYMBOLS})"
    if tags > MAX_TAGS:
        return f"{tags} tags is more than the decoder holds ({MAX_TAGS})"
    if max_unary > MAX_UNARY:
        return f"unary chains of {max_unary} are longer than the decoder holds ({MAX_UNARY})"
    need = pack_bytes(symbols, tags, rules)
    if need > PACK_BUDGET:
        return (f"{rules} rules x {tags + 1} tag rows is more than the decoder packs "
                f"({need / 2**20:,.0f} MB, at most {PACK_BUDGET / 2**20:,.0f} MB)")
    if symbols * (max_unary + 1) > MAX_CHART_WIDTH:
        return (f"{symbols} symbols x {max_unary + 1} unary layers is more than a decoder "
                f"chart cell holds ({MAX_CHART_WIDTH})")
    return None
