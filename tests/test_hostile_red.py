"""Attacks on the issue-33 gate found open by a red-team pass, one test per hole closed:
each case goes through the real code path that failed (a ``pad`` command in a subprocess
with an address-space cap where the failure was a flood)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from pad_engine.errors import InputError

REPO = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def limited(argv: list[str], gigabytes: float = 1.5, timeout: float = 120
            ) -> subprocess.CompletedProcess:
    """``python -m pad_engine ARGV`` with at most ``gigabytes`` of address space."""
    def limit() -> None:
        size = int(gigabytes * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return subprocess.run([sys.executable, "-m", "pad_engine", *argv], capture_output=True,
                          text=True, timeout=timeout, env=ENV, preexec_fn=limit)


def unary_chain(n: int) -> str:
    return "(S " * n + "(NN x)" + ")" * n + "\n"


def test_a_tree_too_deep_to_train_on_is_refused_before_it_is_paired():
    """``make_pair`` listed every node with its position (a tuple as long as its depth):
    memory quadratic in the depth, a MemoryError traceback from ``pad oracle`` and ``pad
    convert --corrected`` on a 100,000-deep tree. It now refuses one nesting deeper than
    MAX_PAIR_DEPTH first, by its line (the oracle still takes 500-deep trees)."""
    from pad_engine.io.penn import parse_penn
    from pad_engine.learning.pairs import make_pair
    from pad_engine.trees.deptree import DepSentence

    tree = parse_penn(unary_chain(20_000)).trees[0]
    sent = DepSentence(["x"], ["NN"], [0], ["root"], line=7)
    with pytest.raises(InputError, match="nests 20003 levels deep") as err:
        make_pair(tree, sent, "deps.conll")
    assert err.value.line == 7


def test_oracle_and_corrected_skip_a_100k_deep_tree_with_one_line(tmp_path):
    mrg, conll = tmp_path / "deep.mrg", tmp_path / "deep.conll"
    mrg.write_text(unary_chain(100_000))
    conll.write_text("1\tx\t_\tNN\tNN\t_\t0\tROOT\t_\t_\n\n")
    proc = limited(["oracle", str(mrg), str(conll), "-o", str(tmp_path / "o.mrg")])
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "levels deep (at most 5000 are paired)" in proc.stderr
    proc = limited(["convert", str(conll), "--corrected", str(mrg), str(conll),
                    "-o", str(tmp_path / "c.mrg")])
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "levels deep" in proc.stderr, proc.stderr


def directory_bomb(n: int, declared: int | None = None, zip64: bool = False) -> bytes:
    """A zip of ``n`` one-letter central-directory entries (47 bytes each) whose end record
    declares ``declared`` of them (default: as many as 16 bits hold)."""
    import struct
    entry = struct.pack("<4s4B4HL2L5H2L", b"PK\x01\x02", 20, 3, 20, 0, 0, 0, 0, 0, 0, 0, 0,
                        1, 0, 0, 0, 0, 0, 0) + b"a"
    body = entry * n
    count = min(n, 0xFFFF) if declared is None else declared
    end = b""
    if zip64:
        record = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, n, n, len(body), 0)
        locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, len(body), 1)
        end = record + locator
        count, size = 0xFFFF, 0xFFFFFFFF
    else:
        size = len(body)
    return body + end + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, size,
                                    0, 0)


@pytest.mark.parametrize("suffix", ["padmodel", "padparser"])
@pytest.mark.parametrize(("declared", "zip64", "problem"), [
    (None, False, "the archive has 65535 members"),
    (2, False, "the archive's directory is 9400000 bytes"),
    (None, True, "the archive has 200000 members"),
])
def test_a_model_of_many_tiny_members_is_refused_before_its_directory_is_listed(
        tmp_path, monkeypatch, suffix, declared, zip64, problem):
    """zipfile listed the whole central directory before the member count was checked: a
    235 MB .padmodel of five million one-letter entries took 35 s (and gigabytes) to be
    refused, the app frozen meanwhile. The end record's count and directory size are now
    checked first: zipfile never lists such a directory."""
    import zipfile

    from pad_engine.decoding.model import Model
    from pad_engine.errors import ModelError
    from pad_engine.parsing.model import TextModel

    bomb = tmp_path / f"bomb.{suffix}"
    bomb.write_bytes(directory_bomb(200_000, declared, zip64))

    def listed(self):
        raise AssertionError("zipfile listed the directory")

    monkeypatch.setattr(zipfile.ZipFile, "_RealGetContents", listed)
    load = Model.load if suffix == "padmodel" else TextModel.load
    with pytest.raises(ModelError, match=problem):
        load(str(bomb))


def alpino(inner: str) -> str:
    return (f'<treebank><alpino_ds id="s1"><node rel="top" cat="top" begin="0" end="1">'
            f'{inner}</node><sentence>x</sentence></alpino_ds></treebank>')


@pytest.mark.parametrize(("inner", "problem"), [
    ('<node rel="su" cat="np" begin="0" end="1">' * 5000
     + '<node rel="hd" pos="noun" word="x" begin="0" end="1"/>' + "</node>" * 5000,
     "nodes nest deeper than 500 levels"),
    (f'<node rel="hd" pos="noun" word="{"x" * 20_000}" begin="0" end="1"/>',
     "word of 20,000 characters: longer than the 10,000"),
    ('<node rel="hd" pos="noun" word="a\x7fb" begin="0" end="1"/>',
     "control character U+007F"),
], ids=["deep", "long", "control"])
def test_an_alpino_tree_too_deep_or_with_a_hostile_word_is_skipped_with_its_reason(
        tmp_path, inner, problem):
    """The Alpino reader (pad bench-labels, pad learning-curve --alpino) converted nodes
    recursively (a RecursionError traceback at 5,000 levels) and took a 20-million-character
    word or a control character that every other reader refuses."""
    from pad_engine.learning.label_bench import read_alpino

    xml = tmp_path / "alpino.xml"
    xml.write_text(alpino(inner), encoding="utf-8")
    trees, problems = read_alpino(str(xml))
    assert trees == []
    assert len(problems) == 1
    assert problem in str(problems[0])
    assert "tree 1 (s1)" in str(problems[0])


def test_alpino_xml_entity_bombs_and_external_entities_are_refused(tmp_path):
    """Held already (expat 2.4+ limits amplification; ElementTree resolves no external
    entity); kept so that a change of XML parser cannot lose it."""
    from pad_engine.learning.label_bench import read_alpino

    lol = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10))
    bomb = tmp_path / "bomb.xml"
    bomb.write_text(f'<!DOCTYPE t [<!ENTITY l0 "lol">{lol}]>'
                    + alpino('<node rel="hd" pos="noun" word="&l9;" begin="0" end="1"/>'))
    xxe = tmp_path / "xxe.xml"
    xxe.write_text('<!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                   + alpino('<node rel="hd" pos="noun" word="&x;" begin="0" end="1"/>'))
    for path in (bomb, xxe):
        with pytest.raises(InputError, match="not XML"):
            read_alpino(str(path))


@pytest.mark.parametrize("label", ["N\x01P", "N\x9bP", "N\ud800P"], ids=["C0", "C1", "surrogate"])
def test_a_model_symbol_with_a_control_character_or_a_lone_surrogate_is_refused(tmp_path, label):
    """A .padmodel's phrase symbols and tags go raw into every Penn line written: \\x01 or a
    C1 control went through (no white space, no bracket was all that was checked), and a
    lone surrogate made the write of the output fail with a UnicodeEncodeError traceback."""
    import io
    import json
    import zipfile

    import numpy as np
    from toy import toy_examples

    from pad_engine.decoding.model import Model
    from pad_engine.errors import ModelError
    from pad_engine.learning.train import train

    good = tmp_path / "good.padmodel"
    train(toy_examples(), epochs=1, bits=12).save(good)
    with np.load(good) as data:
        meta = json.loads(data["meta"].tobytes())
        weights = data["weights"].copy()
    meta["grammar"]["symbols"].append(label)

    def npy(array: np.ndarray) -> bytes:
        buf = io.BytesIO()
        np.save(buf, array)
        return buf.getvalue()

    bad = tmp_path / "bad.padmodel"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("weights.npy", npy(weights))
        z.writestr("meta.npy", npy(np.frombuffer(json.dumps(meta).encode(), np.uint8)))
    with pytest.raises(ModelError, match="is not a label"):
        Model.load(str(bad))


@pytest.mark.parametrize(("label", "says"), [("N\x9bP", "cannot be written"),
                                         ("L" * 300, "cannot be written"),
                                         ("N\x01P", "control character U+0001")],
                         ids=["C1", "long", "C0"])
def test_a_label_set_label_penn_cannot_carry_is_refused_with_its_line(tmp_path, label, says):
    """A label set's LABEL column is written into every Penn line: a control character or a
    300-character label went into pad convert's output unchecked (a C0 control is now
    refused with the line, as every reader refuses it)."""

    labels = tmp_path / "bad.labels"
    labels.write_text(f"# a label set\nNP * * {label}\n", encoding="utf-8")
    conll = tmp_path / "in.conll"
    conll.write_text("1\tdogs\t_\tNNS\tNNS\t_\t2\tnsubj\t_\t_\n"
                     "2\tbark\t_\tVBP\tVBP\t_\t0\troot\t_\t_\n\n")
    out = tmp_path / "out.mrg"
    proc = limited(["convert", str(conll), "--label-set", str(labels), "-o", str(out)])
    assert proc.returncode == 1, proc.stderr
    assert f"{labels}:2: " in proc.stderr
    assert says in proc.stderr
    assert len(proc.stderr) < 500
    assert not out.exists()


def test_eval_refuses_a_word_over_the_limit_or_a_control_character_with_its_line(tmp_path):
    """pad eval read its trees with a reader of its own (EVALB's): a 300,000-character word
    was scored, and a 300 MB line without brackets came back whole in the error message
    (300 MB on stderr); a control character went through. Now as the Penn reader."""
    from pad_engine.learning.evalb import read_trees

    good = "(S (NP (NN dog)) (VP (VBZ barks)))\n"
    cases = {"long": (good + f"(S (NN {'x' * 300_000}))\n", "2: word of 300,000 characters"),
             "bare": (good + "x" * 3_000_000 + "\n", "2: word of 3,000,000 characters"),
             "control": (good + "(S (NN a\x01b))\n", "2: control character U+0001")}
    for name, (text, problem) in cases.items():
        path = tmp_path / f"{name}.mrg"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(InputError) as err:
            read_trees(str(path))
        assert problem in str(err.value)
        assert len(str(err.value)) < 300


@pytest.mark.parametrize(("text", "problem"), [
    ("NP right NN\n" + "VP left " + "V" * 20_000 + "\n", "2: line of 20,"),
    ("NP right NN\nVP left V\x01B\n", "2: control character U+0001"),
    ("NP right NN\nVP left VB\x0bX\n", "2: control character U+000B"),
], ids=["long", "control", "vertical-tab"])
def test_a_head_table_line_over_the_limit_or_with_a_control_character_is_refused(
        tmp_path, text, problem):
    """A head-rule table (--headrules FILE, or named by a model) took a 15-million-character
    line (echoed whole in the error message) and control characters (a vertical tab even
    split the line in two, as str.splitlines does)."""
    from pad_engine.trees.headrules import HeadRules

    table = tmp_path / "rules.txt"
    table.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        HeadRules.load(str(table))
    assert problem in str(err.value)
    assert len(str(err.value)) < 300


def test_a_label_set_line_over_the_limit_is_refused_without_echoing_it(tmp_path):
    """A 5-million-character PHRASE column came back whole in 'unknown phrase ...'."""
    from pad_engine.decoding.labelsets import load_label_set

    labels = tmp_path / "big.labels"
    labels.write_text("NP * * NX\n" + "X" * 5_000_000 + " * * L\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_label_set(str(labels), {"NP", "VP", "S"})
    assert "big.labels:2: line of 5,000,006 characters" in str(err.value)
    assert len(str(err.value)) < 300


def test_a_command_out_of_memory_says_so_in_one_line(tmp_path):
    """A Penn tree of a million words is within every bound (7 MB) but takes ~650 bytes a
    word as trees: past the address-space cap, pad deps died with a MemoryError traceback
    (whose printing itself failed: "lost sys.stderr")."""
    mrg = tmp_path / "flat.mrg"
    mrg.write_text("(S " + "(NN x) " * 1_000_000 + ")\n")
    proc = limited(["deps", str(mrg), str(tmp_path / "out.conll")], gigabytes=0.6)
    assert proc.returncode == 1
    assert proc.stderr.strip() == "pad deps: out of memory: the input is too large for this " \
        "machine", proc.stderr[-2000:]
    assert not (tmp_path / "out.conll").exists()


def _word(i: int, form: str, head: int) -> str:
    return f"{i}\t{form}\t_\tNOUN\tNN\t_\t{head}\tdep\t_\t_"


@pytest.mark.parametrize(("line", "column"), [
    ("1-2\tab\t_\t_\t_\t_\t0\troot\t_\t_", "HEAD"),
    ("1-2\tab\tab\t_\t_\t_\t_\t_\t_\t_", "LEMMA"),
    ("1-2\tab\t_\tNOUN\t_\t_\t_\t_\t_\t_", "UPOS"),
    ("1-2\tab\t_\t_\t_\t_\t_\t_\t0:root\t_", "DEPS"),
], ids=["head", "lemma", "upos", "deps"])
def test_a_multiword_token_line_with_a_filled_column_is_refused(line, column):
    """UD's validator (mwt-nonempty-field): a multiword token line has _ in LEMMA..DEPS;
    the readers checked its ID only."""
    from pad_engine.io.conll import parse_conll
    from pad_engine.parsing.text import read_text

    text = "\n".join([line, _word(1, "a", 0), _word(2, "b", 1)]) + "\n\n"
    result = parse_conll(text, "x.conllu", on_error="skip")
    assert result.sentences == []
    assert len(result.skipped) == 1
    assert f"x.conllu:1: a multiword token (1-2) must have _ in its {column} column" in \
        str(result.skipped[0])
    [item] = read_text(text, "x.conllu")
    assert isinstance(item, InputError)
    assert f"_ in its {column} column" in str(item)
    fine = "\n".join(["1-2\tab\t_\t_\t_\tTypo=Yes\t_\t_\t_\tSpaceAfter=No", _word(1, "a", 0),
                      _word(2, "b", 1)]) + "\n\n"
    assert len(parse_conll(fine, "x.conllu").sentences) == 1


@pytest.mark.parametrize(("line", "column"), [
    ("1.1\te\t_\t_\t_\t_\t1\tdep\t1:dep\t_", "HEAD"),
    ("1.1\te\t_\t_\t_\t_\t_\tdep\t1:dep\t_", "DEPREL"),
], ids=["head", "deprel"])
def test_an_empty_node_with_a_head_or_relation_is_refused(line, column):
    """UD's validator: an empty node has _ in HEAD and DEPREL (its arcs are in DEPS)."""
    from pad_engine.io.conll import parse_conll

    text = "\n".join([_word(1, "a", 0), line, _word(2, "b", 1)]) + "\n\n"
    result = parse_conll(text, "x.conllu", on_error="skip")
    assert result.sentences == []
    assert len(result.skipped) == 1
    assert f"x.conllu:2: an empty node (1.1) must have _ in its {column} column" in \
        str(result.skipped[0])
    fine = "\n".join([_word(1, "a", 0), "1.1\te\t_\t_\t_\t_\t_\t_\t1:dep\t_",
                      _word(2, "b", 1)]) + "\n\n"
    assert len(parse_conll(fine, "x.conllu").sentences) == 1


def test_convert_stops_reading_an_endless_standard_input_at_the_bound(tmp_path):
    """Since pad convert streams, standard input was read without bound: `pad convert <
    /dev/zero` never ended (and an endless non-UTF-8 pipe was copied to a temporary file
    until the disk was full). Standard input is now a file of at most TEXT_BYTES."""
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run([sys.executable, "-m", "pad_engine", "convert", "-o",
                               str(tmp_path / "out.mrg")], stdin=zero, capture_output=True,
                              text=True, timeout=60, env=ENV)
    assert proc.returncode == 1
    assert "<stdin>: 1073741825 bytes is more than an input file may have" in proc.stderr
    assert not (tmp_path / "out.mrg").exists()


def test_a_bounded_stream_reads_up_to_its_bound_and_refuses_one_more():
    import io

    from pad_engine.io.gate import BoundedStream

    stream = BoundedStream(io.BytesIO(b"ab\ncd\n"), "<stdin>", limit=6)
    assert stream.readline() == b"ab\n"
    assert stream.read() == b"cd\n"
    assert stream.read() == b""
    stream = BoundedStream(io.BytesIO(b"ab\ncd\nef"), "<stdin>", limit=6)
    assert stream.readline(100) == b"ab\n"
    with pytest.raises(InputError, match="<stdin>: 7 bytes is more than an input file"):
        stream.read(1 << 20)


def test_parse_refuses_standard_input_past_the_bound_without_a_second_copy(tmp_path):
    """read_stream joined the 1 GiB + 1 byte it had read before refusing it: 2.2 GB to say
    no to `pad parse < /dev/zero`, past a 1.6 GB cap a MemoryError. Now refused first."""
    def limit() -> None:
        size = int(1.6 * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run([sys.executable, "-m", "pad_engine", "parse", "-o",
                               str(tmp_path / "out.mrg")], stdin=zero, capture_output=True,
                              text=True, timeout=120, env=ENV, preexec_fn=limit)
    assert proc.returncode == 1
    assert "<stdin>: 1073741825 bytes is more than an input file may have" in proc.stderr, \
        proc.stderr[-500:]


def test_convert_dir_refuses_a_file_past_the_bound_unread(tmp_path):
    """Since convert and convert-dir stream, they opened their input with no bound: a
    sparse 4 GiB file of NULs was read to its end (test_hostile_gate's refusal of it by
    size failed). Streamed or not, no input over TEXT_BYTES is read."""
    src = tmp_path / "in"
    src.mkdir()
    with open(src / "big.conllu", "wb") as f:
        f.truncate(4 << 30)
    proc = limited(["convert-dir", str(src), str(tmp_path / "out")], timeout=60)
    assert proc.returncode == 1
    assert f"{4 << 30} bytes is more than an input file may have" in proc.stderr + (
        tmp_path / "out" / "pad-convert-report.txt").read_text()


def test_a_psd_word_of_many_clitic_parts_is_joined_in_linear_memory(tmp_path):
    """``word$ $clitic`` parts were joined pair by pair, each part keeping the word so far:
    an 800 KB .psd tree of 100,000 parts took past 2.7 GB (out of memory). Now each run of
    parts is joined once."""
    from pad_engine.io.penn import parse_penn
    from pad_engine.io.psd import from_psd

    [small] = from_psd(parse_penn("( (IP-MAT (NP-SBJ (N orð$) (D $ið)) (VBD kom)) "
                                  "(ID X,.1))\n").trees)
    assert [w for w in small.tree.leaves()][:3] == ["orð$", "orðið", "kom"]
    psd = tmp_path / "clitics.psd"
    psd.write_text("( (IP-MAT (N a$)" + " (N $a$)" * 100_000 + " (N $a)) (ID X,.1))\n")
    proc = limited(["deps", str(psd), str(tmp_path / "out.conll"), "--headrules", "icepahc"],
                   timeout=60)
    assert proc.returncode == 0, proc.stderr[-500:]


def test_an_alpino_word_position_past_the_tree_is_refused_before_lists_of_it_are_made(
        tmp_path):
    """begin="3000000000" on a tree's one word made lists of three billion words: out of
    memory (a MemoryError traceback before pad's one-line answer to it)."""
    xml = tmp_path / "alpino.xml"
    xml.write_text(alpino('<node rel="hd" pos="noun" word="x" begin="3000000000" end="1"/>'))
    proc = limited(["bench-labels", str(xml)], gigabytes=1, timeout=60)
    assert proc.returncode == 1
    assert "tree 1 (s1): word position begin='3000000000' is not a word position" in \
        proc.stderr, proc.stderr[-500:]


@pytest.mark.parametrize("argv", [["convert", "{conll}", "-o", "-"], ["deps", "{mrg}", "-"]],
                         ids=["convert -o -", "deps IN -"])
def test_an_output_named_dash_is_refused_not_written_as_a_file(tmp_path, argv, monkeypatch):
    """'-' reads standard input, but as an output it wrote a file named '-' in the current
    folder (pad convert in.conll -o - made ./-, nothing on standard output)."""
    from pad_engine.cli import main

    conll = tmp_path / "in.conll"
    conll.write_text("1\tdogs\t_\tNNS\tNNS\t_\t2\tnsubj\t_\t_\n"
                     "2\tbark\t_\tVBP\tVBP\t_\t0\troot\t_\t_\n\n")
    mrg = tmp_path / "in.mrg"
    mrg.write_text("(S (NP (NNS dogs)) (VP (VBP bark)))\n")
    monkeypatch.chdir(tmp_path)
    assert main([a.format(conll=conll, mrg=mrg) for a in argv]) == 1
    assert not (tmp_path / "-").exists()
