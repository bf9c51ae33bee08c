"""Fuzzing and properties (hypothesis): the engine on random trees and on damaged input.

Properties: every decoded tree induces exactly the (projectivized) d-parse it was given, keeps
the words and tags, and prints as a Penn line that reads back; damaged CoNLL and Penn input
gives only the engine's own errors, each naming file, line and problem, and costs only the
damaged sentence or tree. Runs are derandomized and keep no example database, so CI sees the
same examples every time.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st
from nltk import Tree

from pad_engine import cli
from pad_engine.batch.folders import convert_folder
from pad_engine.batch.report import CONVERTED
from pad_engine.decoding.engine import Candidate, Engine
from pad_engine.decoding.model import default_model_path
from pad_engine.errors import InputError
from pad_engine.io.conll import ConllResult, parse_conll, read_conll
from pad_engine.io.penn import parse_penn, read_penn
from pad_engine.trees.deptree import DepSentence, is_projective, tree_problem
from pad_engine.trees.projectivize import projectivize

FUZZ = settings(derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def fuzz(examples: int) -> settings:
    return settings(FUZZ, max_examples=examples)


ENGINE = Engine.load()
TAGS = sorted(ENGINE.model.grammar.tags)


# --- strategies -------------------------------------------------------------------------------


def projective_heads(n: int, pick) -> list[int]:
    """A projective tree over words 1..n; ``pick(lo, hi)`` chooses an integer in [lo, hi].

    Recursive interval splitting: a word's dependents on one side cut that side into
    consecutive blocks, one subtree each, rooted anywhere in its block. Every projective tree
    is reachable this way, and nothing else is.
    """
    heads = [0] * n
    root = pick(1, n)
    todo = [(1, root - 1, root), (root + 1, n, root)]
    while todo:
        lo, hi, parent = todo.pop()
        while lo <= hi:
            end = pick(lo, hi)
            r = pick(lo, end)
            heads[r - 1] = parent
            todo += [(lo, r - 1, r), (r + 1, end, r)]
            lo = end + 1
    return heads


@st.composite
def projective_trees(draw, max_n: int = 40) -> list[int]:
    n = draw(st.integers(1, max_n))
    return projective_heads(n, lambda lo, hi: draw(st.integers(lo, hi)))


@st.composite
def any_trees(draw, max_n: int = 12) -> list[int]:
    """Any tree with one root (a random recursive tree over a random word order)."""
    n = draw(st.integers(1, max_n))
    order = draw(st.permutations(range(1, n + 1)))
    heads = [0] * n
    for i, w in enumerate(order[1:], 1):
        heads[w - 1] = order[draw(st.integers(0, i - 1))]
    return heads


# Forms and unseen tags: anything a CoNLL column can hold except white space (see the test
# below for words with white space) and surrogates (not encodable).
_CHARS = st.characters(blacklist_categories=("Cs",), blacklist_characters="\t\n\r")
# words and tags a Penn line carries as they are: no white space, and no control character
# (Cc: the readers refuse them, the Penn writer writes them as "_")
_NO_SPACE = st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"))
WORDS = st.text(_NO_SPACE, min_size=1, max_size=8).filter(lambda w: not any(map(str.isspace, w)))
UNSEEN_TAGS = WORDS.filter(lambda t: t not in TAGS)


KNOWN_TAGS = st.sampled_from(TAGS)


def sentence(draw, heads: list[int], tags=KNOWN_TAGS) -> DepSentence:
    n = len(heads)
    forms = draw(st.lists(WORDS, min_size=n, max_size=n))
    return DepSentence(forms, draw(st.lists(tags, min_size=n, max_size=n)), heads)


def escaped(word: str) -> str:
    """A word as a Penn line must write it (the treebank escapes for brackets)."""
    return word.replace("(", "-LRB-").replace(")", "-RRB-")


def check_tree(cand: Candidate, sent: DepSentence, heads: list[int]) -> None:
    """The candidate is consistent with ``heads``, keeps words and tags, and reads back."""
    n = len(sent)
    assert cand.heads() == heads
    leaves = cand.tree.preterminals()
    assert [p.word for p in leaves] == list(range(n))
    assert [p.label for p in leaves] == sent.tags
    line = cand.penn(sent.forms)
    note(f"penn: {line!r}")
    (tree,) = parse_penn(line).trees
    assert tree.label() == "TOP"
    assert tree.pos() == [(escaped(f), escaped(t)) for f, t in zip(sent.forms, sent.tags)]
    # Recent nltk (3.10) reads a backslash before a bracket as an escape, so a word ending in "\"
    # (EWT has the word "\\") cannot be read back by nltk; every other line must be.
    if not any(f.endswith("\\") for f in sent.forms):
        assert Tree.fromstring(line) == tree
    phrases = [t.label() for t in tree.subtrees() if t.height() > 2]
    assert all(label and not label.startswith("@") for label in phrases)


def check_all(sent: DepSentence, heads: list[int], k: int = 4) -> list[Candidate]:
    """Best and k-best, pruned and exact: all consistent; scores best first."""
    out = []
    for prune in (True, False):
        best = ENGINE.best(sent, prune=prune)
        check_tree(best, sent, heads)
        cands = ENGINE.candidates(sent, k, prune=prune)
        assert 1 <= len(cands) <= k
        for c in cands:
            check_tree(c, sent, heads)
        lines = [c.penn(sent.forms) for c in cands]
        assert len(set(lines)) == len(lines)
        scores = [c.score for c in cands]
        assert scores == sorted(scores, reverse=True)
        if not prune:  # the exact 1-best and the head of the exact k-best list agree
            assert cands[0].score == pytest.approx(best.score, rel=1e-4, abs=1e-4)
        out += [best, *cands]
    return out


# --- random d-parses through the engine -------------------------------------------------------


@pytest.mark.slow
@fuzz(200)
@given(st.data())
def test_random_projective_trees_decode_consistently(data):
    heads = data.draw(projective_trees())
    sent = sentence(data.draw, heads)
    for cand in check_all(sent, heads):
        assert cand.lifted == []


def test_projective_strategy_reaches_every_shape():
    """All projective trees of 3, 4 and 5 words (7, 30 and 143: OEIS A006013) come out, and
    nothing else."""
    import random

    rnd = random.Random(3)
    for n, count in ((3, 7), (4, 30), (5, 143)):
        seen = {tuple(projective_heads(n, rnd.randint)) for _ in range(200 * count)}
        assert all(is_projective(list(h)) for h in seen)
        assert len(seen) == count


@pytest.mark.slow
@fuzz(3)
@given(st.integers(300, 420), st.randoms(use_true_random=False), st.booleans())
def test_huge_projective_sentences(n, rnd, unseen):
    heads = projective_heads(n, rnd.randint)
    tags = [rnd.choice(TAGS) if not unseen or rnd.random() < 0.7 else f"X{rnd.randint(0, 9)}"
            for _ in range(n)]
    sent = DepSentence([f"w{i}" for i in range(n)], tags, heads)
    check_all(sent, heads, k=3)


@fuzz(100)
@given(st.data())
def test_unseen_tags_and_words_back_off_to_a_tree(data):
    heads = data.draw(projective_trees(max_n=15))
    sent = sentence(data.draw, heads, st.one_of(UNSEEN_TAGS, KNOWN_TAGS))
    check_all(sent, heads, k=3)


@fuzz(20)
@given(st.data())
def test_words_with_white_space_still_give_a_penn_line_that_reads_back(data):
    heads = data.draw(projective_trees(max_n=6))
    n = len(heads)
    forms = data.draw(st.lists(st.text(_CHARS, min_size=1, max_size=6), min_size=n, max_size=n))
    space = data.draw(st.sampled_from([" ", "\x0b", "\x1c", "\x85", "\xa0", "\u2028", "\u3000"]))
    forms[0] = forms[0] + space + "x"  # CoNLL-U allows spaces in FORM
    sent = DepSentence(forms, ["NN"] * n, heads)
    tree = Tree.fromstring(ENGINE.best(sent).penn(forms))
    assert len(tree.leaves()) == n


@pytest.mark.slow
@fuzz(150)
@given(any_trees(), st.data())
def test_non_projective_trees_are_lifted_then_decoded_consistently(heads, data):
    sent = sentence(data.draw, heads)
    projective, lifts = projectivize(heads)
    note(f"projectivized {projective}, lifts {lifts}")
    event(f"{len(lifts)} arcs lifted" if lifts else "projective")
    assert is_projective(projective)
    assert (lifts == []) == is_projective(heads)
    # The lifts turn the input into the projectivized heads, each moving an arc upwards.
    moved = list(heads)
    for lift in lifts:
        assert heads[lift.dependent - 1] == lift.original_head
        ancestors, h = [], lift.original_head
        while h:
            h = heads[h - 1]
            ancestors.append(h)
        assert lift.new_head in ancestors
        moved[lift.dependent - 1] = lift.new_head
    assert moved == projective
    assert [lift.dependent for lift in lifts] == [
        m for m in range(1, len(heads) + 1) if heads[m - 1] != projective[m - 1]]
    for cand in check_all(sent, projective, k=3):
        assert cand.lifted == lifts


@fuzz(200)
@given(st.data())
def test_any_head_list_gives_a_consistent_tree_or_a_clear_error(data):
    """Heads straight from the API (not through the reader): out of range, cycles, no root,
    several roots, tags of the wrong length."""
    n = data.draw(st.integers(0, 10))
    heads = data.draw(st.lists(st.integers(-2, n + 2), min_size=n, max_size=n))
    forms = data.draw(st.lists(WORDS, min_size=n, max_size=n))
    tags = data.draw(st.lists(KNOWN_TAGS, min_size=max(0, n - 1), max_size=n + 1))
    sent = DepSentence(forms, tags, heads)
    # several roots are no error: the extra ones go under the main root, and say so
    bad = tree_problem(heads, several_roots=True) is not None or len(tags) != n
    roots = [i for i, h in enumerate(heads, 1) if h == 0]
    for call in (lambda: [ENGINE.best(sent)], lambda: ENGINE.candidates(sent, 2)):
        if bad:
            with pytest.raises(InputError) as info:
                call()
            assert info.value.problem
            continue
        for cand in call():
            check_tree(cand, sent, projectivize(heads)[0])
            rerooted = {lift.dependent for lift in cand.lifted if lift.original_head == 0}
            assert len(rerooted) == len(roots) - 1
            assert rerooted < set(roots)


# --- damaged CoNLL files ----------------------------------------------------------------------

N_SENTENCES = 50


@pytest.fixture(scope="module")
def ewt_blocks(ewt_dir) -> list[list[bytes]]:
    """The first sentences of UD English EWT dev, each as its list of lines (bytes)."""
    data = (ewt_dir / "en_ewt-ud-dev.conllu").read_bytes()
    blocks = [b.split(b"\n") for b in data.split(b"\n\n")[:N_SENTENCES]]
    assert all(b and all(b) for b in blocks)
    return blocks


def _is_word(line: bytes) -> bool:
    return line.split(b"\t", 1)[0].isdigit()


def _word_lines(block: list[bytes]) -> list[int]:
    return [i for i, line in enumerate(block) if _is_word(line)]


def _heads(block: list[bytes]) -> list[int]:
    return [int(block[i].split(b"\t")[6]) for i in _word_lines(block)]


def _set_head(block: list[bytes], word: int, head: bytes) -> None:
    i = _word_lines(block)[word - 1]
    cols = block[i].split(b"\t")
    cols[6] = head
    block[i] = b"\t".join(cols)


def _descendants(heads: list[int], w: int) -> list[int]:
    out, todo = [], [w]
    while todo:
        v = todo.pop()
        kids = [m for m, h in enumerate(heads, 1) if h == v]
        out += kids
        todo += kids
    return out


NON_INTEGERS = [b"x", b"-1", b"1.5", b"\xd9\xa3", b"\xc2\xb2", b"0x1", b"+2", b"2 "]
STRAY = [b"\x00", b"\x01", b"\x0b", b"\x0c", b"\x1b", b"\x7f", b"\xc2\x85", b"\xe2\x80\xa8",
         b"\xef\xbb\xbf", b"\r", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80"]
INVALID_UTF8 = [b"\xff", b"\xc3", b"\x80", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\xe2\x82"]

# Damage to one sentence: (kind, must be detected, words one of which the reason contains).
KINDS = {
    "drop_column": (True, ["tab-separated columns"]),
    "non_integer_head": (True, ["HEAD"]),
    "head_out_of_range": (True, ["out of range"]),
    "cycle": (True, ["cycle", "its own head"]),
    "several_roots": (False, []),  # read and re-rooted since several roots are converted
    "no_root": (True, ["no root"]),
    "invalid_utf8": (False, []),  # such lines are read in a detected encoding
    "empty_line_inside": (True, []),
    "stray_bytes": (False, []),
    "huge": (False, []),
}


def damage(draw, block: list[bytes], kind: str, blocks: list[list[bytes]], i: int) -> None:
    """Damage ``block`` (sentence ``i`` of ``blocks``) in place."""
    heads = _heads(block)
    n = len(heads)
    root = heads.index(0) + 1
    if kind == "drop_column":
        j = draw(st.sampled_from(_word_lines(block)))
        cols = block[j].split(b"\t")
        del cols[draw(st.integers(0, 9))]
        block[j] = b"\t".join(cols)
    elif kind == "non_integer_head":
        _set_head(block, draw(st.integers(1, n)), draw(st.sampled_from(NON_INTEGERS)))
    elif kind == "head_out_of_range":
        _set_head(block, draw(st.integers(1, n)), str(draw(st.integers(n + 1, n + 999))).encode())
    elif kind == "cycle":  # a word under one of its descendants (or itself)
        w = draw(st.sampled_from([m for m in range(1, n + 1) if m != root]))
        _set_head(block, w, str(draw(st.sampled_from(_descendants(heads, w) or [w]))).encode())
    elif kind == "several_roots":
        _set_head(block, draw(st.sampled_from([m for m in range(1, n + 1) if m != root])), b"0")
    elif kind == "no_root":
        _set_head(block, root, str(draw(st.sampled_from(
            [m for m in range(1, n + 1) if m != root]))).encode())
    elif kind == "invalid_utf8":
        j = draw(st.integers(0, len(block) - 1))
        at = draw(st.integers(0, len(block[j])))
        block[j] = block[j][:at] + draw(st.sampled_from(INVALID_UTF8)) + block[j][at:]
    elif kind == "empty_line_inside":
        block.insert(draw(st.integers(1, len(block) - 1)), b"")
    elif kind == "stray_bytes":
        j = draw(st.integers(0, len(block) - 1))
        at = draw(st.integers(0, len(block[j])))
        block[j] = block[j][:at] + draw(st.sampled_from(STRAY)) + block[j][at:]
    elif kind == "huge":  # this sentence's words, then others', renumbered, up to 300+ words
        words = [line.split(b"\t") for line in block if _is_word(line)]
        k = i
        while len(words) < 300:
            k = (k + 1) % len(blocks)
            offset = len(words)
            for line in blocks[k]:
                if _is_word(line):
                    cols = line.split(b"\t")
                    head = int(cols[6])
                    cols[0] = str(int(cols[0]) + offset).encode()
                    cols[6] = str(head + offset if head else root).encode()
                    cols[8] = b"_"
                    words.append(cols)
        block[:] = [line for line in block if line.startswith(b"#")]
        block += [b"\t".join(cols) for cols in words]


@dataclass
class Damaged:
    """A damaged copy of some sentences, written as one file."""

    data: bytes
    blocks: list[list[bytes]]  # the sentences' lines after the damage
    ranges: list[tuple[int, int]]  # first and last line of each sentence in the file
    kinds: dict[int, str]  # damaged sentence -> kind of damage
    cut: int | None  # length the file was cut to, if it was

    def cut_off(self, i: int) -> bool:
        """Whether sentence ``i`` lost any of its bytes to the cut."""
        return self.cut is not None and self._ends[i] - 1 > self._kept

    @cached_property
    def _ends(self) -> list[int]:
        """Bytes up to the end of each sentence and its blank line, with LF line ends, no BOM."""
        return list(accumulate(len(b"\n".join(b)) + 2 for b in self.blocks))

    @cached_property
    def _kept(self) -> int:
        """Bytes left after the cut, counted the same way."""
        return len(self.data.removeprefix(b"\xef\xbb\xbf").replace(b"\r\n", b"\n"))

    def __repr__(self) -> str:
        return f"Damaged(kinds={self.kinds}, cut={self.cut}, {len(self.data)} bytes)"

    def _repr_pretty_(self, p, cycle: bool) -> None:  # hypothesis prints examples this way
        p.text(repr(self))


@st.composite
def damaged_files(draw, source: list[list[bytes]]) -> Damaged:
    """Up to three sentences damaged (one kind each), maybe CRLF, a BOM, a cut."""
    blocks = [list(b) for b in source]
    fit = [i for i, b in enumerate(blocks) if len(_heads(b)) >= 2]
    targets = draw(st.lists(st.sampled_from(fit), min_size=0, max_size=3, unique=True))
    kinds = {}
    for i in targets:
        kinds[i] = draw(st.sampled_from(sorted(KINDS)))
        damage(draw, blocks[i], kinds[i], source, i)
    ranges, line = [], 1
    for b in blocks:
        ranges.append((line, line + len(b) - 1))
        line += len(b) + 1
    data = b"".join(b"\n".join(b) + b"\n\n" for b in blocks)
    if draw(st.booleans()):
        data = data.replace(b"\n", b"\r\n")
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    cut = None
    if draw(st.integers(0, 3)) == 0:
        cut = draw(st.integers(0, len(data)))
        data = data[:cut]
    return Damaged(data, blocks, ranges, kinds, cut)


def check_damaged_read(path: Path, source: list[list[bytes]], dmg: Damaged) -> ConllResult:
    """The properties of one damaged file read both ways; returns the skip-mode result."""
    name = str(path)
    result = read_conll(path, on_error="skip")
    touched = set(dmg.kinds) | {i for i in range(len(source)) if dmg.cut_off(i)}
    # Sentences that were neither damaged nor cut load unchanged.
    loaded = {s.sent_id: s for s in result.sentences}
    for i, block in enumerate(source):
        if i not in touched:
            good = parse_conll(b"\n".join(block).decode()).sentences[0]
            got = loaded[good.sent_id]
            assert (got.forms, got.tags, got.heads, got.line) == (
                good.forms, good.tags, good.heads, dmg.ranges[i][0])
    # Every error names the file and a line of a damaged sentence.
    for err in result.skipped:
        assert err.path == name
        assert err.line is not None
        assert str(err) == f"{name}:{err.line}: {err.problem}"
        assert any(dmg.ranges[i][0] <= err.line <= dmg.ranges[i][1] for i in touched), str(err)
    # Damage that breaks the tree or the format is reported at the damaged sentence.
    for i, kind in dmg.kinds.items():
        if dmg.cut_off(i):
            continue
        first, last = dmg.ranges[i]
        here = [e for e in result.skipped if first <= e.line <= last]
        must, words = KINDS[kind]
        if must:
            assert here, f"{kind} damage at lines {first}-{last} was not reported"
            if words:
                assert any(w in e.problem for e in here for w in words), [str(e) for e in here]
        if kind == "huge":
            assert not here
            assert len(next(s for s in result.sentences if s.line == first)) >= 300
    # Strict mode stops at the first of those errors, or reads the same sentences.
    if result.skipped:
        with pytest.raises(InputError) as info:
            read_conll(path)
        assert str(info.value) == str(result.skipped[0])
    else:
        assert [s.forms for s in read_conll(path).sentences] == [
            s.forms for s in result.sentences]
    return result


def in_input_order(result: ConllResult) -> list[DepSentence | None]:
    """The sentences read and, as None, those skipped, in the order of the file: what a
    conversion writes one output (a tree or an empty line) for."""
    order = sorted([(s.line, s) for s in result.sentences]
                   + [(e.line, None) for e in result.skipped], key=lambda x: x[0])
    return [sent for _, sent in order]


@pytest.mark.slow
@fuzz(400)
@given(st.data())
def test_damaged_conll_files_give_clear_errors_and_keep_good_sentences(ewt_blocks, data):
    dmg = data.draw(damaged_files(ewt_blocks))
    for kind in dmg.kinds.values():
        event(kind)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "damaged.conllu"
        path.write_bytes(dmg.data)
        check_damaged_read(path, ewt_blocks, dmg)


@pytest.mark.slow
@fuzz(12)
@given(st.data())
def test_damaged_conll_files_through_pad_convert_and_batch(ewt_blocks, data):
    """``pad convert`` and batch conversion write the engine's consistent tree for each good
    sentence and an empty line for each bad one, and report the same reasons the reader does."""
    dmg = data.draw(damaged_files(ewt_blocks))
    with tempfile.TemporaryDirectory() as tmp:
        in_dir = Path(tmp) / "in"
        in_dir.mkdir()
        path = in_dir / "damaged.conllu"
        path.write_bytes(dmg.data)
        result = check_damaged_read(path, ewt_blocks, dmg)
        expected = []
        for sent in in_input_order(result):
            if sent is None:
                expected.append("")
                continue
            cand = ENGINE.best(sent)
            assert cand.heads() == projectivize(sent.heads)[0]
            expected.append(cand.penn(sent.forms))

        out = Path(tmp) / "out.mrg"
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = cli.main(["convert", str(path), "-o", str(out),
                             "--model", str(default_model_path())])
        note(stderr.getvalue())
        assert code == 0
        assert out.read_bytes().decode().split("\n")[:-1] == expected
        for err in result.skipped:
            assert f"pad convert: skipped {err}" in stderr.getvalue()

        # the same model as above (without one, a folder's files each get the model that fits)
        report = convert_folder(in_dir, Path(tmp) / "batch", default_model_path(), jobs=1)
        (file,) = report.files
        assert (file.status, file.error) == (CONVERTED, "")
        assert [(s.line, s.reason) for s in file.skipped] == [
            (e.line, e.problem) for e in result.skipped]
        assert file.converted == len(result.sentences)
        batch_out = (Path(tmp) / "batch" / "damaged.mrg").read_bytes().decode()
        assert batch_out.split("\n")[:-1] == expected


@pytest.mark.slow
@fuzz(6)
@given(st.data())
def test_damaged_conll_files_through_pad_convert_kbest(ewt_blocks, data):
    """``pad convert --kbest``: a block of SCORE<TAB>TREE lines and a blank line per input
    sentence, best first, each tree consistent with the sentence's projectivized d-parse;
    one empty line where a sentence was skipped."""
    dmg = data.draw(damaged_files(ewt_blocks))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "damaged.conllu"
        path.write_bytes(dmg.data)
        result = read_conll(path, on_error="skip")
        out = Path(tmp) / "out.kbest"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = cli.main(["convert", str(path), "-o", str(out), "--kbest", "3",
                             "--model", str(default_model_path())])
        assert code == 0
        written = out.read_bytes().decode()
    expected = []
    for sent in in_input_order(result):
        if sent is None:
            expected.append("\n")
            continue
        cands = ENGINE.candidates(sent, 3)
        heads = projectivize(sent.heads)[0]
        for cand in cands:
            assert cand.heads() == heads
        expected.append("".join(f"{c.score:.4f}\t{c.penn(sent.forms)}\n" for c in cands) + "\n")
    assert written == "".join(expected)


def test_pad_convert_skips_a_sentence_with_undecodable_bytes(tmp_path, capsys):
    """Regression (found by the fuzzer): ``pad convert`` decoded its input with
    ``surrogateescape``, so a word with a Latin-1 byte passed the reader and the UTF-8 writer
    then crashed with a UnicodeEncodeError traceback. Now such a line is read in a detected
    encoding (with a warning), and with ``--encoding utf-8`` its sentence is skipped, as by
    ``read_conll``, with the same message."""
    path = tmp_path / "latin1.conllu"
    path.write_bytes(b"1\ta\t_\tDT\tDT\t_\t2\tdet\t_\t_\n2\tb\t_\tNN\tNN\t_\t0\troot\t_\t_\n\n"
                     b"1\tni\xf1o\t_\tNN\tNN\t_\t0\troot\t_\t_\n\n"
                     b"1\tc\t_\tNN\tNN\t_\t0\troot\t_\t_\n")
    out = tmp_path / "out.mrg"
    model = str(default_model_path())
    assert cli.main(["convert", str(path), "-o", str(out), "--model", model]) == 0
    assert "1 lines are not UTF-8: read as cp1252" in capsys.readouterr().err
    lines = out.read_text(encoding="utf-8").split("\n")
    assert [Tree.fromstring(t).leaves() if t else [] for t in lines] == [
        ["a", "b"], ["niño"], ["c"], []]
    code = cli.main(["convert", str(path), "-o", str(out), "--model", model,
                     "--encoding", "utf-8"])
    err = capsys.readouterr().err
    assert code == 0
    lines = out.read_text(encoding="utf-8").split("\n")
    assert [Tree.fromstring(t).leaves() if t else [] for t in lines] == [["a", "b"], [], ["c"], []]
    reason = ("undecodable bytes: line is not valid UTF-8 (byte 0xf1 at column 5; "
              "is the file in another encoding?)")
    assert f"pad convert: skipped {path}:4: {reason}\n" in err
    assert [str(e) for e in read_conll(path, on_error="skip", encoding="utf-8").skipped] == [
        f"{path}:4: {reason}"]
    text = path.read_bytes().decode("utf-8", errors="surrogateescape")
    assert [str(e) for e in parse_conll(text, str(path), on_error="skip").skipped] == [
        f"{path}:4: {reason}"]
    lone = parse_conll("1\ta\ud800\t_\tNN\tNN\t_\t0\troot\t_\t_\n", on_error="skip")
    assert [str(e) for e in lone.skipped] == [
        "<input>:1: lone surrogate U+D800 at column 4 (not encodable text)"]


# --- damaged Penn input -----------------------------------------------------------------------

PENN_ALPHABET = st.sampled_from(["(", ")", "(", ")", " ", "\n", "NP", "S", "NN", "dog", "TOP",
                                 "-NONE-", "*T*-1", "()", "\t", "é", "\x00"])


def check_penn(text: str) -> None:
    """Strict mode raises the first error skip mode records, else both read the same trees."""
    result = parse_penn(text, "fuzz.mrg", on_error="skip")
    lines = text.split("\n")
    for tree, line in zip(result.trees, result.lines, strict=True):
        assert tree.label() == "TOP"
        assert len(tree) > 0
        assert 1 <= line <= len(lines)
        assert tree.leaves()
        assert all(isinstance(w, str) and w for w in tree.leaves())
        Tree.fromstring(str(tree))  # prints as a well-formed bracketing
    for err in result.skipped:
        assert 1 <= err.line <= len(lines)
        assert str(err).startswith(f"fuzz.mrg:{err.line}: ")
        assert "\n" not in str(err)
        assert len(err.problem) < 200
    # In the order of the text (a tree inside an unclosed one is not reported twice).
    assert [e.line for e in result.skipped] == sorted(e.line for e in result.skipped)
    if result.skipped:
        with pytest.raises(InputError) as info:
            parse_penn(text, "fuzz.mrg")
        assert str(info.value) == str(result.skipped[0])
    else:
        assert parse_penn(text, "fuzz.mrg").trees == result.trees


@fuzz(300)
@given(st.lists(PENN_ALPHABET, max_size=60).map(" ".join))
def test_garbage_penn_text_gives_only_clear_errors(text):
    check_penn(text)


class _Text(str):
    """A long text that falsifying examples show by its length."""

    def _repr_pretty_(self, p, cycle: bool) -> None:
        p.text(f"<{len(self)} characters>")


@pytest.fixture(scope="module")
def ptb_text(ptb_dir) -> str:
    return _Text("".join((ptb_dir / f"wsj_000{i}.mrg").read_text() for i in (1, 2, 3, 4)))


@pytest.mark.slow
@fuzz(100)
@given(st.data())
def test_damaged_penn_trees_cost_only_themselves(ptb_text, data):
    good = parse_penn(ptb_text)
    text = ptb_text
    at = data.draw(st.integers(0, len(text)))
    how = data.draw(st.sampled_from(["drop_open", "drop_close", "insert", "cut"]))
    if how in ("drop_open", "drop_close"):
        brackets = [i for i, c in enumerate(text) if c == ("(" if how == "drop_open" else ")")]
        at = data.draw(st.sampled_from(brackets))
        text = text[:at] + text[at + 1:]
    elif how == "insert":
        text = text[:at] + data.draw(st.sampled_from(["()", "(", ")", "junk", "(X", "( )"])) \
            + text[at:]
    else:
        text = text[:at]
    damaged_line = text[:at].count("\n") + 1
    note(f"{how} at line {damaged_line}")
    check_penn(text)
    # Trees wholly before or after the damaged one read back unchanged.
    result = parse_penn(text, "fuzz.mrg", on_error="skip")
    starts = [*good.lines, 10 ** 9]
    hit = max(k for k in range(len(good.trees)) if starts[k] <= damaged_line) \
        if damaged_line >= starts[0] else -1
    got = {(line, str(tree)) for tree, line in zip(result.trees, result.lines)}
    for k, (tree, line) in enumerate(zip(good.trees, good.lines)):
        if k < hit or (k > hit and how != "cut"):
            assert (line, str(tree)) in got, f"tree {k} at line {line} lost"


def test_error_inside_a_tree_swallowed_by_an_unclosed_one_is_reported_once():
    """Regression (found by the garbage test): the tree after an unclosed one was read as part
    of it, and then again on its own, so skip mode reported its error twice, out of order."""
    text = "(S (NP (NN a))\n(S (NN x) y z)\n(S (NN b))\n"
    result = parse_penn(text, "f.mrg", on_error="skip")
    assert [str(e) for e in result.skipped] == [
        "f.mrg:1: unbalanced brackets: 1 '(' not closed by the end of the text "
        "(tree starts here)",
        "f.mrg:2: word 'y' has no preterminal of its own: write it as (TAG y)",
    ]
    assert [t.leaves() for t in result.trees] == [["b"]]
    with pytest.raises(InputError, match=r"f\.mrg:1: unbalanced"):
        parse_penn(text, "f.mrg")


@pytest.mark.slow
@fuzz(60)
@given(st.data())
def test_penn_file_with_bytes_that_are_not_utf8_costs_only_their_tree(ptb_text, data):
    raw = ptb_text.encode()
    at = data.draw(st.integers(0, len(raw)))
    damaged = raw[:at] + data.draw(st.sampled_from(INVALID_UTF8)) + raw[at:]
    line = raw[:at].count(b"\n") + 1
    good = parse_penn(ptb_text)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "damaged.mrg"
        path.write_bytes(damaged)
        result = read_penn(path, on_error="skip", encoding="utf-8")
        assert any(str(e).startswith(f"{path}:{line}: undecodable bytes")
                   for e in result.skipped)
        with pytest.raises(InputError) as info:
            read_penn(path, encoding="utf-8")
        assert str(info.value) == str(result.skipped[0])
    kept = set(zip(result.lines, map(str, result.trees)))
    lost = [start for start, tree in zip(good.lines, good.trees) if (start, str(tree)) not in kept]
    assert len(lost) <= 1
    assert all(start <= line for start in lost)


def test_text_outside_brackets_is_cut_short_in_the_message():
    """Regression: a binary file's run of bytes without white space went whole into the
    one-line message (``pad train`` on a 1 MB binary printed a 1 MB line)."""
    with pytest.raises(InputError) as info:
        parse_penn("\x00" * 10_000, "bin.mrg")
    assert str(info.value) == (f"bin.mrg:1: text outside brackets: {chr(0) * 40!r}... "
                               "(10000 characters)")
    with pytest.raises(InputError, match=r"^f:1: text outside brackets: 'hello'$"):
        parse_penn("hello", "f")


def test_penn_file_with_a_bom_and_crlf_reads(tmp_path):
    """Regression: a BOM was read as text outside brackets (the CoNLL reader allows one)."""
    path = tmp_path / "bom.mrg"
    path.write_bytes(b"\xef\xbb\xbf(S (NN a))\r\n(S\r(NN b))\r\n")
    result = read_penn(path)
    assert [t.leaves() for t in result.trees] == [["a"], ["b"]]
    assert result.lines == [1, 2]
    assert parse_penn("\ufeff(S (NN a))").trees == [Tree("TOP", [Tree("S", [Tree("NN", ["a"])])])]


def test_penn_file_with_invalid_utf8_names_the_line(tmp_path):
    """Regression: read_penn raised a bare UnicodeDecodeError (no file, no line)."""
    path = tmp_path / "latin1.mrg"
    path.write_bytes(b"(S (NN a))\n(S (NN ni\xf1o))\n(S (NN b))\n")
    assert read_penn(path).trees[1].leaves() == ["niño"]  # read as cp1252, with a note
    with pytest.raises(InputError) as info:
        read_penn(path, encoding="utf-8")
    assert str(info.value).startswith(f"{path}:2: undecodable bytes")
    result = read_penn(path, on_error="skip", encoding="utf-8")
    assert [t.leaves() for t in result.trees] == [["a"], ["b"]]
    assert [(e.line, "UTF-8" in e.problem) for e in result.skipped] == [(2, True)]
