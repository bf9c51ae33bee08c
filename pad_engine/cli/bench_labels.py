"""``pad bench-labels``: which labels for a treebank of another language (Dutch Alpino)."""

from __future__ import annotations

import argparse

HELP = ("Labeled and unlabeled F1 on Dutch Alpino of the rule-based projection with PTB, "
        "UD-generic and hand-written labels, labels learned from N corrected trees, and a PAD "
        "model retrained on them.")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("alpino", help="alpino.xml (NLTK's Alpino treebank)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 20, 50], metavar="N",
                        help="numbers of corrected trees (5 20 50)")
    parser.add_argument("--test", type=int, default=1000, metavar="K",
                        help="score on the last K trees (1000)")
    parser.add_argument("--draws", type=int, default=3,
                        help="average over this many stretches of corrected trees (3)")


def run(args: argparse.Namespace) -> int:
    import sys

    from pad_engine.errors import InputError
    from pad_engine.io.gate import check_inputs
    from pad_engine.learning.label_bench import label_table, read_alpino

    check_inputs([args.alpino])
    trees, problems = read_alpino(args.alpino)
    for err in problems:
        print(f"pad bench-labels: skipped {err}", file=sys.stderr)
    if len(trees) < args.test + max(args.sizes) * args.draws:
        raise InputError(f"{len(trees)} trees are too few for these sizes", args.alpino)
    raised = sum(t.raised > 0 for t in trees)
    print(f"{len(trees)} trees ({raised} made contiguous by raising), the last {args.test} "
          f"held out; EVALB F1 with punctuation deleted")
    print("approach\tlabeled F1\tunlabeled F1")
    table = label_table(trees, tuple(args.sizes), args.test, args.draws)
    for name, scores in table.items():
        print(f"{name}\t{scores.labeled:.2f}\t{scores.unlabeled:.2f}")
    return 0
