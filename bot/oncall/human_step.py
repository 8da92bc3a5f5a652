"""The human step of an answer: who to call now, in the same words on every surface.

One value, produced once per answer by :class:`bot.oncall.registry.HumanSteps` and only
rendered by Slack, the web pages and the terminal: a lead ("On call now for
checkout-api"), the contacts it names, and small print said once (an ownerless runbook).
"""

from __future__ import annotations

from bot.oncall.contact import Contact, ContactSource
from core.models import Frozen

NO_OWNER = "No owner on record."


class HumanStep(Frozen):
    """Who to call about the runbook an answer leads with (never nobody)."""

    lead: str  # "On call now for checkout-api (PagerDuty)", "Owner", "Ask in"
    contacts: tuple[Contact, ...]
    source: ContactSource
    note: str | None = None  # small print, e.g. "No owner on record."
    page_service: str | None = None  # a PagerDuty service to page: "Page on-call" is offered
    service: str | None = None  # the runbook's service, as the runbook names it
    runbook: str | None = None  # the runbook's title

    @property
    def pageable(self) -> bool:
        return self.page_service is not None

    def text(self) -> str:
        """The step in plain words: ``On call now for checkout-api: Ada, Grace``."""
        return f"{self.lead}: {', '.join(c.label for c in self.contacts)}"
