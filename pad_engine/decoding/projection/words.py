"""What the rules know about single words: the coarse class a PTB or UPOS tag gives, the
lexicons that correct it where a tag is too coarse (or a word's dependents say otherwise), and
the small questions every rule group asks of a word in its d-parse (is it an auxiliary, a
subject, a marker, a leaf?). Lowest module of the package: it imports none of the others."""

from __future__ import annotations

import functools

# word classes: N noun, NUM number, CUR currency, DET determiner, ADJ, ADV, NEG not/n't,
# P preposition/subordinator, SC subordinating conjunction, TO, V verb, AUX auxiliary/modal,
# WH wh-pronoun/determiner, WADV wh-adverb, POS possessive 's, PRT particle, CC coordinator,
# PUNCT, INTJ, X other
_PTB = {
    "NN": "N", "NNS": "N", "NNP": "N", "NNPS": "N", "PRP": "N", "EX": "N", "NX": "N",
    "CD": "NUM", "$": "CUR", "#": "CUR", "DT": "DET", "PDT": "DET", "PRP$": "DET",
    "JJ": "ADJ", "JJR": "ADJ", "JJS": "ADJ", "RB": "ADV", "RBR": "ADV", "RBS": "ADV",
    "IN": "P", "TO": "TO", "MD": "AUX", "VB": "V", "VBD": "V", "VBG": "V", "VBN": "V",
    "VBP": "V", "VBZ": "V", "WDT": "WH", "WP": "WH", "WP$": "WH", "WRB": "WADV",
    "POS": "POS", "RP": "PRT", "CC": "CC", "UH": "INTJ", "FW": "X", "SYM": "X", "LS": "X",
    ",": "PUNCT", ".": "PUNCT", ":": "PUNCT", "``": "PUNCT", "''": "PUNCT",
    "-LRB-": "PUNCT", "-RRB-": "PUNCT", "HYPH": "PUNCT", "NFP": "PUNCT",
}
_UPOS = {
    "NOUN": "N", "PROPN": "N", "PRON": "N", "NUM": "NUM", "DET": "DET", "ADJ": "ADJ",
    "ADV": "ADV", "ADP": "P", "SCONJ": "SC", "AUX": "AUX", "VERB": "V", "PART": "PRT",
    "CCONJ": "CC", "PUNCT": "PUNCT", "INTJ": "INTJ", "SYM": "X", "X": "X",
}
_WH_WORDS = {"who", "whom", "what", "which", "whose", "whoever", "whatever", "whichever"}
_WH_ADVERBS = {"when", "where", "why", "how", "whenever", "wherever"}
_NEG = {"not", "n't", "never"}
_PREPOSITIONAL = {"including", "according", "excluding", "compared", "regarding",
                  "concerning", "following"}

_BE = {"be", "am", "is", "are", "was", "were", "been", "being", "'s", "'re", "'m"}
_BE_HAVE_DO = _BE | {"have", "has", "had", "having", "'ve", "'d", "do", "does", "did"}
_QUANTITIES = {"many", "much", "more", "most", "less", "least", "few", "fewer", "several",
               "plenty"}
_NOMINAL = {"N", "NUM", "CUR", "DET", "POS", "WH"}
_SUBJECT_RELS = ("nsubj", "csubj", "expl")
_AUX_RELS = ("aux", "cop")
_OPEN = {",", "--", "-LRB-", "(", "-LCB-", "{"}
_CLOSE = {",", "--", "-RRB-", ")", "-RCB-", "}"}


@functools.lru_cache(maxsize=1 << 16)
def word_class(tag: str, form: str) -> str:
    """The coarse class of a word from its PTB or UPOS tag (and its form, where UPOS is too
    coarse: the particle "to", the possessive "'s", wh-words, negation). Remembered per
    (tag, form): a treebank repeats a few thousand of them."""
    low = form.lower().replace("\u2019", "'")
    cls = _PTB.get(tag) or _UPOS.get(tag)
    if cls is None:
        cls = _guess(tag)
    if tag in _UPOS:
        if cls == "PRT":
            cls = "TO" if low == "to" else "POS" if low in ("'s", "'", "s") else \
                "NEG" if low in _NEG else "PRT"
        elif cls in ("N", "DET") and low in _WH_WORDS:
            cls = "WH"
        elif cls in ("ADV", "SC") and low in _WH_ADVERBS:
            cls = "WADV"
    if cls == "V" and low in _PREPOSITIONAL:
        cls = "P"
    if cls == "ADV" and low in _NEG:
        cls = "NEG"
    return cls


def _guess(tag: str) -> str:
    """A class for a tag neither table knows (treebank-specific tag sets), by its first letter."""
    first = tag[:1].upper()
    if first in ("", "_"):
        return "X"
    return {"N": "N", "V": "V", "J": "ADJ", "A": "ADJ", "R": "ADV", "P": "P", "D": "DET",
            "C": "CC"}.get(first, "PUNCT" if tag and not tag[0].isalnum() else "X")


class _Word:
    """A word of the d-parse as the rules read it. ``low`` and ``leafish`` are set with it,
    ``aux`` and ``last_aux`` once the classes are final (in
    :func:`~pad_engine.decoding.projection.tree.projection`): the rules ask them of the same
    word again and again. ``leafish`` holds from the start, as no class changes to or from PUNCT."""

    __slots__ = (
        "aux",
        "cls",
        "form",
        "head",
        "index",
        "last_aux",
        "leafish",
        "left",
        "low",
        "rel",
        "right",
        "tag",
    )

    def __init__(self, index: int, cls: str, tag: str, form: str, rel: str, head: int):
        self.index = index  # 0-based
        self.cls = cls
        self.tag = tag
        self.form = form
        self.low = form.lower()
        self.rel = rel
        self.head = head  # 0-based head, -1 for the root
        self.left: list[int] = []  # dependents, nearest first
        self.right: list[int] = []
        # no dependents but punctuation (UD hangs commas on the next function word)
        self.leafish = True
        self.aux = False  # :func:`_is_aux`, once the classes are final
        self.last_aux = -1  # the last auxiliary among the left dependents (UD), or -1


def _nominal_adjective(words: list[_Word], w: _Word) -> bool:
    """An adjective used as a noun phrase: after a determiner ("(NP (NP the highest) (PP in
    the nation))"), or a quantity word with "of" or "than" after it or as a subject or
    object ("(NP (NP many) (PP of the risks))", "Many were")."""
    if w.head < 0 or _prenominal(words, w):
        return False
    if any(words[d].cls == "DET" and words[d].tag != "PDT" for d in w.left):
        return True
    if w.low not in _QUANTITIES:
        return False
    if not (w.left or w.right):
        return _head_cls(words, w) in ("V", "AUX")
    return any(_opened_by(words, words[d], ("of", "than"), ("P",)) for d in w.right)


# nouns that take a that-clause complement ("the fact that prices rose"); after other
# nouns a that-clause is a relative clause ("the amount (SBAR (WHNP that) it paid)")
_THAT_NOUNS = {
    "fact", "evidence", "fear", "hope", "sign", "signal", "speculation", "report", "finding",
    "rumor", "announcement", "assumption", "belief", "claim", "idea", "view", "possibility",
    "likelihood", "expectation", "statement", "message", "question", "understanding",
    "recognition", "realization", "impression", "sense", "indication", "suggestion", "notion",
    "concern", "argument", "assurance", "guarantee", "doubt", "word", "news", "charge",
    "assertion", "estimate", "ruling", "rule", "demand", "confidence", "skepticism",
    "implication", "inkling", "stand", "retort", "reflection", "conclusion", "warning",
    "promise", "threat", "agreement", "condition", "requirement", "proposal", "allegation",
    "complaint", "theory", "feeling", "knowledge", "point", "reason", "chance", "risk",
}

# participles that after "be" describe a state rather than a passive event ("is worried")
_STATES = {"worried", "concerned", "mixed", "committed", "alarmed", "obsessed", "opposed",
           "excited", "frightened", "confused", "complicated", "pleased", "surprised",
           "interested", "disappointed", "satisfied", "convinced", "puzzled", "annoyed",
           "frustrated", "delighted", "embarrassed", "tired", "scared", "closed"}

# degree adverbs that make a participle after "be" an adjective ("is very alarmed")
_DEGREES = {"very", "too", "so", "less", "least", "highly", "extremely", "fully", "poorly",
            "badly", "greatly", "sufficiently", "partially", "increasingly", "somewhat",
            "quite", "rather", "relatively", "especially", "deeply", "seriously", "duly"}


def _adjectival_participle(words: list[_Word], w: _Word) -> bool:
    """A past participle after a form of "be" that is an adjective: a state ("is worried")
    or one with a degree adverb ("are poorly positioned"), but not with a "by" agent."""
    if w.tag not in ("VBN", "VERB") or not w.low.endswith(("ed", "en", "wn")):
        return False
    be = (w.head >= 0 and w.head < w.index and words[w.head].low in _BE) or any(
        _is_aux(words, d) and words[d].low in _BE for d in w.left)
    if not be or any(words[d].low == "by" for d in w.right):
        return False
    return w.low in _STATES or any(
        words[d].low in _DEGREES and not (words[d].left or words[d].right)
        for d in w.left)


def _relative_that(words: list[_Word], w: _Word) -> bool:
    """ "that" tagged as a complementizer that introduces a relative clause: after a noun
    that takes no that-clause complement (:data:`_THAT_NOUNS`). Collins heads hang the
    clause on "that"; content heads hang "that" on the clause's verb."""
    if w.low != "that" or w.cls not in ("P", "SC") or w.head < 0:
        return False
    h = words[w.head]
    if h.index < w.index and h.cls == "N" and _has_verb(words, w.right):
        noun = h
    elif h.index > w.index and h.cls in ("V", "AUX") and 0 <= h.head < w.index:
        noun = words[h.head]
    else:
        return False
    return _relativized(noun, _THAT_NOUNS)


def _relativized(noun: _Word, complement_nouns: set[str]) -> bool:
    """Is a clause after ``noun`` a relative clause rather than its complement: is it a
    common noun (not a pronoun) outside ``complement_nouns``, the nouns that take such a
    clause ("the fact that", "the ability to")?"""
    return noun.cls == "N" and noun.tag not in ("PRP", "EX") and \
        _lemma(noun.form) not in complement_nouns


def _is_aux(words: list[_Word], d: int) -> bool:
    """A function-word dependent that forms a VP level above its content head (UD aux/cop;
    under Collins heads the auxiliary is the head, so this does not arise)."""
    x = words[d]
    if not x.leafish:
        return False
    if x.cls == "TO":
        return x.head > d and words[x.head].cls in ("V", "AUX")  # UD "to make"
    if x.rel:
        return x.rel in _AUX_RELS
    return x.cls == "AUX" or (x.cls == "V" and x.low in _BE_HAVE_DO)


def _is_subject(words: list[_Word], d: int) -> bool:
    """A UD subject; without relations, a nominal word (or a headless relative) on the left."""
    x = words[d]
    if x.rel:
        return x.rel in _SUBJECT_RELS
    if x.cls == "ADJ":
        return _nominal_adjective(words, x)  # "The other has opposed it"
    return x.cls in _NOMINAL and (x.cls != "WH" or bool(x.right))  # "What she did was"


def _is_marker(words: list[_Word], d: int, classes: tuple[str, ...]) -> bool:
    """A leaf function word left of a content head: case (P), mark (SC, P), to."""
    x = words[d]
    if not x.leafish:
        return False
    if x.rel and x.cls not in ("WH", "WADV"):
        return x.rel in ("case", "mark")
    return x.cls in classes


def _opened_by(words: list[_Word], x: _Word, forms: tuple[str, ...],
               classes: tuple[str, ...]) -> bool:
    """Does the phrase of ``x`` open with one of ``forms`` ("of the risks", "than expected")?
    Collins heads make that word the phrase's head, content heads hang it on ``x`` as a
    marker (of ``classes``)."""
    return (x.low in forms and bool(x.right)) or any(
        words[e].low in forms and _is_marker(words, e, classes) for e in x.left)


def _has_verb(words: list[_Word], deps: list[int]) -> bool:
    return any(words[d].cls in ("V", "AUX") for d in deps)


def _unpunctuated(words: list[_Word], deps: list[int]) -> list[int]:
    """``deps`` without punctuation: a preposition's objects, the words around a verb."""
    return [d for d in deps if words[d].cls != "PUNCT"]


def _head_cls(words: list[_Word], w: _Word) -> str:
    """The class of ``w``'s head; "V" for the subject or an adverb of a UD predicate noun or
    adjective (left of its copula: "He had been a sales manager")."""
    if w.head < 0:
        return "ROOT"
    h = words[w.head]
    if h.cls not in ("V", "AUX", "TO") and w.index < h.last_aux:
        return "V"
    return h.cls


def _parenthetical(words: list[_Word], w: _Word) -> bool:
    """Set off on both sides by commas, dashes or brackets: ", traders said ,"."""
    return bool(w.left and w.right) and words[w.left[-1]].form in _OPEN and \
        words[w.right[-1]].form in _CLOSE


def _lemma(noun: str) -> str:
    """A noun's singular, roughly ("efforts" -> "effort", "opportunities" -> "opportunity")."""
    low = noun.lower()
    if low.endswith("ies") and len(low) > 4:
        return low[:-3] + "y"
    if low.endswith("s") and not low.endswith("ss"):
        return low[:-1]
    return low


def _prenominal(words: list[_Word], x: _Word) -> bool:
    return x.head > x.index and words[x.head].cls in _NOMINAL
