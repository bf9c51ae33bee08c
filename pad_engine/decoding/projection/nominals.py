"""The rules for nominal heads: noun phrases with their postmodifiers and coordinations,
amounts (QP, ranges, a preposition heading "about 100"), NAC, appositions and the verbless
clauses of naming verbs ("was elected (S (NP a director))")."""

from __future__ import annotations

from pad_engine.decoding.projection.coordination import _bare, _coordination, _coordination_end
from pad_engine.decoding.projection.plan import _Plan
from pad_engine.decoding.projection.words import (
    _NOMINAL,
    _has_verb,
    _head_cls,
    _is_marker,
    _prenominal,
    _relativized,
    _unpunctuated,
    _Word,
)

_APPROX = {"than", "about", "around", "nearly", "roughly", "almost", "more", "less", "fewer",
           "some", "over", "under", "approximately"}
# the prepositions that may head an amount (:func:`_heads_amount`), built once
_AMOUNT_HEADS = _APPROX | {"between", "out"}
_NAMED = {"elected", "named", "called", "dubbed", "termed", "labeled", "appointed",
          "designated", "considered", "renamed", "nicknamed", "titled", "deemed"}
_MADE = _NAMED | {"made", "kept", "found", "left", "rendered", "held"}

# nouns that take an infinitival complement ("the ability to pay", "efforts to sell"); after
# other nouns a to-clause is an infinitival relative ("ways to cut costs": PTB's SBAR with an
# empty wh-word)
_TO_NOUNS = {
    "ability", "inability", "right", "decision", "effort", "attempt", "agreement", "plan",
    "power", "opportunity", "authority", "intention", "pressure", "chance", "option", "duty",
    "contract", "proposal", "bid", "temptation", "refusal", "failure", "campaign",
    "commitment", "promise", "vote", "policy", "resistance", "willingness", "wish",
    "reluctance", "desire", "need", "approval", "obligation", "permission", "offer",
    "request", "order", "freedom", "tendency", "capacity", "incentive", "determination",
    "readiness", "eagerness", "urge", "drive", "push", "struggle", "goal", "aim", "mandate",
    "motion", "threat", "move", "license", "authorization", "consent", "pledge", "plea",
    "call", "demand",
}
# the first halves of paired coordinators, which PTB attaches beside the conjuncts
_PRECONJ = {"both", "either", "neither"}
_TIME_WORDS = {"today", "yesterday", "tomorrow", "monday", "tuesday", "wednesday", "thursday",
               "friday", "saturday", "sunday", "tonight"}


def _noun(words: list[_Word], w: _Word, left: list[int] | None = None) -> _Plan:
    """NP (QP for amounts, ADJP for prenominal amounts), a second NP for postmodifiers, a
    third for coordination, PP over a UD case marker. ``left``: the left dependents to use
    (of a UD predicate noun, those inside its copula)."""
    if left is None:
        if not (w.left or w.right):
            return _bare_noun(words, w)
        if _nac(words, w):  # "a (NAC Wayland , Mass. ,) manufacturer": one flat phrase
            return _Plan(["NAC"])
        left = w.left
    p = _Plan([])
    hc = _head_cls(words, w)
    prenominal = hc in _NOMINAL and w.index < w.head
    nums: list[int] = []
    approx: list[int] = []
    if w.cls in ("NUM", "CUR"):
        cc = next((k for k, d in enumerate(w.right) if words[d].cls == "CC"), len(w.right))
        nums = [d for d in w.left + w.right[:cc]  # not "1986-87 and 1987-88"
                if words[d].cls in ("NUM", "CUR")]
        approx = [d for d in left if not (words[d].left or words[d].right) and (
            words[d].cls == "ADV" or words[d].low in _APPROX)]
    qp = (len(nums) >= 2 or (w.cls == "NUM" and bool(nums or approx))) \
        and not any(words[d].cls == "N" and not (words[d].left or words[d].right)
                    for d in left + w.right)  # not "31 October 1950"
    if _range(words, w):  # "(NP (QP about $ 45 to $ 50))", "(NP (QP 30 to 44) days)"
        base = p.add("QP")
        for d in left + w.right:
            p.fixed[d] = base
        if not prenominal:
            outer = p.add("NP")
            for d in left + w.right:  # "(NP (QP $ 300 to $ 400) a bottle)"
                x = words[d]
                if x.left or x.right or (x.cls in ("DET", "ADJ", "N") and x.form != "%"):
                    p.fixed[d] = outer
        elif any(words[d].cls == "CUR" for d in [w.index, *left, *w.right]):
            p.add("ADJP")  # "an estimated (ADJP (QP $ 2 million to $ 3 million)) net loss"
        return p
    if prenominal and w.cls == "DET" and left and all(
            words[d].cls in ("ADV", "NEG") and words[d].leafish for d in left):
        base = p.add("ADJP")  # "(NP (ADJP virtually all) uses)"
    elif qp:
        base = p.add("QP")  # "$ 234.4 billion", "9.8 billion"
        if not prenominal:
            outer = p.add("NP")
            for d in left:  # "(NP the (QP $ 2.25 billion))", "an additional (QP $ 55 million)"
                if words[d].cls in ("DET", "ADJ") and d not in approx:
                    p.fixed[d] = outer
    elif prenominal and (w.cls == "CUR" or w.form == "%"):
        base = p.add("ADJP")  # "a $ 250 fine", "a 3.8 % return"
    else:
        base = p.add("NP")
    if prenominal and qp and (w.cls == "CUR" or any(words[d].cls == "CUR" for d in nums)):
        p.add("ADJP")
    if w.right:
        predicate = _small_clause_predicate(words, w)
        if predicate is not None:  # "called (S (NP her) (NP Cristal))"
            s = p.add("S")
            for d in w.right[predicate:]:
                p.fixed[d] = s
            for d in left:
                p.fixed.setdefault(d, base)
            return p
        _postmodifiers(words, w, left, p, base)
    for d in left:
        p.fixed.setdefault(d, base)
    if w.head >= 0:
        for k, d in enumerate(left):  # UD: a case marker makes a PP
            if d not in approx and _is_marker(words, d, ("P", "TO")):
                lvl = p.add("PP")
                for e in left[k:]:
                    p.fixed[e] = lvl
                break
    if p.labels[-1] != "PP" and _named(words, w):
        p.add("S")  # "was elected (S (NP a director))"
    return p


def _postmodifiers(words: list[_Word], w: _Word, left: list[int], p: _Plan, base: int
                   ) -> None:
    """The levels of the dependents right of a noun: an NP over its postmodifiers, another
    over a coordination, and one over what modifies the whole coordination. ``left``: the
    left dependents (a paired coordinator's first half goes with the coordination)."""
    coord = _coordination(words, w)
    after = _coordination_end(words, w, coord)
    if coord is not None and _bare(words, w.right[coord:after]):
        coord = None  # "notes and bonds": one flat NP
    end = after if coord is None else coord
    post = None
    pp = False  # a PP in the postmodifier NP so far
    for d in w.right[:end]:
        x = words[d]
        if x.cls == "PUNCT":
            continue
        leaf = not (x.left or x.right) or _bare_conjunct(words, x)
        if x.cls in ("POS", "CC") or ((x.cls in ("N", "NUM") or x.tag == "VBG") and leaf and \
                not _detached(words, x)) or _complement_clause(words, x):
            if post is None:
                p.fixed[d] = base
            continue
        if post is None:
            post = p.add("NP")
        elif pp and _set_off(words, x) and (x.cls in ("N", "NUM", "CUR", "DET") or any(
                words[e].cls in ("WH", "WADV") for e in x.left)):
            post = p.add("NP")  # "(NP (NP (NP PS) (PP of New Hampshire)) , (SBAR which ...))"
            pp = False
        p.fixed[d] = post
        pp = pp or x.cls in ("P", "TO")
    if coord is not None:
        lvl = p.add("NP")
        for d in w.right[coord:after]:
            p.fixed[d] = lvl
        if left and words[left[-1]].low in _PRECONJ and words[left[-1]].leafish:
            p.fixed[left[-1]] = lvl  # "(NP neither (NP Lorillard) nor (NP the researchers))"
    if after < len(w.right):  # "(NP (NP the health and safety) (PP of our employees))"
        lvl = p.add("NP")
        for d in w.right[after:]:
            p.fixed[d] = lvl


def _bare_noun(words: list[_Word], w: _Word) -> _Plan:
    """What :func:`_noun` makes of a nominal word without dependents (kept apart: most are
    bare): NP, ADJP for a prenominal amount ("a $ 250 fine"), S after a verb of naming, or
    nothing where it stays flat (:func:`_noun_projects`)."""
    p = _Plan([])
    if _noun_projects(words, w):
        prenominal = w.index < w.head and _head_cls(words, w) in _NOMINAL
        p.add("ADJP" if prenominal and (w.cls == "CUR" or w.form == "%") else "NP")
        if _named(words, w):
            p.add("S")  # "was elected (S (NP chairman))"
    return p


def _bare_conjunct(words: list[_Word], x: _Word) -> bool:
    """A one-word UD conjunct opened by the coordinator hung on it: it stays in its head's
    phrase as a bare word does ("(NP museum (NP and gallery)) practice", not "(NP (NP
    museum) (NP and gallery))"). After a comma it is in a list, which has phrases."""
    return bool(x.left) and words[x.left[-1]].rel == "cc" and \
        all(words[e].cls in ("CC", "PUNCT") for e in x.left + x.right)


def _named(words: list[_Word], w: _Word) -> bool:
    """The noun phrase after a passive verb of naming (or the adjective after one of
    making) is a verbless clause whose subject has moved: "was elected (S (NP a
    director))", "(VP named (S (NP Newsweek president)))", "was made (S (ADJP public))"."""
    if w.head < 0 or w.head > w.index:
        return False
    h = words[w.head]
    if h.tag != "VBN" or h.low not in (_NAMED if w.cls != "ADJ" else _MADE):
        return False
    return not any(words[d].cls in _NOMINAL for d in h.right if d < w.index)


def _small_clause_predicate(words: list[_Word], w: _Word) -> int | None:
    """Index in ``w.right`` of the predicate of a verbless clause whose subject is the object
    pronoun ``w``: "calls (S (NP her) (NP the best))", "makes (S (NP it) (ADJP clear))"."""
    if w.tag != "PRP" or w.left or w.head < 0 or w.head > w.index or \
            words[w.head].cls not in ("V", "AUX"):
        return None
    k = next((k for k, d in enumerate(w.right) if words[d].cls != "PUNCT"), None)
    if k is None:
        return None
    x = words[w.right[k]]
    if x.cls not in ("N", "NUM", "DET", "ADJ") or _set_off(words, x) or _apposed(words, x) \
            or any(_is_marker(words, e, ("P", "TO")) for e in x.left):  # UD "in it for ..."
        return None
    return k


def _set_off(words: list[_Word], x: _Word) -> bool:
    """Does a comma, dash or colon come right before the phrase of ``x``?"""
    first = x
    while first.left:
        first = words[first.left[-1]]
    if first.cls == "PUNCT" and first.form in (",", "--", ":"):
        return True
    return first.index > 0 and words[first.index - 1].form in (",", "--", ":")


def _nac(words: list[_Word], w: _Word) -> bool:
    """A proper noun with words after it inside a noun phrase that it premodifies ("the
    Stamford , Conn. , concern", "Bank of Japan intervention"): PTB's NAC (PTB tags only:
    UD label sets have no such phrase)."""
    if not w.right or w.head <= w.index or w.tag not in ("NNP", "NNPS") or \
            _head_cls(words, w) != "N" or w.rel not in ("", "compound", "nmod") or \
            any(words[d].cls == "POS" for d in w.right):  # "(NP (NP Boston 's) institute)"
        return False
    last = w
    while last.right:
        last = words[last.right[-1]]
    after = next((x for x in words[last.index + 1:] if x.cls != "PUNCT"), None)
    return after is not None and (after.index == w.head or after.head == w.head)


def _range(words: list[_Word], w: _Word) -> bool:
    """ "$ 2 million to $ 3 million", "1 % to 2 %": an amount with "to" and another amount,
    one flat QP. Collins heads hang "to" and the second amount on the first; content heads
    hang "to" and the first amount on the second."""
    if not _amount(w):
        return False
    for side in (w.right, w.left):  # nearest first: "to", then the other amount
        to = next((k for k, d in enumerate(side) if words[d].low == "to"
                   and not (words[d].left or words[d].right)), None)
        if to is not None and to + 1 < len(side) and _amount(words[side[to + 1]]):
            return True
    return False


def _amount(x: _Word) -> bool:
    return x.cls in ("NUM", "CUR") or x.form == "%"


def _complement_clause(words: list[_Word], x: _Word) -> bool:
    """ "the ability to nominate", "evidence that prices rose": a clause that completes a noun
    sits beside it in one NP (relative clauses get an NP of their own)."""
    if x.low == "that" and x.cls in ("P", "SC"):
        return _has_verb(words, x.right)
    return (x.cls in ("V", "AUX") and any(
        _is_marker(words, d, ("P", "SC")) and words[d].low == "that"
        for d in x.left)) or (_to_clause(words, x) and not _infinitival_relative(words, x))


def _to_clause(words: list[_Word], x: _Word) -> bool:
    """ "to pay": Collins' "to" heading a verb, or (UD) a verb with "to" before it."""
    if x.cls == "TO":
        return _has_verb(words, x.right)
    return x.cls in ("V", "AUX") and any(
        words[d].cls == "TO" and words[d].aux for d in x.left)


def _infinitival_relative(words: list[_Word], x: _Word) -> bool:
    """ "ways (SBAR to cut costs)": a to-clause after a noun that takes no infinitival
    complement (:data:`_TO_NOUNS`) modifies it as a relative clause with an empty wh-word."""
    if x.head < 0 or x.head > x.index or not _to_clause(words, x):
        return False
    return _relativized(words[x.head], _TO_NOUNS)


def _noun_projects(words: list[_Word], w: _Word) -> bool:
    """Does a nominal word without dependents project NP? Not inside another noun phrase
    (determiners, numbers and prenominal nouns stay flat)."""
    if w.head < 0:
        return True
    h = words[w.head]
    if w.cls == "NUM" and h.cls == "N" and w.form.isdigit() and 1700 <= int(w.form) <= 2100:
        return False  # "Aug. 31 , 1987"
    if _nac(words, h):
        return False  # flat inside a NAC: "(NAC Wayland , Mass. ,)"
    if w.index > h.index and (_small_clause_predicate(words, h) is not None or
                              _detached(words, w)):
        return True  # "(S (NP her) (NP Cristal))", "Frederick Deane Jr. , (NP 63) ,"
    if _head_cls(words, w) in _NOMINAL:
        return w.cls == "DET" and w.index > w.head
    if w.cls == "NUM" and h.cls == "ADJ" and h.index < w.index and h.head < h.index:
        return True  # "notes due (NP 2009)"
    if h.cls == "ADJ" and w.index < h.index and _prenominal(words, h):
        return False  # "an Irvine , Calif.-based maker"
    if w.cls == "NUM" and (h.cls in ("ADV", "ADJ") or (h.cls == "P" and _is_qp(words, h))):
        return False
    if w.cls == "DET" and (h.cls in ("ADJ", "ADV") or _adverbial(words, h)):  # noqa: SIM103 - rules read as a table
        return False  # "(ADVP at all)"
    return True


def _is_qp(words: list[_Word], w: _Word) -> bool:
    """ "about 100", "more than 30": a preposition before a number inside a noun phrase."""
    h = words[w.head] if w.head >= 0 else None
    return (h is not None and h.cls in ("NUM", "CUR", "N") and w.index < w.head
            and any(words[d].cls in ("NUM", "CUR") for d in w.right)) or _heads_amount(words, w)


def _heads_amount(words: list[_Word], w: _Word) -> bool:
    """ "(NP (QP about # 15 billion))", "(QP more than six)": Collins heads make the
    preposition of an approximate amount its head; its object is bare numbers."""
    if w.cls != "P" or w.low not in _AMOUNT_HEADS:
        return False
    objs = _unpunctuated(words, w.right)
    return bool(objs) and words[objs[0]].cls in ("NUM", "CUR") and \
        not (words[objs[0]].left or words[objs[0]].right)


def _adverbial(words: list[_Word], w: _Word) -> bool:
    """A change by an amount ("closed (ADVP up (NP 31 cents))", "(ADVP off 2.6 %)"), "at all"
    or "at least": PTB's ADVP where the word would otherwise head a PP, QP or ADJP."""
    objs = _unpunctuated(words, w.right)
    if len(objs) != 1:
        return False
    x = words[objs[0]]
    low = w.low
    if low == "at":
        return x.low in ("all", "least", "most") and not (x.left or x.right)
    return low in ("up", "down", "off") and (x.cls in ("NUM", "CUR") or any(
        words[d].cls in ("NUM", "CUR") for d in x.left))


def _detached(words: list[_Word], x: _Word) -> bool:
    """A one-word dependent that is a noun phrase of its own beside its head: right after a
    comma, dash or bracket that follows the head (an appositive: "Frederick Deane Jr. , 63
    ,"), or :func:`_apposed`."""
    return (x.head >= 0 and x.index - 1 > x.head and \
        words[x.index - 1].form in (",", "--", "-LRB-", "(")) or _apposed(words, x)


def _apposed(words: list[_Word], x: _Word) -> bool:
    """A one-word noun phrase after a noun that is not part of its compound: a reflexive
    ("(NP (NP the tests) (NP themselves))") or a point in time ("our work force (NP today)")."""
    if x.head < 0 or x.head > x.index or x.left or x.right or words[x.head].cls != "N":
        return False
    low = x.low
    return (low.endswith(("self", "selves")) and x.tag in ("PRP", "PRON")) or low in _TIME_WORDS
