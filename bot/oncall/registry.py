"""The human step of an answer: the lookups tried in order, the first that knows someone.

::

    steps = HumanSteps([pagerduty, OwnerLookup(names), ServiceChannelLookup(...),
                        FallbackLookup(names, "@sre-oncall")], services_map)
    step = steps.for_answer(answer, lookup)   # never None: a person, group or channel

A lookup that fails (PagerDuty down) is logged and skipped: the next one answers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from bot.oncall.errors import OnCallError
from bot.oncall.human_step import HumanStep
from bot.oncall.lookups import ContactLookup, default_step
from bot.oncall.services_map import ServicesMap
from bot.oncall.target import Target
from core.models import Answer, DocumentMetadata

log = logging.getLogger("runbook_bot.oncall")

Lookup = Callable[[str], DocumentMetadata | None]


class HumanSteps:
    def __init__(self, lookups: Sequence[ContactLookup], services: ServicesMap | None = None):
        self._lookups = tuple(lookups)
        self._services = services or ServicesMap()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(lookup.name for lookup in self._lookups)

    def for_target(self, target: Target) -> HumanStep:
        """Who to call about ``target``: the first lookup that knows someone."""
        for lookup in self._lookups:
            try:
                step = lookup.step(target)
            except OnCallError as exc:
                log.warning("%s lookup failed for %s: %s", lookup.name, target.service, exc)
                continue
            if step is not None:
                return step
        return default_step(target)

    def for_answer(self, answer: Answer, lookup: Lookup | None = None) -> HumanStep:
        """The step for the runbook ``answer`` leads with, else its closest runbook, else
        its closest service."""
        return self.for_target(answer_target(answer, lookup))


def answer_target(answer: Answer, lookup: Lookup | None = None) -> Target:
    """What the human step of ``answer`` is about."""
    if answer.citations:
        first = answer.citations[0]
        source_id, title, service, owner = first.source_id, first.title, first.service, first.owner
    elif answer.suggestions:
        sug = answer.suggestions[0]
        source_id, title, service, owner = sug.source_id, sug.title, sug.service, sug.owner
    else:
        source_id, title = None, None
        service, owner = answer.closest_service, answer.closest_owner
    meta = lookup(source_id) if lookup is not None and source_id else None
    return Target(
        source_id=source_id,
        title=title,
        service=service or (meta.service if meta else None),
        owner=owner,
        pagerduty_service=meta.pagerduty_service if meta else None,
        pagerduty_escalation_policy=meta.pagerduty_escalation_policy if meta else None,
    )
