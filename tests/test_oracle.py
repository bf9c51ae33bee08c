"""Oracle mode: the tree of Y(x, d) closest to a gold tree (the paper's Table 4 figure)."""

from __future__ import annotations

import random
from collections import Counter

from toy import enumerate_parses, random_projective

from pad_engine.decoding.parser import Parser
from pad_engine.trees.binarize import debinarize
from pad_engine.trees.lextree import LexNode, induced_heads, to_line


def brackets(root: LexNode) -> Counter:
    found: Counter = Counter()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.word < 0 and node.label != "TOP":
            found[(node.label, *node.span())] += 1
            stack.extend(node.children)
    return found


def gain(tree: LexNode, gold: LexNode) -> int:
    """Matched minus unmatched brackets, each gold bracket matched at most once (EVALB)."""
    test = brackets(tree)
    matched = sum((test & brackets(gold)).values())
    return matched - (sum(test.values()) - matched)


def test_oracle_is_the_closest_tree_by_brute_force(random_model):
    rng = random.Random(9)
    parser = Parser(random_model)
    tags_pool = ["DT", "NN", "NN", "VBD", "VBD", "IN", "JJ"]
    compared = in_y = 0
    for trial in range(3000):
        n = rng.randint(1, 5)
        tags = [rng.choice(tags_pool) for _ in range(n)]
        forms = [f"w{trial}_{i}" for i in range(n)]
        heads = random_projective(n, rng)
        trees = [debinarize(t) for t in enumerate_parses(random_model, tags, heads)]
        if not trees:
            continue
        # a gold tree from Y(x, d) itself, or one built for another d-parse of the sentence
        if trial % 2:
            gold = rng.choice(trees)
        else:
            other = [debinarize(t) for t in
                     enumerate_parses(random_model, tags, random_projective(n, rng))]
            if not other:
                continue
            gold = rng.choice(other)
        result = parser.oracle(forms, tags, heads, gold)
        assert result.how == "oracle"
        assert induced_heads(result.tree, n) == heads
        assert gain(result.tree, gold) == max(gain(t, gold) for t in trees)
        if trial % 2:
            assert to_line(result.tree, forms) == to_line(gold, forms)
            in_y += 1
        compared += 1
    assert compared >= 100 and in_y >= 40, (compared, in_y)


def test_oracle_returns_the_gold_tree_of_its_own_dparse(ptb_dir):
    """With gold Collins d-parses and a grammar that has the gold rules, the gold tree is in
    Y(x, d) and the oracle must find it, unary chains included."""
    from pad_engine.decoding.model import Model
    from pad_engine.learning.bench import load_split

    examples = load_split(ptb_dir, range(160, 164), "collins")
    model = Model()
    for ex in examples:
        model.grammar.observe(ex.tree, ex.tags)
    model.invalidate()
    parser = Parser(model)
    for ex in examples:
        result = parser.oracle(ex.forms, ex.tags, ex.heads, ex.lex)
        assert result.how == "oracle"
        assert to_line(result.tree, ex.forms) == to_line(ex.lex, ex.forms)
