"""Errors raised by the state package (one base).

Writes never raise: state is used fail-soft. Reads that a report depends on raise
instead of answering "nothing", so a Redis outage is not mistaken for "nobody asked".
"""

from core.errors import RunbookBotError


class StateError(RunbookBotError):
    """Base for every error the state package raises."""


class QueryLogError(StateError):
    """The query log could not be read."""
