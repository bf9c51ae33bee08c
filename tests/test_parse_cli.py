"""``pad parse``: plain text, tokenized raw text and CoNLL without heads in, one Penn tree per
sentence out; bad sentences get one line each on stderr and an empty line in the output."""

from __future__ import annotations

import pytest
from nltk import Tree

from pad_engine.cli import main
from pad_engine.parsing.train import read_treebank, train_text_model
from pad_engine.resources import resource_path

SAMPLE = resource_path("sample", "sample.conllu")


@pytest.fixture(scope="module")
def parser_file(tmp_path_factory):
    model = train_text_model(read_treebank([str(SAMPLE)]), epochs=5, tagger_epochs=5,
                             arc_bits=16, tagger_bits=14)
    path = tmp_path_factory.mktemp("parser") / "tiny.padparser"
    model.save(path)
    return path


def _run(capsys, *argv):
    code = main(["parse", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def _leaves(line: str) -> list[str]:
    return Tree.fromstring(line).leaves()


def _heads(conll: str) -> list[list[int]]:
    sents, cur = [], []
    for line in conll.splitlines():
        if not line:
            if cur:
                sents.append(cur)
            cur = []
        elif not line.startswith("#"):
            cur.append(int(line.split("\t")[6]))
    return sents + ([cur] if cur else [])


def test_plain_text_gives_one_tree_per_line(tmp_path, capsys, parser_file):
    src = tmp_path / "in.txt"
    src.write_text("The committee approved the budget .\n\nPrices will rise again .\n")
    deps = tmp_path / "out.conllu"
    code, out, err = _run(capsys, src, "--parser", parser_file, "--deps-out", deps)
    assert code == 0
    lines = out.splitlines()
    assert [_leaves(x) for x in lines] == [["The", "committee", "approved", "the", "budget",
                                            "."], ["Prices", "will", "rise", "again", "."]]
    heads = _heads(deps.read_text())
    assert [len(h) for h in heads] == [6, 5]
    assert all(h.count(0) == 1 for h in heads)
    assert "2 of 2 sentences parsed" in err
    assert "english-ptb-collins" in err  # the PAD model that pairs with Collins-style d-parses


def test_conll_without_heads(tmp_path, capsys, parser_file):
    blocks = SAMPLE.read_text().split("\n\n")[:3]
    stripped = []
    for block in blocks:
        rows = []
        for line in block.splitlines():
            cols = line.split("\t")
            if len(cols) == 10:
                cols[6] = cols[7] = "_"
                cols[4] = "_"  # no XPOS either: the tagger fills it in
            rows.append("\t".join(cols))
        stripped.append("\n".join(rows))
    src = tmp_path / "in.conllu"
    src.write_text("\n\n".join(stripped) + "\n")
    deps = tmp_path / "out.conllu"
    code, _out, err = _run(capsys, src, "--parser", parser_file, "--deps-out", deps, "-o",
                          tmp_path / "out.mrg")
    assert code == 0
    assert "3 of 3 sentences parsed" in err
    trees = (tmp_path / "out.mrg").read_text().splitlines()
    assert len(trees) == 3
    written = deps.read_text()
    assert written.count("# sent_id") == 3  # comments kept
    assert all("_" not in line.split("\t")[4] for line in written.splitlines()
               if line and not line.startswith("#"))  # XPOS filled in
    assert [len(h) for h in _heads(written)] == [9, 11, 7]


def test_bad_lines_are_reported_and_the_rest_converted(tmp_path, capsys, parser_file):
    src = tmp_path / "in.txt"
    src.write_text("The committee approved the budget .\nbad \x07 bell\nPrices will rise .\n")
    code, out, err = _run(capsys, src, "--parser", parser_file)
    assert code == 0
    assert out.split("\n")[1] == ""  # an empty line where the bad sentence stood
    assert len(out.splitlines()) == 3
    assert _leaves(out.splitlines()[2])[0] == "Prices"
    problems = [line for line in err.splitlines() if "skipped" in line]
    assert problems == [f"pad parse: skipped {src}:2: control or undecodable character "
                        "U+0007 at column 5"]


@pytest.mark.parametrize("kind", ["txt", "conll"])
def test_a_line_too_long_is_refused_by_its_number(tmp_path, capsys, parser_file, kind):
    word = "x" * 200_000
    if kind == "txt":
        text = f"Dogs bark .\n{word} .\nCats sleep .\n"
    else:
        good = "1\tDogs\t_\t_\t_\t_\t_\t_\t_\t_\n2\tbark\t_\t_\t_\t_\t_\t_\t_\t_\n"
        text = good + "\n" + good.replace("Dogs", word) + "\n" + good
    src = tmp_path / f"long.{kind}"
    src.write_text(text)
    code, out, err = _run(capsys, src, "--parser", parser_file, "--tokenize")
    assert code == 0
    assert [bool(line) for line in out.split("\n")[:3]] == [True, False, True]
    line = 2 if kind == "txt" else 4
    length = len(text.split("\n")[line - 1])
    assert [x for x in err.splitlines() if "skipped" in x] == [
        f"pad parse: skipped {src}:{line}: line of {length:,} characters: longer than the "
        "10,000 a line may have"]


def test_bad_conll_sentences_are_reported(tmp_path, capsys, parser_file):
    good = "1\tDogs\t_\t_\t_\t_\t_\t_\t_\t_\n2\tbark\t_\t_\t_\t_\t_\t_\t_\t_\n"
    src = tmp_path / "in.conll"
    src.write_text(good + "\n1\tBad\t_\t_\n\n" + good + "\n1\tX\t_\t_\t_\t_\t3\t_\t_\t_\n"
                   "2\tY\t_\t_\t_\t_\t_\t_\t_\t_\n")
    code, out, err = _run(capsys, src, "--parser", parser_file)
    assert code == 0
    assert [bool(line) for line in out.split("\n")[:4]] == [True, False, True, False]
    assert f"{src}:4: expected 10 tab-separated columns, found 4" in err
    assert f"{src}:9: some HEAD columns are filled and some are _" in err
    assert "2 of 4 sentences parsed" in err


def test_conll_ranges_and_empty_nodes_are_checked(tmp_path, capsys, parser_file):
    good = "1\tDogs\t_\t_\t_\t_\t_\t_\t_\t_\n2\tbark\t_\t_\t_\t_\t_\t_\t_\t_\n"
    src = tmp_path / "ids.conllu"
    src.write_text("1-2\tDogsbark\t_\t_\t_\t_\t_\t_\t_\t_\n" + good + "\n"
                   "1-9\tDogsbark\t_\t_\t_\t_\t_\t_\t_\t_\n" + good + "\n"
                   + good.replace("\n2", "\n0.1\tx\t_\t_\t_\t_\t_\t_\t_\t_\n2"))
    code, out, err = _run(capsys, src, "--parser", parser_file)
    assert code == 0
    assert [bool(line) for line in out.split("\n")[:3]] == [True, False, False]
    assert [x.split("skipped ")[1] for x in err.splitlines() if "skipped" in x] == [
        f"{src}:5: multiword range 1-9 goes beyond the sentence's last word (2)",
        f"{src}:10: empty node 0.1 is out of sequence (expected 1.1: empty node N.M follows "
        "word N, and M counts from 1)"]


def test_tokenize_and_kbest(tmp_path, capsys, parser_file):
    src = tmp_path / "in.txt"
    src.write_text("The committee doesn't approve budgets.\n")
    code, out, _ = _run(capsys, src, "--parser", parser_file, "--tokenize", "--kbest", "3")
    assert code == 0
    block = out.split("\n\n")[0].splitlines()
    assert 1 <= len(block) <= 3
    score, tree = block[0].split("\t")
    float(score)
    assert _leaves(tree) == ["The", "committee", "does", "n't", "approve", "budgets", "."]


def test_a_bad_parser_file_is_one_line(tmp_path, capsys):
    src = tmp_path / "in.txt"
    src.write_text("Dogs bark .\n")
    bad = tmp_path / "bad.padparser"
    bad.write_text("not a model")
    code, _, err = _run(capsys, src, "--parser", bad)
    assert code == 1
    assert err.strip().count("\n") == 0
    assert "damaged or not a PAD Studio text model" in err


def test_conll_with_heads_keeps_them(tmp_path, capsys, parser_file):
    """A sentence whose HEAD column is filled is converted as given, only tagged if need be."""
    block = SAMPLE.read_text().split("\n\n")[0]
    src = tmp_path / "in.conllu"
    src.write_text(block + "\n\n")
    deps = tmp_path / "out.conllu"
    code, _, _ = _run(capsys, src, "--parser", parser_file, "--deps-out", deps)
    assert code == 0
    assert deps.read_text() == block + "\n\n"


def test_train_deps_bits_sets_the_arc_table_and_is_checked(tmp_path, capsys):
    from pad_engine.parsing.model import TextModel

    out = tmp_path / "small.padparser"
    assert main(["train-deps", str(SAMPLE), "-o", str(out), "--bits", "17", "--epochs", "1",
                 "--tagger-epochs", "1"]) == 0
    model = TextModel.load(out)
    assert model.arc_weights.shape == (1 << 17,)
    assert model.training["arc_bits"] == 17
    capsys.readouterr()
    assert main(["train-deps", str(SAMPLE), "-o", str(tmp_path / "x.padparser"),
                 "--bits", "40"]) != 0
    assert "--bits must be between 16 and 26, not 40" in capsys.readouterr().err
