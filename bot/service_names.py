"""Which service a question names, and whether a cited document is about another one.

A question names a service with a ``service=...`` label or a name followed by "service"
or "svc" (``cart service``), or else by containing a service name the runbooks use
(``checkout-api``). A document is about that service when its service, title, path or
tags contain the name's words. An answer from a document about a different service is a
weak match and is labelled so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.models import DocumentMetadata, normalize_name
from retrieval.reading import tokenize

_SERVICE_LABEL = re.compile(
    r"(?:^|(?<=[\s{,(]))(?:service|svc|app|job)\s*=\s*\"?(?P<name>[A-Za-z][\w.-]{1,60})",
    re.I,
)
_NAMED = re.compile(
    r"\b(?:the\s+)?(?P<name>[A-Za-z][\w-]{1,40})[ -](?:service|svc|microservice)\b", re.I
)
_NOT_A_NAME = frozenset(
    {
        "the", "a", "an", "this", "that", "which", "what", "our", "my", "your", "their",
        "web", "backend", "frontend", "external", "internal", "other", "same", "whole",
        "every", "any", "some", "one", "each", "production", "prod", "staging", "new", "old",
        "micro", "main", "core", "downstream", "upstream", "calling", "failing", "broken",
        "alert", "alerts", "alerting", "monitoring", "paging", "on-call", "oncall",
    }
)  # fmt: skip


def named_services(
    text: str, known: Iterable[str], alert_service: str | None = None
) -> tuple[str, ...]:
    """The services ``text`` names, as written: the alert's service, ``service=`` labels
    and "X service" when there are any (they say which service is meant), otherwise the
    known service names it contains."""
    explicit: dict[str, None] = {}
    if alert_service:
        explicit[alert_service] = None
    for pattern in (_SERVICE_LABEL, _NAMED):
        for m in pattern.finditer(text):
            name = m["name"].strip(".-")
            if name.lower() not in _NOT_A_NAME:
                explicit[name] = None
    if explicit:
        return tuple(explicit)
    lowered = text.lower()
    return tuple(
        name
        for name in dict.fromkeys(known)
        if name and re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", lowered)
    )


def _words(text: str) -> set[str]:
    return {t for t in tokenize(text) if len(t) > 1}


def is_about(name: str, title: str, path: str, meta: DocumentMetadata | None) -> bool:
    """Is a document with this title, path and metadata about service ``name``?"""
    service = meta.service if meta is not None else None
    if service and normalize_name(service) == normalize_name(name):
        return True
    wanted = _words(name) - {"service", "svc", "api"} or _words(name)
    if not wanted:
        return True
    have = _words(" ".join([title, path, service or "", *(meta.tags if meta else ())]))
    have |= {w.rstrip("s") for w in have}
    return all(w in have or w.rstrip("s") in have for w in wanted)


def other_service(
    names: Iterable[str], title: str, path: str, meta: DocumentMetadata | None
) -> str | None:
    """The service the question names when the document is about none of them."""
    names = list(names)
    if not names or any(is_about(n, title, path, meta) for n in names):
        return None
    return names[0]
