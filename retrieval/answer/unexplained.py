"""What the question asks that the lead runbook's words do not explain, read by meaning.

A near miss shares most of its words with a runbook and differs in the few it does not
share ("roll the product back to the previous *minor version*", "convert an *existing*
volume"): word overlap counts those few as a small share of missing words, whatever
they mean. Here the question's words that the lead runbook never uses are embedded on
their own, with the model that embeds the question, and compared with the runbook's
chunks: the cosine of the closest. Words the runbook says in other words stay close
("hogging" beside a section on memory pressure); a version, a product or an operation
it does not cover stays far. A question the runbook's words explain whole scores as
the question itself does (its ``dense`` evidence).

One embedding of a few words, for the lead runbook only, when the question has such
words: a feature of the calibrated model (``unexplained``), fitted leave-one-corpus-out
with the rest.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Container, Sequence

from retrieval.reading import tokenize
from retrieval.search import Snapshot, Vectors

# what ends a sentence or encloses a word, not what is inside a name ("db-0", "v1.15")
_AROUND = string.punctuation.replace("_", "")


def unexplained_words(question: str, doc_terms: Container[str]) -> list[str]:
    """The question's words, in order, with a search term that the runbook never uses
    (words that carry no term, "the", "how", are left out)."""
    out = []
    for word in (w.strip(_AROUND) for w in question.split()):
        terms = tokenize(word)
        if terms and not all(t in doc_terms for t in terms):
            out.append(word)
    return out


def unexplained_similarity(
    words: Sequence[str],
    chunk_ids: Sequence[str],
    snapshot: Snapshot,
    embed: Callable[[str], Vectors],
    explained: float,
) -> float:
    """The cosine of ``words`` (embedded together) with the closest of the runbook's
    chunks; ``explained`` (the question's own) when there are none, or no vectors."""
    if not words:
        return explained
    vector = embed(" ".join(words))
    scores = [snapshot.dense_score(c, vector) for c in chunk_ids]
    found = [s for s in scores if s is not None]
    return max(found) if found else explained
