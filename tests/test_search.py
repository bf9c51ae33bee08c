"""The search language: the matcher against a brute-force one on random trees, relation by
relation and in random combinations; the parser's messages; ``pad search`` on real files."""

from __future__ import annotations

import itertools
import random
import re

import pytest

from pad_engine.cli import main
from pad_engine.quality.forest import Sentence, Treebank
from pad_engine.quality.match import find
from pad_engine.quality.query import QueryError, parse_query
from pad_engine.trees.lextree import LexNode, induced_heads

PHRASES = ("NP", "VP", "S", "PP-TMP", "NP-SBJ")
TAGS = ("DT", "NN", "VB", "IN")
WORDS = ("a", "b", "c")
RELS = ("nsubj", "nsubj:pass", "obj", "det")
TREE_RELATIONS = ("<", "<<", ">", ">>", "$", ".", "..", ",", ",,")
ARCS = ("-->", "-nsubj->", "-/^o|det/->", "<--", "<-nsubj-", "<-/:/-")


# -- random trees -------------------------------------------------------------------------------
def random_tree(rng: random.Random, n: int) -> Sentence:
    forms = [rng.choice(WORDS) for _ in range(n)]
    tags = [rng.choice(TAGS) for _ in range(n)]

    def build(lo: int, hi: int) -> LexNode:
        if hi - lo == 1 and rng.random() < 0.6:
            return LexNode(tags[lo], [], 0, lo)
        if hi - lo == 1:
            return LexNode(rng.choice(PHRASES), [build(lo, hi)], 0, -1)
        cuts = sorted(rng.sample(range(lo + 1, hi), rng.randint(1, min(3, hi - lo - 1))))
        bounds = [lo, *cuts, hi]
        kids = [build(a, b) for a, b in itertools.pairwise(bounds)]
        return LexNode(rng.choice(PHRASES), kids, rng.randrange(len(kids)), -1)

    tree = LexNode("TOP", [build(0, n)], 0, -1)
    heads = induced_heads(tree, n)
    if rng.random() < 0.5:  # a d-parse from elsewhere: arcs need not follow the tree
        heads = [0] + [rng.randint(1, m) for m in range(1, n)]
    rels = [rng.choice(RELS) for _ in range(n)]
    return Sentence(tree, forms, tags, heads, rels, "random", 1)


# -- the brute-force matcher: every relation from its definition, over all node pairs ----------
class Brute:
    def __init__(self, s: Sentence):
        self.s = s
        self.label, self.parent, self.lo, self.hi, self.hw, self.word = [], [], [], [], [], []

        def walk(node: LexNode, up: int) -> None:
            i = self._add(node.label, up, False)
            if node.word >= 0:
                w = self._add(s.forms[node.word], i, True)
                self.lo[i] = self.hi[i] = self.lo[w] = self.hi[w] = node.word
                self.hw[i] = self.hw[w] = node.word
                return
            for child in node.children:
                walk(child, i)
            span = [k for k in range(len(self.label)) if self._under(k, i)]
            self.lo[i] = min(self.lo[k] for k in span if self.word[k])
            self.hi[i] = max(self.hi[k] for k in span if self.word[k])
            self.hw[i] = node.head_word()

        walk(s.tree, -1)

    def _add(self, label: str, up: int, word: bool) -> int:
        for column, value in ((self.label, label), (self.parent, up), (self.lo, -1),
                              (self.hi, -1), (self.hw, -1), (self.word, word)):
            column.append(value)
        return len(self.label) - 1

    def _under(self, b: int, a: int) -> bool:
        """b is a proper descendant of a."""
        b = self.parent[b]
        while b >= 0:
            if b == a:
                return True
            b = self.parent[b]
        return False

    def holds(self, clause, a: int, b: int) -> bool:
        r, s = clause.relation, self.s
        if r == "->":
            h, m = self.hw[a], self.hw[b]
            return s.heads[m] == h + 1 and deprel_ok(clause.deprel, s.rels[m])
        if r == "<-":
            m, h = self.hw[a], self.hw[b]
            return s.heads[m] == h + 1 and deprel_ok(clause.deprel, s.rels[m])
        return {
            "<": lambda: self.parent[b] == a,
            "<<": lambda: self._under(b, a),
            ">": lambda: self.parent[a] == b,
            ">>": lambda: self._under(a, b),
            "$": lambda: a != b and self.parent[a] == self.parent[b] >= 0,
            ".": lambda: self.hi[a] + 1 == self.lo[b],
            "..": lambda: self.hi[a] < self.lo[b],
            ",": lambda: self.hi[b] + 1 == self.lo[a],
            ",,": lambda: self.hi[b] < self.lo[a],
        }[r]()

    def accepts(self, node, a: int, env: dict) -> bool:
        if node.ref is not None:
            return env.get(node.ref) == a
        label = self.label[a]
        basic = label if self.word[a] else re.sub(r"(?<=.)[-=].*", "", label)
        if node.regex is not None:
            ok = re.search(node.regex.pattern, label) is not None
        elif node.labels:
            ok = any(x in (label, basic) for x in node.labels)
        else:
            ok = True
        return ok != node.negated

    def sat(self, pattern, a: int, env: dict) -> list[dict]:
        if not self.accepts(pattern.node, a, env):
            return []
        if pattern.node.name:
            env = {**env, pattern.node.name: a}
        envs = [env]
        for clause in pattern.clauses:
            nodes = range(len(self.label))
            if clause.negated:
                envs = [e for e in envs if not any(
                    self.holds(clause, a, b) and self.sat(clause.target, b, e) for b in nodes)]
            else:
                envs = [e2 for e in envs for b in nodes if self.holds(clause, a, b)
                        for e2 in self.sat(clause.target, b, e)]
        return envs

    def matches(self, pattern) -> list[int]:
        return [a for a in range(len(self.label)) if self.sat(pattern, a, {})]


def deprel_ok(test, rel: str) -> bool:
    if test is None:
        return True
    if test.regex is not None:
        return re.search(test.regex.pattern, rel) is not None
    return rel == test.text or rel.split(":")[0] == test.text


# -- random queries -------------------------------------------------------------------------------
def random_node(rng: random.Random, names: list[str], scope: list[str]) -> str:
    if scope and rng.random() < 0.15:
        return "=" + rng.choice(scope)
    kind = rng.random()
    if kind < 0.45:
        text = "|".join(rng.sample(PHRASES[:4] + TAGS + WORDS, rng.randint(1, 2)))
    elif kind < 0.65:
        text = rng.choice(("/^N/", "/P/", "/^[ab]$/", "/-/"))
    else:
        text = "__"
    if rng.random() < 0.15:
        text = "!" + text
    if rng.random() < 0.3:
        name = f"n{len(names)}"
        names.append(name)
        scope.append(name)
        text += "=" + name
    return text


def random_query(rng: random.Random, relations: tuple[str, ...], depth: int = 2,
                 names: list[str] | None = None, scope: list[str] | None = None) -> str:
    names = [] if names is None else names
    scope = [] if scope is None else scope
    text = random_node(rng, names, scope)
    for _ in range(rng.randint(1, 2) if depth else 0):
        negated = rng.random() < 0.25
        inner = list(scope) if negated else scope  # names under ! stay there
        target = random_query(rng, relations, depth - 1, names, inner)
        if " " in target:
            target = f"({target})"
        text += f" {'!' if negated else ''}{rng.choice(relations)} {target}"
    return text


def check(relations: tuple[str, ...], cases: int, seed: int) -> int:
    """Compare matcher and brute force on random trees and queries; the matches found."""
    rng = random.Random(seed)
    found = 0
    for _ in range(cases):
        sentences = [random_tree(rng, rng.randint(1, 7)) for _ in range(3)]
        bank = Treebank.of(sentences)
        query = random_query(rng, relations, rng.randint(1, 2))
        pattern = parse_query(query)
        got = sorted((m.sentence, m.node) for m in find(bank, pattern))
        want = sorted((k, a) for k, s in enumerate(sentences) for a in Brute(s).matches(pattern))
        assert got == want, query
        found += len(got)
    return found


@pytest.mark.parametrize("relation", TREE_RELATIONS + ARCS)
def test_each_relation_agrees_with_brute_force(relation):
    assert check((relation,), 150, sum(map(ord, relation))) > 0  # not vacuously empty


def test_random_combinations_agree_with_brute_force():
    assert check(TREE_RELATIONS + ARCS, 400, 38) > 0


def test_named_nodes_are_bound_to_what_they_matched():
    s = random_tree(random.Random(3), 6)
    bank = Treebank.of([s])
    flat = bank.flats[0]
    for m in find(bank, parse_query("__=top < __=kid")):
        assert m.names["top"] == m.node
        assert flat.parent[m.names["kid"]] == m.node


def test_function_tags_and_regexes_on_labels():
    tree = LexNode("TOP", [LexNode("S", [LexNode("NP-SBJ-1", [LexNode("NN", [], 0, 0)]),
                                         LexNode("VP", [LexNode("VB", [], 0, 1)])], 1)])
    s = Sentence(tree, ["well-known", "runs"], ["NN", "VB"], [2, 0], ["nsubj", "root"])
    bank = Treebank.of([s])

    def labels(q: str) -> list[str]:
        return [bank.flats[0].label[m.node] for m in find(bank, parse_query(q))]

    assert labels("NP") == ["NP-SBJ-1"]
    assert labels("NP-SBJ-1") == ["NP-SBJ-1"]
    assert labels("/SBJ/") == ["NP-SBJ-1"]
    assert labels("well") == []  # a word is not cut at its hyphen
    assert labels("well-known") == ["well-known"]
    assert labels("VP -nsubj-> NP") == ["VP"]
    assert labels("S -nsubj-> NP") == ["S"]  # S is headed by the verb too
    assert labels("NP <-nsubj- VB") == ["NP-SBJ-1"]
    assert labels("VP -obj-> __") == []


@pytest.mark.parametrize(("query", "column", "says"), [
    ("NP < < DT", 6, "expected a label"),
    ("NP <", 5, "expected a node"),
    ("NP < (DT", 9, "expected ')'"),
    ("NP < /[/", 7, "bad regular expression"),
    ("NP < =x", 6, "not named"),
    ("NP -nsubj DT", 10, "needs '->'"),
    ("NP ~ DT", 4, "expected a relation"),
    ("NP=a < NN=a", 10, "names two nodes"),
    ("NP !< (DT=d) $ =d", 16, "not named"),
    ("NP)", 3, "unexpected ')'"),
])
def test_bad_queries_name_the_column(query, column, says):
    with pytest.raises(QueryError) as err:
        parse_query(query)
    assert err.value.column == column
    assert says in str(err.value)
    assert "\n" not in str(err.value)


def test_pad_search_on_penn_files(ptb_dir, capsys):
    files = [str(ptb_dir / "wsj_0001.mrg"), str(ptb_dir / "wsj_0002.mrg")]
    assert main(["search", "NP-SBJ < (NP < NNP) < ADJP", *files]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("wsj_0001.mrg:1: (NP-SBJ (NP (NNP Pierre) (NNP Vinken)) (, ,) "
                           "(ADJP (NP (CD 61) (NNS years)) (JJ old)) (, ,))")
    assert out[-1] == "1 matches in 1 of 3 sentences"
    # arcs: the d-parse is read off the trees by the head table (DEPREL PARENT:DEP>HEAD)
    assert main(["search", "VP -/^S:NP/-> NNP=who", *files]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.rpartition("=who: ")[2] for line in out[:-1]] == [
        "(NNP Vinken)", "(NNP Vinken)", "(NNP Agnew)"]
    assert main(["search", "NNP <-/^S:NP/- VBZ", *files]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("wsj_0001.mrg:2: (NNP Vinken)")


def test_pad_search_pairs_conll_with_its_trees(tmp_path, capsys):
    conll = tmp_path / "two.conllu"
    conll.write_text("1\tdogs\tdog\tNOUN\tNNS\t_\t2\tnsubj\t_\t_\n"
                     "2\tbark\tbark\tVERB\tVBP\t_\t0\troot\t_\t_\n\n", encoding="utf-8")
    penn = tmp_path / "two.mrg"
    penn.write_text("(TOP (S (NP (NNS dogs)) (VP (VBP bark))))\n", encoding="utf-8")
    assert main(["search", "VP -nsubj-> NP", str(conll), "--trees", str(penn)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{conll}:1: (VP (VBP bark))", "1 matches in 1 of 1 sentences"]
    penn.write_text("(TOP (S (NP (NNS dogs))))\n", encoding="utf-8")
    assert main(["search", "VP", str(conll), "--trees", str(penn)]) == 1
    assert "tree 1 has 1 words but sentence 1" in capsys.readouterr().err


def test_pad_search_bad_query_is_one_line(capsys, ptb_dir):
    assert main(["search", "NP <<< DT", str(ptb_dir / "wsj_0001.mrg")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "column" in err


def test_bench_search_counts_what_pad_search_finds(ptb_dir, capsys):
    files = [str(ptb_dir / f"wsj_000{i}.mrg") for i in range(1, 4)]
    assert main(["search", "--count", "NP < PP", *files]) == 0
    count = capsys.readouterr().out.split()[0]
    assert main(["bench-search", "--query", "NP < PP", "--repeat", "1", *files]) == 0
    row = capsys.readouterr().out.splitlines()[2].split()
    assert row[2] == count
    assert row[3:] == ["NP", "<", "PP"]


def test_trees_from_elsewhere_are_headed_by_the_d_parse(sample):
    """A converted Penn line carries no heads: lexicalized by the CoNLL file's d-parse, each
    phrase gets the head the converter gave it (the trees are consistent with the d-parse)."""
    from nltk import Tree

    from pad_engine.decoding.rulebased import RuleBasedEngine
    from pad_engine.io.conll import read_conll
    from pad_engine.quality.sources import by_dparse
    from pad_engine.trees.deptree import is_projective
    from pad_engine.trees.lextree import to_line

    engine = RuleBasedEngine()
    checked = 0
    for sent in read_conll(sample).sentences:
        if not is_projective(sent.heads):
            continue
        decoded = engine.best(sent).tree
        again = by_dparse(Tree.fromstring(to_line(decoded, sent.forms)), sent.heads)
        assert induced_heads(again, len(sent)) == sent.heads
        checked += 1
    assert checked > 20


def test_pad_search_decodes_a_conll_file_without_trees(sample, capsys):
    assert main(["search", "--count", "S < (NP $ VP)", str(sample)]) == 0
    count, _, _, _found, _, total = capsys.readouterr().out.split()[:6]
    assert int(count) > 10
    assert int(total) == 36


def test_a_project_is_pointed_to_the_app(tmp_path, capsys):
    """pad search and pad check read exports (pad agree reads projects: test_agreement)."""
    project = tmp_path / "mine.padproject"
    project.write_bytes(b"SQLite format 3\x00")
    for command in (["search", "NP", str(project)], ["check", str(project)]):
        assert main(command) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert "export its trees" in err
