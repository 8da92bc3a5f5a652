"""PagerDuty: who is on call now for a runbook's service, and paging them.

Through PagerDuty's REST API v2 (the ``pagerduty`` library): a runbook's service maps to
a PagerDuty service (its escalation policy is read from it) or directly to an escalation
policy (front matter, else the services map); ``GET /oncalls`` for that policy names the
people on call at the first level. Answers are kept a minute, so a busy incident does
not ask PagerDuty on every question. "Page on-call" creates an incident on the mapped
service (``POST /incidents``), deduplicated by the answer's request id.

The API token is sent in the Authorization header only: never logged, never in an error.
"""

from __future__ import annotations

import logging
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pagerduty
from cachetools import TTLCache

from bot.oncall.errors import PagerDutyError
from bot.oncall.human_step import NO_OWNER, HumanStep
from bot.oncall.lookups import Names
from bot.oncall.services_map import ServicesMap
from bot.oncall.target import Target

log = logging.getLogger("runbook_bot.oncall")

ONCALL_TTL_SECONDS = 60.0
MAX_PEOPLE = 3  # named on call at once
TITLE_MAX = 1000


@dataclass(frozen=True)
class Incident:
    """An incident "Page on-call" created."""

    id: str
    number: int | None
    url: str | None
    service: str


def _refs(target: Target, services: ServicesMap) -> tuple[str | None, str | None]:
    """(PagerDuty service id, escalation policy id): the runbook's own, else the map's."""
    entry = services.get(target.service)
    service = target.pagerduty_service or (entry.pagerduty_service if entry else None)
    policy = target.pagerduty_escalation_policy or (
        entry.pagerduty_escalation_policy if entry else None
    )
    if target.pagerduty_service or target.pagerduty_escalation_policy:  # front matter wins
        service, policy = target.pagerduty_service, target.pagerduty_escalation_policy
    return service, policy


class PagerDutyOnCall:
    """The on-call lookup and the pager, over one REST API client."""

    name = "pagerduty"

    def __init__(
        self,
        client: pagerduty.RestApiV2Client,
        names: Names,
        services: ServicesMap,
        *,
        ttl_seconds: float = ONCALL_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._names = names
        self._services = services
        self._lock = threading.Lock()
        self._cache: TTLCache[tuple[str, str], Any] = TTLCache(
            maxsize=512, ttl=ttl_seconds, timer=clock
        )

    # -- the lookup --------------------------------------------------------------------

    def step(self, target: Target) -> HumanStep | None:
        service, policy = _refs(target, self._services)
        if service is None and policy is None:
            return None
        if policy is None:
            assert service is not None
            policy = self._policy_of(service)
        if policy is None:
            return None
        people = self._on_call(policy)
        if not people:
            return None
        contacts = tuple(
            self._names.person(p["name"], p.get("email"), p.get("url")) for p in people
        )
        where = f" for {target.service}" if target.service else ""
        return HumanStep(
            lead=f"On call now{where} (PagerDuty)",
            contacts=contacts,
            source="pagerduty",
            note=None if (target.owner or "").strip() else NO_OWNER,
            page_service=service,
            service=target.service,
            runbook=target.title,
        )

    def _cached(self, key: tuple[str, str], fetch: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        value = fetch()
        with self._lock:
            self._cache[key] = value
        return value

    def _policy_of(self, service: str) -> str | None:
        def fetch() -> str | None:
            body = self._call(lambda: self._client.rget(f"/services/{service}"))
            policy = body.get("escalation_policy") if isinstance(body, dict) else None
            return str(policy["id"]) if isinstance(policy, dict) and policy.get("id") else None

        value: str | None = self._cached(("service", service), fetch)
        return value

    def _on_call(self, policy: str) -> list[dict[str, str]]:
        def fetch() -> list[dict[str, str]]:
            entries = self._call(
                lambda: self._client.rget(
                    "/oncalls",
                    params={"escalation_policy_ids[]": [policy], "include[]": ["users"]},
                )
            )
            if not isinstance(entries, list):
                return []
            levels = [e.get("escalation_level") or 1 for e in entries if isinstance(e, dict)]
            first = min(levels) if levels else 1
            people: dict[str, dict[str, str]] = {}
            for entry in entries:
                if not isinstance(entry, dict) or (entry.get("escalation_level") or 1) != first:
                    continue
                user = entry.get("user") or {}
                name = str(user.get("name") or user.get("summary") or "").strip()
                if not name or user.get("id") in people:
                    continue
                person = {"name": name}
                if user.get("email"):
                    person["email"] = str(user["email"])
                if user.get("html_url"):
                    person["url"] = str(user["html_url"])
                people[str(user.get("id") or name)] = person
            return list(people.values())[:MAX_PEOPLE]

        value: list[dict[str, str]] = self._cached(("oncall", policy), fetch)
        return value

    # -- the pager ---------------------------------------------------------------------

    def page(self, service: str, title: str, details: str, dedup_key: str) -> Incident:
        """Create an incident on ``service`` (a PagerDuty service id)."""
        body = {
            "incident": {
                "type": "incident",
                "title": title[:TITLE_MAX],
                "service": {"id": service, "type": "service_reference"},
                "incident_key": dedup_key,
                "body": {"type": "incident_body", "details": details},
            }
        }
        created = self._call(lambda: self._client.rpost("/incidents", json=body))
        if not isinstance(created, dict) or not created.get("id"):
            raise PagerDutyError("PagerDuty created no incident")
        number = created.get("incident_number")
        return Incident(
            id=str(created["id"]),
            number=int(number) if isinstance(number, int) else None,
            url=str(created["html_url"]) if created.get("html_url") else None,
            service=service,
        )

    def _call(self, request: Callable[[], Any]) -> Any:
        try:
            return request()
        except pagerduty.HttpError as exc:
            status = exc.response.status_code if exc.response is not None else "?"
            raise PagerDutyError(f"PagerDuty answered HTTP {status}") from None
        except pagerduty.Error as exc:
            raise PagerDutyError(f"PagerDuty could not be reached ({type(exc).__name__})") from None
        except OSError as exc:
            raise PagerDutyError(f"PagerDuty could not be reached ({exc})") from None


def pagerduty_client(
    token: str,
    *,
    base_url: str | None,
    sender: str | None,
    timeout: float,
    ca_file: Path | None = None,
) -> pagerduty.RestApiV2Client:
    """A REST API client over HTTPS: a few quick retries, never endless ones (an answer
    waits); ``ca_file`` adds certificates to trust (a proxy's)."""
    verify = ssl.create_default_context()
    if ca_file is not None:
        verify.load_verify_locations(cafile=str(ca_file))
    try:
        client = pagerduty.RestApiV2Client(
            token, default_from=sender, base_url=base_url, verify=verify
        )
    except pagerduty.UrlError as exc:
        raise PagerDutyError(f"RUNBOOK_PAGERDUTY_BASE_URL: {exc}") from None
    client.timeout = timeout  # type: ignore[assignment]
    client.retry = {429: 1, 500: 1, 502: 1, 503: 1}
    client.max_http_attempts = 2
    client.sleep_timer = 0.2
    client.max_network_attempts = 1
    return client
