"""Text in the app: a plain text file, or CoNLL without heads, opens with predicted arcs
and their c-parses."""

from __future__ import annotations

import pytest
from guikit import SAMPLE

from pad_engine.api import read_for_annotation
from pad_engine.trees.deptree import tree_problem

TEXT = "The cat sat on the mat .\nPrices rose sharply in Tokyo .\n\nIt rained .\n"


def test_plain_text_reads_with_predicted_arcs(tmp_path):
    path = tmp_path / "story.txt"
    path.write_text(TEXT, encoding="utf-8")
    result = read_for_annotation(path)
    assert [s.forms[:2] for s in result.sentences] == [["The", "cat"], ["Prices", "rose"],
                                                       ["It", "rained"]]
    assert [s.line for s in result.sentences] == [1, 2, 4]
    for sent in result.sentences:
        assert tree_problem(sent.heads) is None
        assert all(r != "_" for r in sent.rels)
        assert all(t != "_" for t in sent.tags)
        assert len(sent.lines) == len(sent.forms)  # CoNLL lines carrying the predicted arcs
    assert "arcs predicted by the text model english-ewt-ud.padparser" in result.note


def test_conll_without_heads_gets_arcs_and_conll_with_heads_keeps_its_own(tmp_path):
    rows = ["1\tDogs\t_\t_\t_\t_\t_\t_\t_\t_", "2\tbark\t_\t_\t_\t_\t_\t_\t_\t_",
            "3\t.\t_\t_\t_\t_\t_\t_\t_\t_"]
    bare = tmp_path / "bare.conllu"
    bare.write_text("# sent_id = a\n" + "\n".join(rows) + "\n\n", encoding="utf-8")
    result = read_for_annotation(bare)
    assert result.sentences[0].sent_id == "a"
    assert tree_problem(result.sentences[0].heads) is None
    given = tmp_path / "given.conllu"
    given.write_text("1\tDogs\t_\tNOUN\tNNS\t_\t0\troot\t_\t_\n"
                     "2\tbark\t_\tVERB\tVBP\t_\t1\tacl\t_\t_\n\n", encoding="utf-8")
    kept = read_for_annotation(given)
    assert kept.sentences[0].heads == [0, 1]
    assert kept.note is None


@pytest.mark.usefixtures("isolated_settings")
def test_the_app_opens_a_text_file_and_shows_candidates(qtbot, tmp_path):
    from pad_gui.window import MainWindow

    path = tmp_path / "story.txt"
    path.write_text(TEXT, encoding="utf-8")
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    qtbot.waitUntil(lambda: window.engine_ready, timeout=60000)
    said = []
    window.workspace.message.connect(lambda text, *_: said.append(text))
    assert window.open_path(path)
    qtbot.waitUntil(window.decoded_current, timeout=60000)
    assert len(window.session) == 3
    assert any("arcs predicted by the text model" in text for text in said), said
    # and the model panel keeps saying so after the status bar has moved on
    qtbot.waitUntil(lambda: "arcs predicted by the text model english-ewt-ud.padparser"
                    in window.model_label.text(), timeout=10000)
    assert window.workspace.session.view(0).heads == tuple(window.session.sentences[0].heads)
    window.grab().save(str(tmp_path / "text.png"))
    window.open_path(SAMPLE)  # d-parsed: nothing predicted
    qtbot.waitUntil(lambda: "arcs predicted" not in window.model_label.text(), timeout=10000)
    window.close()


@pytest.mark.usefixtures("isolated_settings")
def test_the_open_dialog_takes_an_encoding(qtbot, tmp_path, tiny_model):
    from guikit import answer_open_dialog

    from pad_gui.window import MainWindow

    rows = [("Iñigo", "NNP", 2), ("llegó", "VBD", 0), (".", ".", 2)]
    path = tmp_path / "es.conll"
    path.write_bytes("".join(f"{i}\t{w}\t_\t{t}\t{t}\t_\t{h}\tdep\t_\t_\n"
                             for i, (w, t, h) in enumerate(rows, 1)).encode("latin-1") + b"\n")
    window = MainWindow(tiny_model)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.engine_ready, timeout=60000)
    said = []
    window.workspace.message.connect(lambda text, *_: said.append(text))
    answer_open_dialog(path, "latin-1")
    window.open_dialog()
    assert window.session.sentences[0].forms[:2] == ["Iñigo", "llegó"]
    assert not any("not UTF-8" in text for text in said)  # decoded as told: nothing to warn
    answer_open_dialog(path)  # detect: the same words, and the status names the encoding
    window.open_dialog()
    assert window.session.sentences[0].forms[0] == "Iñigo"
    assert any("read as cp1252" in text for text in said), said
    window.close()
