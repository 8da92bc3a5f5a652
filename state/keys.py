"""Redis key names: every key of a deployment starts with ``{namespace}:``.

The namespace (``RUNBOOK_REDIS_NAMESPACE``) lets deployments share one Redis database;
it is applied here and nowhere else.
"""

from __future__ import annotations

import re

DEFAULT_NAMESPACE = "rbb"
#: No ``:`` (one namespace could otherwise be a prefix of another's keys) and no glob
#: characters (cache clear matches ``{namespace}:answer:*``).
NAMESPACE_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"

_GLOB_SPECIALS = re.compile(r"([*?\[\]\\])")


def check_namespace(namespace: str) -> str:
    """``namespace`` when it is a valid key prefix; ValueError otherwise."""
    if not re.fullmatch(NAMESPACE_PATTERN, namespace):
        raise ValueError(f"invalid Redis namespace {namespace!r} (letters, digits, _ . -)")
    return namespace


class Keys:
    """Builds the keys of one namespace: ``Keys("rbb").key("seen", "Ev1") == "rbb:seen:Ev1"``."""

    def __init__(self, namespace: str = DEFAULT_NAMESPACE) -> None:
        self.namespace = check_namespace(namespace)

    def key(self, *parts: str | int) -> str:
        return ":".join((self.namespace, *(str(p) for p in parts)))

    def prefix(self, *parts: str | int) -> str:
        """The start every key under ``parts`` shares (``rbb:answer:``)."""
        return self.key(*parts) + ":"

    def pattern(self, *parts: str | int) -> str:
        """A SCAN ``MATCH`` pattern for every key under ``parts``."""
        return _GLOB_SPECIALS.sub(r"\\\1", self.prefix(*parts)) + "*"
