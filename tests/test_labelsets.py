"""Label sets for the rule-based projection: the file format, relabeling and dropping, sets
learned from corrected trees, the choice between them and a retrained model, pad convert."""

from __future__ import annotations

import re

import pytest

from pad_engine.cli import main
from pad_engine.decoding.labelsets import parse_label_set
from pad_engine.decoding.projection import LABELS, project
from pad_engine.decoding.rulebased import RuleBasedEngine, label_set, learn_label_set
from pad_engine.errors import InputError
from pad_engine.io.conll import format_conllx
from pad_engine.resources import resource_path
from pad_engine.trees.deptree import DepSentence
from pad_engine.trees.lextree import LexNode, induced_heads, to_line

# "the cat sat on the mat ." in UD: the projection's tree is PTB-shaped
ROWS = [("the", "DET", 2, "det"), ("cat", "NOUN", 3, "nsubj"), ("sat", "VERB", 0, "root"),
        ("on", "ADP", 6, "case"), ("the", "DET", 6, "det"), ("mat", "NOUN", 3, "obl"),
        (".", "PUNCT", 3, "punct")]
SENT = DepSentence(*[list(col) for col in zip(*ROWS)])
# the same sentence as a treebank without VP and with lower-case labels has it
GOLD = "(TOP (smain (np (DET the) (NOUN cat)) (VERB sat) (pp (ADP on) (np (DET the) " \
       "(NOUN mat))) (PUNCT .)))"


def _gold_lex(line: str, sent: DepSentence) -> LexNode:
    """A corrected tree as the app keeps it (heads from the d-parse's root distances)."""
    from nltk import Tree

    from pad_engine.learning.pairs import Pair, guided_lextree

    return guided_lextree(Pair(sent.forms, sent.tags, sent.heads, Tree.fromstring(line), "t:1"))


def _labels(line: str) -> list[str]:
    return re.findall(r"\((\S+) (?=\()", line)


def test_ptb_is_the_projection_unchanged():
    tree = RuleBasedEngine(label_set("ptb")).best(SENT).tree
    assert to_line(tree, SENT.forms) == to_line(
        project(SENT.forms, SENT.tags, SENT.heads, SENT.rels), SENT.forms)
    assert "VP" in _labels(to_line(tree, SENT.forms))


def test_ud_generic_labels_are_generic_and_documented():
    engine = RuleBasedEngine(label_set("ud-generic"))
    line = to_line(engine.best(SENT).tree, SENT.forms)
    assert set(_labels(line)) == {"TOP", "CL", "NP", "VP", "PP"}
    text = resource_path("labels", "ud-generic.labels").read_text()
    documented = set(re.findall(r"^#\s+(\S+)\s", text, re.M)) | set(
        re.findall(r";\s+(\S+)\s", text))
    assert set(engine.phrase_labels()) <= documented  # every label it writes is explained
    assert not {"SBAR", "WHNP", "SINV"} & set(engine.phrase_labels())


def test_most_specific_rule_wins_and_dash_drops_a_level():
    rules = parse_label_set("* * * x\nNP * * np\nNP DET * det-np\nNP NOUN nsubj subj\n"
                            "VP * * -\n", "t.labels", LABELS)
    assert rules.label("NP", "NOUN", "nsubj") == "subj"
    assert rules.label("NP", "NOUN", "obl") == "np"
    assert rules.label("NP", "DET", "obl") == "det-np"
    assert rules.label("S", "VERB", "root") == "x"
    tree = RuleBasedEngine(rules).best(SENT).tree
    line = to_line(tree, SENT.forms)
    assert "VP" not in line
    assert "(x (subj (DET the) (NOUN cat)) (VERB sat)" in line
    assert induced_heads(tree, len(SENT.forms)) == SENT.heads  # still the input d-parse


@pytest.mark.parametrize(("text", "problem"), [
    ("NP * np\n", "expected 4 columns"),
    ("# fine\nNOPE * * np\n", "unknown phrase 'NOPE'"),
    ("TOP * * root\n", "TOP is the root"),
    ("NP * * n(p\n", "cannot be written"),
    ("NP * * np\nNP * * nx\n", "mapped to np on line 1 and to nx here"),
])
def test_bad_rules_name_file_and_line(tmp_path, text, problem):
    path = tmp_path / "bad.labels"
    path.write_text(text)
    line = text.count("\n")
    with pytest.raises(InputError, match=re.escape(problem)) as err:
        label_set(str(path))
    assert str(err.value).startswith(f"{path}:{line}:")


def test_learned_labels_reproduce_the_corrected_tree():
    learned = learn_label_set([(SENT, _gold_lex(GOLD, SENT))])
    assert learned.rules[("VP", "*", "*")] == "-"
    assert to_line(RuleBasedEngine(learned).best(SENT).tree, SENT.forms) == GOLD
    again = parse_label_set(learned.to_text(), "learned.labels", LABELS)
    assert again.rules == learned.rules  # a learned set is a label-set file


def test_fewer_than_three_corrected_trees_learn_labels_more_train_a_model():
    from pad_engine.decoding.engine import Engine
    from pad_engine.learning.adapt import MODEL_FROM, from_corrected
    from pad_engine.learning.train import example_from_lextree

    example = example_from_lextree(_gold_lex(GOLD, SENT), SENT.forms, SENT.rels)
    few = from_corrected([example] * (MODEL_FROM - 1))
    assert isinstance(few.engine, RuleBasedEngine)
    assert "labels learned" in few.reason
    assert to_line(few.engine.best(SENT).tree, SENT.forms) == GOLD
    many = from_corrected([example] * MODEL_FROM)
    assert isinstance(many.engine, Engine)
    assert many.engine.model.dep_labels
    assert to_line(many.engine.best(SENT).tree, SENT.forms) == GOLD


def _conll(tmp_path, sents: list[DepSentence]):
    path = tmp_path / "in.conll"
    path.write_text("".join(format_conllx(s.forms, s.tags, s.heads, s.rels) + "\n"
                            for s in sents))
    return path


def test_convert_label_set_and_corrected(tmp_path, capsys):
    conll = _conll(tmp_path, [SENT])
    out = tmp_path / "out.mrg"
    assert main(["convert", str(conll), "-o", str(out), "--label-set", "ud-generic"]) == 0
    assert "(CL (NP" in out.read_text()
    trees = tmp_path / "corrected.mrg"
    trees.write_text(GOLD + "\n")
    assert main(["convert", str(conll), "-o", str(out), "--corrected", str(trees),
                 str(conll)]) == 0
    assert out.read_text().strip() == GOLD
    assert "labels learned from 1 corrected tree" in capsys.readouterr().err
    assert main(["convert", str(conll), "--label-set", "ptb", "--model", "m.padmodel"]) == 1
    assert "--model and --label-set exclude each other" in capsys.readouterr().err
    assert main(["convert", str(conll), "--label-set", "klingon"]) == 1
    assert "klingon: no such label set" in capsys.readouterr().err
