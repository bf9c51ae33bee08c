"""``pad oracle``: the tree consistent with a d-parse that is closest to a gold tree."""

from __future__ import annotations

import argparse

HELP = "For gold Penn trees and any d-parses of the same sentences, the closest trees in Y(x,d)."


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("gold", help="gold Penn trees")
    parser.add_argument("deps", help="CoNLL d-parses of the same sentences, in the same order")
    parser.add_argument("-o", "--output", help="output file (standard output when absent)")
    parser.add_argument("--model", help="model whose grammar bounds the search (default bundled)")


def run(args: argparse.Namespace) -> int:
    import sys

    from pad_engine.api import Engine
    from pad_engine.atomic import atomic_open
    from pad_engine.conll import read_conll
    from pad_engine.errors import InputError
    from pad_engine.headrules import HeadRules, head_children
    from pad_engine.lextree import from_penn, to_line
    from pad_engine.penn import normalize, read_penn

    engine = Engine.load(args.model)
    gold = read_penn(args.gold).trees
    deps = read_conll(args.deps, pos="auto").sentences
    if len(gold) != len(deps):
        raise InputError(f"{len(deps)} sentences here but {len(gold)} trees in {args.gold}",
                         args.deps)
    rules = HeadRules.load(engine.model.headrules)
    lines = []
    for tree, sent in zip(gold, deps):
        norm = normalize(tree)
        if norm.leaves() != sent.forms:
            raise InputError("words differ from the gold tree's", args.deps, sent.line)
        lex = from_penn(norm, head_children(norm, rules))
        lines.append(to_line(engine.parser.oracle(sent.forms, sent.tags, sent.heads, lex).tree,
                             sent.forms))
    text = "\n".join(lines) + "\n"
    if args.output:
        with atomic_open(args.output, "w") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0
