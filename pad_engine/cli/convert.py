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
    parser.add_argument("--fast", action="store_true",
                        help="for Collins-style input, the bundled PTB model's fast twin: "
                             "about 3x the sentences a second, about 1 F1 less on newswire "
                             "and 2 on other genres (UD input: the UD model either way)")
    parser.add_argument("--rules", action="store_true",
                        help="no model: the rule-based projection (any language, any tags)")
    parser.add_argument("--label-set", metavar="NAME|FILE",
                        help="the rule-based projection with these phrase labels: ptb (its "
                             "own), ud-generic, alpino-dutch, or a .labels file "
                             "(pad_engine/data/labels/README.md)")
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
    parser.add_argument("-j", "--jobs", "--threads", dest="jobs", type=int, default=0,
                        metavar="N",
                        help="sentences converted at once (default: one per processor, at "
                             "most 4; output order is kept): in worker processes on Linux, "
                             "elsewhere on threads, where only the decoding runs at once")
    add_encoding(parser)


def _isatty(stream: object) -> bool:
    """Whether ``stream`` is a terminal (False for None or a stream that cannot tell)."""
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


def run(args: argparse.Namespace) -> int:
    import contextlib
    import io
    import os
    import sys

    from pad_engine.batch.files import ConvertReport, convert_items, first_sentences
    from pad_engine.decoding.choice import SAMPLE, choose
    from pad_engine.decoding.engine import Engine
    from pad_engine.decoding.parser import FALLBACK_WHY, kbest_cut_note
    from pad_engine.decoding.rulebased import RuleBasedEngine, label_set
    from pad_engine.errors import InputError
    from pad_engine.io.conll_stream import ConllStream
    from pad_engine.io.gate import (
        BoundedStream,
        check_inputs,
        open_read,
        prepare_outputs,
        write_lines,
    )
    from pad_engine.jit import default_jobs
    from pad_engine.trees.projectivize import describe_lifts

    if args.jobs < 0 or args.jobs > 64:
        raise InputError(f"--jobs must be between 1 and 64 (0: one per processor), not "
                         f"{args.jobs}")
    if args.kbest < 0 or args.kbest > 1000:
        raise InputError(f"--kbest must be between 1 and 1000, not {args.kbest}")
    chosen = [o for o, v in (("--rules", args.rules), ("--model", args.model),
                              ("--fast", args.fast),
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
        opened = contextlib.nullcontext(
            BoundedStream(stdin, "<stdin>") if stdin else
            io.BytesIO(sys.stdin.read().encode("utf-8", "surrogateescape")))
        name = "<stdin>"
    else:
        opened = open_read(args.input)  # streamed (memory stays flat), still bounded
        name = args.input
    with opened as source:
        stream = ConllStream(source, name, args.pos, args.encoding)
        items = iter(stream)
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
            sample, items = first_sentences(items, SAMPLE)
            choice = choose(sample, fast=args.fast)
            engine = choice.engine
            print(f"pad convert: {choice.name}: {choice.reason}", file=sys.stderr)
        report = ConvertReport()
        # typed in: each tree as soon as its sentence is, not a window of sentences later
        typed = args.input in (None, "-") and _isatty(sys.stdin)
        jobs = args.jobs or (1 if typed else default_jobs())
        chunks = convert_items(engine, items, report, not args.no_prune, args.kbest, jobs,
                               fork=True)
        write_lines(args.output, chunks)
    if stream.note:
        print(f"pad convert: {stream.note}", file=sys.stderr)
    warning = engine.relations_warning(report.relations)
    if warning:
        print(f"pad convert: {name}: {warning}", file=sys.stderr)
    for err in [*report.unreadable, *report.problems]:
        print(f"pad convert: skipped {err}", file=sys.stderr)
    for path, line, lifts in report.lifted:
        print(f"pad convert: {path}:{line}: {describe_lifts(lifts)}", file=sys.stderr)
    for path, line, cut_to in report.cut:
        print(f"pad convert: {path}:{line}: {kbest_cut_note(cut_to, args.kbest)}",
              file=sys.stderr)
    total = report.sentences + len(report.unreadable)
    print(f"pad convert: {report.converted} of {total} sentences converted"
          + (f" ({report.fallback} by the flat fallback: {FALLBACK_WHY})"
             if report.fallback else "")
          + (f", {len(report.lifted)} lifted to projective or re-rooted"
             if report.lifted else "")
          + (f", {len(report.cut)} with k-best cut to fit memory" if report.cut else ""),
          file=sys.stderr)
    return 0
