"""The projection's rules one by one: a small d-parse each, and the phrase the rule makes."""

from __future__ import annotations

from nltk import Tree

from pad_engine.decoding.projection import project
from pad_engine.trees.lextree import to_line


def _phrases(rows: str) -> set[str]:
    """The labelled phrases, as "(LABEL word word ...)", of the projection of a d-parse
    given as "form TAG head" rows (1-based heads), or "form TAG head rel" rows (UD)."""
    cols = list(zip(*(row.split() for row in rows.strip().splitlines())))
    forms, tags, heads = cols[:3]
    rels = list(cols[3]) if len(cols) > 3 else None
    tree = project(list(forms), list(tags), [int(h) for h in heads], rels)
    return {f"({t.label()} {' '.join(t.leaves())})"
            for t in Tree.fromstring(to_line(tree, list(forms))).subtrees(lambda t: t.height() > 2)}


def test_a_parenthetical_pp_keeps_its_object():
    # Collins heads hang the commas on "for": the PRN holds the whole PP, not a bare "for"
    phrases = _phrases("""
        owners NNS 6
        , , 3
        for IN 6
        example NN 3
        , , 3
        had VBD 0
        """)
    assert "(PP for example)" in phrases
    assert "(PRN , for example ,)" in phrases


def test_a_paired_coordinator_stands_beside_the_conjuncts():
    # "neither" hangs on the first conjunct, but PTB puts it in the coordination's NP
    phrases = _phrases("""
        Neither DT 2
        Lorillard NNP 6
        nor CC 2
        the DT 5
        researchers NNS 2
        were VBD 0
        aware JJ 6
        """)
    assert "(NP Neither Lorillard nor the researchers)" in phrases
    assert "(NP Neither Lorillard)" not in phrases


def test_never_is_an_advp_and_not_is_bare():
    never = _phrases("""
        meeting NN 3
        never RB 3
        took VBD 0
        place NN 3
        """)
    assert "(ADVP never)" in never
    assert "(ADVP not)" not in _phrases("""
        meeting NN 3
        not RB 3
        took VBD 0
        place NN 3
        """)


def test_a_time_adverb_opening_an_apposition_is_an_advp():
    rows = """
        Shugart NNP 6
        , , 1
        {adverb} RB 4
        chairman NN 1
        , , 1
        led VBD 0
        """
    assert "(ADVP currently)" in _phrases(rows.format(adverb="currently"))
    assert "(ADVP mainly)" not in _phrases(rows.format(adverb="mainly"))


def test_a_fronted_clause_scopes_over_coordinated_clauses():
    phrases = _phrases("""
        When WRB 6
        prices NNS 3
        dropped VBD 1
        , , 6
        funds NNS 6
        plunged VBD 0
        and CC 6
        stocks NNS 9
        fell VBD 6
        """)
    assert "(S funds plunged)" in phrases
    assert "(S When prices dropped , funds plunged and stocks fell)" in phrases


def test_a_deictic_adverb_after_a_preposition_is_an_np():
    rows = """
        Congress NNP 2
        acts VBZ 0
        by IN 2
        {adverb} RB 3
        """
    assert "(NP then)" in _phrases(rows.format(adverb="then"))
    assert "(NP far)" not in _phrases(rows.format(adverb="far"))


def test_a_bare_ud_conjunct_stays_in_its_heads_phrase():
    phrases = _phrases("""
        on IN 5 case
        museum NN 5 compound
        and CC 4 cc
        gallery NN 2 conj
        practice NN 0 root
        """)
    assert "(NP museum and gallery)" in phrases
    assert "(NP museum)" not in phrases


def test_a_ud_relative_subject_stands_beside_its_clause():
    phrases = _phrases("""
        an DT 2 det
        insight NN 0 root
        that WDT 5 nsubj
        does VBZ 5 aux
        depend VB 2 acl:relcl
        """)
    assert "(S does depend)" in phrases
    assert "(SBAR that does depend)" in phrases


def test_a_ud_deictic_adverb_with_a_case_marker_is_a_pp_object():
    phrases = _phrases("""
        It PRP 2 nsubj
        worked VBD 0 root
        until IN 4 case
        now RB 2 obl
        """)
    assert "(NP now)" in phrases
    assert "(PP until now)" in phrases


def test_a_determiner_with_an_adverb_before_a_noun_is_an_adjp():
    phrases = _phrases("""
        banned VBD 0
        virtually RB 3
        all DT 4
        uses NNS 1
        """)
    assert "(ADJP virtually all)" in phrases
    assert "(NP virtually all)" not in phrases
