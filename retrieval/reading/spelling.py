"""Typos in a question, read as the word the runbooks use.

On call, people type fast: "conection refused", "certifcate expired". A misspelled
word matches nothing in the keyword index, and no runbook contains it, so it would
count as a missing term or an unknown name, and the bot would decline a question its
runbooks answer. A question word is read as a typo when

- it is a plain word of at least ``MIN_SWAP_LEN`` letters (never an identifier:
  ``KubePodCrashLooping``, ``checkout-api``, ``ip-10-0-3-12`` are names as typed),
- neither the runbooks nor the lexicon know it, and
- one edit turns it into a word the runbooks use as written, or else into a common
  word of the language model ("straihgt"): a letter dropped, added or changed (never
  the first: ``vsphere`` is not ``sphere``), or two neighbours swapped. Below
  ``MIN_TYPO_LEN`` letters a swap counts ("memroy", "spcae"), and a letter dropped
  or doubled counts only towards a word the runbooks use ("poblem", "errorr"): one
  letter changed in a six-letter name is too often another word (``thanos``,
  ``thanks``), and a short common word the runbooks never use says too little to be
  worth the guess.

When several runbook words are one edit away, the one the most runbooks use wins. A
product the runbooks never mention (``coredns``, ``rabbitmq``) stays unknown: no word
of the runbooks, and no common word, is one edit from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass

from retrieval.reading.lexicon import PRODUCTS
from retrieval.reading.tokenize import tokenize

MIN_TYPO_LEN = 7  # any single edit
MIN_SWAP_LEN = 5  # two neighbouring letters swapped
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
# a word standing alone: not part of an identifier, path or host name
_WORD = re.compile(r"(?<![\w.\-/])[A-Za-z]+(?![\w.\-/])")
_TARGET = re.compile(rf"\b[a-z]{{{MIN_SWAP_LEN},}}\b")


def typo_targets(text: str) -> set[str]:
    """The plain words of ``text`` that a typo may be read as (lowercased)."""
    return set(_TARGET.findall(text.lower()))


def _swaps(word: str) -> set[str]:
    """Every string one swap of neighbouring letters away."""
    out = {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}
    out.discard(word)
    return out


def _one_letter(word: str, *, replace: bool) -> set[str]:
    """Every string one letter dropped or added away (and, with ``replace``, changed),
    after the first letter: people rarely mistype the first letter, and a product is
    often a word with one in front (``vsphere``, ``sphere``)."""
    splits = [(word[:i], word[i:]) for i in range(1, len(word) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out |= {a + c + b for a, b in splits for c in _LETTERS}
    if replace:
        out |= {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
    out.discard(word)
    return out


def misspelled(word: str, doc_freq: Mapping[str, int], lexicon: Container[str]) -> bool:
    """A plain word long enough to correct that neither the runbooks nor the lexicon know,
    and no product's name (``consul`` is no "consult", ``linkerd`` no "linked")."""
    plain = word.islower() or word.istitle() or word.isupper()
    if len(word) < MIN_SWAP_LEN or not word.isalpha() or not plain:
        return False
    lower = word.lower()
    if lower in PRODUCTS:
        return False
    tokens = tokenize(lower)
    return bool(tokens) and not any(doc_freq.get(t, 0) for t in tokens) and lower not in lexicon


def correction(
    word: str,
    words: Mapping[str, int],
    spelled: Container[str],
    inflected: Container[str] = frozenset(),
) -> str | None:
    """The word one edit from ``word``: of the runbooks' words (``words``: how many
    documents use each) the most used, else of the words of the language (``spelled``)
    the first in alphabetical order, else of their inflections (``inflected``) one
    letter swapped, dropped or added away, never changed ("postgres" is no "postures");
    None when there is none."""
    lower = word.lower()
    if len(lower) < MIN_SWAP_LEN:
        return None
    long_word = len(lower) >= MIN_TYPO_LEN
    letters = _one_letter(lower, replace=long_word)
    edits = _swaps(lower) | letters
    found = [(words[c], c) for c in edits if c in words]
    if found:
        return min(found, key=lambda f: (-f[0], f[1]))[1]
    from_language = edits if long_word else _swaps(lower)
    exact = min((c for c in from_language if c in spelled), default=None)
    if exact is not None:
        return exact
    gentle = _swaps(lower) | _one_letter(lower, replace=False) if long_word else _swaps(lower)
    return min((c for c in gentle if c in inflected), default=None)


@dataclass(frozen=True)
class Reading:
    """A question as read: its text with typos corrected, and each correction made."""

    text: str
    read_as: tuple[tuple[str, str], ...] = ()  # (as typed, as read)
    named: frozenset[str] = frozenset()  # documents an alert name was read as (normalized)


def corrected(
    question: str,
    doc_freq: Mapping[str, int],
    lexicon: Container[str],
    words: Callable[[], Mapping[str, int]],
    spelled: Container[str] = frozenset(),
    inflected: Container[str] = frozenset(),
) -> Reading:
    """``question`` with each typo replaced by the word it stands for. ``words`` is
    asked only when the question has a word that may be misspelled."""
    read_as: dict[str, str] = {}

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        if not misspelled(word, doc_freq, lexicon):
            return word
        fixed = correction(word, words(), spelled, inflected)
        if fixed is None:
            return word
        read_as[word] = fixed
        return fixed

    text = _WORD.sub(fix, question)
    return Reading(text, tuple(read_as.items()))
