"""Who to call: the human step every answer ends with, on every surface.

A small registry of :class:`ContactLookup` s tried in order (PagerDuty's on-call now,
the runbook's owner, its service's channel, the fallback contact), producing one
:class:`HumanStep` per answer that Slack, the web pages and the terminal only render.
"""

from bot.oncall.contact import Contact, ContactKind, ContactSource
from bot.oncall.errors import OnCallError, PagerDutyError, ServicesMapError
from bot.oncall.human_step import NO_OWNER, HumanStep
from bot.oncall.lookups import (
    ContactLookup,
    FallbackLookup,
    Names,
    OwnerLookup,
    PlainNames,
    ServiceChannelLookup,
)
from bot.oncall.pagerduty import Incident, PagerDutyOnCall, pagerduty_client
from bot.oncall.registry import HumanSteps, answer_target
from bot.oncall.services_map import ServiceEntry, ServicesMap, load_services_map
from bot.oncall.setup import OnCall, build_on_call
from bot.oncall.target import Target

__all__ = [
    "NO_OWNER",
    "Contact",
    "ContactKind",
    "ContactLookup",
    "ContactSource",
    "FallbackLookup",
    "HumanStep",
    "HumanSteps",
    "Incident",
    "Names",
    "OnCall",
    "OnCallError",
    "OwnerLookup",
    "PagerDutyError",
    "PagerDutyOnCall",
    "PlainNames",
    "ServiceChannelLookup",
    "ServiceEntry",
    "ServicesMap",
    "ServicesMapError",
    "Target",
    "answer_target",
    "build_on_call",
    "load_services_map",
    "pagerduty_client",
]
