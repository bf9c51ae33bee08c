"""The bundled UD model re-attaches coordinators (``Model.reattach``): in the app its tree
puts them beside the conjuncts, and editing that tree leaves the file's UD arcs as they
were (driven by keys and clicks)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from test_gui_app import click_node, key, new_window, tree

from pad_engine.resources import resource_path

pytestmark = pytest.mark.usefixtures("isolated_settings")

UD = """# sent_id = c-1
# text = Cats, dogs and birds sleep.
1	Cats	cat	NOUN	NNS	_	6	nsubj	_	SpaceAfter=No
2	,	,	PUNCT	,	_	3	punct	_	_
3	dogs	dog	NOUN	NNS	_	1	conj	_	_
4	and	and	CCONJ	CC	_	5	cc	_	_
5	birds	bird	NOUN	NNS	_	1	conj	_	_
6	sleep	sleep	VERB	VBP	_	0	root	_	SpaceAfter=No
7	.	.	PUNCT	.	_	6	punct	_	_

"""
FILE_HEADS = (6, 3, 1, 5, 1, 0, 6)


@pytest.fixture
def window(qtbot, tmp_path):
    path = tmp_path / "coord.conllu"
    path.write_text(UD, encoding="utf-8")
    window = new_window(qtbot, resource_path("models", "english-gum-ud.padmodel"))
    window.open_path(path)
    qtbot.waitUntil(window.decoded_current, timeout=60000)
    yield window
    window.close()


def test_coordinators_stand_beside_the_conjuncts_and_edits_keep_the_file_arcs(window, qtbot):
    assert window.workspace.reattach_scheme == "penn"
    subject = tree(window).children[0].children[0]
    labels = [c.label for c in subject.children]  # "and" and "," beside the conjuncts
    assert len(labels) == 5
    assert labels[1] == ","
    assert labels[3] == "CC"
    click_node(qtbot, window, (0, 0))
    key(qtbot, window, Qt.Key_F2)
    qtbot.keyClicks(window.label_edit, "NP-SBJ")
    qtbot.keyClick(window.label_edit, Qt.Key_Return)
    assert tree(window).children[0].children[0].label == "NP-SBJ"
    assert window.session.view(0).heads == FILE_HEADS
