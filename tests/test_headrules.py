"""Head tables: spot checks of both shipped tables, every PTB d-parse a projective tree,
agreement with real UD trees, table-file errors, and ``pad deps`` end to end."""

from __future__ import annotations

import pytest
from nltk import Tree

from pad_engine.cli import main
from pad_engine.errors import InputError
from pad_engine.io.penn import normalize, parse_penn, read_penn
from pad_engine.trees.deptree import is_projective, tree_problem
from pad_engine.trees.headrules import HeadRules, dependencies, head_children, lexicalize
from pad_engine.trees.lextree import from_penn, to_line


@pytest.fixture(scope="module")
def collins():
    return HeadRules.load("collins")


@pytest.fixture(scope="module")
def content():
    return HeadRules.load("content")


def deps(line: str, rules: HeadRules) -> dict[str, tuple[str, str]]:
    """word -> (head word or ROOT, rel) for a tree whose words are all different."""
    words, _tags, heads, rels = dependencies(normalize(Tree.fromstring(line)), rules)
    return {w: (words[h - 1] if h else "ROOT", r) for w, h, r in zip(words, heads, rels)}


SENTENCE = ("(S (NP-SBJ (DT The) (NN man)) (VP (MD will) (VP (VB say) (SBAR (IN that) "
            "(S (NP (PRP she)) (VP (VBZ is) (PP (IN in) (NP (NNP Paris)))))))) (. .))")


def test_collins_verbs_and_prepositions_head(collins):
    d = deps(SENTENCE, collins)
    assert d["will"] == ("ROOT", "ROOT")
    assert d["say"] == ("will", "VP:VP>MD")
    assert d["man"] == ("will", "S:NP>VP")
    assert d["The"] == ("man", "NP:DT>NN")
    assert d["that"] == ("say", "VP:SBAR>VB")
    assert d["is"] == ("that", "SBAR:S>IN")
    assert d["in"] == ("is", "VP:PP>VBZ")
    assert d["Paris"] == ("in", "PP:NP>IN")
    assert d["."] == ("will", "S:.>VP")


@pytest.mark.parametrize(("np", "head"), [
    ("(NP (DT the) (NN stock) (NN market) (NNS prices))", 3),   # rightmost noun
    ("(NP (NNP John) (POS 's))", 1),                             # POS counts as a noun
    ("(NP (NP (DT the) (NN man)) (PP (IN of) (NP (NN steel))))", 0),  # else leftmost NP
    ("(NP (DT the) (ADJP (RB very) (JJ rich)) (, ,))", 1),        # else rightmost $/ADJP/PRN
    ("(NP ($ $) (CD 5))", 0),
    ("(NP (DT all) (CD 5) (CD 6) (DT those))", 2),                # else rightmost CD
    ("(NP (DT the) (JJ rich) (JJS richest) (DT all))", 2),        # else rightmost JJ/JJS/RB/QP
    ("(NP (DT this) (DT that))", 1),                              # else the last word
    ("(NP (NNS apples) (CC and) (NNS oranges))", 0),              # coordination: first conjunct
])
def test_collins_np_rule(collins, np, head):
    tree = Tree.fromstring(np)
    assert collins.head_child(tree.label(), [c.label() for c in tree]) == head


def test_content_heads_look_like_ud(content):
    d = deps(SENTENCE, content)
    assert d["say"] == ("ROOT", "ROOT")
    assert d["will"] == ("say", "VP:MD>VP")                     # aux depends on the main verb
    assert d["Paris"] == ("say", "VP:SBAR>VB")
    assert d["that"] == ("Paris", "SBAR:IN>S")                  # SBAR headed by its S
    assert d["is"] == ("Paris", "VP:VBZ>PP")                    # copula depends on predicate
    assert d["in"] == ("Paris", "PP:IN>NP")                     # PP headed by its noun
    assert d["she"] == ("Paris", "S:NP>VP")
    assert d["The"] == ("man", "NP:DT>NN")
    d = deps("(S (NP (NP (DT the) (NN dog) (POS 's)) (NN bone)) (VP (VBD was) (VP (VBN eaten) "
             "(PP (TO to) (NP (PRP it))))) (. .))", content)
    assert d["'s"] == ("dog", "NP:POS>NN")                     # possessive marker: dependent
    assert d["dog"] == ("bone", "NP:NP>NN")
    assert d["was"] == ("eaten", "VP:VBD>VP")
    assert d["to"] == ("it", "PP:TO>NP")
    d = deps("(S (NP (PRP He)) (VP (VBZ has) (VP (VBN been) (ADJP (JJ ill)))))", content)
    assert d["ill"] == ("ROOT", "ROOT")
    assert d["has"] == ("ill", "VP:VBZ>VP")
    assert d["been"] == ("ill", "VP:VBN>ADJP")
    d = deps("(S (NP (PRP I)) (VP (VBP want) (S (VP (TO to) (VP (VB go))))))", content)
    assert d["want"] == ("ROOT", "ROOT")
    assert d["to"] == ("go", "VP:TO>VP")
    d = deps("(S (NP (PRP I)) (VP (VBP have) (NP (NNS cats))))", content)
    assert d["have"] == ("ROOT", "ROOT")                        # "have" + object: main verb


def test_head_children_positions_and_dependencies_agree(collins):
    tree = normalize(Tree.fromstring(SENTENCE))
    hc = head_children(tree, collins)
    assert hc[()] == 0
    assert hc[(0,)] == 1
    assert hc[(0, 0)] == 1
    assert hc[(0, 1)] == 0
    assert set(hc) == {p for p in tree.treepositions()
                       if isinstance(tree[p], Tree) and not isinstance(tree[p][0], str)}
    assert induced(tree, hc) == dependencies(tree, collins)[2]


def induced(tree: Tree, hc: dict[tuple[int, ...], int]) -> list[int]:
    """The d-parse given head children, computed independently of ``dependencies``."""
    leaves = tree.treepositions("leaves")
    heads = [0] * len(leaves)

    def head_leaf(pos):
        while not isinstance(tree[pos][0], str):
            pos = (*pos, hc[pos])
        return leaves.index((*pos, 0))

    for pos, h in hc.items():
        for i in range(len(tree[pos])):
            if i != h:
                heads[head_leaf((*pos, i))] = head_leaf((*pos, h)) + 1
    return heads


@pytest.mark.parametrize("table", ["collins", "content"])
def test_every_ptb_dparse_is_a_projective_tree(ptb_dir, table):
    rules = HeadRules.load(table)
    n = 0
    for path in sorted(ptb_dir.glob("wsj_*.mrg")):
        for tree in read_penn(path).trees:
            words, tags, heads, rels = dependencies(normalize(tree), rules)
            assert tree_problem(heads) is None, (path.name, words)
            assert is_projective(heads), (path.name, words)
            assert len(words) == len(tags) == len(rels)
            n += 1
    assert n == 3914


def test_content_table_agrees_with_gum_ud_trees(gum_dir, collins, content):
    """GUM pairs automatic c-parses with gold UD trees: the content table should recover
    most UD heads (82% of non-punctuation words measured), far more than Collins'."""
    agree = {"collins": 0, "content": 0}
    total = 0
    for path in sorted((gum_dir / "const").glob("*.ptb"))[::4]:
        trees = read_penn(path).trees
        gold = ud_heads(gum_dir / "dep" / (path.stem + ".conllu"))
        for tree, sent in zip(trees, gold, strict=True):
            norm = normalize(tree)
            if len(norm.leaves()) != len(sent):
                continue
            for name, rules in (("collins", collins), ("content", content)):
                heads = dependencies(norm, rules)[2]
                agree[name] += sum(h == g for h, (g, rel) in zip(heads, sent) if rel != "punct")
            total += sum(rel != "punct" for _, rel in sent)
    assert agree["content"] / total > 0.78
    assert agree["collins"] / total < 0.5


def ud_heads(path) -> list[list[tuple[int, str]]]:
    sentences, current = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if not line.strip():
            if current:
                sentences.append(current)
            current = []
        elif len(cols) == 10 and cols[0].isdigit():
            current.append((int(cols[6]), cols[7].split(":")[0]))
    if current:
        sentences.append(current)
    return sentences


def test_collins_table_reproduces_the_bundled_sample_heads(collins):
    from pad_engine.resources import resource_path

    text = resource_path("sample", "sample.heads.ptb").read_text(encoding="utf-8")
    for tree in parse_penn(text).trees:
        gold = {}
        for pos in tree.treepositions():
            node = tree[pos]
            if isinstance(node, Tree) and node.label().endswith("*"):
                gold[pos[:-1]] = pos[-1]
                node.set_label(node.label()[:-1])
        assert all(h == gold.get(p, 0) for p, h in head_children(tree, collins).items())


@pytest.mark.parametrize("table", ["collins", "content"])
def test_lexicalize_builds_what_head_children_positions_build(table):
    from pad_engine.resources import resource_path

    rules = HeadRules.load(table)
    text = resource_path("sample", "sample.heads.ptb").read_text(encoding="utf-8")
    for tree in parse_penn(text.replace("*", "")).trees:
        forms = tree.leaves()
        assert to_line(lexicalize(tree, rules), forms) == \
            to_line(from_penn(tree, head_children(tree, rules)), forms)
        assert [n.head for n in _phrases(lexicalize(tree, rules))] == \
            [n.head for n in _phrases(from_penn(tree, head_children(tree, rules)))]


def _phrases(root):
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.word < 0:
            out.append(node)
            stack.extend(node.children)
    return out


def test_lookup_ignores_function_tags_and_unknown_labels_get_the_default(collins):
    assert collins.head_child("PP-LOC-1", ["IN", "NP-SBJ"]) == 0
    assert collins.head_child("NOSUCH", ["DT", "NN", "."]) == 0  # "*  left"
    assert collins.head_child("PRN", ["-LRB-", "NP", "-RRB-"]) == 1  # punctuation skipped
    assert collins.head_child("FRAG", [",", "."]) == 1  # only punctuation: by position
    assert collins.head_child("S", ["VP"]) == 0


def test_word_classes_conditions_and_directions():
    rules = HeadRules.parse(
        "@words be is was\n"
        "VP left VP if VB*:be\n"
        "VP left VB*\n"
        "X right-any A B\n"
        "X right B A\n"
        "Y left\n", "t.txt")
    assert rules.head_child("VP", ["VBZ", "VP"], ["Is", "going"]) == 1
    assert rules.head_child("VP", ["VBZ", "VP"], ["has", "gone"]) == 0
    assert rules.head_child("VP", ["VBZ", "VP"]) == 0  # no words: classes never match
    assert rules.head_child("X", ["B", "A", "C"]) == 1  # right-any: first from the right
    assert rules.head_child("X", ["B", "A", "C", "D"]) == 1
    assert rules.head_child("X", ["C", "D"]) == 1  # nothing found: side of the last line
    assert rules.head_child("Y", ["C", "D"]) == 0
    assert HeadRules.parse("X right B A\n").head_child("X", ["B", "A", "B"]) == 2


@pytest.mark.parametrize(("text", "line", "message"), [
    ("NP left NN\nVP\n", 2, "rule for 'VP' has no direction"),
    ("# c\nNP up NN\n", 2, "unknown direction 'up'"),
    ("@skipp ,\n", 1, "unknown directive '@skipp'"),
    ("VP left VP if\n", 1, "'if' must be followed by at least one label"),
    ("VP left VP if VB:aux\n", 1, "unknown word class 'aux'"),
    ("@words be\n", 1, "@words needs a class name and at least one word"),
])
def test_table_errors_name_file_and_line(text, line, message):
    with pytest.raises(InputError) as info:
        HeadRules.parse(text, "my.txt")
    assert str(info.value).startswith(f"my.txt:{line}: {message}")


def test_load_by_path_and_unknown_name(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text("* right\n")
    assert HeadRules.load(path).head_child("S", ["NP", "VP"]) == 1
    with pytest.raises(InputError, match="no head-rule table 'nosuch'"):
        HeadRules.load("nosuch")


MRG = """( (S (NP-SBJ (NNP Ann)) (VP (VBZ is) (VP (VBG going) (NP (-NONE- *)))) (. .)) )
( (NP (DT a) (NN dog)) )
"""


def test_pad_deps_end_to_end(tmp_path, capsys):
    src = tmp_path / "in.mrg"
    src.write_text(MRG)
    out = tmp_path / "out.conll"
    assert main(["deps", str(src), str(out)]) == 0
    assert out.read_text() == (
        "1\tAnn\t_\tNNP\tNNP\t_\t2\tS:NP>VP\t_\t_\n"
        "2\tis\t_\tVBZ\tVBZ\t_\t0\tROOT\t_\t_\n"
        "3\tgoing\t_\tVBG\tVBG\t_\t2\tVP:VP>VBZ\t_\t_\n"
        "4\t.\t_\t.\t.\t_\t2\tS:.>VP\t_\t_\n"
        "\n"
        "1\ta\t_\tDT\tDT\t_\t2\tNP:DT>NN\t_\t_\n"
        "2\tdog\t_\tNN\tNN\t_\t0\tROOT\t_\t_\n"
        "\n")
    assert main(["deps", str(src), str(out), "--headrules", "content", "--keep-empty"]) == 0
    lines = out.read_text().splitlines()
    assert lines[1] == "2\tis\t_\tVBZ\tVBZ\t_\t3\tVP:VBZ>VP\t_\t_"
    assert lines[3] == "4\t*\t_\t-NONE-\t-NONE-\t_\t3\tVP:NP>VBG\t_\t_"


@pytest.mark.parametrize(("text", "message"), [
    ("(S (NP (NN a))\n", "in.mrg:1: unbalanced brackets"),
    ("(S (NN a))\n(S (-NONE- *))\n", "in.mrg:2: tree has no words"),
])
def test_pad_deps_bad_input_fails_with_one_line(tmp_path, capsys, text, message):
    src = tmp_path / "in.mrg"
    src.write_text(text)
    out = tmp_path / "out.conll"
    assert main(["deps", str(src), str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("pad deps: ")
    assert message in err
    assert "\n" not in err
    assert not out.exists()
    assert main(["deps", str(src), str(out), "--headrules", str(tmp_path / "none.txt")]) == 1
