"""Is a question in a thread a follow-up on the runbook the thread is about?

"and if that doesn't work?", "still failing", "what else?" ask for the runbook's next
steps; "who do I call?" for its Escalation section. Anything else is a new question.
"""

from __future__ import annotations

import re
from typing import Literal

from retrieval.reading.intent import question_intent

FollowUp = Literal["next", "escalate"]

_NEXT = re.compile(
    r"\b(?:(?:does|did|do|is|was)(?:n'?t| not) (?:work\w*|help\w*|fix\w*|chang\w*)|"
    r"not (?:work\w*|help\w*|fix\w*)|no (?:luck|change|difference|effect)|"
    r"(?:still|keeps?) (?:\w+ing|broken|down|red|there|the same|high|full|growing)|"
    r"(?:if|when) (?:that|it|this) (?:fails|failed|does ?n.?t)|"
    r"what (?:else|next|now)|then what|next steps?|other (?:options?|fix\w*|things?)|"
    r"anything else|nothing changed|same (?:error|problem)|it'?s still|"
    r"tried (?:that|it|this)|(?:that|it) (?:failed|didn'?t))\b",
    re.IGNORECASE,
)
_WHO = re.compile(r"\bwho\b.*\b(?:owns?|call|page|ask|contact)\b", re.IGNORECASE)


def follow_up(question: str) -> FollowUp | None:
    """What a follow-up asks for, or None for a new question."""
    text = " ".join(question.split())
    if not text:
        return None
    if question_intent(text) == "escalate" or _WHO.search(text):
        return "escalate"
    if _NEXT.search(text):
        return "next"
    return None
