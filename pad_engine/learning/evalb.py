"""Bracket scoring that reproduces EVALB (Sekine & Collins) run with ``COLLINS.prm``, digit for
digit, plus dependency attachment scores (UAS/LAS).

Parsing results are only comparable with published numbers when they are scored exactly like
EVALB, so this module copies its rules rather than "fixing" them:

* A leaf is ``(TAG word)``. Leaves tagged ``-NONE-`` do not count for the ``Len.`` column;
  leaves with a tag in :data:`DELETE_LABELS` (``-NONE-`` and the punctuation tags) are removed
  before anything else is scored, so bracket spans and the ``Words``/tag columns are over the
  remaining words, while ``Len.`` keeps punctuation.
* Every other ``(LABEL ...)`` is a bracket (start, end, label). Its label is cut at the first
  ``-`` or ``=`` (``NP-SBJ-1`` -> ``NP``); brackets that cover no word or carry a deleted label
  do not count; ``ADVP`` and ``PRT`` are the same label. An outer unlabeled bracket, as in
  ``( (S ...) )``, is a bracket with the empty label, exactly as in EVALB: it counts, and
  matches only another unlabeled bracket. Where one side has it and the other does not (a
  Penn Treebank ``.mrg`` file against trees rooted in ``TOP``), the report counts those
  sentences (``EvalbReport.lone_roots``), so ``pad eval`` can say what it costs; ``delete``
  with the empty label deletes it.
* Brackets match as multisets of (label, start, end). A test bracket crosses when some gold
  bracket overlaps it without nesting; the ``Cross`` column counts such test brackets.
* A sentence is skipped (status 2) when the test tree has no words left, and is an error
  (status 1) when the word counts or words differ; both are left out of every total but the
  sentence counts. EVALB gives up at the twelfth error sentence (``MAX_ERROR 10``); so does
  :func:`score`, by raising :class:`InputError` that says how the trees' words differ.
* One departure, for parser output: when the two trees have the same words but not the same
  deleted ones (a tagger gave punctuation another tag than gold, so each side deletes other
  words), EVALB calls the sentence an error; :func:`score` deletes by the gold tree's tags on
  both sides and scores it, and counts those words (``EvalbReport.realigned_words``).
* ``delete`` adds labels to :data:`DELETE_LABELS`, as more ``DELETE_LABEL`` lines in a
  parameter file do: ``pad eval --delete-label ROOT`` scores treebanks rooted in ``ROOT``
  (GUM and many others) the way COLLINS.prm scores those rooted in ``TOP``.
* Malformed trees (unbalanced brackets, a word outside a ``(TAG word)`` leaf) raise
  :class:`InputError`: EVALB itself would abort or score them unpredictably.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pad_engine.errors import InputError
from pad_engine.io.encoding import read_text
from pad_engine.io.limits import line_problem
from pad_engine.significance import gain_confidence

# COLLINS.prm
MAX_ERROR = 10
CUTOFF_LEN = 40
DELETE_LABELS = frozenset({"TOP", "-NONE-", ",", ":", "``", "''", "."})
DELETE_LABELS_FOR_LENGTH = frozenset({"-NONE-"})
_EQ_LABELS = {"PRT": "ADVP"}

_WS = " \t\n\r\f\v"  # C isspace(): Unicode spaces inside words stay part of the word, as in EVALB
_NAME = rf"[^{_WS}()]*"
_TOKEN = re.compile(rf"\(({_NAME})[{_WS}]+({_NAME})\)|\(({_NAME})|(\))|([^{_WS}()]+)")
_LABEL_TAIL = re.compile(r"[-=].*", re.S)

_HEADER = (
    "  Sent.                        Matched  Bracket   Cross        Correct Tag\n"
    " ID  Len.  Stat. Recal  Prec.  Bracket gold test Bracket Words  Tags Accracy\n"
    "============================================================================"
)


@dataclass(frozen=True)
class _Tree:
    length: int  # words not tagged -NONE-
    words: list[str]  # words left after DELETE_LABELS leaves are removed
    tags: list[str]
    brackets: Counter  # (label, start, end) -> count, deleted brackets excluded
    leaves: list[tuple[str, str]]  # (tag, word) of every leaf not tagged -NONE-


def _parse(tree: str, deleted: frozenset[str] = DELETE_LABELS,
           drop: Sequence[bool] | None = None) -> _Tree:
    """One tree the way EVALB's read_line() and massage_data() see it; ValueError if malformed.
    ``drop`` (one flag per leaf not tagged -NONE-) deletes leaves by position, not by tag."""
    words: list[str] = []
    tags: list[str] = []
    leaves: list[tuple[str, str]] = []
    length = 0
    stack: list[tuple[str, int]] = []
    brackets: Counter = Counter()
    closed = False  # the first tree has ended: anything after it is a second tree
    for m in _TOKEN.finditer(tree):
        kind = m.lastindex
        if closed and kind != 4:  # read as one, two trees would shift every later sentence
            raise ValueError(f"a second tree starts at character {m.start() + 1}: one tree "
                             "per line (a file that does not end in a newline, concatenated?)")
        if kind == 2:  # (TAG word)
            tag = m.group(1)
            if tag not in DELETE_LABELS_FOR_LENGTH:
                length += 1
                leaves.append((tag, m.group(2)))
                gone = drop[len(leaves) - 1] if drop is not None else tag in deleted
            else:
                gone = True
            if not gone:
                words.append(m.group(2))
                tags.append(tag)
        elif kind == 3:
            stack.append((m.group(3), len(words)))
        elif kind == 4:
            if not stack:
                raise ValueError(
                    f"unbalanced brackets: ')' at character {m.start() + 1} closes nothing"
                )
            label, start = stack.pop()
            closed = not stack
            label = _LABEL_TAIL.sub("", label)
            label = _EQ_LABELS.get(label, label)
            if start < len(words) and label not in deleted:
                brackets[label, start, len(words)] += 1
        else:
            raise ValueError(
                f"word {m.group(5)!r} at character {m.start() + 1} is not in a (TAG word) leaf"
            )
    if stack:
        raise ValueError(f"unbalanced brackets: {len(stack)} '(' never closed")
    return _Tree(length, words, tags, brackets, leaves)


def read_trees(path: str | Path, encoding: str | None = None,
               warn: Callable[[str], None] | None = None) -> list[str]:
    """The trees of a bracketed file, checked for balance so errors name the file and line.
    The file is decoded as the other readers decode (``warn`` hears when it was not UTF-8).

    EVALB reads one tree per line and scores a blank test line as a skipped sentence; files
    whose every line is balanced are read that way. Otherwise trees may span lines (Penn
    Treebank ``.mrg`` style) and are cut where the bracket depth returns to zero; blank lines
    between them are ignored, and each tree is joined into one line. Trailing blank lines are
    ignored in both cases.
    """
    path = str(path)
    decoded = read_text(path, encoding)
    text, bad = decoded.text, decoded.bad
    note = decoded.warning(path)
    if note and warn is not None:
        warn(note)
    if bad:  # name the line, as the other readers do
        number = min(bad)
        raise InputError(bad[number], path, number)
    lines = text.split("\n")
    found = line_problem(lines, words_only=True)
    if found:
        raise InputError(found[1], path, found[0])
    while lines and not lines[-1].strip(_WS):
        lines.pop()
    if all(line.count("(") == line.count(")") for line in lines):
        trees, starts = lines, range(1, len(lines) + 1)
    else:
        trees, starts = _split_by_depth(lines, path)
    for tree, line in zip(trees, starts):
        try:
            _parse(tree)
        except ValueError as err:
            raise InputError(str(err), path, line) from None
    return trees


def _split_by_depth(lines: list[str], path: str) -> tuple[list[str], list[int]]:
    trees: list[str] = []
    starts: list[int] = []
    parts: list[str] = []
    depth = 0
    for number, line in enumerate(lines, 1):
        if not parts:
            if not line.strip(_WS):
                continue
            starts.append(number)
        parts.append(line.strip(_WS))
        for ch in line:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth < 0:
                    raise InputError("unbalanced brackets: ')' closes nothing", path, number)
        if depth == 0:
            trees.append(" ".join(parts))
            parts = []
    if parts:
        raise InputError(
            f"unbalanced brackets: the tree starting here has {depth} '(' never closed",
            path,
            starts[-1],
        )
    return trees, starts


@dataclass(frozen=True)
class SentenceResult:
    """One row of EVALB's per-sentence table."""

    sent_id: int
    length: int  # Len.: gold words not tagged -NONE- (punctuation included)
    status: int  # 0 scored, 1 error, 2 skipped
    matched: int = 0
    gold_brackets: int = 0
    test_brackets: int = 0
    crossing: int = 0
    words: int = 0  # gold words scored for tagging (punctuation and -NONE- removed)
    correct_tags: int = 0
    error: str | None = None  # what EVALB writes to stderr for an error sentence
    difference: str | None = None  # an error sentence's words: which side differs, and how

    @property
    def recall(self) -> float:
        return _pct(self.matched, self.gold_brackets)

    @property
    def precision(self) -> float:
        return _pct(self.matched, self.test_brackets)

    @property
    def tag_accuracy(self) -> float:
        return _pct(self.correct_tags, self.words)


@dataclass
class Summary:
    """Totals over a set of sentences; error and skipped sentences only count as sentences."""

    sentences: int = 0
    error_sentences: int = 0
    skip_sentences: int = 0
    matched: int = 0
    gold_brackets: int = 0
    test_brackets: int = 0
    complete_matches: int = 0
    crossing: int = 0
    no_crossing: int = 0
    two_or_less_crossing: int = 0
    words: int = 0
    correct_tags: int = 0

    def add(self, row: SentenceResult) -> None:
        self.sentences += 1
        if row.status == 1:
            self.error_sentences += 1
            return
        if row.status == 2:
            self.skip_sentences += 1
            return
        self.matched += row.matched
        self.gold_brackets += row.gold_brackets
        self.test_brackets += row.test_brackets
        self.complete_matches += row.gold_brackets == row.test_brackets == row.matched
        self.crossing += row.crossing
        self.no_crossing += row.crossing == 0
        self.two_or_less_crossing += row.crossing <= 2
        self.words += row.words
        self.correct_tags += row.correct_tags

    @property
    def valid_sentences(self) -> int:
        return self.sentences - self.error_sentences - self.skip_sentences

    @property
    def recall(self) -> float:
        return _pct(self.matched, self.gold_brackets)

    @property
    def precision(self) -> float:
        return _pct(self.matched, self.test_brackets)

    @property
    def fmeasure(self) -> float:
        """NaN when recall and precision are both zero, as in EVALB (0/0)."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else math.nan

    @property
    def complete_match(self) -> float:
        return _pct(self.complete_matches, self.valid_sentences)

    @property
    def average_crossing(self) -> float:
        n = self.valid_sentences
        return 1.0 * self.crossing / n if n > 0 else 0.0

    @property
    def no_crossing_rate(self) -> float:
        return _pct(self.no_crossing, self.valid_sentences)

    @property
    def two_or_less_crossing_rate(self) -> float:
        return _pct(self.two_or_less_crossing, self.valid_sentences)

    @property
    def tag_accuracy(self) -> float:
        return _pct(self.correct_tags, self.words)


@dataclass
class EvalbReport:
    """Everything EVALB prints: the per-sentence rows and the two summary blocks."""

    rows: list[SentenceResult] = field(default_factory=list)
    overall: Summary = field(default_factory=Summary)
    within_cutoff: Summary = field(default_factory=Summary)  # sentences with Len. <= cutoff_len
    cutoff_len: int = CUTOFF_LEN
    realigned_words: int = 0  # words deleted by the gold tree's tag only (see the module)
    realigned_sentences: int = 0
    lone_roots: Counter = field(default_factory=Counter)
    """Scored sentences, by side ("gold" or "test"), where that side's tree has an outer
    unlabeled bracket, as ``( (S ...) )``, and the other's has none (rooted in ``TOP``, which
    COLLINS.prm deletes): EVALB counts it as a bracket the other side cannot match, as
    :func:`score` does, one per sentence."""


def _pct(n: int, d: int) -> float:
    # Same operation order as EVALB's C (100.0*n/d) so the doubles, hence the digits, agree.
    return 100.0 * n / d if d > 0 else 0.0


def _score_one(sent_id: int, gold: _Tree, test: _Tree) -> SentenceResult:
    length = gold.length
    if not test.words:
        return SentenceResult(sent_id, length, 2)
    if len(gold.words) != len(test.words):
        return SentenceResult(
            sent_id, length, 1, error=f"Length unmatch ({len(gold.words)}|{len(test.words)})",
            difference=_difference(gold, test),
        )
    for g, t in zip(gold.words, test.words):
        if g != t:
            return SentenceResult(sent_id, length, 1, error=f"Words unmatch ({g}|{t})",
                                  difference=_difference(gold, test))
    matched = sum((gold.brackets & test.brackets).values())
    crossing = 0
    gold_spans = {(s, e) for _, s, e in gold.brackets}
    for (_, s, e), n in test.brackets.items():
        if (s, e) not in gold_spans and any(
            gs < s < ge < e or s < gs < e < ge for gs, ge in gold_spans
        ):
            crossing += n
    correct = sum(
        _EQ_LABELS.get(g, g) == _EQ_LABELS.get(t, t) for g, t in zip(gold.tags, test.tags)
    )
    return SentenceResult(
        sent_id,
        length,
        0,
        matched,
        sum(gold.brackets.values()),
        sum(test.brackets.values()),
        crossing,
        len(gold.words),
        correct,
    )


def _difference(gold: _Tree, test: _Tree) -> str:
    """How the test tree's words (punctuation included, -NONE- not) differ from the gold
    tree's, counting words from 1: a word one side lacks, or the first that differs."""
    g = [w for _, w in gold.leaves]
    t = [w for _, w in test.leaves]
    j = next((j for j, (a, b) in enumerate(zip(g, t)) if a != b), min(len(g), len(t)))
    if len(t) > len(g) and t[j + 1:] == g[j:]:
        return f"the test tree has a word the gold tree lacks: word {j + 1} {t[j]!r}"
    if len(g) > len(t) and g[j + 1:] == t[j:]:
        return f"the test tree lacks the gold tree's word {j + 1} {g[j]!r}"
    if len(g) != len(t):
        return (f"the test tree has {len(t)} words, the gold tree {len(g)}; they part at word "
                f"{j + 1} ({_word(t, j)} in test, {_word(g, j)} in gold)")
    return f"word {j + 1} is {t[j]!r} in the test tree but {g[j]!r} in the gold tree"


def _word(words: list[str], j: int) -> str:
    return repr(words[j]) if j < len(words) else "the end"


def score(gold_trees: Sequence[str], test_trees: Sequence[str],
          delete: Iterable[str] = ()) -> EvalbReport:
    """Score test trees against gold trees (one string per sentence) as EVALB with COLLINS.prm
    (plus a ``DELETE_LABEL`` line for each label in ``delete``); where the trees have the same
    words but delete others, by the gold tree's tags on both sides (see the module).

    Raises InputError on malformed trees, different tree counts, and, like EVALB, at the
    twelfth error sentence (word counts or words that differ), saying how the words differ.
    """
    if len(gold_trees) != len(test_trees):
        raise InputError(f"{len(gold_trees)} gold trees but {len(test_trees)} test trees")
    report = EvalbReport()
    errors = 0
    first_error = ""
    deleted = DELETE_LABELS.union(delete)
    for sent_id, (g, t) in enumerate(zip(gold_trees, test_trees), 1):
        gold = _parse_or_raise(g, "gold", sent_id, deleted)
        test = _parse_or_raise(t, "test", sent_id, deleted)
        drop = [tag in deleted for tag, _ in gold.leaves]
        if test.leaves and drop != [tag in deleted for tag, _ in test.leaves] and \
                [w for _, w in gold.leaves] == [w for _, w in test.leaves]:
            report.realigned_words += sum(a != (tag in deleted)
                                          for a, (tag, _) in zip(drop, test.leaves))
            report.realigned_sentences += 1
            test = _parse(t, deleted, drop)
        row = _score_one(sent_id, gold, test)
        if row.status == 0 and _unlabeled_root(gold) != _unlabeled_root(test):
            report.lone_roots["gold" if _unlabeled_root(gold) else "test"] += 1
        if row.status == 1:
            errors += 1
            first_error = first_error or f"sentence {sent_id}: {row.difference}"
            if errors > MAX_ERROR + 1:
                raise InputError(
                    f"sentence {sent_id}: {row.error}: {row.difference}; {errors} error "
                    f"sentences, and EVALB (MAX_ERROR {MAX_ERROR}) gives up here (the first, "
                    f"{first_error})"
                )
        report.rows.append(row)
        report.overall.add(row)
        if row.length <= report.cutoff_len:
            report.within_cutoff.add(row)
    return report


def _unlabeled_root(tree: _Tree) -> int:
    """How many unlabeled brackets span the whole of ``tree``'s words (the outer bracket of
    a Penn Treebank ``.mrg`` tree)."""
    return tree.brackets["", 0, len(tree.words)]


def _parse_or_raise(tree: str, which: str, sent_id: int, deleted: frozenset[str]) -> _Tree:
    try:
        return _parse(tree, deleted)
    except ValueError as err:
        raise InputError(f"{which} tree {sent_id}: {err}") from None


def _f(x: float) -> str:
    # glibc on x86-64 prints EVALB's 0.0/0.0 as "-nan".
    return "  -nan" if math.isnan(x) else f"{x:6.2f}"


def format_report(report: EvalbReport) -> str:
    """The report exactly as EVALB prints it to stdout, so tools that read EVALB read this."""
    out = [_HEADER]
    for r in report.rows:
        out.append(
            f"{r.sent_id:4d}  {r.length:3d}    {r.status:d}  {r.recall:6.2f} {r.precision:6.2f}"
            f"   {r.matched:3d}    {r.gold_brackets:3d}  {r.test_brackets:3d}    {r.crossing:3d}"
            f"   {r.words:4d}  {r.correct_tags:4d}   {r.tag_accuracy:6.2f}"
        )
    out.append("=" * 76)
    a = report.overall
    total = ""
    if a.gold_brackets > 0 and a.test_brackets > 0:
        total = (
            f"                {a.recall:6.2f} {a.precision:6.2f} {a.matched:6d}"
            f" {a.gold_brackets:5d} {a.test_brackets:5d}  {a.crossing:5d}"
        )
    out.append(total + f"  {a.words:5d} {a.correct_tags:5d}   {a.tag_accuracy:6.2f}")
    out.append("=== Summary ===")
    for title, s in (("All", a), (f"len<={report.cutoff_len}", report.within_cutoff)):
        out += [
            "",
            f"-- {title} --",
            f"Number of sentence        = {s.sentences:6d}",
            f"Number of Error sentence  = {s.error_sentences:6d}",
            f"Number of Skip  sentence  = {s.skip_sentences:6d}",
            f"Number of Valid sentence  = {s.valid_sentences:6d}",
            f"Bracketing Recall         = {_f(s.recall)}",
            f"Bracketing Precision      = {_f(s.precision)}",
            f"Bracketing FMeasure       = {_f(s.fmeasure)}",
            f"Complete match            = {_f(s.complete_match)}",
            f"Average crossing          = {_f(s.average_crossing)}",
            f"No crossing               = {_f(s.no_crossing_rate)}",
            f"2 or less crossing        = {_f(s.two_or_less_crossing_rate)}",
            f"Tagging accuracy          = {_f(s.tag_accuracy)}",
        ]
    return "\n".join(out) + "\n"


def bracket_f1(report: EvalbReport) -> float:
    """Overall bracketing F-measure in percent, as in EVALB's summary, but 0.0 instead of NaN
    when nothing matched, so it can be compared and averaged."""
    f = report.overall.fmeasure
    return 0.0 if math.isnan(f) else f


def closest(gold: str, candidates: Sequence[str]) -> int:
    """Which of ``candidates`` (Penn lines) has the highest EVALB F1 against ``gold``, the
    earliest on a tie: what an annotator picking the best of a k-best list picks."""
    rows = score([gold] * len(candidates), candidates).rows
    return max(range(len(rows)), key=lambda i: (
        2 * rows[i].matched / max(1, rows[i].gold_brackets + rows[i].test_brackets), -i))


# --- dependencies -----------------------------------------------------------------------------


def is_punct(form: str) -> bool:
    """Whether a word is punctuation for attachment scores: every character is Unicode
    punctuation (category P*), the CoNLL-X ``eval.pl`` convention, which needs only the form,
    not a tag set. ``,`` ``.`` ``--`` ``(`` ``%`` ``#`` are punctuation; symbols such as ``$``
    ``+`` and the PTB opening quote ``````, and escapes such as ``-LRB-``, are words.
    """
    return bool(form) and all(unicodedata.category(ch).startswith("P") for ch in form)


def attachment_scores(
    gold: Sequence[Sequence[int]],
    test: Sequence[Sequence[int]],
    gold_rels: Sequence[Sequence[str]] | None = None,
    test_rels: Sequence[Sequence[str]] | None = None,
    punct_mask: Sequence[Sequence[bool]] | None = None,
) -> dict[str, float]:
    """UAS (and LAS when both rel lists are given) in percent, over all words and, when
    ``punct_mask`` marks punctuation words (see :func:`is_punct`), over the other words.

    Heads are per sentence, ``heads[i]`` the head of word i+1 (0 = root). Relations compare
    as whole strings (``nmod:poss`` differs from ``nmod``). Keys: ``sentences``, ``words``,
    ``uas``, ``las`` and, with a mask, ``words_no_punct``, ``uas_no_punct``,
    ``las_no_punct``; a score over zero words is 0.0. Raises InputError when sentence or word
    counts differ.
    """
    if (gold_rels is None) != (test_rels is None):
        raise ValueError("give both gold_rels and test_rels, or neither")
    labeled = gold_rels is not None
    if len(gold) != len(test):
        raise InputError(f"{len(gold)} gold sentences but {len(test)} test sentences")
    words = heads_ok = labels_ok = 0
    words_np = heads_ok_np = labels_ok_np = 0
    for i, (g, t) in enumerate(zip(gold, test)):
        n = len(g)
        counts = [("test heads", len(t))]
        if labeled:
            counts += [("gold relations", len(gold_rels[i])), ("test relations", len(test_rels[i]))]
        if punct_mask is not None:
            counts.append(("punctuation mask entries", len(punct_mask[i])))
        for what, m in counts:
            if m != n:
                raise InputError(f"sentence {i + 1}: {n} gold heads but {m} {what}")
        for j in range(n):
            head = g[j] == t[j]
            label = head and labeled and gold_rels[i][j] == test_rels[i][j]
            words += 1
            heads_ok += head
            labels_ok += label
            if punct_mask is None or not punct_mask[i][j]:
                words_np += 1
                heads_ok_np += head
                labels_ok_np += label
    scores: dict[str, float] = {
        "sentences": len(gold),
        "words": words,
        "uas": _pct(heads_ok, words),
    }
    if labeled:
        scores["las"] = _pct(labels_ok, words)
    if punct_mask is not None:
        scores["words_no_punct"] = words_np
        scores["uas_no_punct"] = _pct(heads_ok_np, words_np)
        if labeled:
            scores["las_no_punct"] = _pct(labels_ok_np, words_np)
    return scores


def bracket_counts(report: EvalbReport) -> np.ndarray:
    """Per sentence of a :func:`score` report, what its EVALB F1 adds up: (2 x matched
    brackets, gold + test brackets), so that F1 over any set of sentences is 100 x the ratio
    of the column sums."""
    return np.array([(2 * r.matched, r.gold_brackets + r.test_brackets) for r in report.rows],
                    np.float64).reshape(-1, 2)


def f1_gain_confidence(new: EvalbReport, old: EvalbReport) -> float:
    """:func:`gain_confidence` of the new trees' EVALB F1 over the old ones', both scored
    against the same gold trees."""
    return gain_confidence(bracket_counts(new), bracket_counts(old))
