"""What a question sets aside: "the bosh director's, not a tenant's", "without shutting
it down", "rather than restarting it", "logit itself is down, not just my login". The
words set aside name the section the asker does not want: they are no evidence for a
part, and a part headed by them is the case the question rules out."""

from __future__ import annotations

import re

from retrieval.evidence import query_terms

# "not" only before a determiner: "not a tenant's" contrasts, "is not running" describes
_SET_ASIDE = re.compile(
    r"\b(?:not (?:just |only )?(?:a|an|the|any|my|our|their|its|this|that)|rather than|instead of|"
    r"other than|except(?: for)?|without)\s+((?:[\w'-]+[ \t]+){0,2}[\w'-]+)",
    re.I,
)


def set_aside(question: str) -> frozenset[str]:
    """Tokens of what the question rules out, unless it also asks for them elsewhere."""
    phrases = [m.group(1) for m in _SET_ASIDE.finditer(question)]
    if not phrases:
        return frozenset()
    ruled_out = {t for phrase in phrases for t in query_terms(phrase)}
    rest = query_terms(_SET_ASIDE.sub(" ", question))
    return frozenset(ruled_out - set(rest))
