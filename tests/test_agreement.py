"""``pad agree``: its bracket figures are ``pad eval``'s on the same pair, its arc figures
those of ``pad eval --deps``, and it lists what differs."""

from __future__ import annotations

import re

from pad_engine.cli import main


def _eval_figures(out: str) -> tuple[str, str]:
    summary = out[out.index("-- All --"):]
    f1 = re.search(r"Bracketing FMeasure\s+=\s+(\S+)", summary).group(1)
    exact = re.search(r"Complete match\s+=\s+(\S+)", summary).group(1)
    return f1, exact


def test_bracket_figures_equal_pad_eval(evalb_dir, capsys):
    gold, test = str(evalb_dir / "gold.mrg"), str(evalb_dir / "test_perturbed.mrg")
    assert main(["eval", gold, test]) == 0
    f1, exact = _eval_figures(capsys.readouterr().out)
    assert main(["agree", "--quiet", gold, test]) == 0
    out = capsys.readouterr().out
    assert f"Bracket F1 {f1}, exact match {exact}%" in out


def test_per_sentence_rows_and_disagreements(tmp_path, capsys):
    a = tmp_path / "a.mrg"
    b = tmp_path / "b.mrg"
    a.write_text("(TOP (S (NP (DT the) (NN dog)) (VP (VBD saw) (NP (PRP me)))))\n"
                 "(TOP (S (NP (NNS dogs)) (VP (VBP bark))))\n", encoding="utf-8")
    b.write_text("(TOP (S (NP (DT the) (NN dog)) (VP (VBD saw) (NP (PRP me)))))\n"
                 "(TOP (S (ADJP (NNS dogs)) (VP (VBP bark))))\n", encoding="utf-8")
    assert main(["agree", str(a), str(b)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split() == ["1", "100.00", "yes", "0"]
    assert out[2].split()[:3] == ["2", "66.67", "no"]
    assert "1 of 2 sentences differ" in out
    last = out[-1]
    assert last.startswith("sentence 2: only in A: NP 1-1; only in B: ADJP 1-1; arcs: word 1")
    b.write_text(a.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    assert main(["agree", str(a), str(b)]) == 1
    assert "1 trees here but 2 in" in capsys.readouterr().err


def test_arc_figures_equal_pad_eval_deps(tmp_path, capsys):
    rows = [("The", "DT", 2, "det"), ("dog", "NN", 3, "nsubj"), ("barked", "VBD", 0, "root"),
            (".", ".", 3, "punct")]
    a = tmp_path / "a.conllu"
    b = tmp_path / "b.conllu"

    def write(path, changes):
        lines = []
        for i, (form, tag, head, rel) in enumerate(rows, 1):
            head, rel = changes.get(i, (head, rel))
            lines.append(f"{i}\t{form}\t_\t{tag}\t{tag}\t_\t{head}\t{rel}\t_\t_")
        path.write_text("\n".join(lines) + "\n\n", encoding="utf-8")

    write(a, {})
    write(b, {1: (3, "det"), 2: (3, "obj")})
    assert main(["eval", "--deps", str(a), str(b)]) == 0
    ev = capsys.readouterr().out
    uas = re.search(r"UAS\s+(\S+)", ev).group(1)
    las = re.search(r"LAS\s+(\S+)", ev).group(1)
    assert main(["agree", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert f"UAS {uas}, LAS {las}" in out
    assert "sentence 1: arcs: word 1 2 det / 3 det, word 2 3 nsubj / 3 obj" in out


def _project(path, trees: dict[int, str]) -> None:
    """A project as the app writes it, with the annotator's tree of some sentences."""
    from pad_gui.store import ProjectStore

    store = ProjectStore(path)
    for idx, penn in trees.items():
        store.save_view(f"k{idx}", idx, f"words {idx}", 0, [0], None, None, penn)
    store.close()


def test_two_projects_are_compared_on_the_sentences_both_annotated(tmp_path, capsys):
    """Two annotators' projects of one file: pad agree pairs the sentences both made a tree
    of by sentence, numbers them as in the file, and scores them as pad eval scores the
    same trees."""
    same = "(TOP (S (NP (DT the) (NN dog)) (VP (VBD saw) (NP (PRP me)))))"
    a_tree = "(TOP (S (NP (NNS dogs)) (VP (VBP bark))))"
    b_tree = "(TOP (S (ADJP (NNS dogs)) (VP (VBP bark))))"
    a, b = tmp_path / "a.padproject", tmp_path / "b.padproject"
    _project(a, {0: same, 3: a_tree, 5: same})
    _project(b, {0: same, 3: b_tree, 7: same})
    assert main(["agree", str(a), str(b)]) == 0
    captured = capsys.readouterr()
    assert "2 sentences hold a tree in both projects (3 in A, 3 in B)" in captured.err
    rows = captured.out.splitlines()
    assert rows[1].split()[:3] == ["1", "100.00", "yes"]
    assert rows[2].split()[:3] == ["4", "66.67", "no"]
    gold, test = tmp_path / "a.mrg", tmp_path / "b.mrg"
    gold.write_text(f"{same}\n{a_tree}\n", encoding="utf-8")
    test.write_text(f"{same}\n{b_tree}\n", encoding="utf-8")
    assert main(["eval", str(gold), str(test)]) == 0
    f1, exact = _eval_figures(capsys.readouterr().out)
    assert f"Bracket F1 {f1}, exact match {exact}%" in captured.out


def test_a_file_that_is_not_a_project_is_one_message(tmp_path, capsys):
    import sqlite3

    fake = tmp_path / "x.padproject"
    db = sqlite3.connect(fake)
    db.execute("CREATE TABLE sentence (key TEXT)")
    db.commit()
    db.close()
    junk = tmp_path / "y.padproject"
    junk.write_bytes(b"not sqlite at all\n" * 100)
    for path in (fake, junk):
        assert main(["agree", str(path), str(path)]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1, err
        assert f"{path}: not a PAD Studio project" in err[0], err
