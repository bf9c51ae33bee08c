"""``pad parse``: plain text or CoNLL without heads in, Penn trees out."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from pad_engine.errors import InputError

if TYPE_CHECKING:  # the CLI imports the engine only for the command that runs
    from pad_engine.batch.files import Converted
    from pad_engine.decoding.engine import Converter
    from pad_engine.parsing.pipeline import Analysis

HELP = ("Parse text: tag, d-parse and convert plain text (one sentence per line) or CoNLL "
        "without heads into Penn trees.")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", nargs="?",
                        help="text or CoNLL file (standard input when absent or -)")
    parser.add_argument("-o", "--output", help="Penn output file (standard output when absent)")
    parser.add_argument("--parser", default="ptb", metavar="PARSER",
                        help="text model: ptb (bundled, Penn Treebank sample, Collins heads; "
                             "the default), ud (bundled, UD English EWT) or a file from pad "
                             "train-deps")
    parser.add_argument("--model", help="PAD model file (default: the bundled one that pairs "
                                        "with the text model)")
    parser.add_argument("--kbest", type=int, default=0, metavar="K",
                        help="write the K best trees per sentence as SCORE<TAB>TREE lines, "
                             "then a blank line")
    parser.add_argument("--deps-out", metavar="OUT.conllu",
                        help="also write the predicted d-parses (CoNLL-U)")
    parser.add_argument("--tokenize", action="store_true",
                        help="split raw text lines into Penn-style tokens (default: split at "
                             "whitespace)")
    parser.add_argument("-j", "--jobs", type=int, default=0, metavar="N",
                        help="sentences parsed at once in worker processes, on Linux (default: "
                             "one per processor, at most 4; output order is kept)")


def _parse_one(engine: Converter, analysis: Analysis, kbest: int) -> tuple[Converted, str]:
    """One analysed sentence converted as ``pad convert`` converts it, and its d-parse's
    CoNLL lines."""
    from pad_engine.batch.files import convert_one
    from pad_engine.parsing.text import conll_lines

    return (convert_one(engine, analysis.dep_sentence(), True, kbest),
            conll_lines(analysis.sentence, analysis.tags, analysis.heads, analysis.rels))


def _unread(item: object) -> bool:
    """Whether ``item`` is a sentence the reader could not read (its error)."""
    return isinstance(item, InputError)


def run(args: argparse.Namespace) -> int:
    import sys

    from pad_engine.batch.forked import can_fork, ordered_forked
    from pad_engine.decoding.engine import Engine
    from pad_engine.decoding.parser import kbest_cut_note
    from pad_engine.io.gate import (
        check_inputs,
        prepare_outputs,
        read_bytes,
        read_stream,
        write_lines,
    )
    from pad_engine.jit import default_jobs
    from pad_engine.parsing.pipeline import TextPipeline, load_text_model, paired_choice
    from pad_engine.parsing.text import read_text

    if args.kbest < 0 or args.kbest > 1000:
        raise InputError(f"--kbest must be between 1 and 1000, not {args.kbest}")
    if args.jobs < 0 or args.jobs > 64:
        raise InputError(f"--jobs must be between 1 and 64 (0: one per processor), not "
                         f"{args.jobs}")
    parser_file = args.parser if args.parser not in ("ptb", "ud") else None
    inputs = [args.input, args.model, parser_file]
    check_inputs(inputs)
    prepare_outputs([args.output, args.deps_out], inputs)
    if args.input in (None, "-"):
        stdin = getattr(sys.stdin, "buffer", None)  # a text stream when embedded
        raw, name = (read_stream(stdin, "<stdin>") if stdin else
                     sys.stdin.read().encode("utf-8", "surrogateescape")), "<stdin>"
    else:
        raw, name = read_bytes(args.input), args.input
    text = raw.decode("utf-8", errors="surrogateescape")
    items = read_text(text, name, tokenized=not args.tokenize)
    model, model_path = load_text_model(args.parser)
    if args.model:
        engine, pad_name = Engine.load(args.model), args.model
    else:
        choice = paired_choice(model)
        engine, pad_name = choice.engine, choice.name
    print(f"pad parse: text model {model_path.name} ({model.convention} d-parses), "
          f"PAD model {pad_name}", file=sys.stderr)
    pipeline = TextPipeline(model)
    trees, deps, problems = [], [], []
    cut: list[tuple[int | None, int]] = []  # (line, k) of each sentence the k-best budget cut
    converted = 0
    jobs = args.jobs or default_jobs()
    blank = "\n\n" if args.kbest else "\n"  # a sentence without a tree keeps its place
    if jobs > 1 and can_fork():  # each worker tags, d-parses and converts its sentences
        done = ordered_forked(lambda item: _parse_one(engine, pipeline.analyze(item),
                                                      args.kbest), items, jobs, _unread)
    else:  # every sentence tagged, then every one parsed: each stage's tables stay cached
        analyses = iter(pipeline.analyze_many([i for i in items if not _unread(i)]))
        done = ((item, None if _unread(item) else _parse_one(engine, next(analyses),
                                                             args.kbest)) for item in items)
    for item, parsed in done:
        if parsed is None:
            problems.append(item)
            trees.append(blank)
            continue
        result, dep_lines = parsed
        deps.append(dep_lines)
        if result.problem is not None:
            problems.append(InputError(result.problem.problem, name, item.line))
            trees.append(blank)
            continue
        trees.append(result.text)
        if result.cut_to:
            cut.append((item.line, result.cut_to))
        converted += 1
    write_lines(args.output, trees)
    if args.deps_out:
        write_lines(args.deps_out, deps)
    for err in problems:
        print(f"pad parse: skipped {err}", file=sys.stderr)
    for line, cut_to in cut:
        print(f"pad parse: {name}:{line}: {kbest_cut_note(cut_to, args.kbest)}",
              file=sys.stderr)
    print(f"pad parse: {converted} of {len(items)} sentences parsed", file=sys.stderr)
    return 0
