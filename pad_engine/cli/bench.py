"""``pad bench``: accuracy and speed figures on the Penn Treebank sample."""

from __future__ import annotations

import argparse

HELP = "Train and evaluate on the Penn Treebank sample split; print F1 and speed figures."


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--treebank",
                        help="folder with wsj_0001.mrg .. wsj_0199.mrg (the PTB sample); "
                             "needed unless --farpahc alone is asked for")
    parser.add_argument("--model", help="evaluate this model instead of training one")
    parser.add_argument("--epochs", type=int, default=10, help="training epochs (10)")
    parser.add_argument("--headrules", default="collins", help="head table (collins)")
    parser.add_argument("--labels", action="store_true",
                        help="train a model that reads d-parse labels, labeling the d-parses as "
                             "the original PAD's scripts do (phrase+dependent phrase, e.g. S+NP; "
                             "the setting of its published figures), with the strongest labeled "
                             "recipe: the labels, the rule-based projection's phrases over each "
                             "span and the back-off grammar (pad train --labels --projection); "
                             "a --model that reads them gets them without this flag")
    parser.add_argument("--rules-only", action="store_true",
                        help="only the rule-based fallback's F1 (no model, no training)")
    parser.add_argument("--text", action="store_true",
                        help="the text pipeline's figures instead (tagging, UAS/LAS, F1 from "
                             "text, speed: the same as pad bench-text), with --ewt for UD "
                             "English EWT test")
    parser.add_argument("--ewt", metavar="DIR",
                        help="folder of UD English EWT: adds the bundled UD model on "
                             "en_ewt-ud-train.conllu (speed, decoding passes); with --text, "
                             "the text pipeline on en_ewt-ud-test.conllu")
    parser.add_argument("--memory", action="store_true",
                        help="only the peak memory rows: a process converting one 300-word "
                             "sentence (flat and chain, UD relations and none, both bundled "
                             "models, 1 and 10 trees) and, with --ewt, pad convert and pad "
                             "convert-dir on files of 1,000, 10,000 and 100,000 sentences "
                             "(EWT train repeated; the last takes minutes)")
    parser.add_argument("--farpahc", metavar="DIR",
                        help="folder of FarPaHC (1936.ntjohn.rel-bib.psd, "
                             "fo_farpahc-ud-train.conllu): adds the row of long sentences with "
                             "a large grammar: a model trained as pad train --deps --hold-out 10 "
                             "does, every paired sentence decoded (ms each, passes, held-out "
                             "F1, grammar size); without --treebank, only this row")
    parser.add_argument("--gum", metavar="DIR",
                        help="folder of GUM (const/*.ptb paired with dep/*.conllu): adds the "
                             "bundled UD model on its held-out documents (every 10th, as its "
                             "README command holds them out), F1 pruned and exact from the UD "
                             "d-parses as a file has them; without --treebank, only this row")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pad_engine.errors import InputError
    from pad_engine.io.gate import check_inputs
    from pad_engine.learning.bench import (
        farpahc_figures,
        format_farpahc,
        format_gum,
        gum_figures,
        run_bench,
        run_rules_bench,
    )

    check_inputs([args.model], [args.treebank, args.ewt, args.farpahc, args.gum])
    if args.memory:
        from pad_engine.learning.bench import memory_figures

        memory_figures(Path(args.ewt) if args.ewt else None)
        return 0
    if args.treebank is None:
        if args.farpahc is None and args.gum is None:
            raise InputError("pad bench needs --treebank (or --farpahc, --gum or --memory for "
                             "their rows alone)")
        if args.farpahc is not None:
            print(format_farpahc(farpahc_figures(Path(args.farpahc))))
        if args.gum is not None:
            print(format_gum(gum_figures(Path(args.gum))))
        return 0
    treebank = Path(args.treebank)
    if not (treebank / "wsj_0001.mrg").exists():
        raise InputError("no wsj_0001.mrg here: not the Penn Treebank sample", str(treebank))
    if args.text:
        from pad_engine.cli import bench_text

        return bench_text.run(argparse.Namespace(treebank=args.treebank, ewt=args.ewt,
                                                 parser="ptb", ud_parser="ud"))
    if args.rules_only:
        run_rules_bench(treebank)
        return 0
    if args.labels and args.model:
        raise InputError("--labels trains a model; a --model reads the labels it was trained on")
    run_bench(treebank, Path(args.model) if args.model else None, args.epochs, args.headrules,
              labels="phrase" if args.labels else "", ewt=Path(args.ewt) if args.ewt else None,
              farpahc=Path(args.farpahc) if args.farpahc else None,
              gum=Path(args.gum) if args.gum else None)
    return 0
