"""A contact: a person, a group or a channel to ask, as a workspace knows them."""

from __future__ import annotations

from typing import Literal

from core.models import Frozen

ContactKind = Literal["usergroup", "user", "channel", "text"]
#: where a contact came from: PagerDuty's on-call now, the runbook's owner, the service's
#: channel, the configured fallback, or nothing configured at all
ContactSource = Literal["pagerduty", "owner", "service-channel", "fallback", "default"]


class Contact(Frozen):
    """Who to ask about a runbook."""

    kind: ContactKind
    label: str  # as people know it: "@checkout-oncall", "#notifications", "Ada Lovelace"
    id: str | None = None  # the Slack id (S…, U…, C…) when the workspace knows it
    source: ContactSource = "owner"
    url: str | None = None  # a page about them (a PagerDuty user)
