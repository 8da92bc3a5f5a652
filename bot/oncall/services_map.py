"""The services map: a YAML file naming, per service, its PagerDuty service or
escalation policy and its channel (``RUNBOOK_SERVICES_MAP_PATH``)::

    checkout-api:
      pagerduty_service: PCHK123        # paged by "Page on-call"; its policy is on call
      channel: "#checkout-oncall"
    payments:
      pagerduty_escalation_policy: PPAY456   # who is on call (no paging without a service)

A runbook's own front matter (``pagerduty_service``, ``pagerduty_escalation_policy``)
wins over the map. Service names match case-insensitively.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from bot.oncall.errors import ServicesMapError


class ServiceEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    pagerduty_service: str | None = None
    pagerduty_escalation_policy: str | None = None
    channel: str | None = None


class ServicesMap:
    """Service name -> :class:`ServiceEntry`."""

    def __init__(self, entries: Mapping[str, ServiceEntry] | None = None) -> None:
        self._entries = {k.strip().lower(): v for k, v in (entries or {}).items()}

    def get(self, service: str | None) -> ServiceEntry | None:
        return self._entries.get(service.strip().lower()) if service else None

    def __len__(self) -> int:
        return len(self._entries)


def load_services_map(path: Path | None) -> ServicesMap:
    """The map in ``path`` (None: an empty map). Raises :class:`ServicesMapError` for a
    file that is missing or malformed, naming the file and the service."""
    if path is None:
        return ServicesMap()
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ServicesMapError(f"cannot read the services map {path}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise ServicesMapError(f"the services map {path} is not valid YAML: {exc}") from exc
    if raw is None:
        return ServicesMap()
    if not isinstance(raw, Mapping):
        raise ServicesMapError(f"the services map {path} must map service names to settings")
    entries: dict[str, ServiceEntry] = {}
    for name, value in raw.items():
        try:
            entries[str(name)] = ServiceEntry.model_validate(value or {})
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}" for e in exc.errors()
            )
            raise ServicesMapError(f"the services map {path}, service {name}: {problems}") from exc
    return ServicesMap(entries)
