"""The asks of a compound question: "how do i bounce config-policy-controller for one
hosted cluster and what do i do with the logs after" asks two things, which two
runbooks may answer (the restart procedure, the logs one).

A question is split where "and" (or "then", "also", "plus") starts a new question
("and what", "and how", "and can"). An ask that refers back with a pronoun ("and how
fast do they come back to us", "and is it safe") is about the first ask's subject: the
runbook that answers that one answers it too.
"""

from __future__ import annotations

import re

_SPLIT = re.compile(
    r"(?:,\s*|\s+)(?:and|then|also|plus)(?:\s+then)?\s+(?=(?:what|how|who|whom|where|which|"
    r"when|why|is|are|can|could|should|do|does)\b)",
    re.I,
)
_REFERS_BACK = re.compile(r"\b(?:it|its|they|them|their|that|this|those|these)\b", re.I)


def asks(question: str) -> tuple[str, ...]:
    """The question's asks, in order; the question itself when it asks one thing."""
    return tuple(p.strip() for p in _SPLIT.split(question) if p.strip())


def refers_back(ask: str) -> bool:
    """Does the ask speak of what an earlier one named ("it", "they", "that")?"""
    return bool(_REFERS_BACK.search(ask))
