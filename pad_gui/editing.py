"""Tree edits from the parse view: the selected node(s), the label box and the Edit menu's
relabel, delete, insert and make-head, each handed to the workspace as one undo step; and
the word layers under the tree, the tag and relation boxes (``controllers.layers``).

The tag and relation boxes show the selected node's head word (a preterminal: its own
word), or the word last double-clicked (a word or an arc: its relation; a tag: the tag).
T and R (or a double-click) put the keyboard in them; Enter applies, Escape reverts.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QBoxLayout, QDialog, QLabel, QLineEdit

from pad_engine.api import edits
from pad_gui.controllers import layers
from pad_gui.controllers.workspace import Workspace
from pad_gui.dialogs import InsertDialog, label_completer
from pad_gui.parse_items import NodeItem, WordItem
from pad_gui.parse_view import ParseScene, ParseView


def insertion(tree, paths: list[edits.Path]) -> tuple[edits.Path, int, int] | None:
    """The parent and first and last child index a new phrase over ``paths`` would cover,
    or None unless they are adjacent siblings."""
    parent = paths[0][:-1] if paths and paths[0] else None
    indices = [p[-1] for p in paths if p and p[:-1] == parent]
    if parent is None or len(indices) != len(paths) or \
            indices != list(range(indices[0], indices[-1] + 1)):
        return None
    return parent, indices[0], indices[-1]


class TreeEditor(QObject):
    """Keeps the label, tag and relation boxes in step with the selection and turns edit
    commands into steps."""

    def __init__(self, workspace: Workspace, scene: ParseScene, view: ParseView,
                 label_edit: QLineEdit):
        super().__init__(view)
        self.workspace = workspace
        self.scene = scene
        self.view = view
        self.label_edit = label_edit
        self.word: tuple[int, int] | None = None  # (sentence, word) the tag and relation show
        self.tag_edit, self.rel_edit = QLineEdit(), QLineEdit()
        self.tag_edit.setPlaceholderText("POS tag (T)")
        self.rel_edit.setPlaceholderText("relation (R)")
        for field in (self.tag_edit, self.rel_edit):  # Tab keeps to the four panels
            field.setFocusPolicy(Qt.ClickFocus)
        label_edit.returnPressed.connect(self._relabel_from_editor)
        self.tag_edit.returnPressed.connect(lambda: self._layer_from(self.tag_edit))
        self.rel_edit.returnPressed.connect(lambda: self._layer_from(self.rel_edit))
        for watched in (self.tag_edit, self.rel_edit, view.viewport()):
            watched.installEventFilter(self)  # Escape in the boxes; double-clicks in the view
        workspace.ready.connect(lambda: label_edit.setCompleter(
            label_completer(workspace.phrase_labels, label_edit)))
        workspace.proposed.connect(self._confirm_relation)

    def add_fields(self, row: QBoxLayout) -> None:
        """Put the tag and relation boxes in the editing panel's row."""
        for text, field in (("Tag:", self.tag_edit), ("Relation:", self.rel_edit)):
            row.addWidget(QLabel(text))
            row.addWidget(field)

    def _say(self, text: str) -> None:
        self.workspace.message.emit(text, 5000)

    def _one_selected(self, what: str) -> edits.Path | None:
        paths = self.scene.selected_paths()
        if len(paths) != 1:
            self._say(f"Select one node to {what}")
            return None
        return paths[0]

    def selection_changed(self) -> None:
        """Show the selected node's label (the window forwards the scene's signal, so that
        it stops with the window's own destruction)."""
        # The items' own nodes, not a look-up by path: while the scene is being rebuilt the
        # selection can still hold items of the previous tree.
        items = self.scene.selected_items()
        if len(items) == 1:
            self.label_edit.setText(items[0].node.label)
            self.show_word(items[0].head_word + 1)
        else:
            self.label_edit.clear()
            self.show_word(self.word[1] if self.word and self.word[0] ==
                           self.workspace.current else None)
        self.scene.hover(None)

    def show_word(self, word: int | None) -> None:
        """Show word ``word``'s (1-based) tag and relation in their boxes (None: no word)."""
        w = self.workspace
        s, idx = w.session, w.current
        if s is None or idx < 0 or word is None or not 1 <= word <= len(s.sentences[idx]):
            self.word = None
            self.tag_edit.clear()
            self.rel_edit.clear()
            return
        self.word = (idx, word)
        rels = s.rels(idx)
        self.tag_edit.setText(s.tags(idx)[word - 1])
        self.rel_edit.setText(rels[word - 1] if rels else "")

    def focus_tag(self) -> None:
        """Edit > Edit Tag: type the word's new tag."""
        self._focus(self.tag_edit, "tag")

    def focus_relation(self) -> None:
        """Edit > Edit Relation: type the new relation of the word's arc."""
        self._focus(self.rel_edit, "relation")

    def _focus(self, field: QLineEdit, what: str) -> None:
        if self.word is None:
            self._say(f"Select a word's tag or a phrase (its head word's {what}), or "
                      "double-click a word or an arc")
            return
        field.setFocus()
        field.selectAll()

    def _layer_from(self, field: QLineEdit) -> None:
        """Enter in the tag or relation box: change it (one undo step), then back to the
        tree; a refused one says why and the box shows the word's own again."""
        if self.word is None:
            return
        word, text = self.word[1], field.text()
        if field is self.tag_edit:
            layers.set_tag(self.workspace, word, text)
        elif not layers.set_relation(self.workspace, word, text):
            rels = self.workspace.session.rels(self.word[0])
            if rels and rels[word - 1] == text.strip():
                self._say(f"Relation {text.strip()} of word {word} confirmed")
        self.show_word(word)
        self.view.setFocus()

    def _confirm_relation(self, word: int, rel: str, why: str) -> None:
        """A re-attached word's relation was proposed: the relation box offers it."""
        self.show_word(word)
        self.rel_edit.setFocus()
        self.rel_edit.selectAll()
        self._say(f"Relation of word {word} proposed: {rel} ({why}); Enter confirms it, "
                  "or type another")

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.KeyPress and event.key() == Qt.Key_Escape and \
                watched in (self.tag_edit, self.rel_edit):
            self.show_word(self.word[1] if self.word else None)
            self.view.setFocus()
            return True
        if event.type() == QEvent.MouseButtonDblClick and watched is self.view.viewport():
            return self._double_click(self.view.mapToScene(event.position().toPoint()))
        return False

    def _double_click(self, pos) -> bool:
        """A tag: edit it; a word or an arc (its label): edit the word's relation. A phrase
        is left to the view, where a double-click collapses or expands it."""
        for item in self.scene.items(pos):
            if isinstance(item, NodeItem):
                if item.node.word < 0:
                    return False
                self.scene.select_path(item.path)
                self.focus_tag()
                return True
            arc = next((a for a in self.scene.arcs if item in (a, a.label_item)), None)
            word = item.index if isinstance(item, WordItem) else arc.dep if arc else None
            if word is not None:
                self.show_word(word)
                self.focus_relation()
                return True
        return False

    def focus_label(self) -> None:
        self.label_edit.setFocus()
        self.label_edit.selectAll()

    def revert_label(self) -> None:
        """Escape in the label field: the selected node's label back, the tree focused."""
        self.selection_changed()
        self.view.setFocus()

    def _relabel_from_editor(self) -> None:
        if self.relabel(self.label_edit.text()):
            self.view.setFocus()
        else:  # the refused label does not stay in the box
            self.selection_changed()

    def relabel(self, label: str) -> bool:
        """Relabel the selected node (what typing in the label box and Enter does): a
        phrase's label as typed (function tags and indices kept), a preterminal's tag."""
        path = self._one_selected("relabel")
        if path is not None and self.scene.selected_items()[0].node.word >= 0:
            return layers.set_tag(self.workspace, self.scene.selected_items()[0].head_word + 1,
                                  label)
        return path is not None and self.workspace.edit(
            "relabel", "Relabel", lambda t: edits.relabel(t, path, label), path)

    def delete_node(self) -> None:
        path = self._one_selected("delete")
        if path is not None:
            self.workspace.edit("delete", "Delete node", lambda t: edits.delete_node(t, path),
                                path[:-1])

    def make_head(self) -> None:
        path = self._one_selected("make head")
        if path is None:
            return
        if not path:
            self._say("The root has no parent")
            return
        self.workspace.edit("head", "Change head",
                            lambda t: edits.set_head_child(t, path[:-1], path[-1])[0], path)

    def insert_node(self) -> None:
        w = self.workspace
        paths = self.scene.selected_paths()
        tree = w.session.shown_tree(w.current) if w.session and w.current >= 0 else None
        if not paths or tree is None:
            self._say("Select adjacent sibling nodes to insert over")
            return
        site = insertion(tree, paths)
        if site is None:
            self._say("Select adjacent siblings (same parent) to insert over")
            return
        parent, first, last = site
        node = edits.node_at(tree, parent)
        members = [c.label for c in node.children[first:last + 1]]
        fixed = node.head - first if first <= node.head <= last else None
        dialog = InsertDialog(w.phrase_labels, members, fixed, self.view.window())
        if dialog.exec() != QDialog.Accepted:
            return
        label, head = dialog.label.text(), dialog.head.currentIndex()
        w.edit("insert", "Insert node",
               lambda t: edits.insert_node(t, parent, first, last, label,
                                           None if fixed is not None else head),
               (*parent, first))
