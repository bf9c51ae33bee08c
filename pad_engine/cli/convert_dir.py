"""``pad convert-dir``: every CoNLL file under a folder into Penn trees, mirrored, resumable."""

from __future__ import annotations

import argparse

from pad_engine.cli._options import add_encoding

HELP = ("Convert every CoNLL file under a folder (recursive) into Penn trees in a mirrored "
        "folder, in parallel or on a Dask cluster; reruns resume.")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", metavar="IN",
                        help="folder searched recursively for .conll, .conllx, .conllu files")
    parser.add_argument("output", metavar="OUT",
                        help="output folder: a/b.conllu becomes OUT/a/b.mrg; the summary "
                             "report goes to OUT/pad-convert-report.json and .txt")
    parser.add_argument("--jobs", type=int, default=0, metavar="N",
                        help="worker processes, each loading the model once (default: all cores)")
    parser.add_argument("--model", help="model file (default: for each file, the bundled model "
                                        "that fits it, UD or Collins-style, else the "
                                        "rule-based projection)")
    parser.add_argument("--fast", action="store_true",
                        help="for Collins-style files, the bundled PTB model's fast twin "
                             "(about 3x the sentences a second, 1-2 F1 less; see pad convert)")
    parser.add_argument("--kbest", type=int, default=0, metavar="K",
                        help="write the K best trees per sentence as SCORE<TAB>TREE lines and "
                             "a blank line, to OUT/a/b.kbest")
    parser.add_argument("--no-prune", action="store_true", help="exact decoding, no pruning")
    parser.add_argument("--pos", choices=["auto", "xpos", "upos"], default="auto",
                        help="which POS column to read (auto: XPOS where present, else UPOS)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on a Dask cluster (e.g. tcp://host:8786); its workers must "
                             "see IN, OUT and the model at the same paths. Needs the dask "
                             "extra: pip install 'pad-studio[dask]'")
    add_encoding(parser)


def run(args: argparse.Namespace) -> int:
    import sys

    from pad_engine.batch.folders import convert_folder
    from pad_engine.batch.progress import BatchProgress
    from pad_engine.batch.report import CONVERTED, FAILED, SKIPPED, UP_TO_DATE
    from pad_engine.errors import InputError

    if args.jobs < 0:
        raise InputError(f"--jobs must be 1 or more, not {args.jobs}")
    tty = sys.stderr.isatty()

    def progress(p: BatchProgress) -> None:
        left = f", {p.seconds_left:.0f} s left" if p.seconds_left is not None else ""
        status = (f"{p.files_done}/{p.files_total} files, {p.sentences_done} sentences, "
                  f"{p.sentences_per_second:,.0f} sentences/s{left}")
        if p.file is not None:
            f = p.file
            what = (f"failed: {f.error}" if f.status == FAILED else
                    f"{f.converted} of {f.sentences} sentences converted"
                    + (f" with {f.model}" if f.model else "")
                    + (f"; {f.kbest_cut} with the k-best list cut to fit memory (fewer than "
                       f"{args.kbest} trees)" if f.kbest_cut else "")
                    + (f"; {f.warning}" if f.warning else ""))
            print("\r\033[K" if tty else "", end="", file=sys.stderr)
            print(f"pad convert-dir: {f.input}: {what}", file=sys.stderr)
        if tty:
            print(f"\r\033[K{status}", end="", file=sys.stderr, flush=True)

    report = convert_folder(args.input, args.output, args.model, args.jobs or None, args.kbest,
                            not args.no_prune, pos=args.pos, scheduler=args.scheduler,
                            progress=progress, encoding=args.encoding, fast=args.fast)
    if tty:
        print("\r\033[K", end="", file=sys.stderr)
    for s in [s for f in report.files if f.status == CONVERTED for s in f.skipped]:
        print(f"pad convert-dir: skipped {s.file}:{s.line}: {s.reason}", file=sys.stderr)
    for f in report.files:
        if f.status == SKIPPED:
            print(f"pad convert-dir: {f.input}: {f.status}: {f.error}", file=sys.stderr)
    up = report.count(UP_TO_DATE)
    failed = report.count(FAILED)
    special = report.count(SKIPPED)
    print(f"pad convert-dir: {report.converted} of {report.sentences} sentences converted in "
          f"{len(report.files) - special} files ({up} up to date from an earlier run, "
          f"{failed} failed{f', {special} skipped: not regular files' if special else ''}), "
          f"{report.seconds:.1f} s, {report.sentences_per_second:,.0f} sentences/s; "
          f"report: {report.report_path}", file=sys.stderr)
    return 1 if failed else 0

