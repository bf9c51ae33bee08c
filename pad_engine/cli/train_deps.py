"""``pad train-deps``: train a tagger and dependency parser (a text model) on treebanks."""

from __future__ import annotations

import argparse

HELP = "Train a POS tagger and dependency parser on CoNLL treebanks (for pad parse)."


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("treebanks", nargs="+", metavar="TREEBANK",
                        help="CoNLL-X/CoNLL-U files with gold heads and tags")
    parser.add_argument("-o", "--output", required=True, metavar="PARSER",
                        help="text model file to write (.padparser)")
    parser.add_argument("--epochs", type=int, default=6, help="parser epochs (6)")
    parser.add_argument("--tagger-epochs", type=int, default=15,
                        help="tagger and label epochs (15; PTB sample test tagging 96.60)")
    parser.add_argument("--no-labels", action="store_true",
                        help="no label model, even if the treebank has a DEPREL column")
    parser.add_argument("--bits", type=int, default=None,
                        help="arc table of 2**BITS weights (24: on UD English EWT test +0.27 "
                             "UAS over 23, but the parser is 20%% slower)")
    parser.add_argument("--seed", type=int, default=0, help="shuffling seed (0)")
    parser.add_argument("--jackknife", metavar="OUT.conll",
                        help="also write every training sentence as tagged and d-parsed by a "
                             "model trained without its fold (--folds): d-parses with a text "
                             "model's errors, to pair with gold trees in pad train --deps")
    parser.add_argument("--folds", type=int, default=5, help="jackknife folds (5)")


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from pad_engine.errors import InputError
    from pad_engine.io.conll import write_conll
    from pad_engine.io.gate import check_inputs, prepare_outputs
    from pad_engine.parsing.model import MAX_TABLE_SIZE
    from pad_engine.parsing.train import jackknife, read_treebank, train_text_model

    for name, value in (("--epochs", args.epochs), ("--tagger-epochs", args.tagger_epochs)):
        if not 1 <= value <= 100:
            raise InputError(f"{name} must be between 1 and 100, not {value}")
    most = MAX_TABLE_SIZE.bit_length() - 1  # the largest arc table a text model loads with
    if args.bits is not None and not 16 <= args.bits <= most:
        raise InputError(f"--bits must be between 16 and {most}, not {args.bits}")
    if args.jackknife and not 2 <= args.folds <= 100:
        raise InputError(f"--folds must be between 2 and 100, not {args.folds}")
    check_inputs(args.treebanks)
    prepare_outputs([args.output, args.jackknife], args.treebanks)
    bank = read_treebank(args.treebanks)
    for problem in bank.skipped:
        print(f"pad train-deps: skipped {problem}", file=sys.stderr)
    if not bank.sentences:
        raise InputError("no trainable sentences in the treebanks")

    def say(message: str) -> None:
        print(f"pad train-deps: {message}", file=sys.stderr, flush=True)

    options = {"epochs": args.epochs, "tagger_epochs": args.tagger_epochs,
               "labels": not args.no_labels, "seed": args.seed}
    if args.bits is not None:
        options["arc_bits"] = args.bits
    model = train_text_model(bank, progress=say, **options)
    model.training["data"] = [Path(p).name for p in args.treebanks]
    model.save(args.output)
    say(f"{len(bank.sentences)} sentences, {model.training['seconds']:.0f} s; "
        f"{model.convention} d-parses, tags {', '.join(model.taggers)}"
        + (f", {len(model.labels)} labels" if model.labels else "")
        + f"; wrote {args.output}")
    if args.jackknife:
        write_conll(jackknife(bank, args.folds, say, **options), args.jackknife)
        say(f"wrote {args.jackknife} ({args.folds} folds)")
    return 0
