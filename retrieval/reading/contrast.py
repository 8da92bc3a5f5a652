"""What a question sets aside: "the bosh director's, not a tenant's", "without shutting
it down", "rather than restarting it", "logit itself is down, not just my login". The
words set aside name the section the asker does not want: they are no evidence for a
part, and a part headed by them is the case the question rules out.

A state the asker has already seen ("the cvo pod is Running", "every replica is
ready") sets its case aside too: "Verify the operator is running" and "The pod is not
running" are the checks and the case the question has ruled out, and a part that opens
on that state ("If the cluster-version-operator pod is running, the problem might be
with Prometheus") is the branch the runbook wrote for it."""

from __future__ import annotations

import re

from retrieval.reading.evidence import query_terms

# "not" only before a determiner: "not a tenant's" contrasts, "is not running" describes
_SET_ASIDE = re.compile(
    r"\b(?:not (?:just |only )?(?:a|an|the|any|my|our|their|its|this|that)|rather than|instead of|"
    r"other than|except(?: for)?|without)\s+((?:[\w'-]+[ \t]+){0,2}[\w'-]+)",
    re.I,
)


_WORD = re.compile(r"[a-z]+")
# a healthy state the asker reports, right after the verb: "is Running", "are all ready",
# "still running", "pods all Running"; "is not running" reports the failure, which the
# runbook's case covers
_SEEN_FINE = re.compile(
    r"\b(?:(?:is|are|looks?|seems?|appears?|shows?)\s+(?:to be\s+)?|still\s+|all\s+|both\s+)"
    r"(?:(?:all|still|definitely|clearly)\s+)?(running|ready|healthy|reachable|available)\b"
    # "is running out of disk", "running slow", "still running behind": no healthy state
    r"(?!\s+(?:out|low|slow|slowly|behind|hot|late|short|over|away|into|wild)\b)",
    re.I,
)


def seen_fine(question: str) -> frozenset[str]:
    """The healthy states the question reports, as written ("running" of "the pod is
    Running"): words, not stems, since "run the command" is no such state."""
    return frozenset(m.group(1).lower() for m in _SEEN_FINE.finditer(question))


def says_state(heading: str, states: frozenset[str]) -> bool:
    """Does the heading speak of one of ``states`` ("Verify the operator is running",
    "Pod is not running")?"""
    return bool(states) and bool(states & set(_WORD.findall(heading.lower())))


# a part that opens on a condition: "If the pod is running but Prometheus cannot reach
# it:", "When the hosted cluster is healthy and ..."; its state words, up to the clause's end
_OPENING_CONDITION = re.compile(r"^\W*(?:if|when|in case|once)\b([^.:;,\n]*)", re.I)
_STATE_IN_CLAUSE = re.compile(
    r"\b(?:is|are)\s+(?:all\s+|still\s+|up\s+and\s+)?([a-z]+)\s*(?:$|\b(?:but|and|then)\b)", re.I
)
_NEGATION = re.compile(r"\b(?:not|no|never|isn't|aren't|isnt|arent)\b", re.I)


def opens_on_state(body: str, states: frozenset[str]) -> bool:
    """Does ``body`` open on a condition that one of ``states`` holds ("If the pod is
    running, ...")? "If the pod is not running" is the other branch."""
    if not states:
        return False
    m = _OPENING_CONDITION.match(body.lstrip())
    if m is None:
        return False
    clause = m.group(1).replace("`", "")
    if _NEGATION.search(clause):
        return False
    # the state as the clause's end or before its next part: "is running", "are all
    # ready but"; "you are running EKS" names no state
    return any(s.group(1).lower() in states for s in _STATE_IN_CLAUSE.finditer(clause))


def set_aside(question: str) -> frozenset[str]:
    """Tokens of what the question rules out, unless it also asks for them elsewhere."""
    phrases = [m.group(1) for m in _SET_ASIDE.finditer(question)]
    if not phrases:
        return frozenset()
    ruled_out = {t for phrase in phrases for t in query_terms(phrase)}
    rest = query_terms(_SET_ASIDE.sub(" ", question))
    return frozenset(ruled_out - set(rest))
