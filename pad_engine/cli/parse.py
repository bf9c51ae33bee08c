"""``pad parse``: plain text or CoNLL without heads in, Penn trees out."""

from __future__ import annotations

import argparse

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


def run(args: argparse.Namespace) -> int:
    import sys

    from pad_engine.decoding.engine import Engine
    from pad_engine.decoding.parser import kbest_cut_note
    from pad_engine.errors import InputError
    from pad_engine.io.gate import (
        check_inputs,
        prepare_outputs,
        read_bytes,
        read_stream,
        write_lines,
    )
    from pad_engine.parsing.pipeline import TextPipeline, load_text_model, paired_choice
    from pad_engine.parsing.text import conll_lines, read_text

    if args.kbest < 0 or args.kbest > 1000:
        raise InputError(f"--kbest must be between 1 and 1000, not {args.kbest}")
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
    analyses = iter(pipeline.analyze_many([i for i in items if not isinstance(i, InputError)]))
    for item in items:
        if isinstance(item, InputError):
            problems.append(item)
            trees.append("\n\n" if args.kbest else "\n")
            continue
        analysis = next(analyses)
        sent = analysis.dep_sentence()
        try:
            if args.kbest:
                cands = engine.candidates(sent, k=args.kbest)
                trees.append("".join(f"{c.score:.4f}\t{c.penn(sent.forms)}\n" for c in cands)
                             + "\n")
                if cands and cands[0].cut_to:
                    cut.append((item.line, cands[0].cut_to))
            else:
                trees.append(engine.best_line(sent)[0] + "\n")
            converted += 1
        except InputError as err:
            problems.append(InputError(err.problem, name, item.line))
            trees.append("\n\n" if args.kbest else "\n")
        deps.append(conll_lines(item, analysis.tags, analysis.heads, analysis.rels))
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
