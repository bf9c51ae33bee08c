"""Every action of the app, declared once: its name, menu text, keys, what it does, where it
sits. The window builds its menus, toolbar and shortcuts from :data:`ACTIONS`, and Help > Keys
and Mouse is generated from it (with :data:`GESTURES`, the keys and mouse moves that belong
to one panel rather than to an action). No Qt here: keys are portable key-sequence strings.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

WINDOW = "window"  # the keys work anywhere in the window
TREE = "tree"  # only while the tree has the focus (Home and H would otherwise clash)
LABEL = "label"  # only in the label field

MENUS = ("File", "Edit", "View", "Model", "Help")


@dataclass(frozen=True)
class Action:
    """One command. ``keys``: key sequences, the first one shown in the menu; ``menu``:
    None for keys-only actions; ``group``: a separator goes between groups of a menu."""

    name: str
    text: str
    description: str
    keys: tuple[str, ...] = ()
    menu: str | None = None
    group: int = 0
    scope: str = WINDOW
    toolbar: str = ""  # the toolbar button's text, "" when not on the toolbar
    checkable: bool = False  # an option that is on or off

    @property
    def plain(self) -> str:
        """The menu text without its mnemonic marker and ellipsis."""
        return self.text.replace("&", "").rstrip("…")


ACTIONS: tuple[Action, ...] = (
    Action("open", "&Open…",
           "open a CoNLL-X or CoNLL-U file, Penn (.mrg) or Penn-Helsinki (.psd) trees, or text",
           ("Ctrl+O",), "File", toolbar="Open…"),
    Action("recent", "Open &Recent", "the files opened last", (), "File"),
    Action("save-project-as", "Save Project &As…",
           "keep this treebank's annotation project in another file", (), "File"),
    Action("export-penn", "Export &Penn Trees…",
           "every sentence: the corrected tree, else the picked candidate",
           ("Ctrl+Shift+E",), "File", 1),
    Action("export-corrected", "Export &Corrected Set…", "only the sentences marked corrected",
           (), "File", 1),
    Action("export-conll", "Export &Dependencies (CoNLL)…",
           "the file with the corrected arcs written back", (), "File", 1),
    Action("detached", "Detached &Corrections…",
           "corrections whose sentence changed in the file or left it: apply or export them",
           (), "File", 1),
    Action("compare", "Co&mpare With…",
           "another annotator's Penn trees of this file side by side: take a side",
           (), "File", 1),
    Action("batch", "&Batch Convert Folder…",
           "convert every CoNLL file under a folder into Penn trees", (), "File", 2),
    Action("quit", "&Quit", "close the window (the work is saved as you go)", ("Ctrl+Q",),
           "File", 3),
    Action("undo", "&Undo", "undo the last change of this sentence", ("Ctrl+Z",), "Edit"),
    Action("redo", "&Redo", "redo it", ("Ctrl+Shift+Z", "Ctrl+Y"), "Edit"),
    Action("relabel", "Re&label Node", "type the selected node's new label, Enter to apply",
           ("F2",), "Edit", 1),
    Action("edit-tag", "Edit &Tag", "type the selected word's POS tag (a preterminal, or "
           "a phrase's head word; or double-click the tag), Enter to apply: the candidates "
           "are decoded again", ("T",), "Edit", 1, TREE),
    Action("edit-relation", "Edit Relati&on",
           "type the relation (DEPREL) of the selected word's arc (or double-click the word "
           "or the arc), Enter to apply", ("R",), "Edit", 1, TREE),
    Action("delete", "&Delete Node", "remove the selected phrase; its children move up",
           ("Del",), "Edit", 1, TREE),
    Action("insert", "&Insert Node…", "a new phrase over the selected adjacent siblings",
           ("Ins",), "Edit", 1, TREE),
    Action("make-head", "Make &Head of Parent",
           "the selected node becomes its parent's head child", ("H",), "Edit", 1, TREE),
    Action("reattach", "Re-&attach Word…",
           "the selected node's head word gets a new head: arrows choose it, Enter attaches, "
           "Escape cancels", ("A",), "Edit", 1, TREE),
    Action("select-root", "Select &Root", "select the top of the tree (then arrows walk it)",
           ("Home",), "Edit", 1, TREE),
    Action("revert-label", "Revert Label", "put the selected node's label back in the field",
           ("Esc",), None, scope=LABEL),
    Action("pick", "Pick Candidate", "show candidate N of the list",
           tuple("123456789"), None),
    Action("mark-corrected", "&Mark Corrected",
           "mark the sentence corrected (again: back to machine)",
           ("Ctrl+Return", "Ctrl+Enter"), "Edit", 2, toolbar="Mark corrected"),
    Action("next-uncorrected", "&Next Uncorrected", "the next sentence not yet corrected",
           ("F8",), "View", toolbar="Next uncorrected"),
    Action("least-sure", "&Least Sure First",
           "Next uncorrected goes to the sentence the model is least sure of (the score margin "
           "of its two best trees per word; short sentences first), not the next in file order, "
           "and the list shows the sentences in that order (those not decoded yet last)",
           (), "View", checkable=True),
    Action("filter", "&Filter Sentences", "type words to show only the sentences with them",
           ("Ctrl+F",), "View"),
    Action("search", "&Search Treebank…",
           "find every match of a query over the trees and d-parses (pad search's language)",
           ("Ctrl+Shift+F",), "View"),
    Action("consistency", "&Consistency Check…",
           "material bracketed differently in different sentences, most suspicious first",
           ("Ctrl+Shift+K",), "View"),
    Action("zoom-in", "Zoom &In", "bigger tree", ("Ctrl++", "Ctrl+="), "View", 1),
    Action("zoom-out", "Zoom &Out", "smaller tree", ("Ctrl+-",), "View", 1),
    Action("fit-width", "&Fit Width",
           "fit each sentence to the width, labels kept legible: a long sentence is drawn "
           "compact (words standing in narrow columns), scrolled only beyond that",
           ("Ctrl+0",), "View", 1, toolbar="Fit width"),
    Action("actual-size", "&Actual Size", "the tree at its natural size", ("Ctrl+1",),
           "View", 1),
    Action("zoom-selection", "Zoom to &Selection",
           "the selected phrases and their words fill the view", ("Ctrl+2",), "View", 1),
    Action("go-to-word", "&Go to Word…", "type a word's number, Enter: it is selected and "
           "centred (long sentences)", ("Ctrl+G",), "View", 1),
    Action("collapse", "&Collapse/Expand Phrase",
           "the selected phrase becomes one node showing its words, or opens again "
           "(double-click a phrase does the same)", ("C",), "View", 1, TREE),
    Action("effort", "&Effort Summary…", "tokens per hour, share accepted as proposed",
           ("Ctrl+I",), "View", 2),
    Action("problems", "&Problems", "show or hide the lines the file could not be read at",
           (), "View", 2),
    Action("retrain", "&Retrain on Corrected Sentences…",
           "train a new model on the sentences marked corrected", ("Ctrl+R",), "Model",
           toolbar="Retrain…"),
    Action("learning-curve", "&Learning Curve…",
           "cross-validated F1 against the number of corrected trees", (), "Model"),
    Action("model-versions", "Model &Versions…",
           "the models retrained in this project; use or export one", (), "Model"),
    Action("export-model", "&Export Model File…",
           "write the current model for pad convert --model", (), "Model"),
    Action("keys", "&Keys and Mouse", "this list", ("F1",), "Help"),
)

BY_NAME = {a.name: a for a in ACTIONS}

# Keys and mouse moves a panel handles itself (documented, not actions).
GESTURES: tuple[tuple[str, str], ...] = (
    ("Tab, Shift+Tab", "next, previous panel: sentence list, tree, candidates, label field"),
    ("Up/Down, PageUp/PageDown", "previous/next sentence (in the list); candidate (in the "
                                 "candidates)"),
    ("arrow keys (tree)", "parent, head child, siblings"),
    ("Shift+Left/Right (tree)", "extend the run of selected siblings"),
    ("Left/Right, Up, Enter, Escape (re-attaching)", "the next word, the word's own head; "
                                                     "attach; cancel"),
    ("click, Ctrl+click", "select a node, add adjacent siblings"),
    ("drag a word onto a word", "re-attach it there (re-decodes the tree); its relation "
                                "is proposed in the relation box: Enter confirms"),
    ("double-click a tag, a word or an arc", "edit the tag, or the word's relation"),
    ("Ctrl+wheel, drag the background", "zoom, pan"),
)


def help_html() -> str:
    """Help > Keys and Mouse: every action that has keys, then the panels' own keys."""
    rows = []
    for a in ACTIONS:
        if a.keys:
            where = {TREE: " (in the tree)", LABEL: " (in the label field)"}.get(a.scope, "")
            rows.append((", ".join(a.keys), f"{a.plain}: {a.description}{where}"))
    rows.extend(GESTURES)
    body = "".join(f"<tr><td><b>{html.escape(k)}</b></td><td>{html.escape(d)}</td></tr>"
                   for k, d in rows)
    return f"<table cellspacing=4>{body}</table>"
