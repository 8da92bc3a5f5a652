"""How well a document covers a question: IDF-weighted term coverage.

Used with the dense similarity to decide whether to answer or abstain. Query
terms that no document contains weigh as much as the rarest indexed terms, so
a question about a system the runbooks never mention scores low.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from core.models import normalize_name
from retrieval.reading.names import written_as_name
from retrieval.reading.tokenize import tokenize

# Words so common in questions that they say nothing about coverage.
_QUESTION_NOISE = frozenset(
    [
        "how",
        "why",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whose",
        "can",
        "could",
        "should",
        "would",
        "will",
        "do",
        "does",
        "did",
        "done",
        "get",
        "got",
        "need",
        "needs",
        "want",
        "wants",
        "tell",
        "know",
        "see",
        "look",
        "make",
        "just",
        "still",
        "even",
        "again",
        "any",
        "anything",
        "some",
        "thing",
        "things",
        "like",
        "really",
        "actually",
        "pls",
        "please",
        "help",
        "wtf",
        "lol",
        "rn",
        "asap",
        "ok",
        "okay",
        "now",
        "right",
        "there",
        "here",
        "they",
        "them",
        "their",
        "our",
        "ours",
        "your",
        "yours",
        "you",
        "me",
        "us",
        "him",
        "her",
        "his",
        "its",
        "be",
        "been",
        "being",
        "was",
        "were",
        "am",
        "has",
        "have",
        "had",
        "not",
        "no",
        "yes",
        "also",
        "too",
        "very",
        "much",
        "many",
        "all",
        "every",
        "one",
        "two",
        "three",
        "up",
        "down",
        "out",
        "off",
        "over",
        "into",
        "onto",
        "from",
        "about",
        "after",
        "before",
        "until",
        "since",
        "then",
        "than",
        "so",
        "if",
        "but",
        "way",
        "ways",
        "mean",
        "means",
        "means",
        "say",
        "says",
        "said",
        "keep",
        "keeps",
        "going",
        "go",
        "goes",
        "try",
        "tried",
        "trying",
    ]
)


@dataclass(frozen=True)
class TermStats:
    doc_freq: dict[str, int]
    n_docs: int

    @classmethod
    def from_doc_terms(cls, per_doc: Mapping[str, Iterable[str]]) -> TermStats:
        df: Counter[str] = Counter()
        for terms in per_doc.values():
            df.update(set(terms))
        return cls(dict(df), max(1, len(per_doc)))

    @cached_property
    def _idf(self) -> dict[str, float]:
        return {}  # term -> idf, for terms of the index only: bounded by its vocabulary

    def idf(self, term: str) -> float:
        found = self._idf.get(term)
        if found is not None:
            return found
        df = self.doc_freq.get(term, 0)
        value = math.log(1 + (self.n_docs - df + 0.5) / (df + 0.5))
        if df:
            self._idf[term] = value
        return value


def query_terms(question: str) -> list[str]:
    return [t for t in dict.fromkeys(tokenize(question)) if t not in _QUESTION_NOISE]


def coverage(question_terms: Sequence[str], doc_terms: Iterable[str], stats: TermStats) -> float:
    """Share of the question's IDF mass that appears in the document (0..1)."""
    if not question_terms:
        return 0.0
    present = set(doc_terms)
    total = sum(stats.idf(t) for t in question_terms)
    got = sum(stats.idf(t) for t in question_terms if t in present)
    return got / total if total > 0 else 0.0


_WORDISH = re.compile(r"[A-Za-z][A-Za-z0-9_\-.]*[A-Za-z0-9]")
MIN_ENTITY_LEN = 4
_FILE_NAME = re.compile(
    r"[\w-]+(?:\.[\w-]+)*\.(?:git|ya?ml|json|md|txt|log|conf|cfg|ini|toml|xml|html?|csv|sql|"
    r"sh|py|rb|go|js|ts|tar|gz|tgz|zip|pem|crt|key|pdf)",
    re.I,
)


def _known(word: str, corpus_terms: Mapping[str, int], vocab: Container[str]) -> bool:
    if word in vocab or word in corpus_terms:
        return True
    return any(t in corpus_terms for t in tokenize(word)[:1])


def _plain_words(compound: str, vocab: Container[str]) -> bool:
    """``top-level``, ``break-glass``: a hyphenated phrase of ordinary words, not a name."""
    parts = [p for p in re.split(r"[-_.]", compound) if p]
    return bool(parts) and all(len(p) <= 2 or p in vocab for p in parts)


def unknown_entities(
    question: str,
    corpus_terms: Mapping[str, int],
    vocab: Container[str],
    known_names: frozenset[str] = frozenset(),
) -> list[str]:
    """Names in the question that neither the runbooks nor the language model know.

    A word with no digits that no indexed document contains and that is not in
    the embedding model's vocabulary (nor a plain inflection of a word that is)
    is most likely a product or system the runbooks never mention: ``thanos``,
    ``argocd``, ``velero``. A compound identifier (``LoyaltyPointsSyncFailed``,
    ``loyalty-api``) counts as unknown when no document contains it whole and no
    document is named after it, even if its parts are common words.
    ``known_names`` holds normalized document names (titles, file names).
    """
    found: list[str] = []
    for raw in _WORDISH.findall(question):
        if any(ch.isdigit() for ch in raw) or len(raw) < MIN_ENTITY_LEN:
            continue
        if _FILE_NAME.fullmatch(raw):
            continue  # "…eff.git", "values.yaml": one file pasted in, not a system
        word = raw.lower()
        # CamelCase or dotted/hyphenated; a word in capitals (AVAILABLE) is a plain word
        if written_as_name(raw):
            if word in corpus_terms or normalize_name(word) in known_names:
                continue
            # "break-glass" is a phrase of words; "number_of_replicas" is a setting's name
            if raw.islower() and "_" not in raw and _plain_words(raw, vocab):
                continue
            found.append(raw)
            continue
        if not _known(word, corpus_terms, vocab) and not _known(raw, corpus_terms, vocab):
            found.append(raw)
    return found
