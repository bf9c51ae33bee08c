"""The rules for verbs and the clauses they head: VP levels per auxiliary, S, SINV and SQ,
inversion, and SBAR for complementizers and PTB's empty ones. A UD predicate noun or adjective
heads its clause too, so these rules build on the noun and modifier rules."""

from __future__ import annotations

from pad_engine.decoding.projection.coordination import _bare, _coordination
from pad_engine.decoding.projection.modifiers import _compared, _object_clause
from pad_engine.decoding.projection.nominals import _infinitival_relative, _noun
from pad_engine.decoding.projection.plan import _PHRASE, _Plan
from pad_engine.decoding.projection.words import (
    _BE_HAVE_DO,
    _NOMINAL,
    _SUBJECT_RELS,
    _is_marker,
    _is_subject,
    _parenthetical,
    _unpunctuated,
    _Word,
)

_LOCATIVE = {"come", "comes", "came", "stand", "stands", "stood", "lie", "lies", "lay", "sit",
             "sits", "sat", "remain", "remains", "remained", "follow", "follows", "followed"}
_SAYS = {"says", "said", "adds", "added", "asks", "asked", "notes", "noted", "writes", "wrote",
         "explains", "explained", "recalls", "recalled", "argues", "argued"}
_FINITE = {"VBD", "VBZ", "VBP", "MD"}


def _verb(words: list[_Word], w: _Word) -> _Plan:
    """VP, then one VP per UD auxiliary, S (or SINV) with a subject or a clause role, SBAR
    with a complementizer (or a finite complement clause). A UD predicate adjective or noun
    ("is very soft") first projects its own phrase from the dependents inside the copula."""
    conj_has_subject = False
    if _inverted_question(words, w):  # Collins heads: (SQ can (NP Mr. Hahn) (VP carry it))
        p = _Plan(["SQ"])
        p.top = 0
        for d in w.left + w.right:
            p.fixed[d] = 0
        return p
    if w.cls in ("V", "AUX", "TO"):
        p = _Plan([])
        base = p.add("VP")
        coord = _coordination(words, w)
        first = next((d for d in w.right[coord:] if words[d].cls not in ("PUNCT", "CC")),
                     None) if coord is not None else None
        if first is not None and _bare(words, [first], ("V",)):
            coord = None
        conj_has_subject = first is not None and any(
            _is_subject(words, d) for d in words[first].left)
        right_end = len(w.right) if coord is None else coord
        for d in w.right[:right_end]:
            if words[d].cls != "PUNCT":
                p.fixed[d] = base
        if coord is not None and not conj_has_subject:
            lvl = p.add("VP")
            for d in w.right[coord:]:
                p.fixed[d] = lvl
        inner = 0
    else:
        inner = next((k for k, d in enumerate(w.left) if words[d].aux), len(w.left))
        if w.cls in _NOMINAL:
            p = _noun(words, w, w.left[:inner])
        else:
            p = _Plan([_PHRASE.get(w.cls, "X")])
            for d in w.left[:inner] + w.right:
                if words[d].cls != "PUNCT":
                    p.fixed[d] = 0
            _compared(words, w, w.left[:inner], p)
        p.top = None
    # left side, nearest first: auxiliaries (UD), subject, markers
    subject = None
    marker = None
    to = question = False
    for k in range(inner, len(w.left)):  # (up to the marker)
        d = w.left[k]
        if subject is None and words[d].aux:
            if to:
                p.add("S")  # "is to produce": (VP is (S (VP to produce)))
            p.fixed[d] = p.add("VP")
            to = to or words[d].cls == "TO"
        elif subject is None and _relative_subject(words, w, d):
            marker = k  # UD "an insight (SBAR (WHNP that) (S (VP does not depend ...)))"
            break
        elif subject is None and _is_subject(words, d):
            subject = k
        elif _is_marker(words, d, ("P", "SC", "WH", "WADV")):
            marker = k
            break
        elif subject is not None and words[d].aux:
            question = True  # "Why did you choose": the auxiliary before the subject
    role_s = to or _clause_role(words, w)
    if subject is not None or role_s:
        inverted = _inverted(words, w, subject)
        s = p.add("SINV" if inverted else "SQ" if question else "S")
        p.top = s
        if inverted:  # the subject follows the verb: everything after it is in SINV
            for d in w.right:
                p.fixed[d] = s
        for d in w.left[subject if subject is not None else inner:marker]:
            if d not in p.fixed:
                p.fixed[d] = s
        if subject is not None:
            p.fixed[w.left[subject]] = s
    if conj_has_subject:
        lvl = p.add("S" if p.top is not None else "VP")
        p.top = lvl
        for d in w.right[coord:]:
            p.fixed[d] = lvl
        if subject is not None and (
                any(words[d].cls == "CC" for d in w.right[coord:w.right.index(first)])
                or any(words[d].rel == "cc" for d in words[first].left)):
            # clauses joined by a coordinator (UD hangs it on the second): what comes before
            # the first subject scopes over both, "(S When ... , (S A fell) and (S B rose))"
            # (not after ";" or ":")
            for d in w.left[subject + 1:marker]:
                p.fixed[d] = lvl
    if marker is not None:
        if p.top is None:
            p.top = p.add("S")
        asks = question or (w.head < 0 and any(words[d].form == "?" for d in w.right))
        sbar = p.add("PP" if _object_clause(words, words[w.left[marker]], w)
                     else "SBARQ" if asks else "SBAR")
        for d in w.left[marker:]:
            p.fixed[d] = sbar
    elif (subject is not None and _finite_complement(words, w) and \
            not _parenthetical(words, w)) or \
            (subject is None and _infinitival_relative(words, w)):
        p.add("SBAR")
    return p


def _relative_subject(words: list[_Word], w: _Word, d: int) -> bool:
    """A UD relative pronoun that is its clause's subject: PTB puts it beside the clause
    (its trace is the subject), in SBAR, as any other relative pronoun. Only the first
    word of the clause: "the man (SBAR whose (NP dog) ...)" is not one."""
    x = words[d]
    return x.cls == "WH" and x.leafish and x.rel in _SUBJECT_RELS and \
        w.rel in ("acl", "advcl") and _unpunctuated(words, w.left)[-1:] == [d]


def _inverted_question(words: list[_Word], w: _Word) -> bool:
    """An auxiliary heading a question, its subject and then the main verb after it."""
    if w.cls not in ("AUX", "V") or (w.low not in _BE_HAVE_DO and w.cls != "AUX"):
        return False
    if any(_is_subject(words, d) for d in w.left):
        return False
    after = _unpunctuated(words, w.right)
    return len(after) >= 2 and _is_subject(words, after[0]) and \
        words[after[1]].cls in ("V", "AUX", "ADJ") and \
        any(words[d].form == "?" for d in [*w.right, len(words) - 1])


def _inverted(words: list[_Word], w: _Word, subject: int | None) -> bool:
    """ "..., said Mr. Smith", "Says Mr. Smith, ``...", "Behind the hoopla is competition",
    "So did the index": no subject before the verb, a noun phrase right after it, and before
    the verb a quoted clause, a fronted PP (for "be") or "so"/"nor"; or no word at all before
    it and a quoted clause after the noun phrase."""
    if subject is not None or w.head >= 0 or w.cls not in ("V", "AUX"):
        return False
    after = _unpunctuated(words, w.right)
    if not after or words[after[0]].cls not in _NOMINAL:
        return False
    # "be" and verbs of place and motion invert after a fronted place or time: "Here are
    # the figures", "On one side stand the forces", "Then came Oct. 13"
    inverts = w.low in _BE_HAVE_DO or w.cls == "AUX" or w.low in _LOCATIVE
    before = _unpunctuated(words, w.left)
    if not before:  # "Says Gayle Key, a teacher, `` ...": a verb of saying first
        return w.low in _SAYS and any(words[d].cls in ("V", "AUX") for d in after[1:])
    return any(words[d].cls in ("V", "AUX") or (inverts and words[d].cls == "P" and words[d].right)
               or (inverts and words[d].low in ("so", "nor", "neither", "here", "then"))
               for d in before)


def _clause_role(words: list[_Word], w: _Word) -> bool:
    """Does a subjectless verb still project S (the root, infinitives, gerunds after
    prepositions, relative and adverbial clauses)?"""
    if w.head < 0:
        return True
    h = words[w.head]
    if w.cls == "TO":
        return h.cls != "TO"
    if h.cls in ("P", "SC", "WH", "WADV") or (h.cls == "TO" and w.index > h.index
                                               and w.tag == "VBG"):
        return True
    if w.rel in ("advcl", "csubj", "ccomp", "xcomp"):
        return True
    if h.cls in ("V", "AUX") and w.index < h.index and w.cls == "V" and \
            not w.aux:  # "(S Stung by the ads) , he unleashed"
        return True
    if h.cls in ("V", "AUX") and w.tag == "VBG" and h.low not in _BE_HAVE_DO:
        if _separated(words, h, w, ("CC",)):
            return False
        coord = _coordination(words, h) if w.index > h.index else None
        return coord is None or w.index < h.right[coord]  # "initialing , amending and ..."
    if h.cls == "V" and w.tag == "VB" and w.index > h.index and \
            h.low not in _BE_HAVE_DO:  # a bare infinitive: "help (S (VP meet demand))"
        return not _separated(words, h, w, ("CC", "PUNCT"))
    return False


def _separated(words: list[_Word], h: _Word, w: _Word, classes: tuple[str, ...]) -> bool:
    """Does a word of ``classes`` stand among ``h``'s right dependents before ``w``? After
    "and" or a quotation mark, ``w`` is a conjunct or a quotation, not ``h``'s complement."""
    return any(words[d].cls in classes for d in h.right if d < w.index)


def _finite_complement(words: list[_Word], w: _Word) -> bool:
    """A finite clause with a subject that complements a verb or noun gets SBAR (PTB's empty
    complementizer), unless it is a conjunct."""
    if w.head < 0 or w.index < w.head:
        return False
    h = words[w.head]
    if h.cls not in ("V", "AUX", "N", "ADJ"):
        return False
    if w.rel:
        return w.rel in ("ccomp", "acl", "advcl")
    if w.tag not in _FINITE and w.cls != "AUX" and \
            not any(words[d].tag in _FINITE and words[d].aux for d in w.left):
        return False
    return not _separated(words, h, w, ("CC", "PUNCT"))  # not after "and", nor a quotation
