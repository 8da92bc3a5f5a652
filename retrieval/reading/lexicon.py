"""Words a question may use that say nothing about what it is about.

A question word that no runbook contains is evidence that the runbooks do not
cover the question only when it names something: a product (``istio``,
``velero``), an alert, a component. An ordinary English word the runbooks
happen not to use ("culprit", "hogging", "swears"), chat shorthand ("ppl",
"creds"), a word of computing that names no product ("backend", "hotfix") or a
contraction typed without its apostrophe ("doesnt") is not. The lexicon knows
the embedding model's whole words, an English dictionary (the ``english-words``
package, loaded on first use), and the plain inflections of both, so confidence
does not fall because an engineer wrote informally.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Container, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from types import MappingProxyType

from retrieval.reading.team_words import TeamWords
from retrieval.reading.tokenize import tokenize

# The word lists are data (lexicon.toml beside this module), loaded once.
_DATA = tomllib.loads(resources.files(__package__).joinpath("lexicon.toml").read_text("utf-8"))
CONTRACTIONS = frozenset(_DATA["contractions"])
SHORTHAND = frozenset(_DATA["shorthand"])
SLANG: Mapping[str, str] = MappingProxyType(dict(_DATA["slang"]))
# ... except where the word, with a particle, means something else: "kick them off all
# their devices" logs a user out, "kick off the backup" starts it; neither restarts
_OTHER_SENSE: Mapping[str, re.Pattern[str]] = MappingProxyType(
    dict.fromkeys(
        ("kick", "kicked", "kicking"),
        re.compile(r"(?:[ \t]+[\w'-]+){0,3}?[ \t]+(?:off|out)\b", re.I),
    )
)
LONG_FORMS: Mapping[str, str] = MappingProxyType({**SLANG, **_DATA["long_forms"]})


def _other_sense(m: re.Match[str]) -> bool:
    """Is the slang word matched here said in another sense ("kick them off")?"""
    sense = _OTHER_SENSE.get(m.group(1).lower())
    return sense is not None and sense.match(m.string, m.end()) is not None


# a word alone, not part of a name, a path, a flag or a file ("bump.sh", "prod.example")
_ALONE = r"(?<![\w./-])({})(?![\w/-]|\.\w)"
_SHORT_WORD = re.compile(_ALONE.format("|".join(LONG_FORMS)), re.I)


def written_in(doc_freq: Mapping[str, int]) -> Callable[[str], bool]:
    """Whether the runbooks (their document frequencies) use a word, every token of it."""

    def used(word: str) -> bool:
        tokens = tokenize(word)
        return bool(tokens) and all(doc_freq.get(t, 0) > 0 for t in tokens)

    return used


CLOSED_COMPOUNDS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {word: (verb, particle) for word, (verb, particle) in _DATA["closed_compounds"].items()}
)
_IRREGULAR = MappingProxyType({"tear": "tore torn"})


def _verb_forms(verb: str) -> list[str]:
    """The verb as a question says it ("roll", "rolled", "rolling", "setting", "tore"),
    never in the third person; a form that is no word matches nothing."""
    doubled = verb + verb[-1]
    suffixed = [verb + "ed", verb + "ing", doubled + "ed", doubled + "ing"]
    return [verb, *suffixed, *_IRREGULAR.get(verb, "").split()]


_PHRASAL = {
    compound: re.compile(
        r"\b(?:" + "|".join(dict.fromkeys(_verb_forms(verb))) + r")[ -]" + particle + r"\b", re.I
    )
    for compound, (verb, particle) in CLOSED_COMPOUNDS.items()
}


def with_long_forms(text: str, used: Callable[[str], bool] = lambda w: True) -> str:
    """``text`` with each shorthand word read as the runbooks write it: followed by its
    long forms the runbooks ``used`` ("prod production"), replaced by them when the
    runbooks never write the shorthand, left alone when they use no long form. A verb
    and its particle are followed by the one word the runbooks write for them ("rolled
    back rollback") when they use it."""

    def read(m: re.Match[str]) -> str:
        short = m.group(1)
        if _other_sense(m):
            return short
        longs = [w for w in LONG_FORMS[short.lower()].split() if used(w)]
        if not longs:
            return short
        return " ".join(([short] if used(short) else []) + longs)

    text = _SHORT_WORD.sub(read, text)
    for compound, phrase in _PHRASAL.items():
        if used(compound):
            text = phrase.sub(rf"\g<0> {compound}", text)
    return text


COMPUTING = frozenset(_DATA["words"]["computing"])
PRODUCTS = frozenset(_DATA["words"]["products"])
OPERATIONS = frozenset(_DATA["words"]["operations"])
INSTRUCTION_VERBS = OPERATIONS | frozenset(_DATA["words"]["instruction_verbs"])

_SUFFIXES = ("ies", "iest", "ier", "es", "s", "ing", "ed", "er", "est", "ly")
MIN_STEM = 3
# a typo this long may be read as a dictionary word as spelled ("mitigaation"): a product's
# name this long is seldom one edit from one
MIN_DICTIONARY_TYPO = 8


def _inflection_of(word: str, words: AbstractSet[str]) -> bool:
    """Is ``word`` one of ``words``, or a plural, past or gerund of one (none a product)
    as spelled: "replicas", "enforces", "impacting", "regenerating", "processes"?
    Stricter than :func:`_stems`, which reads what was typed: no plural "s" after an "s"
    ("jenkinss"), and "es" only after a hissing sound ("posteres" is no "poster")."""
    if word in words:
        return True
    for suffix in ("s", "es", "ed", "ing"):
        base = word[: -len(suffix)]
        if not word.endswith(suffix) or len(base) < MIN_STEM + 1:
            continue
        if suffix == "s" and base.endswith("s"):
            continue
        if suffix == "es" and not base.endswith(("s", "x", "z", "ch", "sh", "o")):
            continue
        bases = [base]
        if suffix in ("ed", "ing"):
            bases.append(base + "e")  # "regenerating"
            if base[-1] == base[-2]:
                bases.append(base[:-1])  # "logging"
        if any(b in words and b not in PRODUCTS for b in bases):
            return True
    return False


def _stems(word: str) -> Iterable[str]:
    """``word`` and the bases it may be an inflection of (hogging -> hog, tallies -> tally,
    quickest -> quick, easiest -> easy)."""
    yield word
    for suffix in _SUFFIXES:
        if not word.endswith(suffix) or len(word) - len(suffix) < MIN_STEM:
            continue
        base = word[: -len(suffix)]
        yield base
        yield base + "e"
        if suffix in ("ies", "iest", "ier"):
            yield base + "y"
        if len(base) > MIN_STEM and base[-1] == base[-2]:  # doubled consonant
            yield base[:-1]


def _english() -> AbstractSet[str]:
    from english_words import get_english_words_set

    return get_english_words_set(["web2"], lower=True)  # read only from here on


class Lexicon:
    """``word in lexicon``: an ordinary word (any case), not a name."""

    def __init__(
        self,
        model_words: Iterable[str] | Callable[[], Iterable[str]] = (),
        *,
        dictionary: bool = True,
        team: TeamWords | None = None,
    ) -> None:
        # a callable is asked on first use: reading the model's vocabulary loads the model
        self._model_source = model_words
        self._use_dictionary = dictionary
        self._team = team or TeamWords()

    @cached_property
    def _model(self) -> frozenset[str]:
        source = self._model_source
        words = source() if callable(source) else source
        return frozenset(w.lower() for w in words)

    @cached_property
    def _dictionary(self) -> AbstractSet[str]:
        return _english() if self._use_dictionary else frozenset()

    def warm(self) -> None:
        """Load both word lists now (a server does this before its first question)."""
        _ = self._model, self._dictionary

    @property
    def exact(self) -> Container[str]:
        """The language model's whole words as spelled: common words, without the
        dictionary's rare ones (``sitio`` is one swap from ``istio``), contractions,
        shorthand or inflections."""
        return self._model

    @property
    def inflected(self) -> Container[str]:
        """What a typo with a letter swapped, dropped or doubled may also be read as:
        the plain inflections of the language model's whole words ("impacting",
        "enforces", "replicas") and, of eight letters or more, the dictionary's words as
        spelled ("mitigation"). Not its shorter rare words (``sitio`` is one swap from
        ``istio``)."""
        return _Inflected(self)

    def inflection(self, word: str) -> bool:
        """Is ``word`` (lowercase letters) one that :attr:`inflected` holds?"""
        if not word.isalpha() or self._product(word):
            return False
        if _inflection_of(word, self._model):
            return True
        return len(word) >= MIN_DICTIONARY_TYPO and word in self._dictionary

    def _product(self, word: str) -> bool:
        """Is ``word`` a product's name: the built-in list's or the team's?"""
        return word in PRODUCTS or word in self._team.products

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        w = word.lower().replace("'", "")
        if self._product(w):
            return False
        if w in CONTRACTIONS or w in SHORTHAND or w in COMPUTING or w in self._team.ordinary:
            return True
        candidates = list(_stems(w))
        if any(c in self._model for c in candidates):
            return True
        if not w.isalpha():
            return False
        return any(c in self._dictionary for c in candidates)


@dataclass(frozen=True)
class _Inflected:
    lexicon: Lexicon

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self.lexicon.inflection(word)


def spelled_words(vocabulary: Container[str]) -> Container[str]:
    """The words of ``vocabulary`` as spelled (a :class:`Lexicon`'s without inflections)."""
    return vocabulary.exact if isinstance(vocabulary, Lexicon) else vocabulary


def inflected_words(vocabulary: Container[str]) -> Container[str]:
    """The inflections of ``vocabulary``'s words a typo may be read as (a
    :class:`Lexicon`'s; none of another container's)."""
    return vocabulary.inflected if isinstance(vocabulary, Lexicon) else frozenset()
