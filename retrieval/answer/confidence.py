"""How sure the bot is that the best runbook answers the question: three tiers.

The evidence is measured relative to the index it runs on, never as raw scores
from one corpus:

- ``relevance``: how well the lead document's best section answers the question by
  meaning: its cosine with the question, each dimension of the embedding weighed as the
  questions of every set taught (:mod:`retrieval.answer.relevance`);
- ``coverage``: the IDF share of the question's content terms found in the lead
  document (its names included); IDF comes from this index, and everyday words that
  no runbook uses ("wake", "till", "morning", a runbook's word with an English prefix
  such as "mid-upgrade") are left out rather than counted as missing, and so are the
  labels of an alert pasted in (``cluster=kafka-prod-eu``: one instance's name); an
  operation asked for ("how do i upgrade the operator") is not: no runbook that never
  speaks of upgrading says how to upgrade;
- ``absent``: the question has content terms that no indexed document contains or is
  named by (an alert name that only a file name spells is the document's), a hyphenated
  compound of the runbooks' own words aside (``hosted-control-plane``);
- ``unknown``: it names something neither the runbooks nor the language model
  know (``istio``, ``velero``);
- ``grounded``: the plain cosine (``dense``) times ``coverage``: the question's words
  count as evidence in proportion to how much the document is about the question (a
  linear model cannot otherwise let shared words weigh less in a document on another
  subject);
- ``detail_missing``, ``task_missing``, ``steps_missing``: the answer's checks, read
  from the quotes once they are chosen (zero until then): the command or value asked for
  is not quoted, the quotes never speak of the task asked for, or steps were asked for
  and no quote gives any.

A logistic model over these, standardized, gives a probability. Its weights and
the tier thresholds are fitted across several corpora and checked
leave-one-corpus-out (``make quality``); see ``answer_config``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, replace

from retrieval.answer.signals import FEATURE_NAMES
from retrieval.reading import TermStats, asked_operations, coverage, tokenize

FEATURES = FEATURE_NAMES  # in order: the model's weights follow it
MIN_TERM_LEN = 3  # shorter tokens no runbook has are flags or typos, not names
_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
_COMPOUND = re.compile(r"\b[A-Za-z]+(?:-[A-Za-z]+)+\b")
# English prefixes that make a compound of a word ("mid-upgrade", "non-prod", "re-run")
_PREFIXES = frozenset(
    "mid in non pre post re multi cross self semi sub inter intra un de co over under "
    "anti auto half per".split()
)
# ... and suffixes ("cluster-wide", "node-level", "tenant-specific")
_SUFFIXES = frozenset("wide level based specific related aware only side".split())


@dataclass(frozen=True)
class Evidence:
    dense: float  # the plain cosine of the lead's best section (not itself a feature)
    coverage: float
    absent: float
    unknown: float
    # dense x coverage: the words it shares lie in a document about the question; shared
    # words in a document the question is not about ("who won the 2018 world cup") are not
    grounded: float = 0.0
    detail_missing: float = 0.0
    task_missing: float = 0.0
    steps_missing: float = 0.0
    relevance: float = 0.0

    def vector(self) -> tuple[float, ...]:
        return tuple(float(getattr(self, f)) for f in FEATURES)

    def without(self, off: Container[str]) -> Evidence:
        """The evidence with the features switched ``off`` held at zero."""
        held = {f: 0.0 for f in FEATURES if f in off}
        return replace(self, **held) if held else self


@dataclass(frozen=True)
class ConfidenceModel:
    """Standardized logistic model: p = sigmoid(bias + sum(w * (x - mean) / scale))."""

    weights: tuple[float, ...]
    means: tuple[float, ...]
    scales: tuple[float, ...]
    bias: float
    answer_at: float  # p at or above: a confident answer with quotes
    suggest_at: float  # p at or above (below answer_at): "not sure", closest runbooks
    sure_at: float = 0.0  # p at or above (from answer_at): sure; below it, a best guess

    def probability(self, evidence: Evidence) -> float:
        z = self.bias + sum(
            w * (x - m) / s
            for w, x, m, s in zip(
                self.weights, evidence.vector(), self.means, self.scales, strict=True
            )
        )
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


# an alert's labels pasted with it (``pool=rbd-fast``, ``cluster="prod-eu"``): their
# values name one instance, as a pod's or a host's name does; the alert's name does not
_LABEL = re.compile(
    r"(?<![\w.-])(?P<key>[A-Za-z_][\w.-]*)=(?P<value>\"[^\"]*\"|'[^']*'|[^\s,;)\]}]+)"
)
_NAMING_LABELS = frozenset({"alertname", "alert"})


def without_labels(question: str) -> str:
    """The question without the labels pasted with an alert, its name kept:
    ``CephPoolNearFull ( )``, ``alertname=CephPoolNearFull``."""
    return _LABEL.sub(lambda m: m[0] if m["key"].lower() in _NAMING_LABELS else " ", question)


def everyday_terms(
    question: str, doc_freq: Mapping[str, int], vocabulary: Container[str]
) -> frozenset[str]:
    """Tokens of everyday words (known to the language model) that no document uses,
    and those of the labels of an alert pasted in (``consumer_group=fulfilment-blue``:
    a label's name and one instance's). An operation the question asks for ("how do i
    upgrade …") is no everyday word: when no document speaks of it, none says how."""
    out: set[str] = set()
    operations = asked_operations(question)
    for m in _LABEL.finditer(question):
        if m["key"].lower() not in _NAMING_LABELS:
            out.update(t for t in tokenize(m[0]) if doc_freq.get(t, 0) == 0)
    for word in _WORD.findall(question):
        tokens = tokenize(word)
        if word.lower() in operations:
            continue  # the task itself, which no runbook speaks of: missing
        if word in vocabulary and tokens and all(doc_freq.get(t, 0) == 0 for t in tokens):
            out.update(tokens)
    # a compound of such words ("hot-swaps", "break-glass") is everyday speech too, and so
    # is a word of the runbooks with an English prefix or suffix ("mid-upgrade",
    # "in-cluster", "per-tenant", "site-wide"): the runbooks write the word, not the compound
    for compound in _COMPOUND.findall(question):
        pieces = compound.split("-")
        parts = [t for p in pieces for t in tokenize(p)]
        if pieces[-1].lower() in _SUFFIXES:
            stem = pieces[:-1]
        elif pieces[0].lower() in _PREFIXES:
            stem = pieces[1:]
        else:
            stem = []
        words = bool(stem) and all(
            doc_freq.get(t, 0) > 0 or t in out for p in stem for t in tokenize(p)
        )
        if parts and (words or all(t in out for t in parts)):
            out.update(t for t in tokenize(compound) if doc_freq.get(t, 0) == 0)
    return frozenset(out)


def _instance_id(term: str, stats: TermStats) -> bool:
    """A token no runbook has that names one instance (``ip-10-0-3-12``, ``2am``, ``-h``)."""
    return stats.doc_freq.get(term, 0) == 0 and (
        any(ch.isdigit() for ch in term) or len(term.strip("-_.")) < MIN_TERM_LEN
    )


def _runbook_words(term: str, stats: TermStats) -> bool:
    """A hyphenated compound of words the runbooks use (``hosted-control-plane``,
    ``shared-state``, ``image-registry-storage``): a phrase of their domain or a thing
    named in it, not something they never mention."""
    pieces = [p for p in term.split("-") if p]
    return len(pieces) > 1 and all(
        (tokens := tokenize(p)) and all(stats.doc_freq.get(t, 0) > 0 for t in tokens)
        for p in pieces
    )


def content_terms(terms: Sequence[str], everyday: Container[str], stats: TermStats) -> list[str]:
    """The question's terms that say what it is about: not everyday words no runbook
    needs, nor one instance's name."""
    return [t for t in terms if t not in everyday and not _instance_id(t, stats)]


def gather_evidence(
    *,
    dense: float,
    terms: Sequence[str],
    doc_terms: frozenset[str],
    stats: TermStats,
    everyday: frozenset[str],
    unknown: Sequence[str],
    names: Container[str] = frozenset(),
    relevance: float | None = None,
) -> Evidence:
    """The evidence for one document. ``names``: the index's document names (normalized
    titles and file names); a question term that is one is not missing from the index,
    though no runbook's text spells it (``CPUThrottlingHigh`` only as a file name).
    ``relevance``: the weighted cosine (the plain one where none is given)."""
    content = content_terms(terms, everyday, stats)
    share = coverage(content, doc_terms, stats)
    return Evidence(
        dense=dense,
        relevance=dense if relevance is None else relevance,
        coverage=share,
        grounded=dense * share,
        absent=float(
            any(
                stats.doc_freq.get(t, 0) == 0 and t not in names and not _runbook_words(t, stats)
                for t in content
            )
        ),
        unknown=float(bool(unknown)),
    )
