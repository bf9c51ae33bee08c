"""``pad convert``: CoNLL-X/CoNLL-U d-parses in, Penn trees out."""

from __future__ import annotations

import argparse

from pad_engine.cli._options import add_encoding

HELP = "Convert dependency trees (CoNLL-X/CoNLL-U) into Penn trees, one per line."


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", nargs="?", help="CoNLL file (standard input when absent or -)")
    parser.add_argument("-o", "--output", help="Penn output file (standard output when absent)")
    parser.add_argument("--model", help="model file (default: the bundled model that fits the "
                                        "input, UD or Collins-style; it says which)")
    parser.add_argument("--rules", action="store_true",
                        help="no model: the rule-based projection (any language, any tags)")
    parser.add_argument("--label-set", metavar="NAME|FILE",
                        help="the rule-based projection with these phrase labels: ptb (its "
                             "own), ud-generic, alpino-dutch, or a .labels file "
                             "(resources/labels/README.md)")
    parser.add_argument("--corrected", nargs=2, metavar=("TREES", "CONLL"),
                        help="corrected Penn trees of some sentences and their d-parses (same "
                             "order): convert with what they teach best (a PAD model retrained "
                             "on them from 3 trees, else labels learned for the projection)")
    parser.add_argument("--no-prune", action="store_true", help="exact decoding, no pruning")
    parser.add_argument("--kbest", type=int, default=0, metavar="K",
                        help="write the K best trees per sentence as SCORE<TAB>TREE lines, "
                             "then a blank line")
    parser.add_argument("--pos", choices=["auto", "xpos", "upos"], default="auto",
                        help="which POS column to read (auto: XPOS where present, else UPOS)")
    add_encoding(parser)


def run(args: argparse.Namespace) -> int:
    import os
    import sys

    from pad_engine.batch.files import (
        ConvertReport,
        convert_sentences,
        read_input,
        write_in_order,
    )
    from pad_engine.decoding.choice import choose
    from pad_engine.decoding.engine import Engine
    from pad_engine.decoding.rulebased import RuleBasedEngine, label_set
    from pad_engine.errors import InputError
    from pad_engine.io.gate import (
        check_inputs,
        open_write,
        prepare_outputs,
        read_bytes,
        read_stream,
    )
    from pad_engine.trees.projectivize import describe_lifts

    if args.kbest < 0 or args.kbest > 1000:
        raise InputError(f"--kbest must be between 1 and 1000, not {args.kbest}")
    chosen = [o for o, v in (("--rules", args.rules), ("--model", args.model),
                              ("--label-set", args.label_set), ("--corrected", args.corrected))
              if v]
    if len(chosen) > 1 and chosen != ["--rules", "--label-set"]:
        raise InputError(f"{' and '.join(chosen)} exclude each other")
    label_file = args.label_set if args.label_set and os.path.lexists(args.label_set) else None
    inputs = [args.input, args.model, label_file, *(args.corrected or [])]
    check_inputs(inputs)
    prepare_outputs([args.output], inputs)
    if args.input in (None, "-"):
        stdin = getattr(sys.stdin, "buffer", None)  # a text stream when embedded
        raw = read_stream(stdin, "<stdin>") if stdin else \
            sys.stdin.read().encode("utf-8", "surrogateescape")
        name = "<stdin>"
    else:
        raw = read_bytes(args.input)
        name = args.input
    data = read_input(raw, name, args.pos, args.encoding)
    if data.note:
        print(f"pad convert: {data.note}", file=sys.stderr)
    if args.rules or args.label_set:
        engine = RuleBasedEngine(label_set(args.label_set or "ptb"))
    elif args.corrected:
        from pad_engine.learning.adapt import corrected_examples, from_corrected

        choice = from_corrected(corrected_examples(
            *args.corrected, args.encoding, lambda note: print(f"pad convert: {note}",
                                                               file=sys.stderr)))
        engine = choice.engine
        print(f"pad convert: {choice.name}: {choice.reason}", file=sys.stderr)
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
        with open_write(args.output, "w") as out:
            write_in_order(out, chunks, data)
    else:
        write_in_order(sys.stdout, chunks, data)
    for err in [*data.skipped, *report.problems]:
        print(f"pad convert: skipped {err}", file=sys.stderr)
    for path, line, lifts in report.lifted:
        print(f"pad convert: {path}:{line}: {describe_lifts(lifts)}", file=sys.stderr)
    total = report.sentences + len(data.skipped)
    print(f"pad convert: {report.converted} of {total} sentences converted"
          + (f" ({report.fallback} by the flat fallback)" if report.fallback else "")
          + (f", {len(report.lifted)} lifted to projective or re-rooted"
             if report.lifted else ""),
          file=sys.stderr)
    return 0

