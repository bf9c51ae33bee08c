"""``pad convert``: CoNLL-X/CoNLL-U d-parses in, Penn trees out."""

from __future__ import annotations

import argparse

HELP = "Convert dependency trees (CoNLL-X/CoNLL-U) into Penn trees, one per line."


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", nargs="?", help="CoNLL file (standard input when absent or -)")
    parser.add_argument("-o", "--output", help="Penn output file (standard output when absent)")
    parser.add_argument("--model", help="model file (default: the bundled English model)")
    parser.add_argument("--no-prune", action="store_true", help="exact decoding, no pruning")
    parser.add_argument("--kbest", type=int, default=0, metavar="K",
                        help="write the K best trees per sentence as SCORE<TAB>TREE lines, "
                             "then a blank line")
    parser.add_argument("--pos", choices=["auto", "xpos", "upos"], default="auto",
                        help="which POS column to read (auto: XPOS where present, else UPOS)")


def run(args: argparse.Namespace) -> int:
    import sys

    from pad_engine.api import Engine
    from pad_engine.atomic import atomic_open
    from pad_engine.convert import ConvertReport, convert_sentences, read_input
    from pad_engine.errors import InputError

    if args.kbest < 0 or args.kbest > 1000:
        raise InputError(f"--kbest must be between 1 and 1000, not {args.kbest}")
    engine = Engine.load(args.model)
    if args.input in (None, "-"):
        text, name = sys.stdin.read(), "<stdin>"
    else:
        with open(args.input, "rb") as f:
            raw = f.read()
        text, name = raw.decode("utf-8", errors="surrogateescape"), args.input
    data = read_input(text, name, args.pos)
    report = ConvertReport()
    chunks = convert_sentences(engine, data.sentences, report, not args.no_prune, args.kbest)
    if args.output:
        with atomic_open(args.output, "w") as out:
            _write_in_order(out, chunks, data)
    else:
        _write_in_order(sys.stdout, chunks, data)
    for err in [*data.skipped, *report.problems]:
        print(f"pad convert: skipped {err}", file=sys.stderr)
    total = report.sentences + len(data.skipped)
    print(f"pad convert: {report.converted} of {total} sentences converted"
          + (f" ({report.fallback} by the flat fallback)" if report.fallback else ""),
          file=sys.stderr)
    return 0


def _write_in_order(out, chunks, data) -> None:
    """Write converted sentences, with an empty line where a malformed sentence stood."""
    pending = sorted(e.line or 0 for e in data.skipped)
    for sent, chunk in zip(data.sentences, chunks):
        while pending and sent.line is not None and pending[0] < sent.line:
            out.write("\n")
            pending.pop(0)
        out.write(chunk)
    for _ in pending:
        out.write("\n")
