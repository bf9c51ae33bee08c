"""Choosing the converter that fits an input, and lifted arcs on the command line."""

from __future__ import annotations

import itertools

import pytest

from pad_engine.cli import main
from pad_engine.decoding.choice import choose, dependency_style
from pad_engine.decoding.rulebased import RuleBasedEngine
from pad_engine.io.conll import format_conllx, read_conll
from pad_engine.trees.attachment import PENN, reattach
from pad_engine.trees.deptree import DepSentence, is_projective
from pad_engine.trees.lextree import induced_heads
from pad_engine.trees.projectivize import projectivize


def ptb_sentences(ptb_dir, files=range(160, 170)) -> list[DepSentence]:
    from pad_engine.learning.bench import load_split

    examples = load_split(ptb_dir, files, "collins")
    return [DepSentence(ex.forms, ex.tags, ex.heads) for ex in examples]


def test_collins_dparses_get_the_ptb_model(ptb_dir):
    sents = ptb_sentences(ptb_dir)
    assert dependency_style(sents).name == "collins"
    choice = choose(sents)
    assert choice.name == "english-ptb-collins"
    assert "Collins-style" in choice.reason
    # the default reads the rule-based projection and has the back-off grammar (the strongest
    # recipe); its fast twin has neither
    assert choice.engine.model.reads_projection
    assert choice.engine.model.training["backoff"]
    fast = choose(sents, fast=True)
    assert fast.name == "english-ptb-collins-fast"
    assert not fast.engine.model.reads_projection
    assert not fast.engine.model.training["backoff"]


def test_ud_dparses_get_the_ud_model_with_or_without_relation_names(ewt_dir):
    sents = read_conll(ewt_dir / "en_ewt-ud-dev.conllu").sentences
    style = dependency_style(sents[:500])
    assert style.name == "ud"
    assert style.ud_relations > 0.99
    assert style.heading_prepositions < 0.2
    unnamed = [DepSentence(s.forms, s.tags, s.heads) for s in sents[:500]]
    assert dependency_style(unnamed).name == "ud"  # the structure alone tells
    choice = choose(sents)
    assert choice.name == "english-gum-ud"
    assert "UD-style" in choice.reason
    assert choose(sents, fast=True).name == "english-gum-ud"  # no twin: fast already
    # the UD model's trees are consistent with the (lifted) UD d-parses, their conjuncts'
    # coordinators and punctuation re-attached where Penn trees put them
    model = choice.engine.model
    assert model.reattach == PENN
    moved = 0
    for sent in sents[:100]:
        cand = choice.engine.best(sent)
        heads, lifts = reattach(projectivize(sent.heads)[0], sent.tags, sent.rels,
                               model.reattach)
        assert induced_heads(cand.tree, len(sent.forms)) == heads
        moved += len(lifts)
    assert moved > 10


def test_unknown_tags_fall_back_to_the_rule_based_projection(gsd_dir):
    sents = read_conll(gsd_dir / "zh_gsd-ud-dev.conllu").sentences
    choice = choose(sents)
    assert isinstance(choice.engine, RuleBasedEngine)
    assert "no bundled model fits" in choice.reason
    assert choice.engine.best(sents[0]).how == "rules"


def test_convert_picks_the_model_and_reports_lifted_arcs(ewt_dir, tmp_path, capsys):
    sents = read_conll(ewt_dir / "en_ewt-ud-dev.conllu").sentences
    bad = [s for s in sents if not is_projective(s.heads)][:3]
    chosen = list(itertools.islice((s for s in sents if is_projective(s.heads)), 5)) + bad
    src = tmp_path / "mixed.conllu"
    src.write_text("".join("\n".join(s.lines) + "\n\n" for s in chosen), encoding="utf-8")
    out = tmp_path / "out.mrg"
    assert main(["convert", str(src), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "english-gum-ud: UD-style" in err
    assert err.count("non-projective, lifted") == 3
    assert "8 of 8 sentences converted, 3 lifted to projective or re-rooted" in err
    assert len(out.read_text(encoding="utf-8").splitlines()) == 8


def test_convert_rules_and_model_options(ptb_dir, tmp_path, capsys):
    sents = ptb_sentences(ptb_dir, range(160, 161))
    src = tmp_path / "collins.conll"
    src.write_text("".join(format_conllx(s.forms, s.tags, s.heads, ["_"] * len(s.forms)) + "\n"
                           for s in sents), encoding="utf-8")
    assert main(["convert", str(src), "-o", str(tmp_path / "a.mrg")]) == 0
    assert "english-ptb-collins: Collins-style" in capsys.readouterr().err
    assert main(["convert", str(src), "--rules", "-o", str(tmp_path / "b.mrg")]) == 0
    assert "english" not in capsys.readouterr().err
    assert main(["convert", str(src), "--rules", "--model", "x.padmodel"]) == 1
    assert "exclude each other" in capsys.readouterr().err
    assert main(["convert", str(src), "--fast", "-o", str(tmp_path / "c.mrg")]) == 0
    assert "english-ptb-collins-fast: Collins-style" in capsys.readouterr().err
    assert main(["convert", str(src), "--fast", "--model", "x.padmodel"]) == 1
    assert "--model and --fast exclude each other" in capsys.readouterr().err


@pytest.mark.slow
def test_convert_dir_picks_the_model_that_fits_each_file(ewt_dir, tmp_path, capsys):
    import json

    sents = read_conll(ewt_dir / "en_ewt-ud-dev.conllu").sentences[:40]
    (tmp_path / "in" / "sub").mkdir(parents=True)
    (tmp_path / "in" / "sub" / "part.conllu").write_text(
        "".join("\n".join(s.lines) + "\n\n" for s in sents), encoding="utf-8")
    assert main(["convert-dir", str(tmp_path / "in"), str(tmp_path / "out"), "--jobs", "1"]) == 0
    assert "converted with english-gum-ud (UD-style" in capsys.readouterr().err
    report = json.loads((tmp_path / "out" / "pad-convert-report.json").read_text())
    assert report["files"][0]["model"].startswith("english-gum-ud")


def test_bench_ud_row_counts_every_sentence_by_the_pass_that_settled_it(ewt_dir, tmp_path):
    from pad_engine.learning.bench import format_ud, ud_figures

    text = next(ewt_dir.glob("*train.conllu")).read_text(encoding="utf-8")
    blocks = text.split("\n\n")[:60]
    (tmp_path / "en_ewt-ud-train.conllu").write_text("\n\n".join(blocks) + "\n\n",
                                                      encoding="utf-8")
    f = ud_figures(tmp_path)
    assert f["ud_sentences"] == 60 == sum(f["ud_passes"].values())
    assert set(f["ud_passes"]) <= {"pruned", "exact", "glue", "fallback"}
    assert f["ud_end_to_end_sent_per_s"] > 0
    row = format_ud(f)
    assert "60 sentences" in row
    assert all(f"{k} {v}" in row for k, v in f["ud_passes"].items())
