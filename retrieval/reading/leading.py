"""What leads an answer, given where it was asked: one rule for every surface.

In an alert's thread the alert is right above, and so it is when the alert is pasted as
the question: an answer that would open by restating the problem (symptoms, impact, the
runbook's introduction) opens with the runbook's first action section instead
(:meth:`RunbookSections.action_first`). Slack, the web pages, the CLI and ``make
quality`` all answer through this rule, so the same question in the same context leads
with the same section everywhere. A question that only asks what to do ("what do i do")
is left to the answer's own section ranking, which already leads with the fix: putting
the first action first for it too won no question on the eight sets and cost GitLab one
(``make quality``).
"""

from __future__ import annotations

from dataclasses import dataclass

from retrieval.reading.query import parse_alert_text

PASTED_ALERT_MIN_CHARS = 40  # shorter, a question that names an alert, not the alert


@dataclass(frozen=True)
class AskContext:
    """Where a question was asked."""

    alert: bool = False  # in an alert's thread, or the alert itself: the alert is above
    # a follow-up in a thread about one runbook: the thread goes on from the sections it
    # has shown (RunbookSections.continue_after), so nothing is put first here
    follow_up: bool = False


def is_pasted_alert(text: str) -> bool:
    """Is ``text`` an alert pasted as the question (its context, wherever it is asked)?"""
    return bool(parse_alert_text(text).alert_name) and len(text) > PASTED_ALERT_MIN_CHARS


def leads_with_action(question: str, context: AskContext) -> bool:
    """Should the answer open with something to do?"""
    if context.follow_up:
        return False
    return context.alert or is_pasted_alert(question)
