"""``pad adapt-parser-curve``: what adapting the d-parser to corrected sentences gains."""

from __future__ import annotations

import argparse

HELP = ("UAS on held-out GUM documents (predicted tags, all words) of a text model before and "
        "after adapting its d-parser to N gold d-parsed GUM sentences, as the app's Retrain "
        "does with corrected arcs.")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--gum", metavar="DIR", required=True,
                        help="GUM's dep folder (GUM_*.conllu documents)")
    parser.add_argument("--parser", default="ud", help="text model (ud: the bundled EWT one)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[25, 50, 100, 200],
                        metavar="N", help="corrected sentences (default 25 50 100 200)")
    parser.add_argument("--draws", type=int, default=3,
                        help="random draws of the N sentences, averaged (default 3)")
    parser.add_argument("--dev", action="store_true",
                        help="score on the dev documents (for tuning) instead of the test ones")
    parser.add_argument("--epochs", type=int, help="adaptation epochs (default: the app's)")
    parser.add_argument("--mix", type=float,
                        help="share of the adaptation's update added to the base weights")


def run(args: argparse.Namespace) -> int:
    import dataclasses
    import sys
    from pathlib import Path

    from pad_engine.errors import InputError
    from pad_engine.io.gate import check_inputs
    from pad_engine.learning.parser_curve import curve, split, tagged_examples
    from pad_engine.parsing.adapt import SETTINGS
    from pad_engine.parsing.pipeline import load_text_model

    check_inputs([args.parser if args.parser not in ("ptb", "ud") else None], [args.gum])
    test, dev, pool = split(Path(args.gum))
    if not test or not pool:
        raise InputError("no *.conllu documents here: not GUM's dep folder", args.gum)
    if min(args.sizes) < 1 or args.draws < 1:
        raise InputError("--sizes and --draws must be positive")
    changes = {k: v for k, v in (("epochs", args.epochs), ("mix", args.mix)) if v is not None}
    settings = dataclasses.replace(SETTINGS, **changes)
    model, _ = load_text_model(args.parser)

    def say(message: str) -> None:
        print(f"pad adapt-parser-curve: {message}", file=sys.stderr, flush=True)

    held = tagged_examples(model, dev if args.dev else test)
    drawn = tagged_examples(model, pool)
    if max(args.sizes) > len(drawn):
        raise InputError(f"--sizes: only {len(drawn)} sentences to draw from")
    say(f"{len(drawn)} sentences to draw from, {len(held)} held out; {settings}")
    base, rows = curve(model, drawn, held, args.sizes, args.draws, settings, say)
    print(f"SENTENCES\tUAS ({'dev' if args.dev else 'test'}, predicted tags, all words)")
    print(f"0\t{base:.2f}")
    for row in rows:
        print(f"{row.size}\t{row.uas:.2f}\t(draws {' '.join(f'{u:.2f}' for u in row.draws)})")
    return 0
