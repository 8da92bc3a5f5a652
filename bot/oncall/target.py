"""What a human step is looked up for: one runbook, by what its metadata says."""

from __future__ import annotations

from core.models import Frozen


class Target(Frozen):
    """The runbook an answer leads with (or the closest one), and what names its people."""

    source_id: str | None = None
    title: str | None = None
    service: str | None = None
    owner: str | None = None
    pagerduty_service: str | None = None  # front matter ``pagerduty_service``
    pagerduty_escalation_policy: str | None = None  # front matter
