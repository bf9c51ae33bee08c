"""``pad convert``: CoNLL-X/CoNLL-U d-parses in, Penn trees out."""

from __future__ import annotations

import argparse

HELP = "Convert dependency trees (CoNLL-X/CoNLL-U) into Penn trees, one per line."


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", nargs="?", help="CoNLL file (standard input when absent or -)")
    parser.add_argument("-o", "--output", help="Penn output file (standard output when absent)")
    parser.add_argument("--model", help="model file (default: the bundled model that fits the "
                                        "input, UD or Collins-style; it says which)")
    parser.add_argument("--rules", action="store_true",
                        help="no model: the rule-based projection (any language, any tags)")
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
    from pad_engine.models import choose
    from pad_engine.rulebased import RuleBasedEngine

    if args.kbest < 0 or args.kbest > 1000:
        raise InputError(f"--kbest must be between 1 and 1000, not {args.kbest}")
    if args.rules and args.model:
        raise InputError("--rules and --model exclude each other")
    if args.input in (None, "-"):
        text, name = sys.stdin.read(), "<stdin>"
    else:
        with open(args.input, "rb") as f:
            raw = f.read()
        text, name = raw.decode("utf-8", errors="surrogateescape"), args.input
    data = read_input(text, name, args.pos)
    if args.rules:
        engine = RuleBasedEngine()
    elif args.model:
        engine = Engine.load(args.model)
    else:
        choice = choose(data.sentences)
        engine = choice.engine
        print(f"pad convert: {choice.name}: {choice.reason}", file=sys.stderr)
    warning = engine.label_warning(data.sentences)
    if warning:
        print(f"pad convert: {name}: {warning}", file=sys.stderr)
    report = ConvertReport()
    chunks = convert_sentences(engine, data.sentences, report, not args.no_prune, args.kbest)
    if args.output:
        with atomic_open(args.output, "w") as out:
            _write_in_order(out, chunks, data)
    else:
        _write_in_order(sys.stdout, chunks, data)
    for err in [*data.skipped, *report.problems]:
        print(f"pad convert: skipped {err}", file=sys.stderr)
    for path, line, lifts in report.lifted:
        print(f"pad convert: {path}:{line}: non-projective, lifted "
              + ", ".join(str(lift) for lift in lifts), file=sys.stderr)
    total = report.sentences + len(data.skipped)
    print(f"pad convert: {report.converted} of {total} sentences converted"
          + (f" ({report.fallback} by the flat fallback)" if report.fallback else "")
          + (f", {len(report.lifted)} lifted to projective" if report.lifted else ""),
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
