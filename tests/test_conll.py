"""CoNLL-X / CoNLL-U reader and writer: real data round trips, agreement with ``conllu``,
tolerated input variants, corrected-arc rewriting, bad input messages, atomic writes."""

from __future__ import annotations

import io
import os

import conllu
import pytest

from pad_engine.cli import main
from pad_engine.errors import InputError
from pad_engine.io.atomic import atomic_open, atomic_write_text
from pad_engine.io.conll import (
    format_conllx,
    format_sentence,
    parse_conll,
    read_conll,
    write_conll,
)
from pad_engine.trees.deptree import DepSentence, is_projective

# conllu field names for CoNLL-X: CPOSTAG/POSTAG keep the UD names.
CONLLX_FIELDS = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "phead",
                 "pdeprel")


def to_tokenlist(sent: DepSentence, format: str = "conllu") -> conllu.TokenList:
    """The sentence as the ``conllu`` library reads what our writer wrote."""
    fields = CONLLX_FIELDS if format == "conllx" else None
    return conllu.parse(format_sentence(sent), fields=fields)[0]

# CoNLL-X as in the CoNLL 2007 shared task: CPOSTAG, POSTAG, PHEAD, PDEPREL; some POSTAG "_".
CONLLX = (
    "1\tEl\tel\td\tda\tgen=m|num=s\t2\tESPEC\t2\tESPEC\n"
    "2\taumento\taumento\tn\tnc\tgen=m|num=s\t3\tSUJ\t3\tSUJ\n"
    "3\tfortaleció\tfortalecer\tv\tvm\tnum=s|per=3\t0\tROOT\t0\tROOT\n"
    "4\t.\t.\tF\t_\tpunct=period\t3\tPUNC\t3\tPUNC\n"
    "\n"
    "1\tSí\tsí\tr\trn\t_\t0\tROOT\t_\t_\n"
    "\n"
)

# CoNLL-U with everything a round trip must keep: comments, a range, an empty node, DEPS, MISC.
CONLLU = (
    "# newdoc id = doc1\n"
    "# sent_id = s1\n"
    "# text = I don't know.\n"
    "1\tI\tI\tPRON\tPRP\tCase=Nom\t4\tnsubj\t4:nsubj\t_\n"
    "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "2\tdo\tdo\tAUX\tVBP\t_\t4\taux\t4:aux\t_\n"
    "3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t4:advmod\t_\n"
    "4\tknow\tknow\tVERB\tVB\t_\t0\troot\t0:root\tSpaceAfter=No\n"
    "4.1\tit\tit\tPRON\tPRP\t_\t_\t_\t4:obj\tCorrectForm=it\n"
    "5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t4:punct\t_\n"
    "\n"
)


def _words(sent: DepSentence) -> list[tuple[str, str, int, str]]:
    return list(zip(sent.forms, sent.tags, sent.heads, sent.rels, strict=True))


# --- real data ------------------------------------------------------------------------------


def test_ewt_dev_round_trip_is_byte_identical(ewt_dir, tmp_path):
    src = ewt_dir / "en_ewt-ud-dev.conllu"
    result = read_conll(src)
    assert result.format == "conllu"
    assert not result.skipped
    assert len(result.sentences) == 2001
    assert sum(map(len, result.sentences)) == 25147
    out = tmp_path / "dev.conllu"
    write_conll(result.sentences, out)
    assert out.read_bytes() == src.read_bytes()


def test_ewt_dev_agrees_with_conllu(ewt_dir):
    src = ewt_dir / "en_ewt-ud-dev.conllu"
    xpos = read_conll(src, pos="xpos").sentences
    upos = read_conll(src, pos="upos").sentences
    with open(src, encoding="utf-8") as f:
        reference = conllu.parse(f.read())
    assert len(xpos) == len(upos) == len(reference)
    for ours_x, ours_u, ref in zip(xpos, upos, reference, strict=True):
        words = [t for t in ref if isinstance(t["id"], int)]
        assert ours_x.forms == [t["form"] for t in words]
        assert ours_x.heads == [t["head"] for t in words]
        assert ours_x.rels == [t["deprel"] for t in words]
        assert ours_x.tags == [t["xpos"] or "_" for t in words]
        assert ours_u.tags == [t["upos"] or "_" for t in words]
        assert ours_x.sent_id == ref.metadata["sent_id"]
        assert [t["id"] for t in to_tokenlist(ours_x)] == [t["id"] for t in ref]


def test_ewt_train_reads_whole(ewt_dir):
    result = read_conll(ewt_dir / "en_ewt-ud-train.conllu")
    assert len(result.sentences) == 12544
    assert sum(map(len, result.sentences)) == 204577


# --- formats and tolerated variants -----------------------------------------------------------


def test_conllx_sample():
    result = parse_conll(CONLLX, "esp.sample")
    assert result.format == "conllx"
    assert not result.skipped
    first, second = result.sentences
    assert _words(first) == [
        ("El", "da", 2, "ESPEC"),
        ("aumento", "nc", 3, "SUJ"),
        ("fortaleció", "vm", 0, "ROOT"),
        (".", "F", 3, "PUNC"),  # auto: POSTAG is "_", so CPOSTAG
    ]
    assert (first.line, second.line, first.sent_id, first.path) == (1, 6, None, "esp.sample")
    assert second.lines == ["1\tSí\tsí\tr\trn\t_\t0\tROOT\t_\t_"]
    assert parse_conll(CONLLX, pos="upos").sentences[0].tags == ["d", "n", "v", "F"]
    assert parse_conll(CONLLX, pos="xpos").sentences[0].tags == ["da", "nc", "vm", "_"]
    out = io.StringIO()
    write_conll(result.sentences, out)
    assert out.getvalue() == CONLLX


def test_conllu_sample_words_exclude_ranges_and_empty_nodes():
    result = parse_conll(CONLLU)
    assert result.format == "conllu"
    (sent,) = result.sentences
    assert sent.forms == ["I", "do", "n't", "know", "."]
    assert sent.heads == [4, 4, 4, 0, 4]
    assert sent.sent_id == "s1"
    assert sent.line == 1
    assert sent.lines == CONLLU.split("\n")[:-2]
    assert format_sentence(sent) + "\n" == CONLLU


@pytest.mark.parametrize(
    "line",
    [
        "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t0:root\t_",  # DEPS shaped
        "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\tSpaceAfter=No",  # MISC shaped
    ],
)
def test_conllu_detected_without_comments(line):
    assert parse_conll(line + "\n\n").format == "conllu"


def test_tolerates_blank_runs_crlf_bom_and_missing_final_blank_line():
    messy = "\ufeff\n\n" + CONLLX.replace("\n\n", "\n\n \n\n", 1).rstrip("\n").replace("\n", "\r\n")
    result = parse_conll(messy, "messy")
    clean = parse_conll(CONLLX, "messy")
    assert [_words(s) for s in result.sentences] == [_words(s) for s in clean.sentences]
    assert [s.lines for s in result.sentences] == [s.lines for s in clean.sentences]
    assert [s.line for s in result.sentences] == [3, 10]
    out = io.StringIO()
    write_conll(result.sentences, out)
    assert out.getvalue() == CONLLX  # normalized: LF, no BOM, one blank line after each


def test_read_conll_crlf_and_bom_file(tmp_path):
    path = tmp_path / "crlf.conllx"
    path.write_bytes(b"\xef\xbb\xbf" + CONLLX.replace("\n", "\r\n").encode())
    result = read_conll(path)
    assert [s.line for s in result.sentences] == [1, 6]
    assert result.sentences[1].lines == ["1\tSí\tsí\tr\trn\t_\t0\tROOT\t_\t_"]


def test_nonprojective_tree_is_not_an_error():
    text = (
        "1\ta\t_\tX\tX\t_\t3\tdep\t_\t_\n"
        "2\tb\t_\tX\tX\t_\t4\tdep\t_\t_\n"
        "3\tc\t_\tX\tX\t_\t0\troot\t_\t_\n"
        "4\td\t_\tX\tX\t_\t1\tdep\t_\t_\n"
    )
    (sent,) = parse_conll(text).sentences
    assert not is_projective(sent.heads)


# --- writing ----------------------------------------------------------------------------------


def test_corrected_arc_rewrites_only_head_deprel_and_the_basic_arc_in_deps():
    (sent,) = parse_conll(CONLLU).sentences
    sent.heads[4] = 2  # "." now hangs off "do"
    sent.rels[0] = "expl"
    text = format_sentence(sent)
    old, new = CONLLU.split("\n")[:-2], text.split("\n")[:-1]
    changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    assert len(old) == len(new)
    assert changed == [3, 9]
    assert new[3] == "1\tI\tI\tPRON\tPRP\tCase=Nom\t4\texpl\t4:expl\t_"
    assert new[9] == "5\t.\t.\tPUNCT\t.\t_\t2\tpunct\t2:punct\t_"
    assert sent.lines == old  # the sentence itself is not modified
    tokens = to_tokenlist(sent)
    assert tokens.metadata["sent_id"] == "s1"
    assert [t["head"] for t in tokens if isinstance(t["id"], int)] == [4, 4, 4, 0, 2]
    assert tokens[4]["misc"] == {"SpaceAfter": "No"}
    again = parse_conll(text).sentences[0]
    assert again.heads == [4, 4, 4, 0, 2]
    assert again.rels[0] == "expl"


def test_sentence_from_scratch_is_written_as_conllx():
    sent = DepSentence(["Dogs", "bark"], ["NNS", "VBP"], [2, 0], ["nsubj", "root"])
    assert format_conllx(sent.forms, sent.tags, sent.heads, sent.rels) == (
        "1\tDogs\t_\tNNS\tNNS\t_\t2\tnsubj\t_\t_\n2\tbark\t_\tVBP\tVBP\t_\t0\troot\t_\t_\n"
    )
    out = io.StringIO()
    write_conll([sent], out)
    back = parse_conll(out.getvalue())
    assert back.format == "conllx"
    assert _words(back.sentences[0]) == _words(sent)
    assert to_tokenlist(back.sentences[0], "conllx")[0]["pdeprel"] == "_"


def test_format_refuses_unwritable_values():
    with pytest.raises(ValueError, match="CoNLL column"):
        format_conllx(["a\tb"], ["X"], [0], ["root"])
    (sent,) = parse_conll(CONLLU).sentences
    sent.heads.pop()
    with pytest.raises(ValueError, match="5 word lines but 4 heads"):
        format_sentence(sent)


# --- bad input --------------------------------------------------------------------------------

GOOD = "1\tHi\t_\tUH\tUH\t_\t0\troot\t_\t_\n"


def _sentence(*rows: str) -> str:
    """Word lines from "ID FORM HEAD" rows (space separated)."""
    lines = []
    for row in rows:
        wid, form, head = row.split(" ")
        lines.append(f"{wid}\t{form}\t_\tX\tX\t_\t{head}\tdep\t_\t_\n")
    return "".join(lines)


# case: (sentence text, line offset of the error from the sentence start, words in the problem)
BAD_CASES = {
    "columns": ("1\tHi\t_\tUH\tUH\t_\t0\troot\n", 1, ["10 tab-separated columns", "found 8"]),
    "head_not_int": (_sentence("1 a 0", "2 b x"), 2, ["HEAD 'x'", "word 2", "integer"]),
    "head_out_of_range": (_sentence("1 a 0", "2 b 7"), 2, ["head 7 of word 2", "out of range"]),
    "id_sequence": (_sentence("1 a 0", "3 b 1"), 2, ["word ID 3", "out of sequence", "expected 2"]),
    "bad_id": (_sentence("1 a 0", "x b 1"), 2, ["ID 'x'"]),
    "cycle": (_sentence("1 a 0", "2 b 3", "3 c 2"), 2, ["cycle", "2 -> 3 -> 2"]),
    "no_root": (_sentence("1 a 2", "2 b 1"), 0, ["no root"]),
    "empty_form": ("1\t\t_\tUH\tUH\t_\t0\troot\t_\t_\n", 1, ["empty FORM column"]),
    "no_words": ("# sent_id = 1\n", 0, ["no word lines"]),
    "range_beyond": ("1-9\tab\t_\t_\t_\t_\t_\t_\t_\t_\n" + _sentence("1 a 0"), 1,
                     ["range 1-9", "beyond the sentence's last word (1)"]),
    "empty_misplaced": (_sentence("1 a 0") + "0.1\tz\t_\tX\tX\t_\t_\t_\t_\t_\n", 2,
                        ["empty node 0.1", "expected 1.1"]),
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_bad_input_names_file_line_and_problem(case):
    sentence, line_in_sentence, words = BAD_CASES[case]
    text = GOOD + "\n" + "# sent_id = bad\n" + sentence + "\n" + GOOD
    with pytest.raises(InputError) as info:
        parse_conll(text, "bad.conllu")
    err = info.value
    line = 3 + line_in_sentence  # line 3 is the "# sent_id = bad" comment
    assert (err.path, err.line) == ("bad.conllu", line)
    assert str(err).startswith(f"bad.conllu:{line}: ")
    for word in words:
        assert word in err.problem


def _ud(*rows: str) -> str:
    """CoNLL-U lines from "ID FORM HEAD" rows; a range or an empty node has HEAD "_"."""
    return "".join(f"{wid}\t{form}\t_\t{'_' if head == '_' else 'NOUN'}\t_\t_\t{head}\t"
                   f"{'_' if head == '_' else 'dep'}\t_\t_\n"
                   for wid, form, head in (row.split(" ") for row in rows))


UD_GOOD = _ud("1-2 don't _", "1 do 0", "2 n't 1", "2.1 X _", "2.2 Y _", "3 go 1")
# case: (sentence, line of the error within it, what the message says), as validate.py has it
UD_ID_CASES = {
    "range_beyond_the_words": (_ud("1-9 one _", "1 one 0"), 1,
                               "multiword range 1-9 goes beyond the sentence's last word (1)"),
    "range_reversed": (_ud("2-1 ab _", "1 a 0", "2 b 1"), 1,
                       "multiword range 2-1 must start before it ends"),
    "range_of_one_word": (_ud("1-1 a _", "1 a 0"), 1,
                          "multiword range 1-1 must start before it ends"),
    "ranges_overlap": (_ud("1-3 abc _", "1 a 0", "2-3 bc _", "2 b 1", "3 c 1"), 3,
                       "multiword range 2-3 overlaps the range before it (up to word 3)"),
    "range_after_its_first_word": (_ud("1 a 0", "1-2 ab _", "2 b 1"), 2,
                                   "multiword range 1-2 is not right before its first word"),
    "range_before_other_words": (_ud("2-3 bc _", "1 a 0", "2 b 1", "3 c 1"), 1,
                                 "multiword range 2-3 is not right before its first word"),
    "empty_node_misplaced": (_ud("1 a 0", "0.1 z _", "2 b 1"), 2,
                             "empty node 0.1 is out of sequence (expected 1.1"),
    "empty_node_beyond": (_ud("1 a 0", "2.1 z _"), 2,
                          "empty node 2.1 is out of sequence (expected 1.1"),
    "empty_nodes_skip": (_ud("1 a 0", "1.1 y _", "1.3 z _"), 3,
                         "empty node 1.3 is out of sequence (expected 1.2"),
    "empty_node_zero": (_ud("1 a 0", "1.0 z _"), 2, "empty node 1.0 is out of sequence"),
}


def test_conllu_ranges_and_empty_nodes_are_checked_as_the_ud_validator_does(tmp_path, capsys):
    """Through ``pad convert``: each malformed sentence is named by file and line and costs
    only itself; well-formed ranges and empty nodes (0.1 before the first word) convert."""
    cases = sorted(UD_ID_CASES)
    blocks = [UD_GOOD, _ud("0.1 z _", "1 a 0")] + [UD_ID_CASES[c][0] for c in cases]
    src, out = tmp_path / "ids.conllu", tmp_path / "ids.mrg"
    src.write_text("\n".join(blocks) + "\n")
    assert main(["convert", str(src), "-o", str(out), "--rules"]) == 0
    err = capsys.readouterr().err
    skipped = [line for line in err.splitlines() if " skipped " in line]
    first, expected = 1 + UD_GOOD.count("\n") + 1 + 3, []
    for case in cases:
        sentence, offset, message = UD_ID_CASES[case]
        expected.append(f"{src}:{first + offset - 1}: {message}")
        first += sentence.count("\n") + 1
    assert len(skipped) == len(cases), err
    for line, want in zip(skipped, expected):
        assert line.split("skipped ", 1)[1].startswith(want)
    lines = out.read_text().splitlines()
    assert [bool(line) for line in lines] == [True, True] + [False] * len(cases)
    assert "(NN do) (NN n't)" in lines[0].replace("NOUN", "NN")


def test_undecodable_bytes_cost_only_their_sentence(tmp_path):
    """With --encoding utf-8 a Latin-1 line is an error of its sentence (without, it is read
    in a detected encoding: tests/test_breadth.py)."""
    path = tmp_path / "latin1.conllu"
    path.write_bytes(GOOD.encode() + b"\n1\tni\xf1o\t_\tN\tN\t_\t0\troot\t_\t_\n\n" + GOOD.encode())
    with pytest.raises(InputError) as info:
        read_conll(path, encoding="utf-8")
    assert str(info.value).startswith(f"{path}:3: undecodable bytes")
    assert "0xf1 at column 5" in info.value.problem
    result = read_conll(path, on_error="skip", encoding="utf-8")
    assert [s.line for s in result.sentences] == [1, 5]
    assert [(e.line, "UTF-8" in e.problem) for e in result.skipped] == [(3, True)]


def test_skip_mode_keeps_good_sentences_and_records_reasons():
    text = (GOOD + "\n" + _sentence("1 a 2", "2 b 1") + "\n" + GOOD + "\n"
            + "1\tHi\t_\tUH\n" + "\n" + GOOD)
    result = parse_conll(text, "mixed.conllx", on_error="skip")
    assert [s.line for s in result.sentences] == [1, 6, 10]
    assert [str(e) for e in result.skipped] == [
        "mixed.conllx:3: not a tree: no root (no word has head 0)",
        "mixed.conllx:8: expected 10 tab-separated columns, found 4",
    ]
    with pytest.raises(InputError, match="no root"):
        parse_conll(text, "mixed.conllx")


def test_bad_arguments():
    with pytest.raises(ValueError, match="pos"):
        parse_conll(GOOD, pos="cpostag")
    with pytest.raises(ValueError, match="on_error"):
        parse_conll(GOOD, on_error="ignore")


# --- atomic writes ----------------------------------------------------------------------------


def test_write_conll_failure_leaves_old_file_intact(tmp_path):
    path = tmp_path / "out.conllu"
    path.write_text("old contents\n")
    good = parse_conll(CONLLU).sentences[0]
    broken = parse_conll(CONLLU).sentences[0]
    broken.heads.pop()  # fails while formatting, after the good sentence was written
    with pytest.raises(ValueError, match="word lines but 4 heads"):
        write_conll([good, broken], path)
    assert path.read_text() == "old contents\n"
    assert os.listdir(tmp_path) == ["out.conllu"]


def test_atomic_open_and_write_text(tmp_path):
    path = tmp_path / "f.txt"
    atomic_write_text(path, "a\r\nb\n")
    assert path.read_bytes() == b"a\r\nb\n"
    os.chmod(path, 0o640)

    def fail_halfway():
        with atomic_open(path) as f:
            f.write("half")
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        fail_halfway()
    assert path.read_bytes() == b"a\r\nb\n"
    assert os.listdir(tmp_path) == ["f.txt"]
    with atomic_open(path, "wb") as f:
        f.write(b"new")
    assert path.read_bytes() == b"new"
    assert os.stat(path).st_mode & 0o777 == 0o640
    with pytest.raises(ValueError, match="modes"), atomic_open(path, "a"):
        pass
