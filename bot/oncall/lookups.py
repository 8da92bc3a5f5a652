"""The lookups a human step is found by, tried in order (:class:`~bot.oncall.registry.HumanSteps`):
PagerDuty's on-call now (:mod:`bot.oncall.pagerduty`), then the runbook's owner, its
service's channel, and the configured fallback contact.

Each is a :class:`ContactLookup`: a step for a :class:`~bot.oncall.target.Target`, or
None to let the next one answer. Names become contacts through :class:`Names`, which the
Slack app implements with the workspace's user groups and channels
(:class:`bot.slack.contacts.Contacts`); without Slack, :class:`PlainNames` keeps them as
written.
"""

from __future__ import annotations

from typing import Protocol

from bot.oncall.contact import Contact, ContactSource
from bot.oncall.human_step import NO_OWNER, HumanStep
from bot.oncall.services_map import ServicesMap
from bot.oncall.target import Target


class Names(Protocol):
    """Turns what a runbook or a setting names into contacts."""

    def resolve(self, text: str, source: ContactSource = "owner") -> Contact: ...

    def channel(self, name: str, source: ContactSource) -> Contact | None:
        """The channel ``name`` (without ``#``) when it exists, else None."""
        ...

    def person(self, name: str, email: str | None, url: str | None) -> Contact:
        """A person another system knows (a PagerDuty user), with their Slack id if found."""
        ...


class ContactLookup(Protocol):
    """One way of finding who to call; None: this way knows nobody for the target."""

    name: str

    def step(self, target: Target) -> HumanStep | None: ...


class PlainNames:
    """Names without a workspace: as written (a ``#channel`` is not looked up)."""

    def resolve(self, text: str, source: ContactSource = "owner") -> Contact:
        return Contact(kind="text", label=text, source=source)

    def channel(self, name: str, source: ContactSource) -> Contact | None:
        return None

    def person(self, name: str, email: str | None, url: str | None) -> Contact:
        return Contact(kind="text", label=name, source="pagerduty", url=url)


class OwnerLookup:
    """The runbook's owner (its first name when it lists several)."""

    name = "owner"

    def __init__(self, names: Names) -> None:
        self._names = names

    def step(self, target: Target) -> HumanStep | None:
        owner = (target.owner or "").strip()
        if not owner:
            return None
        first = owner.replace(",", " ").split()[0]
        return HumanStep(
            lead="Owner",
            contacts=(self._names.resolve(first, "owner"),),
            source="owner",
            service=target.service,
            runbook=target.title,
        )


class ServiceChannelLookup:
    """An ownerless runbook's service channel: the services map's ``channel``, else the
    channel named by the template (``{service}``), when the workspace has it."""

    name = "service-channel"

    def __init__(self, names: Names, template: str | None, services: ServicesMap) -> None:
        self._names = names
        self._template = template or None
        self._services = services

    def step(self, target: Target) -> HumanStep | None:
        if not target.service:
            return None
        entry = self._services.get(target.service)
        names = []
        if entry is not None and entry.channel:
            names.append(entry.channel)
        if self._template:
            names.append(self._template.replace("{service}", target.service))
        for name in names:
            contact = self._names.channel(name.lstrip("#").lower(), "service-channel")
            if contact is not None:
                return HumanStep(
                    lead="Ask in",
                    contacts=(contact,),
                    source="service-channel",
                    note=NO_OWNER,
                    service=target.service,
                    runbook=target.title,
                )
        return None


class FallbackLookup:
    """The configured fallback contact (``RUNBOOK_FALLBACK_CONTACT``)."""

    name = "fallback"

    def __init__(self, names: Names, fallback: str | None) -> None:
        self._names = names
        self._fallback = (fallback or "").strip() or None

    def step(self, target: Target) -> HumanStep | None:
        if self._fallback is None:
            return None
        return HumanStep(
            lead="Ask",
            contacts=(self._names.resolve(self._fallback, "fallback"),),
            source="fallback",
            note=NO_OWNER,
            service=target.service,
            runbook=target.title,
        )


INCIDENT_COMMANDER = "the incident commander"
NOBODY_CONFIGURED = "No owner or fallback contact on record."


def default_step(target: Target) -> HumanStep:
    """When no lookup knows anybody: the incident's commander, a role every team has."""
    return HumanStep(
        lead="Ask",
        contacts=(Contact(kind="text", label=INCIDENT_COMMANDER, source="default"),),
        source="default",
        note=NOBODY_CONFIGURED,
        service=target.service,
        runbook=target.title,
    )
