"""``pad train``: learn a model from Penn trees."""

from __future__ import annotations

import argparse

from pad_engine.cli._options import add_encoding

HELP = ("Train a PAD model on Penn trees, lexicalized with a head table or, with --deps, "
        "paired with d-parses of the same sentences (e.g. UD).")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("trees", nargs="+", help="Penn tree files (.mrg/.ptb)")
    parser.add_argument("-o", "--output", required=True, help="model file to write")
    parser.add_argument("--headrules", default=None,
                        help="head table: collins, content, icepahc, or a path (default "
                             "collins); not with --deps, where the d-parses give the heads")
    parser.add_argument("--epochs", type=int, default=10, help="passes over the data (10)")
    parser.add_argument("--max-sentences", type=int, default=0,
                        help="use only the first N trees (0: all)")
    parser.add_argument("--seed", type=int, default=0, help="shuffling seed (0)")
    parser.add_argument("--bits", type=int, default=None,
                        help="2^BITS hashed weights, 16..24 (default 21). The bundled models "
                             "use 20, a 4 MB table: the UD model converts EWT 12%% faster than "
                             "with 21 (GUM held-out F1 84.08 instead of 84.16); the PTB model "
                             "(--projection, back-off) decodes 1.36x faster (pruned F1 98.23 "
                             "instead of 98.17)")
    parser.add_argument("--backoff", action=argparse.BooleanOptionalAction, default=True,
                        help="widen the grammar with back-off rules (default on, as Retrain "
                             "does): on the PTB sample test split all 3,396 trees give F1 "
                             "97.96 exact / 97.83 pruned instead of 97.53 / 97.44, but decode "
                             "several times slower (with --projection: about 2,450 sentences/s "
                             "in the pruned decoder against 6,000 for the bundled model); with "
                             "few trees back-off is what derives most sentences "
                             "(docs/EXPERIMENTS.md, 'A stronger model on little data'); "
                             "--no-backoff decodes faster, as the UD model and the PTB model's "
                             "fast twin do")
    parser.add_argument("--deps", nargs="+", metavar="CONLL",
                        help="one CoNLL file per tree file, same sentences in the same order: "
                             "train to build trees consistent with these d-parses (lifted to "
                             "projective; the closest consistent tree where they disagree)")
    parser.add_argument("--labels", action="store_true",
                        help="learn from the d-parses' labels too (4 more feature templates). "
                             "With --deps the labels are the DEPREL column (UD relations for "
                             "GUM: held-out F1 84.08 instead of 83.56); on Penn trees they are "
                             "read off the trees as the original PAD's scripts write them "
                             "(phrase+dependent phrase, e.g. S+NP). The model then expects "
                             "input labeled the same way")
    parser.add_argument("--projection", action="store_true",
                        help="read the rule-based projection of each d-parse (its phrase labels "
                             "per word and over each span), widen the grammar with the "
                             "projections of the training d-parses and make one pass over "
                             "1,000 of them first, as Retrain from scratch does "
                             "(docs/EXPERIMENTS.md, 'The projection recipe'). With --labels: "
                             "read the labels per word (DEPREL, or off Penn trees) and the "
                             "projection's phrases over each span, without that pass (GUM "
                             "held-out 84.68 instead of 84.26, at half the speed; the PTB "
                             "sample's S+NP labels with back-off 99.33 instead of 98.56)")
    parser.add_argument("--reattach", choices=["penn"],
                        help="with --deps: in training and in every d-parse the model decodes, "
                             "re-attach coordinators and punctuation where Penn trees put them "
                             "(UD hangs them on the conjunct or phrase they open or close): "
                             "GUM held-out F1 90.0 instead of 84.3 (docs/EXPERIMENTS.md, "
                             "'Coordinators and punctuation where Penn trees put them')")
    parser.add_argument("--hold-out", type=int, default=0, metavar="K",
                        help="with --deps: set every K-th file pair aside (every K-th "
                             "sentence with fewer than K files) and report F1 on it")
    add_encoding(parser)


def run(args: argparse.Namespace) -> int:
    import os
    import sys

    from pad_engine.decoding.model import DEFAULT_BITS
    from pad_engine.io.gate import check_inputs, prepare_outputs
    from pad_engine.learning.train import projection_recipe, train
    from pad_engine.trees.headrules import SHIPPED

    _check_options(args)
    if args.headrules is None:
        args.headrules = "collins"
    inputs = [*args.trees, *(args.deps or []),
              args.headrules if args.headrules not in SHIPPED else None]
    check_inputs(inputs)
    prepare_outputs([args.output], inputs)
    held = []
    if args.deps:
        examples, held, made = _paired_examples(args)
        print(f"pad train: {made.exact} trees consistent with their d-parses, {made.oracle} "
              f"replaced by the closest consistent tree", file=sys.stderr)
        for problem in made.skipped:
            print(f"pad train: skipped {problem}", file=sys.stderr)
    else:
        examples = _penn_examples(args)

    def report(p) -> None:
        print(f"\repoch {p.epoch}/{p.epochs}  {p.done}/{p.total} sentences  "
              f"{p.errors} updates  {p.seconds:.1f}s", end="", file=sys.stderr)
        if p.done == p.total:
            print(file=sys.stderr)

    headrules = "content" if args.deps else args.headrules
    if headrules not in SHIPPED:  # a table of the user's: the model records its file name
        headrules = os.path.basename(headrules)
    model = train(examples, epochs=args.epochs, seed=args.seed, headrules=headrules,
                  progress=report, backoff=args.backoff,
                  bits=DEFAULT_BITS if args.bits is None else args.bits,
                  reattach=args.reattach or "",
                  **(projection_recipe(examples, deprel=args.labels) if args.projection
                     else {"labels": _label_source(args)}))
    model.training["files"] = [str(p).split("/")[-1] for p in args.trees][:50]
    if args.deps:
        model.training["targets"] = "paired d-parses; closest consistent trees where they differ"
    if held:
        from pad_engine.learning.pairs import score_pairs

        result = score_pairs(model, held)
        model.training["held_out"] = {"sentences": result.sentences, "f1": round(result.f1, 2),
                                      "grammar_oracle_f1": round(result.grammar_f1, 2),
                                      "bound_f1": round(result.bound_f1, 2),
                                      "flat": result.flat}
        if result.flat:
            from pad_engine.decoding.parser import FALLBACK_WHY

            print(f"pad train: {result.flat} held-out sentences decoded as flat trees: "
                  f"{FALLBACK_WHY}", file=sys.stderr)
        print(f"pad train: held-out {result.sentences} sentences: F1 {result.f1:.2f}; trees "
              f"consistent with the d-parses: the closest the model's grammar builds score "
              f"{result.grammar_f1:.2f}, the best with any phrases and labels "
              f"{_bound(result)} (no converter that keeps the d-parses scores more)",
              file=sys.stderr)
    model.save(args.output)
    print(f"pad train: {len(examples)} trees, model written to {args.output}", file=sys.stderr)
    return 0


def _check_options(args: argparse.Namespace) -> None:
    """InputError for options out of range or that exclude each other."""
    from pad_engine.decoding.model_check import MAX_FEATURE_BITS
    from pad_engine.errors import InputError

    if args.epochs < 1:
        raise InputError("--epochs must be at least 1")
    if args.bits is not None and not 16 <= args.bits <= MAX_FEATURE_BITS:
        raise InputError(f"--bits must be between 16 and {MAX_FEATURE_BITS}, got {args.bits}")
    if args.hold_out and not args.deps:
        raise InputError("--hold-out needs --deps")
    if args.reattach and not args.deps:
        raise InputError("--reattach needs --deps: it moves arcs by their UD relations")
    if args.hold_out == 1 or args.hold_out < 0:
        raise InputError("--hold-out K needs K >= 2 (every K-th file pair is set aside)")
    if args.deps and args.headrules is not None:
        raise InputError("--headrules has no effect with --deps: the d-parses give the heads")


def _bound(result) -> str:
    """The any-grammar bound, with its upper end when the search may have undercounted."""
    if result.bound_upper - result.bound_f1 < 0.005:
        return f"{result.bound_f1:.2f}"
    return f"{result.bound_f1:.2f} to {result.bound_upper:.2f}"


def _label_source(args: argparse.Namespace) -> str:
    """Where the model's labels come from ("" when it reads none): DEPREL of the paired CoNLL
    files, or the phrase labels read off Penn trees (deplabels.py)."""
    if not args.labels:
        return ""
    return "deprel" if args.deps else "phrase"


def _penn_examples(args: argparse.Namespace) -> list:
    import sys

    from pad_engine.errors import InputError
    from pad_engine.io.penn import read_penn
    from pad_engine.learning.train import examples_from_penn
    from pad_engine.trees.binarize import training_depth_problem

    trees = []
    for path in args.trees:
        result = read_penn(path, on_error="skip", encoding=args.encoding)
        if result.note:
            print(f"pad train: {result.note}", file=sys.stderr)
        for err in result.skipped:
            print(f"pad train: skipped {err}", file=sys.stderr)
        for tree, line in zip(result.trees, result.lines):
            problem = training_depth_problem(tree)
            if problem:
                print(f"pad train: skipped {InputError(problem, path, line)}", file=sys.stderr)
            else:
                trees.append(tree)
    if args.max_sentences > 0:
        trees = trees[: args.max_sentences]
    if not trees:
        raise InputError("no trees to train on", ", ".join(args.trees))
    return examples_from_penn(trees, args.headrules, _label_source(args))


def _paired_examples(args: argparse.Namespace):
    """Training examples from the kept file pairs, the held-out pairs, and how they were made."""
    import sys

    from pad_engine.errors import InputError
    from pad_engine.learning.pairs import examples_from_pairs, hold_out, read_pairs, reattached

    per_file, problems = read_pairs(
        args.trees, args.deps, encoding=args.encoding,
        warn=lambda note: print(f"pad train: {note}", file=sys.stderr))
    kept, held = hold_out(per_file, args.hold_out)
    kept, held = reattached(kept, args.reattach or ""), reattached(held, args.reattach or "")
    if args.max_sentences > 0:
        kept = kept[: args.max_sentences]
    if not kept:
        raise InputError("no trees to train on")
    made = examples_from_pairs(kept)
    made.skipped[:0] = [str(err) for err in problems]
    return made.examples, held, made
