"""How one delivered answer is shown: the facts and choices its message is rendered from.

A message is rendered again when someone clicks one of its buttons (feedback, Post to
channel, Escalate), so everything the renderer needs besides the answer is kept here,
with the answer, in the request store.
"""

from __future__ import annotations

from typing import Literal

from bot.oncall import Contact, HumanStep
from core.models import Frozen
from state.querylog import FeedbackValue

Audience = Literal["private", "public"]
__all__ = ["Audience", "Contact", "DocFacts", "HumanStep", "Link", "View"]


class Link(Frozen):
    label: str
    url: str | None = None


class DocFacts(Frozen):
    """What the message shows about one cited document besides its quotes."""

    source_id: str
    contact: Contact | None = None
    escalation: str | None = None  # the document's Escalation section, verbatim Markdown
    escalation_section: str | None = None
    escalation_url: str | None = None
    other_service: str | None = None  # the question names this service; the doc is not about it
    more_actions: tuple[Link, ...] = ()  # the document's other action sections


class View(Frozen):
    """Where and how an answer is shown, and what happened to it since."""

    audience: Audience = "private"  # private: only the asker sees it (ephemeral)
    incident: bool = False  # an incident channel: related incidents are listed
    asked: str | None = None  # shown as "Asked: …" where the question is not visible above
    offer_post: bool = False
    offer_escalate: bool = False
    restricted: bool = False  # cites what the channel may not read: "do not paste"
    withheld_note: str | None = None  # "1 more runbook matched: sent privately to …"
    access_owner: str | None = None  # owner of the runbook the asker may not read
    feedback: FeedbackValue | None = None
    posted_by: str | None = None  # Post to channel was clicked (user id)
    posted_note: str | None = None  # what the posted copy left out
    escalated_by: str | None = None
    shared_by: str | None = None  # the copy posted to the channel, by this user
    preface: str | None = None  # a line above the answer (mrkdwn): why this runbook
    resolved: float | None = None  # the alert this answers resolved at (epoch seconds)
    expanded: bool = False  # "Show more" was clicked: the lead quote whole, examples shown
    step: HumanStep | None = None  # who to call now (:mod:`bot.oncall`), as it was looked up
    paged_by: str | None = None  # "Page on-call" was clicked (user id)
    incident_url: str | None = None  # the incident that page created
    compact: bool = False  # an alert's card: the lead, its first commands, the human step
    alert_name: str | None = None  # the alert an auto-reply answers
    alert_url: str | None = None  # that alert's own runbook_url, linked from its card
    # a follow-up after the runbook's last step: "that is all this runbook has"
    ended: Literal["next", "escalate"] | None = None
    runbook: Link | None = None  # the runbook the thread is about
    last_fix: str | None = None  # the last fix the thread showed
    related_runbooks: tuple[Link, ...] = ()  # other runbooks of its service
