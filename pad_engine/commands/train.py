"""``pad train``: learn a model from Penn trees."""

from __future__ import annotations

import argparse

HELP = "Train a PAD model on Penn trees (lexicalized with a head table)."


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("trees", nargs="+", help="Penn tree files (.mrg/.ptb)")
    parser.add_argument("-o", "--output", required=True, help="model file to write")
    parser.add_argument("--headrules", default="collins",
                        help="head table: collins, content, or a path (default collins)")
    parser.add_argument("--epochs", type=int, default=10, help="passes over the data (10)")
    parser.add_argument("--max-sentences", type=int, default=0,
                        help="use only the first N trees (0: all)")
    parser.add_argument("--seed", type=int, default=0, help="shuffling seed (0)")


def run(args: argparse.Namespace) -> int:
    import sys

    from pad_engine.errors import InputError
    from pad_engine.penn import read_penn
    from pad_engine.train import examples_from_penn, train

    if args.epochs < 1:
        raise InputError("--epochs must be at least 1")
    trees = []
    for path in args.trees:
        result = read_penn(path, on_error="skip")
        for err in result.skipped:
            print(f"pad train: skipped {err}", file=sys.stderr)
        trees.extend(result.trees)
    if args.max_sentences > 0:
        trees = trees[: args.max_sentences]
    if not trees:
        raise InputError("no trees to train on")
    examples = examples_from_penn(trees, args.headrules)

    def report(p) -> None:
        print(f"\repoch {p.epoch}/{p.epochs}  {p.done}/{p.total} sentences  "
              f"{p.errors} updates  {p.seconds:.1f}s", end="", file=sys.stderr)
        if p.done == p.total:
            print(file=sys.stderr)

    model = train(examples, epochs=args.epochs, seed=args.seed, headrules=args.headrules,
                  progress=report)
    model.training["files"] = [str(p).split("/")[-1] for p in args.trees][:50]
    model.save(args.output)
    print(f"pad train: {len(examples)} trees, model written to {args.output}", file=sys.stderr)
    return 0
