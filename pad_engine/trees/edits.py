"""Tree-editing operations for the app: pure functions on lexicalized trees.

Nodes are addressed by child-index paths from the root (``()`` is the root). Every function
returns a new tree and never touches its input, so an undo step can simply keep the old
tree. Edits that would break well-formedness (words or their order changing, a preterminal
disappearing, a phrase losing its head) raise ``ValueError`` with a message meant for the
annotator.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from pad_engine.trees.binarize import reserved
from pad_engine.trees.lextree import LexNode, Spans, induced_heads

Path = tuple[int, ...]


def node_at(root: LexNode, path: Path) -> LexNode:
    """The node at ``path``; ValueError when the path leads nowhere."""
    node = root
    for depth, i in enumerate(path):
        if node.word >= 0 or not 0 <= i < len(node.children):
            raise ValueError(f"no node at {path} (step {depth} has no child {i})")
        node = node.children[i]
    return node


def phrases(root: LexNode) -> Iterator[tuple[Path, LexNode]]:
    """Every phrase (non-preterminal) node with its path, in pre-order: for addressing the
    phrases of a tree to edit (each path as long as its node is deep; :func:`phrase_nodes`
    walks a tree of any depth)."""
    stack: list[tuple[Path, LexNode]] = [((), root)]
    while stack:
        path, node = stack.pop()
        if node.word >= 0:
            continue
        yield path, node
        for i in range(len(node.children) - 1, -1, -1):
            stack.append(((*path, i), node.children[i]))


def phrase_nodes(root: LexNode) -> Iterator[LexNode]:
    """Every phrase (non-preterminal) node, the root first, in pre-order. Without their
    paths: a path is as long as its node is deep, so the paths of every phrase take time and
    memory quadratic in a tree's depth (a hostile file's nesting); :func:`paths_to` gives
    those of the few nodes an edit needs."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.word < 0:
            yield node
            stack.extend(reversed(node.children))


def paths_to(root: LexNode, nodes: Sequence[LexNode]) -> list[Path]:
    """The path of each of ``nodes`` (nodes of ``root``'s tree, ValueError otherwise),
    found in one walk."""
    wanted = {id(node) for node in nodes}
    parent: dict[int, tuple[int, int]] = {}  # id(node) -> (id(its parent), its index)
    seen: set[int] = set()
    stack = [root]
    while stack and len(seen) < len(wanted):
        node = stack.pop()
        if id(node) in wanted:
            seen.add(id(node))
        for i, child in enumerate(node.children):
            parent[id(child)] = (id(node), i)
            stack.append(child)
    if len(seen) < len(wanted):
        raise ValueError("a node is not in the tree")
    paths = []
    for node in nodes:
        steps, at = [], id(node)
        while at != id(root):
            at, i = parent[at]
            steps.append(i)
        paths.append(tuple(reversed(steps)))
    return paths


def _copy_to(root: LexNode, path: Path) -> tuple[LexNode, LexNode]:
    """A copy of the tree and the copied node at ``path`` (checked)."""
    node_at(root, path)
    new = root.copy()
    return new, node_at(new, path)


def _check_label(label: str) -> str:
    label = label.strip()
    if not label:
        raise ValueError("a label cannot be empty")
    if any(c.isspace() or c in "()" for c in label):
        raise ValueError(f"a label cannot contain spaces or brackets: {label!r}")
    if reserved(label):
        raise ValueError("labels starting with @ are reserved for binarization")
    return label


def relabel(root: LexNode, path: Path, label: str) -> LexNode:
    """The tree with the phrase at ``path`` relabeled, the label kept as typed (function
    tags and indices such as ``NP-SBJ-1`` included). A POS tag is the word's tag, which the
    d-parse holds too: it changes through :func:`retag`."""
    label = _check_label(label)
    new, node = _copy_to(root, path)
    if node.word >= 0:
        raise ValueError("a POS tag is the word's tag: edit it as the word's tag")
    node.label = label
    return new


def check_tag(tag: str) -> str:
    """``tag`` stripped, or ValueError: a tag is a Penn label and a CoNLL column both."""
    return _check_label(tag)


def check_relation(rel: str) -> str:
    """``rel`` stripped, or ValueError unless it can be a CoNLL DEPREL column."""
    rel = rel.strip()
    if not rel:
        raise ValueError("a relation cannot be empty")
    if not rel.isprintable() or any(c.isspace() for c in rel):
        raise ValueError(f"a relation cannot contain spaces or control characters: {rel!r}")
    return rel


def retag(root: LexNode, word: int, tag: str) -> LexNode:
    """The tree with word ``word``'s (0-based) preterminal labeled ``tag``; the phrases,
    function tags and all, stay as they are."""
    tag = check_tag(tag)
    new = root.copy()
    leaf = next((p for p in new.preterminals() if p.word == word), None)
    if leaf is None:
        raise ValueError(f"the tree has no word {word + 1}")
    leaf.label = tag
    return new


RelationKey = tuple[str, str, str]  # dependent's tag, head's tag ("ROOT" for 0), direction


def relation_table(sentences: Iterable) -> dict[RelationKey, Counter[str]]:
    """How often each DEPREL labels an arc of each (dependent tag, head tag, direction) in
    ``sentences`` (``DepSentence``s); words without a relation ("_") are not counted."""
    table: dict[RelationKey, Counter[str]] = {}
    for sent in sentences:
        for m, (h, rel) in enumerate(zip(sent.heads, sent.rels), 1):
            if rel not in ("", "_"):
                key = arc_key(sent.tags, m, h)
                table.setdefault(key, Counter())[rel] += 1
    return table


def arc_key(tags: Sequence[str], dep: int, head: int) -> RelationKey:
    """The key of the arc ``head`` -> ``dep`` (1-based, 0 the root) in :func:`relation_table`."""
    if head == 0:
        return tags[dep - 1], "ROOT", "root"
    return tags[dep - 1], tags[head - 1], "left" if dep < head else "right"


def propose_relation(table: dict[RelationKey, Counter[str]], key: RelationKey
                     ) -> tuple[str, str] | None:
    """The most frequent relation for ``key`` and what it was counted over; backing off to
    the dependent's tag and direction, then to the dependent's tag; None when nothing fits."""
    dep_tag, head_tag, way = key
    tiers = ((lambda k: k == key, f"{dep_tag} under {head_tag}, {way}"),
             (lambda k: (k[0], k[2]) == (dep_tag, way), f"{dep_tag}, {way}"),
             (lambda k: k[0] == dep_tag, f"{dep_tag}"))
    for fits, what in tiers:
        counts: Counter[str] = Counter()
        for k, c in table.items():
            if fits(k):
                counts.update(c)
        if counts:
            rel, n = counts.most_common(1)[0]
            return rel, f"{n} of {sum(counts.values())} arcs of {what}"
    return None


def delete_node(root: LexNode, path: Path) -> LexNode:
    """The tree without the phrase at ``path``: its children take its place in its parent.

    When the deleted node was its parent's head child, its own head child becomes the
    parent's head, so the induced d-parse does not change; otherwise the words it headed
    now attach to the parent's head word (callers recompute the d-parse after every edit).
    """
    if not path:
        raise ValueError("the root node cannot be deleted")
    new, node = _copy_to(root, path)
    if node.word >= 0:
        raise ValueError("a preterminal (a word and its tag) cannot be deleted")
    parent = node_at(new, path[:-1])
    i = path[-1]
    parent.children[i:i + 1] = node.children
    if parent.head == i:
        parent.head = i + node.head
    elif parent.head > i:
        parent.head += len(node.children) - 1
    return new


def insert_node(
    root: LexNode, parent_path: Path, first: int, last: int, label: str, head: int | None = None
) -> LexNode:
    """The tree with a new phrase ``label`` over children ``first..last`` (inclusive) of the
    node at ``parent_path``; adjacent siblings only, so it never crosses a bracket.

    The new phrase is headed by the run member holding the parent's head child when there is
    one (the d-parse is unchanged); otherwise by ``head`` (an index into the run, default its
    last member), which re-attaches the other members to that member's head word.
    """
    label = _check_label(label)
    new, parent = _copy_to(root, parent_path)
    if parent.word >= 0:
        raise ValueError("a node can only be inserted under a phrase")
    if not 0 <= first <= last < len(parent.children):
        raise ValueError(f"children {first}..{last} are not a run of this node's "
                         f"{len(parent.children)} children")
    size = last - first + 1
    if first <= parent.head <= last:
        if head is not None and head != parent.head - first:
            raise ValueError("the run holds the parent's head child, so that child must stay "
                             "the head of the new node")
        head = parent.head - first
    elif head is None:
        head = size - 1
    elif not 0 <= head < size:
        raise ValueError(f"head {head} is not one of the {size} selected children")
    node = LexNode(label, parent.children[first:last + 1], head, -1)
    parent.children[first:last + 1] = [node]
    if parent.head > last:
        parent.head -= size - 1
    elif parent.head >= first:
        parent.head = first
    return new


def set_head_child(root: LexNode, path: Path, child: int) -> tuple[LexNode, list[int]]:
    """The tree where child ``child`` heads the phrase at ``path``, and the d-parse it now
    induces (1-based heads, 0 = root): the head words of the phrase's other children now
    depend on that child's head word, and the phrase's own dependents follow it."""
    new, node = _copy_to(root, path)
    if node.word >= 0:
        raise ValueError("a preterminal has no head child to change")
    if not 0 <= child < len(node.children):
        raise ValueError(f"the node has no child {child}")
    node.head = child
    return new, induced_heads(new, len(new.preterminals()))


def brackets(root: LexNode) -> Counter[tuple[str, int, int]]:
    """The labeled brackets (label, first word, last word) of every phrase, with counts
    (a unary chain can repeat a span)."""
    spans = Spans(root)
    return Counter((node.label, *spans.span(node)) for node in spans.nodes if node.word < 0)


def new_brackets(a: LexNode, b: LexNode) -> set[tuple[str, int, int]]:
    """The labeled brackets of ``b`` that ``a`` lacks: what to highlight when showing
    candidate ``b`` against the first candidate ``a``."""
    return set(brackets(b) - brackets(a))


def reattach(root: LexNode, dep: int, head: int) -> LexNode:
    """The tree where word ``dep`` (1-based) depends on word ``head``, keeping every phrase
    that does not contain ``dep``'s subtree as it is (so earlier edits survive): the largest
    phrase ``dep`` heads leaves its parent and becomes the first or last child of the lowest
    phrase on ``head``'s spine beside it. ValueError when no such phrase keeps the words in
    order and gives exactly that d-parse (the caller then decodes instead)."""
    n = len(root.preterminals())
    want = induced_heads(root, n)
    if not (1 <= dep <= n and 1 <= head <= n) or dep == head:
        raise ValueError(f"word {dep} cannot be attached to word {head}")
    want[dep - 1] = head
    for attempt in range(n + 1):  # a spine is never longer than the tree is deep
        new = root.copy()
        parents = _parents(new)
        moved = _projection(parents, _leaf(new, dep - 1))
        if moved is new:
            raise ValueError("the root word's subtree has no parent to leave")
        parent, i = parents[id(moved)]
        del parent.children[i]
        if parent.head > i:
            parent.head -= 1
        spine = _spine(parents, _leaf(new, head - 1))
        if attempt >= len(spine):
            break
        host = spine[attempt]
        first, last = moved.span()
        start, end = host.span()
        if end + 1 == first:
            host.children.append(moved)
        elif last + 1 == start:
            host.children.insert(0, moved)
            host.head += 1
        else:
            continue
        if [p.word for p in new.preterminals()] == list(range(n)) \
                and induced_heads(new, n) == want:
            return new
    raise ValueError(f"no phrase of word {head} can take word {dep}'s subtree")


def _parents(root: LexNode) -> dict[int, tuple[LexNode, int]]:
    """id(node) -> (parent, index among its children), for every node but the root."""
    out: dict[int, tuple[LexNode, int]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for i, child in enumerate(node.children):
            out[id(child)] = (node, i)
            stack.append(child)
    return out


def _leaf(root: LexNode, word: int) -> LexNode:
    return next(p for p in root.preterminals() if p.word == word)


def _projection(parents: dict[int, tuple[LexNode, int]], node: LexNode) -> LexNode:
    """The largest phrase ``node``'s word heads."""
    while id(node) in parents and parents[id(node)][0].head == parents[id(node)][1]:
        node = parents[id(node)][0]
    return node


def _spine(parents: dict[int, tuple[LexNode, int]], leaf: LexNode) -> list[LexNode]:
    """The phrases ``leaf``'s word heads, lowest first."""
    out, node = [], leaf
    while id(node) in parents and parents[id(node)][0].head == parents[id(node)][1]:
        node = parents[id(node)][0]
        out.append(node)
    return out
