"""The on-call lookup as the settings configure it: one :class:`OnCall` per process."""

from __future__ import annotations

from dataclasses import dataclass

from bot.oncall.lookups import (
    ContactLookup,
    FallbackLookup,
    Names,
    OwnerLookup,
    PlainNames,
    ServiceChannelLookup,
)
from bot.oncall.pagerduty import PagerDutyOnCall, pagerduty_client
from bot.oncall.registry import HumanSteps
from bot.oncall.services_map import load_services_map
from bot.settings import Settings


@dataclass(frozen=True)
class OnCall:
    """The human steps, and the pager when PagerDuty is configured."""

    steps: HumanSteps
    pager: PagerDutyOnCall | None = None


def build_on_call(settings: Settings, names: Names | None = None) -> OnCall:
    """PagerDuty (with a token), then the owner, the service channel, the fallback.
    Raises :class:`~bot.oncall.errors.ServicesMapError` for a bad services map."""
    names = names or PlainNames()
    services = load_services_map(settings.services_map_path)
    pager: PagerDutyOnCall | None = None
    if settings.pagerduty_token is not None:
        client = pagerduty_client(
            settings.pagerduty_token.get_secret_value(),
            base_url=settings.pagerduty_base_url,
            sender=settings.pagerduty_from,
            timeout=settings.pagerduty_timeout_seconds,
            ca_file=settings.pagerduty_ca_file,
        )
        pager = PagerDutyOnCall(client, names, services, ttl_seconds=settings.oncall_cache_seconds)
    lookups: list[ContactLookup] = [
        *([pager] if pager is not None else []),
        OwnerLookup(names),
        ServiceChannelLookup(names, settings.service_channel_template, services),
        FallbackLookup(names, settings.fallback_contact),
    ]
    return OnCall(HumanSteps(lookups, services), pager)
