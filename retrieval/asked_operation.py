"""The operation a question asks how to do ("how do i rotate it", "steps to provision
a host cluster"), and whether an answer speaks of it at all.

A runbook that never speaks of cancelling, renewing or fencing does not say how to
cancel, renew or fence, however close its topic: "how do i cancel the stuck run"
answered from the fail-over checklist is a near miss, not an answer. Only the verb of
the request counts: "after the upgrade" is an event, "upgrade stalled" a noun, "we
rotated the keys" what was done, and an alert's name (``KubeDeploymentRolloutStuck``)
names the runbook, not a task.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from retrieval.confidence import asked_operations
from retrieval.tokenize import tokenize

# what comes right before the verb of a request: "how do i", "how to", "steps to",
# "need to", "can we", "do i" (an adverb may come between: "how do i safely drain")
_REQUEST = re.compile(
    r"(?:\bhow\s+(?:do|can|should|would|shall)\s+(?:i|we|you)|\bhow\s+to|\b(?:steps?|"
    r"procedure|process|way|runbook|instructions?)\s+(?:to|for)|\b(?:need|want|have|"
    r"trying|supposed)\s+to|\b(?:do|can|could|should|must|may)\s+(?:i|we)|\bi|\bwe)"
    r"(?:\s+(?:just|manually|safely|actually|properly|quickly|then|also|still|now|first|"
    r"ever|even))?\s+$",
    re.I,
)
_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
MIN_SHARED_STEM = 5  # "rebal" of "rebalance" and "rebalanc" of "rebalancing" agree
# turning a value up or down ("how do i raise the cap", "bump the limit") is asked for
# as an operation too; any word for the same direction speaks of it ("increase it")
_UP = ("raise", "increase", "bump", "grow", "extend", "expand", "widen", "enlarge")
_DOWN = ("lower", "reduce", "decrease", "shrink", "narrow")
_ADJUSTMENTS: dict[str, tuple[str, ...]] = {
    **{w: (*_UP, "higher", "larger", "resize") for w in _UP},
    **{w: (*_DOWN, "smaller") for w in _DOWN},
}


@lru_cache(maxsize=1024)
def requested_operations(question: str) -> frozenset[str]:
    """The operations the question asks how to do, lowercased: the words of
    :func:`retrieval.confidence.asked_operations`, and the words for turning a value up
    or down, in the place of a request's verb."""
    operations = asked_operations(question)
    out = set()
    for m in _WORD.finditer(question):
        word = m[0].lower()
        if word.endswith("ed"):  # "we scaled up an hour ago": what was done, not asked
            continue
        asked = word in operations or word in _ADJUSTMENTS
        if asked and _REQUEST.search(question[: m.start()]):
            out.add(word)
    return frozenset(out)


def _stems(word: str) -> tuple[str, ...]:
    return tuple(tokenize(word))


def _speaks_of(stem: str, tokens: Iterable[str]) -> bool:
    return any(
        t.startswith(stem) or (stem.startswith(t) and len(t) >= MIN_SHARED_STEM) for t in tokens
    )


def speaks_of_operations(operations: Iterable[str], texts: Iterable[str]) -> bool:
    """Does the text (the quotes, their sections and runbook titles) speak of every
    operation asked for, in any form ("rotate": "rotation", "rotating"; "bump":
    "increase", "higher")?"""
    tokens = {t for text in texts for t in tokenize(text)}

    def spoken(op: str) -> bool:
        if op in _ADJUSTMENTS:
            return any(_speaks_of(s, tokens) for w in _ADJUSTMENTS[op] for s in _stems(w))
        stems = _stems(op)
        return bool(stems) and all(_speaks_of(s, tokens) for s in stems)

    return all(spoken(op) for op in operations)
