"""Dependency labels read off lexicalized trees, for models that read labels.

A model trained on Penn trees sees no CoNLL file, so its labels must be made from the trees,
in the same scheme as the d-parses it will be given. The one scheme here, ``phrase``, is the
one the original PAD's scripts write into the d-parses they train and test on: a dependent's
label joins the label of the phrase it attaches in and the label of its own maximal
projection, ``*`` for a bare word (a subject NP gets ``S+NP``, a determiner ``NP+*``); the
head of the sentence gets ``ROOT``. Such labels say much about the phrase structure, which is
why they help; they exist only where the d-parses were made from phrase-structure trees.
"""

from __future__ import annotations

from pad_engine.trees.lextree import LexNode, Spans

SCHEMES = ("phrase",)
ROOT = "ROOT"


def tree_labels(root: LexNode, n: int, scheme: str = "phrase") -> list[str]:
    """The label of each of the ``n`` words' arcs in the d-parse ``root`` induces."""
    if scheme not in SCHEMES:
        raise ValueError(f"unknown label scheme {scheme!r} (known: {', '.join(SCHEMES)})")
    labels = [ROOT] * n
    at = Spans(root)
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_preterminal:
            continue
        for i, child in enumerate(node.children):
            if i != node.head:
                own = "*" if child.is_preterminal else child.label
                labels[at.head_word(child)] = f"{node.label}+{own}"
        stack.extend(node.children)
    return labels
