"""The rules for everything that is neither verb nor noun: adjectives (ADJP), adverbs (ADVP),
prepositions (PP, SBAR, QP), wh-words, particles and interjections, with comparatives and
multiword coordinators."""

from __future__ import annotations

from pad_engine.decoding.projection.coordination import _bare, _coordination
from pad_engine.decoding.projection.nominals import _adverbial, _heads_amount, _is_qp, _named
from pad_engine.decoding.projection.plan import _PHRASE, _Plan
from pad_engine.decoding.projection.words import (
    _NOMINAL,
    _SUBJECT_RELS,
    _has_verb,
    _head_cls,
    _is_subject,
    _opened_by,
    _prenominal,
    _unpunctuated,
    _Word,
)

_SUBORDINATORS = {"while", "although", "though", "if", "unless", "once", "whether", "when",
                  "whereas"}
# adverbs of time and place that name a time or place (an NP as a preposition's object)
_DEICTIC = {"now", "then", "here", "there", "once", "above", "below"}
# adverbs of time that open an appositive noun phrase (:func:`_opens_apposition`)
_THEN = {"formerly", "currently", "now", "previously", "once", "recently", "then", "later",
         "earlier", "still"}
_CONJUNCTIONS = {"as well as", "rather than", "not only", "but also", "along with"}
_CONJUNCTION_WORDS = {low for c in _CONJUNCTIONS for low in c.split()}

# adverb + preposition pairs that PTB keeps flat in one PP or SBAR ("(PP rather than ...)",
# "(SBAR even though ...)"); other adverbs before a preposition are an ADVP ("(PP (ADVP
# only) in Japan)", "(SBAR (ADVP partly) because ...)")
_FUSED = {("rather", "than"), ("instead", "of"), ("because", "of"), ("more", "than"),
          ("less", "than"), ("even", "though"), ("even", "if"), ("even", "after"),
          ("even", "before"), ("just", "as"), ("so", "that"), ("well", "over")}


def _other(words: list[_Word], w: _Word) -> _Plan:
    """Adjectives (ADJP), adverbs (ADVP), prepositions (PP, SBAR before a clause, QP before a
    number, WHPP + SBAR for "in which"), wh-words (WHNP/WHADVP, SBAR over their clause),
    particles, interjections; bare modifiers inside a phrase project nothing."""
    p = _Plan([])
    leaf = not (w.left or w.right)
    cls = w.cls
    hc = _head_cls(words, w)
    if cls == "ADJ":
        if leaf and ((hc in _NOMINAL and (w.index < w.head or words[w.index - 1].cls == "CC"))
                     or hc == "ADJ"  # "state and local taxes"
                     or (hc == "P" and not _sole_object(words, w))  # but "(PP as (ADJP normal))"
                     or (hc == "ADV" and w.index > w.head)):  # "almost entirely Western"
            return p
        if leaf and hc in ("V", "AUX") and w.index < w.head and not w.rel:
            p.add("ADVP")  # "Overall , earnings soared"
        elif _adverbial(words, w) or w.low in ("later", "earlier", "relative"):
            p.add("ADVP")  # "(ADVP off (NP 2.6 %))", "(ADVP two weeks later)"
        else:
            p.add("NP" if w.rel in (*_SUBJECT_RELS, "obj", "iobj") else "ADJP")  # "most of"
            _compared(words, w, w.left, p)
            subject = _small_clause_subject(words, w)
            if subject is not None:  # "found (S (NP the rates) (ADJP illegal))"
                s = p.add("S")
                for d in w.left[subject:]:
                    p.fixed[d] = s
            elif _named(words, w):
                p.add("S")  # "had been made (S (ADJP public))"
    elif cls in ("ADV", "NEG"):
        h = words[w.head] if w.head >= 0 else None
        if w.right and all(words[d].cls in ("NUM", "CUR") for d in w.right) and \
                not _adverbial(words, w):
            p.add("QP")  # "about 26,000"
            return p
        # "not" and "n't" stay bare, but PTB always gives "never" an ADVP
        if leaf and ((cls == "NEG" and w.low != "never")
                     or hc in ("ADJ", "ADV", "NUM", "CUR", "DET", "NEG")
                     or (hc in _NOMINAL and w.index < w.head and not _opens_apposition(words, w))
                     or (hc == "P" and h is not None and (_is_qp(words, h) or _fused(w, h)))
                     or (hc == "V" and h is not None and _prenominal(words, h))):
            return p
        # "by (NP then)", "until (NP now)", "from (NP above)": a deictic adverb as the
        # object of a preposition is a noun phrase (but "by (ADVP far)", "for (ADJP sure)")
        p.add("NP" if leaf and w.low in _DEICTIC and hc == "P" and _sole_object(words, w)
              else "ADVP")
        _compared(words, w, w.left, p)
        first = next((d for d in w.right if words[d].cls != "PUNCT"), None)
        if first is not None and words[first].cls == "ADJ" and not words[first].right and \
                w.left:  # "(ADJP (ADVP almost entirely) Western)", but "(ADVP so far)"
            adjp = p.add("ADJP")
            for d in w.right:
                p.fixed[d] = adjp
            return p
    elif cls in ("P", "TO", "SC"):
        if leaf:
            if hc in ("V", "AUX") and w.index > w.head:
                p.add("PRT")
            return p
        objs = _unpunctuated(words, w.right)
        clause = any((words[d].cls in ("V", "AUX") and not _object_clause(words, w, words[d]))
                     or (words[d].cls == "TO" and _has_verb(words, words[d].right))
                     for d in objs)
        if clause and words[objs[0]].cls == "WH":  # "under which it would remain"
            p.fixed[objs[0]] = p.add("WHPP")
            sbar = p.add("SBAR")
            for d in w.right[w.right.index(objs[0]) + 1:]:
                p.fixed[d] = sbar
        elif clause or cls == "SC":
            p.add("SBAR")
        elif _is_qp(words, w):
            p.add("QP")
            if _heads_amount(words, w) and not _prenominal(words, w):
                outer = p.add("NP")  # "(NP (QP about $ 15 billion) (PP in Britain))"
                for d in w.right:
                    x = words[d]
                    p.fixed[d] = outer if x.left or x.right or \
                        x.cls not in ("NUM", "CUR", "CC", "N", "PUNCT") else 0
        elif (not objs and w.left) or _adverbial(words, w):
            p.add("ADVP")  # "35 years ago", "(ADVP up (NP 31 cents))", "(ADVP at least)"
        else:
            p.add("PP")
    elif cls in ("WH", "WADV"):
        p.add("WHNP" if cls == "WH" else "WHADVP")
        if _has_verb(words, w.right):
            s = p.add("SBAR")
            for d in w.right:
                p.fixed[d] = s
    elif cls == "PRT":
        if hc in ("V", "AUX") or not leaf:
            p.add("PRT")
    elif cls == "INTJ":
        p.add("INTJ")
    elif cls == "PUNCT":
        p.add("PRN" if w.form in ("-LRB-", "(", "-LCB-", "{") else "FRAG")
    elif not leaf or hc in ("V", "AUX", "ROOT"):
        p.add(_PHRASE.get(cls, "X"))
    if len(p.labels) == 1 and not leaf and _multiword_conjunction(words, w):
        p.labels[0] = "CONJP"  # "(CONJP as well as)", "(CONJP rather than)"
    coord = _coordination(words, w) if p.labels and w.right else None
    if coord is not None and not _bare(words, w.right[coord:]):
        for d in w.right[:coord]:
            p.fixed.setdefault(d, len(p.labels) - 1)
        lvl = p.add(p.labels[-1])
        for d in w.right[coord:]:
            p.fixed[d] = lvl
    if w.head < 0 and not p.labels:
        p.add(_PHRASE.get(cls, "X") if cls not in ("P", "PUNCT", "CC") else "X")
    if w.head < 0 and p.labels[-1] not in ("S", "FRAG", "INTJ", "X"):
        p.add("FRAG")
    return p


def _compared(words: list[_Word], w: _Word, left: list[int], p: _Plan) -> None:
    """A modified adjective or adverb with a "than" or "as" complement gets a second level
    for it: "(ADJP (ADJP far higher) (SBAR than expected))". ``left``: its left
    dependents (inside a UD copula)."""
    if not p.labels or p.labels[-1] not in ("ADJP", "ADVP") or \
            all(words[d].cls == "PUNCT" for d in left):
        return
    for k, d in enumerate(w.right):
        if _opened_by(words, words[d], ("than", "as"), ("P", "SC")):
            level = p.add(p.labels[-1])
            for e in w.right[:k]:
                p.fixed.setdefault(e, len(p.labels) - 2)
            for e in w.right[k:]:
                p.fixed[e] = level
            return


def _multiword_conjunction(words: list[_Word], w: _Word) -> bool:
    """Does ``w`` with its one-word dependents spell a coordinator of several words?"""
    if w.low not in _CONJUNCTION_WORDS:
        return False
    deps = w.left + w.right
    if not deps or len(deps) > 2 or any(words[d].left or words[d].right for d in deps):
        return False
    span = sorted([*deps, w.index])
    if span[-1] - span[0] != len(span) - 1:
        return False
    return " ".join(words[i].low for i in span) in _CONJUNCTIONS


def _small_clause_subject(words: list[_Word], w: _Word) -> int | None:
    """Index in ``w.left`` of the subject of a verbless clause that complements a verb:
    "deemed (S (NP any cases) (ADJP bad enough))". A noun phrase before an adjective, but
    not a measure ("(ADJP (NP 5 years) old)") nor a determiner ("the biggest")."""
    if w.head < 0 or w.head > w.index or words[w.head].cls not in ("V", "AUX"):
        return None
    for k, d in enumerate(w.left):
        x = words[d]
        if x.rel:
            if x.rel in _SUBJECT_RELS:
                return k
        elif x.cls == "N" and not any(words[e].cls in ("NUM", "CUR") for e in x.left):
            return k
    return None


def _deictic_object(words: list[_Word], w: _Word) -> bool:
    """Is the adverb ``w`` deictic with a UD case marker: the noun phrase object of a PP,
    "(PP until (NP now))", as under Collins heads (:data:`_DEICTIC`)?"""
    return w.low in _DEICTIC and any(
        words[d].rel == "case" and words[d].leafish for d in w.left)


def _opens_apposition(words: list[_Word], w: _Word) -> bool:
    """An adverb of time after a comma that opens a noun phrase: PTB gives it an ADVP
    ("Terrence D. Daniels , (NP (ADVP formerly) a W.R. Grace vice chairman)"); focusing
    adverbs stay bare ("Many investors , (NP mainly institutions)")."""
    h = words[w.head]
    return w.low in _THEN and w.index > 0 and words[w.index - 1].form == "," and \
        h.cls == "N" and \
        _unpunctuated(words, h.left)[-1:] == [w.index]


def _fused(w: _Word, h: _Word) -> bool:
    """Does the adverb ``w`` right before its preposition ``h`` form one word with it?"""
    return h.index == w.index + 1 and (w.low, h.low) in _FUSED


def _sole_object(words: list[_Word], x: _Word) -> bool:
    """Is ``x`` the only object of the preposition it depends on (and not "at least")?"""
    h = words[x.head]
    return h.index < x.index and _unpunctuated(words, h.right) == [x.index] and \
        not _adverbial(words, h)


def _object_clause(words: list[_Word], p: _Word, x: _Word) -> bool:
    """Is the clause ``x`` after the preposition ``p`` its object (PP) rather than a
    subordinate clause (SBAR)? A subjectless -ing clause ("after rising 5 %") or a
    participle clause with a subject ("with (S no sector showing strength)"), unless ``p``
    only subordinates ("while talking", "as expected")."""
    low = p.low
    if low in _SUBORDINATORS or p.cls in ("WH", "WADV"):
        return False
    if _gerund(words, x):
        return True
    participle = x.tag in ("VBG", "VBN") or (x.tag == "VERB" and x.low.endswith("ing"))
    return participle and low not in ("that", "as", "than") and any(
        _is_subject(words, d) for d in x.left)


def _gerund(words: list[_Word], x: _Word) -> bool:
    """A subjectless -ing clause ("after rising 5 %"): the object of a PP, not an SBAR."""
    return x.tag in ("VBG", "VERB") and x.low.endswith("ing") and \
        not any(_is_subject(words, d) for d in x.left)
