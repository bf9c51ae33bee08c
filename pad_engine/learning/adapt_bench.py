"""``pad learning-curve --adapt``: does correcting the start of a file improve the rest?

A folder of paired files (const/NAME.ptb with dep/NAME.conllu, GUM's layout) is grouped by
genre, the second ``_``-separated field of each name (GUM_news_xyz: news; a name without one
is its own group). In each group, documents in name order, the first half of the sentences
may be corrected and the second half is scored against its c-parses (exact decoding, gold
d-parses). For each size N, every method trains on the first N correctable sentences of each
group and is scored on the group's scored half; figures are micro-averaged over the groups
(EVALB over every scored sentence pooled), beside the model alone and the projection alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pad_engine.decoding.model import Model
from pad_engine.decoding.rulebased import RuleBasedEngine
from pad_engine.learning.adaptation import Method, adapt
from pad_engine.learning.evalb import bracket_f1, score
from pad_engine.learning.pairs import Pair
from pad_engine.learning.retrain import Evaluation, evaluate, evaluate_converter
from pad_engine.learning.train import Example
from pad_engine.trees.deptree import DepSentence


@dataclass
class Group:
    """One genre: its correctable sentences as training examples, its scored half, and
    every d-parse of the group (the annotator's file: uncorrected sentences included)."""

    name: str
    correctable: list[Example]
    scored: list[Example]
    pool: list[DepSentence]


@dataclass
class Row:
    """One method at one size: F1 pooled over the groups, per group, and training time."""

    method: str
    size: int
    f1: float
    groups: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0  # training time summed over the groups


def group_name(stem: str) -> str:
    """A file's group: the second ``_``-separated field of its name, else the name."""
    parts = stem.split("_")
    return parts[1] if len(parts) > 1 and parts[1] else stem


def read_group_pairs(treebank: Path, only: Sequence[str] = ()
                     ) -> tuple[dict[str, list[Pair]], list[str]]:
    """The folder's sentence pairs by group (only the groups named in ``only``, when
    given), documents in name order, and the sentences that could not be paired."""
    from pad_engine.errors import InputError
    from pad_engine.learning.pairs import paired_files, read_pairs

    by_group: dict[str, list[tuple[Path, Path]]] = {}
    for tree, dep in paired_files(treebank):
        by_group.setdefault(group_name(tree.stem), []).append((tree, dep))
    missing = sorted(set(only) - set(by_group))
    if missing:
        raise InputError(f"no group {', '.join(missing)} (groups: {', '.join(sorted(by_group))})",
                         str(treebank))
    out, problems = {}, []
    for name, files in sorted(by_group.items()):
        if only and name not in only:
            continue
        per_file, bad = read_pairs([str(t) for t, _ in files], [str(d) for _, d in files])
        out[name] = [p for ps in per_file for p in ps]
        problems += map(str, bad)
    return out, problems


def make_groups(pairs: dict[str, list[Pair]], base: Model, scored: int = 0,
                warn: Callable[[str], None] | None = None) -> list[Group]:
    """Each group split in half: the first half's sentences as corrected trees, the trees
    consistent with their d-parses closest to their c-parses in the base model's grammar
    widened with their own rules (an annotator's corrections; the group's rules alone gave
    trees scoring below the model: GUM whow, 83.38 against 84.13), the second half to score
    against its c-parses; ``scored``: at most this many per group, spread over its half.
    A base that re-attaches its d-parses (``Model.reattach``) gets corrected trees that
    induce them re-attached, as the candidates an annotator corrects do."""
    from pad_engine.learning.pairs import candidate_examples, scored_examples

    groups = []
    for name, group in pairs.items():
        half = (len(group) + 1) // 2
        made = candidate_examples(group[:half], base)
        held = group[half:]
        if scored and len(held) > scored:
            held = [held[i * len(held) // scored] for i in range(scored)]
        if warn is not None:
            for problem in made.skipped:
                warn(f"skipped {problem}")
        pool = [DepSentence(p.forms, p.tags, p.heads, p.rels) for p in group]
        groups.append(Group(name, made.examples, scored_examples(held), pool))
    return groups


def _pooled(method: str, size: int, results: list[tuple[str, Evaluation]],
            seconds: float) -> Row:
    gold = [line for _, r in results for line in r.gold]
    test = [line for _, r in results for line in r.test]
    return Row(method, size, bracket_f1(score(gold, test)),
               {name: r.f1 for name, r in results}, seconds)


def baselines(groups: list[Group], base: Model) -> list[Row]:
    """The model alone and the rule-based projection alone (size 0: nothing corrected)."""
    alone = [(g.name, evaluate(base, g.scored)) for g in groups]
    projection = RuleBasedEngine()
    projected = [(g.name, evaluate_converter(projection, g.scored)) for g in groups]
    return [_pooled("model alone", 0, alone, 0.0),
            _pooled("projection alone", 0, projected, 0.0)]


def adapted(groups: list[Group], base: Model, method: Method, size: int) -> Row:
    """``method`` trained on each group's first ``size`` correctable sentences (all of them
    where it has fewer), scored on the group's scored half."""
    results, seconds = [], 0.0
    for g in groups:
        start = time.perf_counter()
        model = adapt(g.correctable[:size], base, method, pool=g.pool)
        seconds += time.perf_counter() - start
        results.append((g.name, evaluate(model, g.scored)))
    return _pooled(method.name, size, results, seconds)


def scratch(groups: list[Group], size: int, labels: str = "") -> Row:
    """Retrain from scratch on each group's first ``size`` correctable sentences (reading
    the projection, or ``labels``), the group's d-parses as its pool."""
    from pad_engine.learning.retrain import retrain

    results, seconds = [], 0.0
    for g in groups:
        start = time.perf_counter()
        model = retrain(g.correctable[:size], labels=labels, pool=g.pool)
        seconds += time.perf_counter() - start
        results.append((g.name, evaluate(model, g.scored)))
    return _pooled("scratch" + (f" ({labels})" if labels else ""), size, results, seconds)



def report(groups: list[Group], base: Model, sizes: Sequence[int], methods: Sequence[Method],
           default: Method, scratch_too: bool = True,
           say: Callable[[str], None] = print) -> list[Row]:
    """Print, per size, the model alone, the projection alone, Retrain's default, each other
    method (and Retrain from scratch) as F1 micro-averaged over the groups with the seconds
    trained (summed over the groups), then one line per group with each one's F1; return
    every row."""
    fixed = baselines(groups, base)
    say("# groups: " + ", ".join(f"{g.name} ({len(g.correctable)} correctable, "
                                 f"{len(g.scored)} scored)" for g in groups))
    say("# SIZE\tMETHOD\tF1\tRETRAIN SECONDS (summed over the groups)")
    rows = list(fixed)
    others = [m for m in methods if m != default]
    for size in sizes:
        done = list(fixed)
        for i, method in enumerate([default, *others]):
            done.append(adapted(groups, base, method, size))
            if i == 0:
                done[-1].method = f"Retrain default ({method.name})"
            _say_row(say, done[-1], size)
        if scratch_too:
            done.append(scratch(groups, size))
            _say_row(say, done[-1], size)
        for row in fixed:
            _say_row(say, row, size)
        for g in groups:
            say(f"{size}\t  {g.name}\t" + "\t".join(f"{r.method} {r.groups[g.name]:.2f}"
                                                     for r in done))
        rows += done[len(fixed):]
    return rows


def _say_row(say: Callable[[str], None], row: Row, size: int) -> None:
    say(f"{size}\t{row.method}\t{row.f1:.2f}\t{row.seconds:.1f}")
