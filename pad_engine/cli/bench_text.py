"""``pad bench-text``: tagging, d-parsing and text-to-tree figures of the text models."""

from __future__ import annotations

import argparse

HELP = ("Measure the text models: tagging, UAS/LAS and c-parse F1 from text on the PTB sample "
        "and UD English EWT test sets, and the pipeline's speed.")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--treebank", metavar="DIR",
                        help="folder with wsj_0001.mrg .. wsj_0199.mrg (the PTB sample)")
    parser.add_argument("--ewt", metavar="DIR", help="folder with en_ewt-ud-test.conllu")
    parser.add_argument("--parser", default="ptb",
                        help="Collins-style text model for the PTB figures (ptb: bundled)")
    parser.add_argument("--ud-parser", default="ud",
                        help="UD text model for the EWT figures (ud: bundled)")


def run(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from pad_engine.errors import InputError
    from pad_engine.io.gate import check_inputs
    from pad_engine.learning.text_bench import ewt_figures, format_ewt, format_ptb, ptb_figures
    from pad_engine.parsing.pipeline import load_text_model

    check_inputs([p for p in (args.parser, args.ud_parser) if p not in ("ptb", "ud")],
                 [args.treebank, args.ewt])
    if not args.treebank and not args.ewt:
        raise InputError("give --treebank (PTB sample) and/or --ewt (UD English EWT)")
    if args.treebank and not (Path(args.treebank) / "wsj_0001.mrg").exists():
        raise InputError("no wsj_0001.mrg here: not the Penn Treebank sample", args.treebank)
    test_file = Path(args.ewt or ".") / "en_ewt-ud-test.conllu"
    if args.ewt and not test_file.exists():
        raise InputError("no en_ewt-ud-test.conllu here: not UD English EWT", args.ewt)

    def say(message: str) -> None:
        print(f"pad bench-text: {message}", file=sys.stderr, flush=True)

    if args.treebank:
        model, _ = load_text_model(args.parser)
        for line in format_ptb(ptb_figures(Path(args.treebank), model, say)):
            print(line, flush=True)
    if args.ewt:
        model, _ = load_text_model(args.ud_parser)
        for line in format_ewt(ewt_figures(test_file, model)):
            print(line, flush=True)
    return 0
