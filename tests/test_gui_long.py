"""Long sentences at a laptop's 1366x768, driven by keys and clicks: a 60-word sentence fits
the width without a scroll bar (drawn compact), phrases collapse and expand, Ctrl+G goes to
a word, Ctrl+2 zooms to the selection; and a candidate's dropped brackets of candidate 1 are
drawn. The 60-word sentence is made from the sample's 30-word one, so these always run."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_gui_app
from guikit import SAMPLE
from PySide6.QtCore import QPoint, Qt
from test_gui_app import LONG, go, key

from pad_engine.api import removed_brackets
from pad_gui.parse_items import NodeItem
from pad_gui.window import MainWindow

pytestmark = pytest.mark.usefixtures("isolated_settings")
window = test_gui_app.window  # the sample open with the tiny model


def sixty_words(tmp_path: Path) -> Path:
    """The sample with a 60-word sentence appended: its 30-word sentence twice, the second
    copy's root a dependent of the first's."""
    blocks = SAMPLE.read_text().strip().split("\n\n")
    rows = [line.split("\t") for line in blocks[LONG].splitlines() if not line.startswith("#")]
    root = next(r[0] for r in rows if r[6] == "0")
    twice = ["\t".join(r) for r in rows]
    for r in rows:
        head = str(int(r[6]) + len(rows)) if r[6] != "0" else root
        twice.append("\t".join([str(int(r[0]) + len(rows)), *r[1:6], head,
                                r[7] if r[6] != "0" else "VMOD", *r[8:]]))
    path = tmp_path / "long.conllu"
    path.write_text("\n\n".join([*blocks, "\n".join(twice)]) + "\n\n")
    return path


@pytest.fixture
def laptop(qtbot, tiny_model, tmp_path):
    """The window at 1366x768 on the 60-word sentence."""
    window = MainWindow(tiny_model)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: window.engine_ready, timeout=180000)  # a busy machine compiles slowly
    window.open_path(sixty_words(tmp_path))
    qtbot.waitUntil(window.decoded_current, timeout=30000)
    go(window, qtbot, len(window.session) - 1)
    assert len(window.session.sentences[window.current].forms) == 60
    yield window
    window.close()


def click_tree(qtbot, window) -> None:
    """Click the tree's background: the keyboard goes to the tree."""
    qtbot.mouseClick(window.view.viewport(), Qt.LeftButton, pos=QPoint(3, 3))
    assert window.view.hasFocus()


def no_horizontal_scroll(window) -> bool:
    bar = window.view.horizontalScrollBar()
    return bar.maximum() == 0 and not bar.isVisible()


def test_sixty_words_fit_the_width_legibly(laptop, qtbot, tmp_path):
    view = laptop.view
    assert no_horizontal_scroll(laptop), (view.horizontalScrollBar().maximum(),
                                          laptop.scene.sceneRect(), view.viewport().width())
    assert view.transform().m11() >= view.smallest  # labels stay legible
    key(qtbot, laptop, Qt.Key_1, Qt.ControlModifier)  # Actual Size: wider than the view
    assert view.horizontalScrollBar().maximum() > 0
    key(qtbot, laptop, Qt.Key_0, Qt.ControlModifier)  # Fit Width: back to the whole width
    assert no_horizontal_scroll(laptop)
    laptop.grab().save(str(tmp_path / "sixty.png"))


def test_collapse_and_expand_by_key(laptop, qtbot):
    scene = laptop.scene
    click_tree(qtbot, laptop)
    key(qtbot, laptop, Qt.Key_Home)
    key(qtbot, laptop, Qt.Key_Down)  # the root's head child
    path = scene.selected_paths()[0]
    inside = len(scene.nodes)
    key(qtbot, laptop, Qt.Key_C)
    shut = [n for n in scene.nodes if n.collapsed]
    assert [n.path for n in shut] == [path]
    assert len(scene.nodes) < inside
    assert scene.selected_paths() == [path]
    assert shut[0].text.startswith(shut[0].node.label)  # its words follow its label
    assert no_horizontal_scroll(laptop)
    key(qtbot, laptop, Qt.Key_C)
    assert not any(n.collapsed for n in scene.nodes)
    assert len(scene.nodes) == inside


def test_double_click_collapses_and_expands(laptop, qtbot):
    scene, view = laptop.scene, laptop.view
    item = next(n for n in scene.nodes if n.node.word < 0 and n.path)
    path = item.path

    def double_click() -> None:
        target = next(n for n in scene.nodes if n.path == path)
        view.ensureVisible(target)
        qtbot.mouseDClick(view.viewport(), Qt.LeftButton,
                          pos=view.mapFromScene(target.scenePos()))

    double_click()
    assert [n.path for n in scene.nodes if n.collapsed] == [path]
    double_click()
    assert not any(n.collapsed for n in scene.nodes)


def test_go_to_word_by_keys(laptop, qtbot):
    view, scene = laptop.view, laptop.scene
    key(qtbot, laptop, Qt.Key_G, Qt.ControlModifier)
    assert view.word_field.isVisible()
    assert view.word_field.hasFocus()
    qtbot.keyClicks(view.word_field, "45")
    qtbot.keyClick(view.word_field, Qt.Key_Return)
    assert not view.word_field.isVisible()
    selected = scene.selected_items()
    assert [n.node.word for n in selected] == [44]  # word 45's tag
    word = scene.words[44]
    assert word.lit
    assert view.viewport().rect().contains(view.mapFromScene(word.scenePos()))


def test_zoom_to_selection(laptop, qtbot):
    view, scene = laptop.view, laptop.scene
    before = view.transform().m11()
    click_tree(qtbot, laptop)
    key(qtbot, laptop, Qt.Key_Home)
    key(qtbot, laptop, Qt.Key_Down)
    key(qtbot, laptop, Qt.Key_Down)  # a phrase well inside the sentence
    item: NodeItem = scene.selected_items()[0]
    key(qtbot, laptop, Qt.Key_2, Qt.ControlModifier)
    assert not view.fitting
    assert view.transform().m11() > before
    shown = view.mapToScene(view.viewport().rect()).boundingRect()
    assert shown.contains(scene.words[item.span[0]].sceneBoundingRect().center())
    assert shown.contains(scene.words[item.span[1]].sceneBoundingRect().center())


DROPPING = 6  # a sample sentence whose second candidate drops a phrase of the first


def test_a_candidate_draws_the_brackets_it_drops(window, qtbot):
    go(window, qtbot, DROPPING)
    candidates = window.session.decoded(DROPPING)
    first = candidates[0].tree
    dropping = next(i for i, c in enumerate(candidates[1:9], 1)
                    if removed_brackets(first, c.tree))
    key(qtbot, window, getattr(Qt, f"Key_{dropping + 1}"))
    assert window.session.view(DROPPING).chosen == dropping
    drawn = {item.bracket for item in window.scene.removed}
    assert drawn == removed_brackets(first, candidates[dropping].tree)
    key(qtbot, window, Qt.Key_1)  # candidate 1 drops nothing
    assert window.scene.removed == []


def test_a_sentence_of_thousands_of_words_leaves_the_tree_its_room(qtbot, tiny_model, tmp_path):
    """The sentence above the tree is cut after a few hundred characters (all of it in the
    tooltip): a 3,000-word sentence filled the pane and left the tree a strip at 1366x768.
    Its words are text, not markup: a word ``<b>`` shows as typed."""
    words = ["<b>", "&amp;", *(f"w{i}" for i in range(3, 3001))]
    path = tmp_path / "huge.conllu"
    path.write_text("".join(f"{i}\t{w}\t_\tNN\tNN\t_\t{0 if i == 1 else 1}\tdep\t_\t_\n"
                            for i, w in enumerate(words, 1)) + "\n")
    window = MainWindow(tiny_model)
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.engine_ready, timeout=180000)
    window.open_path(path)
    qtbot.waitUntil(window.decoded_current, timeout=120000)
    shown = window.title.text().split("<br>", 1)[1]
    assert shown.startswith("&lt;b&gt; &amp;amp; w3 w4")
    assert shown.endswith(" …")
    assert len(shown) < 1000
    assert window.title.toolTip().startswith("&lt;b&gt; &amp;amp; w3")
    assert window.view.height() > 300
    window.close()
