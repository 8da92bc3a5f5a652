"""What the on-call lookup raises (below :class:`core.errors.RunbookBotError`)."""

from __future__ import annotations

from core.errors import RunbookBotError


class OnCallError(RunbookBotError):
    """Who is on call could not be found out, or a page could not be sent."""


class PagerDutyError(OnCallError):
    """PagerDuty's REST API refused or could not be reached (never carries the token)."""


class ServicesMapError(OnCallError):
    """The services map file is missing, unreadable or malformed."""
