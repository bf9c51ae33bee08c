"""``pad deps``: the d-parses a head table induces on Penn trees, as CoNLL-X."""

from __future__ import annotations

import argparse

from pad_engine.cli._options import add_encoding

HELP = "Convert Penn trees to dependency trees (CoNLL-X) with a head table."


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", help="Penn tree file (.mrg/.ptb)")
    parser.add_argument("output", help="CoNLL-X file to write")
    parser.add_argument("--headrules", default="collins",
                        help="head table: collins, content, or a path (default collins)")
    parser.add_argument("--labels", choices=("relation", "phrase"), default="relation",
                        help="DEPREL: 'relation' names phrase, dependent and head child "
                             "(S:NP>VP); 'phrase' is what models trained with --labels on Penn "
                             "trees read, as the original PAD's scripts write it (S+NP)")
    parser.add_argument("--keep-empty", action="store_true",
                        help="keep -NONE- empty elements as words (removed by default)")
    add_encoding(parser)


def run(args: argparse.Namespace) -> int:
    import sys

    from pad_engine.errors import InputError
    from pad_engine.io.conll import format_conllx
    from pad_engine.io.gate import check_inputs, prepare_outputs, write_text
    from pad_engine.io.penn import normalize, read_penn
    from pad_engine.trees.deplabels import tree_labels
    from pad_engine.trees.headrules import SHIPPED, HeadRules, dependencies, head_children
    from pad_engine.trees.lextree import from_penn

    inputs = [args.input, args.headrules if args.headrules not in SHIPPED else None]
    check_inputs(inputs)
    prepare_outputs([args.output], inputs)
    rules = HeadRules.load(args.headrules)
    result = read_penn(args.input, encoding=args.encoding)
    if result.note:
        print(f"pad deps: {result.note}", file=sys.stderr)
    out = []
    for tree, line in zip(result.trees, result.lines):
        norm = normalize(tree, keep_empty=args.keep_empty)
        if not len(norm):
            raise InputError("tree has no words once its empty elements are removed "
                             "(use --keep-empty to keep them)", args.input, line)
        words, tags, heads, rels = dependencies(norm, rules)
        if args.labels == "phrase":
            rels = tree_labels(from_penn(norm, head_children(norm, rules)), len(words))
        out.append(format_conllx(words, tags, heads, rels) + "\n")
    write_text(args.output, "".join(out))
    print(f"pad deps: {len(out)} sentences written to {args.output}", file=sys.stderr)
    return 0
