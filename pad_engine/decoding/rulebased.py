"""The no-model fallback: a rule-based dependency-to-phrase projection (Xia & Palmer 2001).

For languages where no tree has been corrected yet there is nothing to train on, so the app
starts from this conversion. Every word projects a short chain of phrases chosen from its POS
class, its dependents and its own head (a noun projects NP, a preposition PP, a verb VP and
then S when it has a subject, a complementizer SBAR...); each dependent's maximal projection
attaches to one level of its head's chain. Levels are assigned so that they never decrease
outward from the head on either side, so every phrase covers a contiguous span and the tree
induces exactly the input d-parse (projectivized first). It reads PTB tags (Collins-style
d-parses: prepositions, auxiliaries and complementizers head) and UD UPOS tags with or without
UD relations (content heads: ``case``, ``mark``, ``aux`` and ``cop`` add levels above the
content word).

Tuned on the PTB sample's train split; on its test split, with gold tags and d-parses, EVALB
F1 is 97.2 from Collins-style and 95.4 from content-head d-parses (``pad bench --rules-only``;
Xia et al. 2009 report 89.4, PAD about 97.5).
"""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from pad_engine.decoding.candidate import Candidate
from pad_engine.decoding.features import span_keys, stable_key
from pad_engine.decoding.labelsets import ANY, DROP, LabelSet, load_label_set, relation_key
from pad_engine.trees.deplabels import tree_labels
from pad_engine.trees.deptree import DepSentence, bottom_up
from pad_engine.trees.edits import phrases
from pad_engine.trees.lextree import LexNode
from pad_engine.trees.projectivize import Lift, projectivize
from pad_engine.trees.structure import is_projective_tree

REMEMBERED = 16_384  # sentences whose projection_features are kept (a few kB each)
# every phrase label the projection can produce
LABELS = ("ADJP", "ADVP", "CONJP", "FRAG", "INTJ", "NAC", "NP", "PP", "PRN", "PRT", "QP", "S",
          "SBAR", "SBARQ", "SINV", "SQ", "TOP", "VP", "WHADVP", "WHNP", "WHPP", "X")

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
_OPEN = {",", "--", "-LRB-", "(", "-LCB-", "{"}
_CLOSE = {",", "--", "-RRB-", ")", "-RCB-", "}"}
_APPROX = {"than", "about", "around", "nearly", "roughly", "almost", "more", "less", "fewer",
           "some", "over", "under", "approximately"}
_PREPOSITIONAL = {"including", "according", "excluding", "compared", "regarding",
                  "concerning", "following"}
_BE_HAVE_DO = {"be", "am", "is", "are", "was", "were", "been", "being", "'s", "'re", "'m",
               "have", "has", "had", "having", "'ve", "'d", "do", "does", "did"}
_BE = {"be", "am", "is", "are", "was", "were", "been", "being", "'s", "'re", "'m"}
_NAMED = {"elected", "named", "called", "dubbed", "termed", "labeled", "appointed",
          "designated", "considered", "renamed", "nicknamed", "titled", "deemed"}
_LOCATIVE = {"come", "comes", "came", "stand", "stands", "stood", "lie", "lies", "lay", "sit",
             "sits", "sat", "remain", "remains", "remained", "follow", "follows", "followed"}
_MADE = _NAMED | {"made", "kept", "found", "left", "rendered", "held"}
_SAYS = {"says", "said", "adds", "added", "asks", "asked", "notes", "noted", "writes", "wrote",
         "explains", "explained", "recalls", "recalled", "argues", "argued"}
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
_FINITE = {"VBD", "VBZ", "VBP", "MD"}
_QUANTITIES = {"many", "much", "more", "most", "less", "least", "few", "fewer", "several",
               "plenty"}
_NOMINAL = {"N", "NUM", "CUR", "DET", "POS", "WH"}
_PHRASE = {"N": "NP", "NUM": "NP", "CUR": "NP", "DET": "NP", "POS": "NP", "ADJ": "ADJP",
           "ADV": "ADVP", "NEG": "ADVP", "P": "PP", "SC": "SBAR", "TO": "PP", "V": "VP",
           "AUX": "VP", "WH": "WHNP", "WADV": "WHADVP", "PRT": "PRT", "CC": "CONJP",
           "INTJ": "INTJ", "PUNCT": "PRN", "X": "X"}
_SUBJECT_RELS = ("nsubj", "csubj", "expl")
_AUX_RELS = ("aux", "cop")


def word_class(tag: str, form: str) -> str:
    """The coarse class of a word from its PTB or UPOS tag (and its form, where UPOS is too
    coarse: the particle "to", the possessive "'s", wh-words, negation)."""
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


@dataclass
class _Word:
    index: int  # 0-based
    cls: str
    tag: str
    form: str
    rel: str
    head: int  # 0-based head, -1 for the root
    left: list[int] = field(default_factory=list)  # dependents, nearest first
    right: list[int] = field(default_factory=list)


def project(forms: list[str], tags: list[str], heads: list[int],
            rels: list[str] | None = None) -> LexNode:
    """The rule-based tree of a projective d-parse (1-based heads, 0 = root), rooted in TOP.
    Relations are used when given (UD names; anything else is ignored)."""
    n = len(forms)
    rels = [r.split(":")[0].lower() if r not in ("_", "") else "" for r in (rels or [])]
    rels += [""] * (n - len(rels))
    words = [_Word(i, word_class(tags[i], forms[i]), tags[i], forms[i], rels[i], heads[i] - 1)
             for i in range(n)]
    for w in words:
        if w.cls == "N" and w.form.lower() == "that" and w.head >= 0 and \
                words[w.head].rel == "acl":
            w.cls = "WH"  # UD relative "that" (tagged PRON like the demonstrative)
        if w.head >= 0:
            h = words[w.head]
            (h.left if w.index < w.head else h.right).append(w.index)
    for w in words:
        w.left.sort(reverse=True)
        w.right.sort()
    for w in words:
        if _adjectival_participle(words, w):
            w.cls = "ADJ"
        elif _relative_that(words, w):
            w.cls = "WH"
    built: dict[int, LexNode] = {}
    for i in (m - 1 for m in bottom_up(heads)):  # each word after its dependents
        labels, level = _plan(words, words[i])
        node = LexNode(tags[i], [], 0, i)
        w = words[i]
        for k, label in enumerate(labels):
            lefts = [built[d] for d in reversed(w.left) if level[d] == k]
            rights = [built[d] for d in w.right if level[d] == k]
            node = LexNode(label, lefts + [node] + rights, len(lefts))
        built[i] = node
    root = built[heads.index(0)]
    return LexNode("TOP", [root], 0)


def phrase_labels(tree: LexNode) -> set[str]:
    """The labels of a tree's phrases (TOP left out)."""
    return {node.label for _, node in phrases(tree)} - {"TOP"}


def projection_features(forms: list[str], tags: list[str], heads: list[int],
                        rels: list[str] | None = None) -> tuple[list[str], np.ndarray]:
    """What a model that reads the rule-based tree of a d-parse sees: each word's label in
    it, in deplabels' phrase scheme (``S+NP``), and a hash of the labels of its phrases over
    each span they cover (:func:`~pad_engine.decoding.features.span_keys`). "_" and no
    spans where the heads are not a projective tree. Remembered for the last
    :data:`REMEMBERED` sentences: retraining, cross-validation and simulated annotation
    decode the same sentences again and again (the caller must not change the result)."""
    return _projection_features(tuple(forms), tuple(tags), tuple(heads),
                                tuple(rels) if rels else ())


@functools.lru_cache(maxsize=REMEMBERED)
def _projection_features(forms: tuple[str, ...], tags: tuple[str, ...], heads: tuple[int, ...],
                         rels: tuple[str, ...]) -> tuple[list[str], np.ndarray]:
    n = len(forms)
    if not forms or not is_projective_tree(np.asarray(heads, np.int64) - 1):
        return ["_"] * n, span_keys(n, {})
    tree = project(list(forms), list(tags), list(heads), list(rels) or None)
    chains: dict[tuple[int, int], str] = {}
    for _, node in phrases(tree.children[0]):  # pre-order: a chain lists its top first
        span = node.span()
        chains[span] = chains.get(span, "") + node.label + " "
    spans = span_keys(n, {span: stable_key(chain) for span, chain in chains.items()})
    return tree_labels(tree, n), spans


class _Plan:
    """Levels under construction: labels bottom up, fixed dependent levels, the rest float."""

    def __init__(self, labels: list[str]):
        self.labels = labels
        self.fixed: dict[int, int] = {}
        self.top: int | None = None  # the level trailing punctuation goes to

    def add(self, label: str) -> int:
        self.labels.append(label)
        return len(self.labels) - 1

    def finish(self, words: list[_Word], w: _Word) -> tuple[list[str], dict[int, int]]:
        """The labels and every dependent's level. Levels never decrease outward on either
        side, so each level's phrase is contiguous: this is what makes the tree induce
        exactly the d-parse, whatever the rules above decided."""
        if not self.labels and (w.left or w.right):
            self.labels.append(_PHRASE.get(w.cls, "X"))
        if w.head >= 0 and self.labels and _parenthetical(words, w):
            prn = self.add("PRN")  # ", for example ,", "( 1986 )": set off on both sides
            self.fixed[w.left[-1]] = self.fixed[w.right[-1]] = prn
        elif 0 <= w.head < w.index and w.left and self.labels and \
                words[w.left[-1]].form == "--":
            self.fixed[w.left[-1]] = self.add("PRN")  # "a high point -- (NP 33 days)"
        level: dict[int, int] = {}
        top = self.top if self.top is not None else len(self.labels) - 1
        for side in (w.left, w.right):
            # a floating dependent takes the level of the nearest fixed one farther out
            # (trailing ones: punctuation to the top, others with the nearer ones)
            farther: int | None = None
            for d in reversed(side):
                if d in self.fixed:
                    farther = self.fixed[d]
                    level[d] = farther
                elif farther is not None:
                    level[d] = farther
                elif words[d].cls == "PUNCT":
                    level[d] = top
            low = 0
            for d in side:  # nearest first: levels may only grow outward
                low = max(low, level.get(d, low))
                level[d] = low
        return self.labels, level


def _plan(words: list[_Word], w: _Word) -> tuple[list[str], dict[int, int]]:
    """The phrase labels of ``w``'s chain (bottom up) and the level of each dependent."""
    if not (w.left or w.right) and w.head >= 0 and (
            w.index < w.head and _head_cls(words, w) in _NOMINAL and w.cls in ("V", "ADJ")
            or _is_aux(words, w.index) and w.index < w.head):
        return [], {}  # "the expected number", UD "will go"
    if not (w.left or w.right) and w.tag == "VBG" and 0 <= w.head < w.index and \
            words[w.head].cls == "N":
        return [], {}  # a gerund as a noun: "dollar buying", "construction and manufacturing"
    if not (w.left or w.right) and w.cls == "V" and 0 <= w.head < w.index and \
            words[w.head].cls == "V" and _listed(words, w):
        return [], {}  # "to modify or discontinue it", "encourage, promote or advocate": one VP
    if w.cls == "V" and _prenominal(words, w) and not w.right:
        plan = _Plan(["ADJP"])  # "recently diagnosed cancer"
    elif w.cls in ("V", "AUX") or (w.cls == "TO" and _has_verb(words, w.right)):
        plan = _verb(words, w)
    elif w.cls in ("ADJ", "ADV", "NEG") and any(_is_aux(words, d) for d in w.left):
        plan = _verb(words, w)  # UD copula: "is big" is headed by "big"
    elif w.cls in _NOMINAL and any(_is_aux(words, d) for d in w.left):
        plan = _verb(words, w)  # "is a man"
    elif w.cls in _NOMINAL and w.cls != "WH" or w.cls == "ADJ" and _nominal_adjective(words, w):
        plan = _noun(words, w)
    else:
        plan = _other(words, w)
    cc = next((k for k, d in enumerate(w.left) if words[d].cls == "CC" and _leafish(
        words, words[d]) and (words[d].rel == "cc" or words[d].tag == "CCONJ")), None)
    if cc is not None and plan.labels and w.head >= 0 and w.index > w.head and \
            not _bare(words, [w.index]):
        # UD hangs the coordinator on the second conjunct: keep it (and the commas before
        # it) out of the conjunct's own phrase, as PTB's "(NP (NP A) and (NP B))" does
        level = plan.add(plan.labels[-1])
        for d in w.left[cc:]:
            plan.fixed[d] = level
    return plan.finish(words, w)


def _nominal_adjective(words: list[_Word], w: _Word) -> bool:
    """An adjective used as a noun phrase: after a determiner ("(NP (NP the highest) (PP in
    the nation))"), or a quantity word with "of" or "than" after it or as a subject or
    object ("(NP (NP many) (PP of the risks))", "Many were")."""
    if w.head < 0 or _prenominal(words, w):
        return False
    if any(words[d].cls == "DET" and words[d].tag != "PDT" for d in w.left):
        return True
    if w.form.lower() not in _QUANTITIES:
        return False
    if not (w.left or w.right):
        return _head_cls(words, w) in ("V", "AUX")
    return any(x.form.lower() in ("of", "than") and x.right or any(  # UD: "of" on the noun
        words[e].form.lower() in ("of", "than") and _is_marker(words, e, ("P",)) for e in x.left)
        for x in (words[d] for d in w.right))


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
    if w.tag not in ("VBN", "VERB") or not w.form.lower().endswith(("ed", "en", "wn")):
        return False
    be = w.head >= 0 and w.head < w.index and words[w.head].form.lower() in _BE or any(
        _is_aux(words, d) and words[d].form.lower() in _BE for d in w.left)
    if not be or any(words[d].form.lower() == "by" for d in w.right):
        return False
    return w.form.lower() in _STATES or any(
        words[d].form.lower() in _DEGREES and not (words[d].left or words[d].right)
        for d in w.left)


def _relative_that(words: list[_Word], w: _Word) -> bool:
    """ "that" tagged as a complementizer that introduces a relative clause: after a noun
    that takes no that-clause complement (:data:`_THAT_NOUNS`). Collins heads hang the
    clause on "that"; content heads hang "that" on the clause's verb."""
    if w.form.lower() != "that" or w.cls not in ("P", "SC") or w.head < 0:
        return False
    h = words[w.head]
    if h.index < w.index and h.cls == "N" and _has_verb(words, w.right):
        noun = h
    elif h.index > w.index and h.cls in ("V", "AUX") and 0 <= h.head < w.index:
        noun = words[h.head]
    else:
        return False
    return noun.cls == "N" and noun.tag not in ("PRP", "EX") and \
        _lemma(noun.form) not in _THAT_NOUNS


def _listed(words: list[_Word], w: _Word) -> bool:
    """Right after its head's coordinator, or after a comma in a coordination."""
    before = words[w.index - 1]
    return before.cls == "CC" or before.form == "," and any(
        words[d].cls == "CC" for d in words[w.head].right)


def _leafish(words: list[_Word], x: _Word) -> bool:
    """No dependents but punctuation (UD hangs commas on the next function word)."""
    return all(words[d].cls == "PUNCT" for d in x.left + x.right)


def _is_aux(words: list[_Word], d: int) -> bool:
    """A function-word dependent that forms a VP level above its content head (UD aux/cop;
    under Collins heads the auxiliary is the head, so this does not arise)."""
    x = words[d]
    if not _leafish(words, x):
        return False
    if x.cls == "TO":
        return x.head > d and words[x.head].cls in ("V", "AUX")  # UD "to make"
    if x.rel:
        return x.rel in _AUX_RELS
    return x.cls == "AUX" or (x.cls == "V" and x.form.lower() in _BE_HAVE_DO)


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
    if not _leafish(words, x):
        return False
    if x.rel and x.cls not in ("WH", "WADV"):
        return x.rel in ("case", "mark")
    return x.cls in classes


def _has_verb(words: list[_Word], deps: list[int]) -> bool:
    return any(words[d].cls in ("V", "AUX") for d in deps)


def _head_cls(words: list[_Word], w: _Word) -> str:
    """The class of ``w``'s head; "V" for the subject or an adverb of a UD predicate noun or
    adjective (left of its copula: "He had been a sales manager")."""
    if w.head < 0:
        return "ROOT"
    h = words[w.head]
    if h.cls not in ("V", "AUX", "TO") and w.index < h.index and \
            any(d > w.index and _is_aux(words, d) for d in h.left):
        return "V"
    return h.cls


def _coordination(words: list[_Word], w: _Word) -> int | None:
    """Index in ``w.right`` where a coordination starts, or None: at a coordinator (or UD
    ``conj``) with a conjunct after it, or at a semicolon, colon or dash before a clause with
    its own subject; earlier comma-separated conjuncts of nominal lists ("A, B and C") and the
    comma before the coordinator are included."""
    right = w.right
    start = None
    for k, d in enumerate(right):
        x = words[d]
        if (x.cls == "CC" and not x.rel and k + 1 < len(right)) or x.rel == "conj":
            start = k
            break
        if x.form in (";", ":", "--") and k + 1 < len(right) and _is_clause(words, right[k + 1]):
            start = k
            break
    if start is None:
        return None
    conj = next((d for d in right[start:] if words[d].cls not in ("PUNCT", "CC")), None)
    kind = _NOMINAL if w.cls in _NOMINAL else {"V", "AUX"} if w.cls in ("V", "AUX") else None
    if conj is not None and kind and words[conj].cls in kind:
        def item(x: _Word) -> bool:  # (not the "million" of "$ 737.5 million , or $ 3 ...")
            return x.cls in kind and not (w.cls in ("CUR", "NUM") and x.cls == "NUM") and (
                kind is _NOMINAL or x.tag == w.tag and x.tag == words[conj].tag)

        while start >= 2:  # "A , B , and C" and "A , B and C" (nouns; verbs of one form)
            a, b = words[right[start - 2]], words[right[start - 1]]
            if b.form in (",", ";") and item(a) or a.form in (",", ";") and item(b):
                start -= 2
            else:
                break
    if start >= 1 and words[right[start - 1]].form in (",", ";"):
        start -= 1
    return start


def _is_clause(words: list[_Word], d: int) -> bool:
    x = words[d]
    return x.cls in ("V", "AUX") and any(_is_subject(words, e) for e in x.left)


def _bare(words: list[_Word], deps: list[int],
          classes: tuple[str, ...] = ("N", "ADJ", "NUM", "ADV")) -> bool:
    """Only one-word conjuncts ("notes and bonds", "big and red"; UD hangs the coordinator
    and commas on them)."""
    return all(words[d].cls in ("CC", "PUNCT") + classes and
               all(words[e].cls in ("CC", "PUNCT") for e in words[d].left + words[d].right)
               for d in deps)


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
        inner = next((k for k, d in enumerate(w.left) if _is_aux(words, d)), len(w.left))
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
    for k in range(inner, len(w.left)):
        d = w.left[k]
        if subject is None and marker is None and _is_aux(words, d):
            if to:
                p.add("S")  # "is to produce": (VP is (S (VP to produce)))
            p.fixed[d] = p.add("VP")
            to = to or words[d].cls == "TO"
        elif subject is None and marker is None and _is_subject(words, d):
            subject = k
        elif _is_marker(words, d, ("P", "SC", "WH", "WADV")):
            marker = k
            break
        elif subject is not None and marker is None and _is_aux(words, d):
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
    if marker is not None:
        if p.top is None:
            p.top = p.add("S")
        asks = question or w.head < 0 and any(words[d].form == "?" for d in w.right)
        sbar = p.add("PP" if _object_clause(words, words[w.left[marker]], w)
                     else "SBARQ" if asks else "SBAR")
        for d in w.left[marker:]:
            p.fixed[d] = sbar
    elif subject is not None and _finite_complement(words, w) and \
            not _parenthetical(words, w) or \
            subject is None and _infinitival_relative(words, w):
        p.add("SBAR")
    return p


def _parenthetical(words: list[_Word], w: _Word) -> bool:
    """Set off on both sides by commas, dashes or brackets: ", traders said ,"."""
    return bool(w.left and w.right) and words[w.left[-1]].form in _OPEN and \
        words[w.right[-1]].form in _CLOSE


def _inverted_question(words: list[_Word], w: _Word) -> bool:
    """An auxiliary heading a question, its subject and then the main verb after it."""
    if w.cls not in ("AUX", "V") or w.form.lower() not in _BE_HAVE_DO and w.cls != "AUX":
        return False
    if any(_is_subject(words, d) for d in w.left):
        return False
    after = [d for d in w.right if words[d].cls != "PUNCT"]
    return len(after) >= 2 and _is_subject(words, after[0]) and \
        words[after[1]].cls in ("V", "AUX", "ADJ") and \
        any(words[d].form == "?" for d in w.right + [len(words) - 1])


_SUBORDINATORS = {"while", "although", "though", "if", "unless", "once", "whether", "when",
                  "whereas"}


# adverb + preposition pairs that PTB keeps flat in one PP or SBAR ("(PP rather than ...)",
# "(SBAR even though ...)"); other adverbs before a preposition are an ADVP ("(PP (ADVP
# only) in Japan)", "(SBAR (ADVP partly) because ...)")
_FUSED = {("rather", "than"), ("instead", "of"), ("because", "of"), ("more", "than"),
          ("less", "than"), ("even", "though"), ("even", "if"), ("even", "after"),
          ("even", "before"), ("just", "as"), ("so", "that"), ("well", "over")}


def _fused(w: _Word, h: _Word) -> bool:
    """Does the adverb ``w`` right before its preposition ``h`` form one word with it?"""
    return h.index == w.index + 1 and (w.form.lower(), h.form.lower()) in _FUSED


def _sole_object(words: list[_Word], x: _Word) -> bool:
    """Is ``x`` the only object of the preposition it depends on (and not "at least")?"""
    h = words[x.head]
    return h.index < x.index and [d for d in h.right if words[d].cls != "PUNCT"] == [x.index] \
        and not _adverbial(words, h)


def _adverbial(words: list[_Word], w: _Word) -> bool:
    """A change by an amount ("closed (ADVP up (NP 31 cents))", "(ADVP off 2.6 %)"), "at all"
    or "at least": PTB's ADVP where the word would otherwise head a PP, QP or ADJP."""
    objs = [d for d in w.right if words[d].cls != "PUNCT"]
    if len(objs) != 1:
        return False
    x = words[objs[0]]
    low = w.form.lower()
    if low == "at":
        return x.form.lower() in ("all", "least", "most") and not (x.left or x.right)
    return low in ("up", "down", "off") and (x.cls in ("NUM", "CUR") or any(
        words[d].cls in ("NUM", "CUR") for d in x.left))


def _object_clause(words: list[_Word], p: _Word, x: _Word) -> bool:
    """Is the clause ``x`` after the preposition ``p`` its object (PP) rather than a
    subordinate clause (SBAR)? A subjectless -ing clause ("after rising 5 %") or a
    participle clause with a subject ("with (S no sector showing strength)"), unless ``p``
    only subordinates ("while talking", "as expected")."""
    low = p.form.lower()
    if low in _SUBORDINATORS or p.cls in ("WH", "WADV"):
        return False
    if _gerund(words, x):
        return True
    participle = x.tag in ("VBG", "VBN") or x.tag == "VERB" and x.form.lower().endswith("ing")
    return participle and low not in ("that", "as", "than") and any(
        _is_subject(words, d) for d in x.left)


def _gerund(words: list[_Word], x: _Word) -> bool:
    """A subjectless -ing clause ("after rising 5 %"): the object of a PP, not an SBAR."""
    return x.tag in ("VBG", "VERB") and x.form.lower().endswith("ing") and \
        not any(_is_subject(words, d) for d in x.left)


def _inverted(words: list[_Word], w: _Word, subject: int | None) -> bool:
    """ "..., said Mr. Smith", "Says Mr. Smith, ``...", "Behind the hoopla is competition",
    "So did the index": no subject before the verb, a noun phrase right after it, and before
    the verb a quoted clause, a fronted PP (for "be") or "so"/"nor"; or no word at all before
    it and a quoted clause after the noun phrase."""
    if subject is not None or w.head >= 0 or w.cls not in ("V", "AUX"):
        return False
    after = [d for d in w.right if words[d].cls != "PUNCT"]
    if not after or words[after[0]].cls not in _NOMINAL:
        return False
    # "be" and verbs of place and motion invert after a fronted place or time: "Here are
    # the figures", "On one side stand the forces", "Then came Oct. 13"
    inverts = w.form.lower() in _BE_HAVE_DO or w.cls == "AUX" or w.form.lower() in _LOCATIVE
    before = [d for d in w.left if words[d].cls != "PUNCT"]
    if not before:  # "Says Gayle Key, a teacher, `` ...": a verb of saying first
        return w.form.lower() in _SAYS and any(words[d].cls in ("V", "AUX") for d in after[1:])
    return any(words[d].cls in ("V", "AUX") or inverts and words[d].cls == "P" and words[d].right
               or inverts and words[d].form.lower() in ("so", "nor", "neither", "here", "then")
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
            not _is_aux(words, w.index):  # "(S Stung by the ads) , he unleashed"
        return True
    if h.cls in ("V", "AUX") and w.tag == "VBG" and h.form.lower() not in _BE_HAVE_DO:
        coord = _coordination(words, h) if w.index > h.index else None
        return not any(words[d].cls == "CC" for d in h.right if d < w.index) and (
            coord is None or w.index < h.right[coord])  # "initialing , amending and ..."
    if h.cls == "V" and w.tag == "VB" and w.index > h.index and \
            h.form.lower() not in _BE_HAVE_DO:  # a bare infinitive: "help (S (VP meet demand))"
        return not any(words[d].cls in ("CC", "PUNCT") for d in h.right if d < w.index)
    return False


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
            not any(words[d].tag in _FINITE and _is_aux(words, d) for d in w.left):
        return False
    between = [d for d in h.right if d < w.index]  # not after "and", nor a quotation
    return not any(words[d].cls in ("CC", "PUNCT") for d in between)


def _noun(words: list[_Word], w: _Word, left: list[int] | None = None) -> _Plan:
    """NP (QP for amounts, ADJP for prenominal amounts), a second NP for postmodifiers, a
    third for coordination, PP over a UD case marker. ``left``: the left dependents to use
    (of a UD predicate noun, those inside its copula)."""
    p = _Plan([])
    if left is None:
        left = w.left
        if not _noun_projects(words, w):
            return p
        if _nac(words, w):  # "a (NAC Wayland , Mass. ,) manufacturer": one flat phrase
            p.add("NAC")
            return p
    hc = _head_cls(words, w)
    prenominal = hc in _NOMINAL and w.index < w.head
    cc = next((k for k, d in enumerate(w.right) if words[d].cls == "CC"), len(w.right))
    nums = [d for d in w.left + w.right[:cc]  # not "1986-87 and 1987-88"
            if words[d].cls in ("NUM", "CUR")]
    approx = [d for d in left if w.cls in ("NUM", "CUR") and not (
        words[d].left or words[d].right) and (words[d].cls == "ADV" or
                                              words[d].form.lower() in _APPROX)]
    qp = w.cls in ("CUR", "NUM") and (len(nums) >= 2 or w.cls == "NUM" and (nums or approx)) \
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
                if x.left or x.right or x.cls in ("DET", "ADJ", "N") and x.form != "%":
                    p.fixed[d] = outer
        elif any(words[d].cls == "CUR" for d in [w.index] + left + w.right):
            p.add("ADJP")  # "an estimated (ADJP (QP $ 2 million to $ 3 million)) net loss"
        return p
    if qp:
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
    predicate = _small_clause_predicate(words, w)
    if predicate is not None:  # "called (S (NP her) (NP Cristal))"
        s = p.add("S")
        for d in w.right[predicate:]:
            p.fixed[d] = s
        for d in left:
            p.fixed.setdefault(d, base)
        return p
    coord = _coordination(words, w)
    after = _coordination_end(words, w, coord)
    if coord is not None and _bare(words, w.right[coord:after]):
        coord = None  # "notes and bonds": one flat NP
    end = after if coord is None else coord
    post = None
    for d in w.right[:end]:
        x = words[d]
        if x.cls == "PUNCT":
            continue
        leaf = not (x.left or x.right)
        if x.cls in ("POS", "CC") or (x.cls in ("N", "NUM") or x.tag == "VBG") and leaf and \
                not _detached(words, x) and not _apposed(words, x) \
                or _complement_clause(words, x):
            if post is None:
                p.fixed[d] = base
            continue
        if post is None:
            post = p.add("NP")
        elif _set_off(words, x) and (x.cls in ("N", "NUM", "CUR", "DET") or any(
                words[e].cls in ("WH", "WADV") for e in x.left)) and any(
                p.fixed.get(e) == post and words[e].cls in ("P", "TO") for e in w.right):
            post = p.add("NP")  # "(NP (NP (NP PS) (PP of New Hampshire)) , (SBAR which ...))"
        p.fixed[d] = post
    if coord is not None:
        lvl = p.add("NP")
        for d in w.right[coord:after]:
            p.fixed[d] = lvl
    if after < len(w.right):  # "(NP (NP the health and safety) (PP of our employees))"
        lvl = p.add("NP")
        for d in w.right[after:]:
            p.fixed[d] = lvl
    for d in left:
        p.fixed.setdefault(d, base)
    for k, d in enumerate(left):  # UD: a case marker makes a PP
        if _is_marker(words, d, ("P", "TO")) and w.head >= 0 and d not in approx:
            lvl = p.add("PP")
            for e in left[k:]:
                p.fixed[e] = lvl
            break
    if p.labels[-1] != "PP" and _named(words, w):
        p.add("S")  # "was elected (S (NP a director))"
    return p


def _named(words: list[_Word], w: _Word) -> bool:
    """The noun phrase after a passive verb of naming (or the adjective after one of
    making) is a verbless clause whose subject has moved: "was elected (S (NP a
    director))", "(VP named (S (NP Newsweek president)))", "was made (S (ADJP public))"."""
    if w.head < 0 or w.head > w.index or words[w.head].tag != "VBN" or \
            words[w.head].form.lower() not in (_NAMED if w.cls != "ADJ" else _MADE):
        return False
    h = words[w.head]
    return not any(words[d].cls in _NOMINAL for d in h.right if d < w.index)


def _compared(words: list[_Word], w: _Word, left: list[int], p: _Plan) -> None:
    """A modified adjective or adverb with a "than" or "as" complement gets a second level
    for it: "(ADJP (ADJP far higher) (SBAR than expected))". ``left``: its left
    dependents (inside a UD copula)."""
    if not p.labels or p.labels[-1] not in ("ADJP", "ADVP") or \
            all(words[d].cls == "PUNCT" for d in left):
        return
    for k, d in enumerate(w.right):
        x = words[d]
        if x.form.lower() in ("than", "as") and x.right or any(
                words[e].form.lower() in ("than", "as") and _is_marker(words, e, ("P", "SC"))
                for e in x.left):
            level = p.add(p.labels[-1])
            for e in w.right[:k]:
                p.fixed.setdefault(e, len(p.labels) - 2)
            for e in w.right[k:]:
                p.fixed[e] = level
            return


_CONJUNCTIONS = {"as well as", "rather than", "not only", "but also", "along with"}


def _multiword_conjunction(words: list[_Word], w: _Word) -> bool:
    """Does ``w`` with its one-word dependents spell a coordinator of several words?"""
    deps = w.left + w.right
    if not deps or len(deps) > 2 or any(words[d].left or words[d].right for d in deps):
        return False
    span = sorted(deps + [w.index])
    if span[-1] - span[0] != len(span) - 1:
        return False
    return " ".join(words[i].form.lower() for i in span) in _CONJUNCTIONS


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
    def amount(x: _Word) -> bool:
        return x.cls in ("NUM", "CUR") or x.form == "%"

    if not amount(w):
        return False
    for side in (w.right, w.left):  # nearest first: "to", then the other amount
        to = next((k for k, d in enumerate(side) if words[d].form.lower() == "to"
                   and not (words[d].left or words[d].right)), None)
        if to is not None and to + 1 < len(side) and amount(words[side[to + 1]]):
            return True
    return False


def _coordination_end(words: list[_Word], w: _Word, coord: int | None) -> int:
    """Index in ``w.right`` after the last conjunct of the coordination starting at
    ``coord``: what follows modifies the whole coordination ("the health and safety of our
    employees")."""
    right = w.right
    if coord is None:
        return len(right)
    conjs = [k for k in range(coord, len(right)) if words[right[k]].rel == "conj"]
    if conjs:
        last = conjs[-1]
    else:
        cc = next((k for k in range(coord, len(right)) if words[right[k]].cls == "CC"), coord)
        last = next((k for k in range(cc + 1, len(right)) if words[right[k]].cls != "PUNCT"),
                    len(right))
    return next((k for k in range(last + 1, len(right))
                 if words[right[k]].cls not in ("PUNCT", "CC")), len(right))


def _complement_clause(words: list[_Word], x: _Word) -> bool:
    """ "the ability to nominate", "evidence that prices rose": a clause that completes a noun
    sits beside it in one NP (relative clauses get an NP of their own)."""
    if x.cls == "TO":
        return _has_verb(words, x.right) and not _infinitival_relative(words, x)
    if x.form.lower() == "that" and x.cls in ("P", "SC"):
        return _has_verb(words, x.right)
    return x.cls in ("V", "AUX") and any(
        _is_marker(words, d, ("P", "SC")) and words[d].form.lower() == "that"
        for d in x.left) or _to_clause(words, x) and not _infinitival_relative(words, x)


def _to_clause(words: list[_Word], x: _Word) -> bool:
    """ "to pay": Collins' "to" heading a verb, or (UD) a verb with "to" before it."""
    if x.cls == "TO":
        return _has_verb(words, x.right)
    return x.cls in ("V", "AUX") and any(
        words[d].cls == "TO" and _is_aux(words, d) for d in x.left)


def _infinitival_relative(words: list[_Word], x: _Word) -> bool:
    """ "ways (SBAR to cut costs)": a to-clause after a noun that takes no infinitival
    complement (:data:`_TO_NOUNS`) modifies it as a relative clause with an empty wh-word."""
    if x.head < 0 or x.head > x.index or not _to_clause(words, x):
        return False
    h = words[x.head]
    return h.cls == "N" and h.tag not in ("PRP", "EX") and _lemma(h.form) not in _TO_NOUNS


def _lemma(noun: str) -> str:
    """A noun's singular, roughly ("efforts" -> "effort", "opportunities" -> "opportunity")."""
    low = noun.lower()
    if low.endswith("ies") and len(low) > 4:
        return low[:-3] + "y"
    if low.endswith("s") and not low.endswith("ss"):
        return low[:-1]
    return low


def _noun_projects(words: list[_Word], w: _Word) -> bool:
    """Does a nominal word project NP? Always with dependents; a bare one not inside another
    noun phrase (determiners, numbers and prenominal nouns stay flat)."""
    if w.left or w.right:
        return True
    if w.head < 0:
        return True
    h = words[w.head]
    if w.cls == "NUM" and h.cls == "N" and w.form.isdigit() and 1700 <= int(w.form) <= 2100:
        return False  # "Aug. 31 , 1987"
    if _nac(words, h):
        return False  # flat inside a NAC: "(NAC Wayland , Mass. ,)"
    if _small_clause_predicate(words, h) is not None and w.index > h.index:
        return True  # "(S (NP her) (NP Cristal))"
    if _detached(words, w) or _apposed(words, w):
        return True
    if _head_cls(words, w) in ("N", "NUM", "CUR", "DET", "POS", "WH"):
        return w.cls == "DET" and w.index > w.head
    if w.cls == "NUM" and h.cls == "ADJ" and h.index < w.index and h.head < h.index:
        return True  # "notes due (NP 2009)"
    if h.cls == "ADJ" and w.index < h.index and _prenominal(words, h):
        return False  # "an Irvine , Calif.-based maker"
    if w.cls == "NUM" and (h.cls in ("ADV", "ADJ") or h.cls == "P" and _is_qp(words, h)):
        return False
    if w.cls == "DET" and (h.cls in ("ADJ", "ADV") or _adverbial(words, h)):
        return False  # "(ADVP at all)"
    return True


def _prenominal(words: list[_Word], x: _Word) -> bool:
    return x.head > x.index and words[x.head].cls in _NOMINAL


def _is_qp(words: list[_Word], w: _Word) -> bool:
    """ "about 100", "more than 30": a preposition before a number inside a noun phrase."""
    h = words[w.head] if w.head >= 0 else None
    return (h is not None and h.cls in ("NUM", "CUR", "N") and w.index < w.head
            and any(words[d].cls in ("NUM", "CUR") for d in w.right)) or _heads_amount(words, w)


def _heads_amount(words: list[_Word], w: _Word) -> bool:
    """ "(NP (QP about # 15 billion))", "(QP more than six)": Collins heads make the
    preposition of an approximate amount its head; its object is bare numbers."""
    if w.cls != "P" or w.form.lower() not in _APPROX | {"between", "out"}:
        return False
    objs = [d for d in w.right if words[d].cls != "PUNCT"]
    return bool(objs) and words[objs[0]].cls in ("NUM", "CUR") and \
        not (words[objs[0]].left or words[objs[0]].right)


def _detached(words: list[_Word], x: _Word) -> bool:
    """A one-word dependent right after a comma, dash or bracket that follows its head (an
    appositive: "Frederick Deane Jr. , 63 ,")."""
    return x.head >= 0 and x.index - 1 > x.head and \
        words[x.index - 1].form in (",", "--", "-LRB-", "(")


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


_TIME_WORDS = {"today", "yesterday", "tomorrow", "monday", "tuesday", "wednesday", "thursday",
               "friday", "saturday", "sunday", "tonight"}


def _apposed(words: list[_Word], x: _Word) -> bool:
    """A one-word noun phrase after a noun that is not part of its compound: a reflexive
    ("(NP (NP the tests) (NP themselves))") or a point in time ("our work force (NP today)")."""
    if x.head < 0 or x.head > x.index or x.left or x.right or words[x.head].cls != "N":
        return False
    low = x.form.lower()
    return low.endswith(("self", "selves")) and x.tag in ("PRP", "PRON") or low in _TIME_WORDS


def _other(words: list[_Word], w: _Word) -> _Plan:
    """Adjectives (ADJP), adverbs (ADVP), prepositions (PP, SBAR before a clause, QP before a
    number, WHPP + SBAR for "in which"), wh-words (WHNP/WHADVP, SBAR over their clause),
    particles, interjections; bare modifiers inside a phrase project nothing."""
    p = _Plan([])
    hc = _head_cls(words, w)
    leaf = not (w.left or w.right)
    cls = w.cls
    if cls in ("PUNCT", "CC") and leaf:
        return p
    if cls == "ADJ":
        if leaf and (hc in _NOMINAL and (w.index < w.head or words[w.index - 1].cls == "CC")
                     or hc == "ADJ"  # "state and local taxes"
                     or hc == "P" and not _sole_object(words, w)  # but "(PP as (ADJP normal))"
                     or hc == "ADV" and w.index > w.head):  # "almost entirely Western"
            return p
        if leaf and hc in ("V", "AUX") and w.index < w.head and not w.rel:
            p.add("ADVP")  # "Overall , earnings soared"
        elif _adverbial(words, w) or w.form.lower() in ("later", "earlier", "relative"):
            p.add("ADVP")  # "(ADVP off (NP 2.6 %))", "(ADVP two weeks later)"
        else:
            p.add("NP" if w.rel in _SUBJECT_RELS + ("obj", "iobj") else "ADJP")  # "most of"
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
        if leaf and (cls == "NEG" or hc in ("ADJ", "ADV", "NUM", "CUR", "DET", "NEG")
                     or (hc in _NOMINAL and w.index < w.head)
                     or (hc == "P" and h is not None and (_is_qp(words, h) or _fused(w, h)))
                     or (hc == "V" and h is not None and _prenominal(words, h))):
            return p
        p.add("ADVP")
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
        objs = [d for d in w.right if words[d].cls != "PUNCT"]
        clause = any(words[d].cls in ("V", "AUX") and not _object_clause(words, w, words[d])
                     or words[d].cls == "TO" and _has_verb(words, words[d].right)
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
                    if x.left or x.right or x.cls not in ("NUM", "CUR", "CC", "N", "PUNCT"):
                        p.fixed[d] = outer
                    else:
                        p.fixed.setdefault(d, 0)
        elif not objs and w.left or _adverbial(words, w):
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
        if hc in ("V", "AUX"):
            p.add("PRT")
        elif not leaf:
            p.add("PRT")
    elif cls == "INTJ":
        p.add("INTJ")
    elif cls == "PUNCT":
        p.add("PRN" if w.form in ("-LRB-", "(", "-LCB-", "{") else "FRAG")
    elif not leaf or hc in ("V", "AUX", "ROOT"):
        p.add(_PHRASE.get(cls, "X"))
    if len(p.labels) == 1 and _multiword_conjunction(words, w):
        p.labels[0] = "CONJP"  # "(CONJP as well as)", "(CONJP rather than)"
    coord = _coordination(words, w) if p.labels else None
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


def label_set(name: str) -> LabelSet:
    """A label set for the projection by name or file (``ptb``, ``ud-generic``, a .labels
    file); InputError naming the file and line of a bad rule."""
    return load_label_set(name, LABELS)


def learn_label_set(corrected: Iterable[tuple[DepSentence, LexNode]], name: str = "learned"
                    ) -> LabelSet:
    """The labels corrected trees give the projection's phrases: each projected phrase of a
    sentence takes the label of the corrected tree's bracket over the same words
    (punctuation aside; in a chain of brackets over the same words, bottom up), or ``-``
    when the corrected tree has none there; the most frequent outcome per (phrase, tag,
    relation) wins, backed off to (phrase, tag) and the phrase alone, and only rules that
    differ from their back-off are kept."""
    counts: dict[tuple[str, str, str], Counter] = defaultdict(Counter)
    for sent, gold in corrected:
        heads, _ = projectivize(sent.heads)
        tree = project(sent.forms, sent.tags, heads, sent.rels or None)
        punct = [word_class(t, f) == "PUNCT" for t, f in zip(sent.tags, sent.forms)]
        wanted = _brackets_by_span(gold, punct)
        for span, chain in _brackets_by_span(tree, punct).items():
            labels = wanted.get(span, [])
            for k, node in enumerate(chain):
                w = node.head_word()
                rel = relation_key(sent.rels[w] if w < len(sent.rels) else "")
                outcome = labels[k].label if k < len(labels) else DROP
                for key in ((node.label, ANY, ANY), (node.label, sent.tags[w], ANY),
                            (node.label, sent.tags[w], rel)):
                    counts[key][outcome] += 1
    best = {key: _majority(c) for key, c in counts.items()}
    rules = {}
    for (phrase, tag, rel), label in best.items():
        backoff = phrase if tag == ANY else best[phrase, ANY, ANY] if rel == ANY else \
            best[phrase, tag, ANY]
        if label != backoff:
            rules[phrase, tag, rel] = label
    return LabelSet(name, rules)


def _majority(outcomes: Counter) -> str:
    """The most frequent outcome; ties go to a label over ``-``, then alphabetically."""
    return min(outcomes.items(), key=lambda kv: (-kv[1], kv[0] == DROP, kv[0]))[0]


def _brackets_by_span(root: LexNode, punct: list[bool]) -> dict[tuple[int, int], list[LexNode]]:
    """Phrases below the root by the span of their words that are not punctuation, each
    chain bottom up (phrases over punctuation only are left out, as EVALB leaves them)."""
    out: dict[tuple[int, int], list[LexNode]] = defaultdict(list)
    stack = [(c, False) for c in (root.children if root.label == "TOP" else [root])]
    while stack:  # post-order, so a chain over the same words lists its lowest phrase first
        node, expanded = stack.pop()
        if node.word >= 0:
            continue
        if not expanded:
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(node.children))
            continue
        words = [p.word for p in node.preterminals() if not punct[p.word]]
        if words:
            out[words[0], words[-1]].append(node)
    return out


class RuleBasedEngine:
    """The ``Converter`` over the rule-based projection, with a label set (PTB by default)."""

    name = "rule-based projection (no model)"

    def __init__(self, labels: LabelSet | None = None):
        self.labels = labels or LabelSet("ptb")
        if self.labels.rules:
            self.name = f"rule-based projection (no model), {self.labels.name} labels"

    def phrase_labels(self) -> list[str]:
        """The phrase labels the projection produces (for relabeling)."""
        return self.labels.labels(set(LABELS) - {"TOP"})

    def label_warning(self, sentences: list[DepSentence]) -> str | None:
        """None: the projection reads relations where it knows them and copes without."""
        return None

    def candidates(self, sent: DepSentence, k: int = 10, prune: bool = True) -> list[Candidate]:
        """The one rule-based c-parse (``k`` and ``prune`` do not apply)."""
        return [self.best(sent, prune)]

    def best(self, sent: DepSentence, prune: bool = True) -> Candidate:
        """The c-parse of the sentence's d-parse, lifted to a projective one first if need be.
        Raises InputError when the heads are not a tree."""
        heads, lifted = projectivize(sent.heads)
        tree = project(sent.forms, sent.tags, heads, sent.rels or None)
        tree = self.labels.apply(tree, sent.tags, sent.rels)
        return Candidate(tree, 0.0, "rules", list(lifted))

    def best_line(self, sent: DepSentence, prune: bool = True) -> tuple[str, str, list[Lift]]:
        """:meth:`best`'s Penn line, how it was made and the lifted arcs."""
        cand = self.best(sent, prune)
        return cand.penn(sent.forms), cand.how, cand.lifted
