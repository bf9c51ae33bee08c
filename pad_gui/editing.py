"""Tree edits from the parse view: the selected node(s), the label box and the Edit menu's
relabel, delete, insert and make-head, each handed to the workspace as one undo step."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QLineEdit

from pad_engine.api import edits
from pad_gui.controllers.workspace import Workspace
from pad_gui.dialogs import InsertDialog, label_completer
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


class TreeEditor:
    """Keeps the label box in step with the selection and turns edit commands into steps."""

    def __init__(self, workspace: Workspace, scene: ParseScene, view: ParseView,
                 label_edit: QLineEdit):
        self.workspace = workspace
        self.scene = scene
        self.view = view
        self.label_edit = label_edit
        label_edit.returnPressed.connect(self._relabel_from_editor)
        workspace.ready.connect(lambda: label_edit.setCompleter(
            label_completer(workspace.phrase_labels, label_edit)))

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
        else:
            self.label_edit.clear()
        self.scene.hover(None)

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

    def relabel(self, label: str) -> bool:
        """Relabel the selected node (what typing in the label box and Enter does)."""
        path = self._one_selected("relabel")
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
