"""Editing the word layers under the tree: a word's POS tag and its relation (DEPREL).

Each edit is one :class:`Change` of the sentence's :class:`View` (so undo restores it with
everything else). An edited tree keeps its phrases, function tags included: a new tag only
relabels the word's preterminal (``edits.retag``). Otherwise the tree shown comes from a
decode under the new tags or relations, since both are model input: the change then waits
for it as a re-attachment does (``Workspace.change``, ``Reattach.wait``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from pad_engine.api import edits
from pad_gui.controllers.reattach import Change
from pad_gui.session import Session

if TYPE_CHECKING:  # the workspace does the change
    from pad_gui.controllers.workspace import Workspace


def set_tag(workspace: Workspace, word: int, tag: str) -> bool:
    """Tag word ``word`` (1-based) of the sentence on screen ``tag`` as one undo step (the
    candidates are decoded again under the new tags); False when nothing changed."""
    s, idx = workspace.session, workspace.current
    return s is not None and idx >= 0 and workspace.change(
        tag_change(s, idx, word, tag), "tag", "Change tag")


def set_relation(workspace: Workspace, word: int, rel: str) -> bool:
    """Label word ``word``'s arc ``rel`` as one undo step, as :func:`set_tag`."""
    s, idx = workspace.session, workspace.current
    return s is not None and idx >= 0 and workspace.change(
        relation_change(s, idx, word, rel), "relation", "Change relation")


def tag_change(session: Session, idx: int, word: int, tag: str) -> Change | str | None:
    """Word ``word`` (1-based) of sentence ``idx`` tagged ``tag``: the change, why not (a
    str), or None when it has that tag already."""
    view = session.view(idx)
    try:
        tag = edits.check_tag(tag)
        tree = edits.retag(view.tree, word - 1, tag) if view.tree is not None else None
    except ValueError as e:
        return f"Cannot change the tag: {e}"
    tags = session.tags(idx, view)
    if tags[word - 1] == tag:
        return None
    tags[word - 1] = tag
    return Change(idx, view, replace(view, tags=tuple(tags), tree=tree))


def relation_change(session: Session, idx: int, word: int, rel: str) -> Change | str | None:
    """Word ``word``'s arc of sentence ``idx`` labeled ``rel``: the change, why not (a str),
    or None when it has that relation already."""
    view = session.view(idx)
    try:
        rel = edits.check_relation(rel)
    except ValueError as e:
        return f"Cannot change the relation: {e}"
    rels = session.rels(idx, view)
    if not rels:
        rels = ["_"] * len(view.heads)
    if rels[word - 1] == rel:
        return None
    rels[word - 1] = rel
    return Change(idx, view, replace(view, rels=tuple(rels)))
