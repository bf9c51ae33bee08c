"""``pad oracle``: the tree consistent with a d-parse that is closest to a gold tree; with
``--kbest K``, the closest of a model's K candidates (its k-best oracle)."""

from __future__ import annotations

import argparse

from pad_engine.cli._options import add_encoding

HELP = "For gold Penn trees and any d-parses of the same sentences, the closest trees in Y(x,d)."


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("gold", help="gold Penn trees")
    parser.add_argument("deps", help="CoNLL d-parses of the same sentences, in the same order "
                                     "(non-projective ones are lifted first)")
    parser.add_argument("-o", "--output", help="output file (standard output when absent)")
    parser.add_argument("--model", help="model whose grammar bounds the search (default: the "
                                        "bundled model that fits the d-parses, as pad convert "
                                        "picks it; with none, the gold trees' own rules)")
    parser.add_argument("--kbest", type=int, metavar="K",
                        help="instead: per sentence the candidate closest to the gold tree "
                             "(EVALB F1) among the model's K best distinct ones, as the app "
                             "shows them, and their F1: the k-best oracle")
    add_encoding(parser)


def run(args: argparse.Namespace) -> int:
    """Pairs each gold tree with its d-parse as ``pad train --deps`` does (bracket escaping,
    lifting); a pair that does not fit gets an empty line and one message on stderr."""
    import sys

    from pad_engine.decoding.choice import choose
    from pad_engine.decoding.engine import Engine
    from pad_engine.decoding.model import Model
    from pad_engine.decoding.parser import Parser
    from pad_engine.errors import InputError
    from pad_engine.io.conll import read_conll
    from pad_engine.io.gate import check_inputs, prepare_outputs, write_lines
    from pad_engine.io.penn import read_penn
    from pad_engine.learning.pairs import (
        closest_lines,
        guided_lextree,
        make_pair,
        oracle_grammar,
        pairs_f1,
    )

    if args.kbest is not None and args.kbest < 1:
        raise InputError(f"--kbest must be at least 1, not {args.kbest}")
    inputs = [args.gold, args.deps, args.model]
    check_inputs(inputs)
    prepare_outputs([args.output], inputs)
    penn = read_penn(args.gold, encoding=args.encoding)
    gold = penn.trees
    result = read_conll(args.deps, pos="auto", on_error="skip", encoding=args.encoding)
    for note in (penn.note, result.note):
        if note:
            print(f"pad oracle: {note}", file=sys.stderr)
    for err in result.skipped:
        print(f"pad oracle: skipped {err}", file=sys.stderr)
    deps = result.sentences
    # the file's sentences in order, a skipped one as None: each still takes its tree's place
    order = result.in_file_order()
    if len(gold) != len(order):
        raise InputError(f"{len(order)} sentences here but {len(gold)} trees in {args.gold}",
                         args.deps)
    pairs: list = []
    sents: list = []  # per pair: its d-parse
    slots: list = []  # per gold tree: its pair, or None
    for tree, sent in zip(gold, order):
        pair = None
        if sent is not None:
            try:
                pair = make_pair(tree, sent, args.deps)
                pairs.append(pair)
                sents.append(sent)
            except InputError as err:
                print(f"pad oracle: skipped {err}", file=sys.stderr)
        slots.append(pair)
    if args.kbest is not None:
        converter = Engine.load(args.model) if args.model else choose(deps).engine
        chosen = kbest_closest(converter, pairs, sents, args.kbest)
        what = f"the closest of the {args.kbest} best distinct candidates"
    else:
        if args.model:
            model = Model.load(args.model)
            why = args.model
        else:
            choice = choose(deps)
            if isinstance(choice.engine, Engine):
                model, why = choice.engine.model, f"{choice.name}: {choice.reason}"
            else:
                model = oracle_grammar(pairs, [guided_lextree(p) for p in pairs])
                why = f"the gold trees' own rules ({choice.reason})"
        print(f"pad oracle: the search is bounded by the grammar of {why}", file=sys.stderr)
        chosen = closest_lines(Parser(model), pairs)
        what = "these trees against the gold trees"
    found = dict(zip(map(id, pairs), chosen))
    lines = ["" if pair is None else found[id(pair)] for pair in slots]
    if pairs:  # the figure pad train --deps --hold-out prints for the same pairs and grammar
        print(f"pad oracle: EVALB F1 of {what} {pairs_f1(pairs, chosen):.2f} "
              f"({len(pairs)} sentences)", file=sys.stderr)
    write_lines(args.output, [line + "\n" for line in lines])
    return 0


def kbest_closest(converter, pairs: list, sents: list, k: int) -> list[str]:
    """Per pair (with its d-parse in ``sents``), the Penn line of the converter's k best
    candidates (``candidates``, as the app and ``pad convert --kbest`` get them) with the
    highest EVALB F1 against the pair's c-parse, the earlier one on a tie."""
    from pad_engine.io.penn import tree_to_line
    from pad_engine.learning.evalb import closest
    from pad_engine.trees.lextree import to_line

    out = []
    for pair, sent in zip(pairs, sents):
        lines = [to_line(c.tree, pair.forms) for c in converter.candidates(sent, k)]
        out.append(lines[closest(tree_to_line(pair.tree), lines)])
    return out
