"""What of an answer may be stored: the question only redacted, and none of its secrets.

An answer carries its question, and pieces of it can come back elsewhere: a search
link built from it, or generated text that repeats it. :func:`storable_answer` is the
answer as the answer cache and the request store keep it: ``question`` redacted, and
every secret :func:`core.redact.find_secrets` finds in the question replaced
wherever the answer repeats it, as written or URL-encoded.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, quote_plus

from core.models import Answer
from core.redact import find_secrets, placeholder, redact


def _replacements(question: str) -> list[tuple[str, str]]:
    """(secret as it may appear, its placeholder as it would appear), longest first."""
    pairs: dict[str, str] = {}
    for found in find_secrets(question):
        secret = question[found.start : found.end]
        mark = placeholder(found.kind)
        pairs[secret] = mark
        pairs.setdefault(quote_plus(secret), quote_plus(mark))
        pairs.setdefault(quote(secret, safe=""), quote(mark, safe=""))
    return sorted(pairs.items(), key=lambda pair: -len(pair[0]))


def _scrub(value: Any, pairs: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for secret, mark in pairs:
            if secret in value:
                value = value.replace(secret, mark)
        return value
    if isinstance(value, dict):
        return {k: _scrub(v, pairs) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, pairs) for v in value]
    return value


def storable_answer(answer: Answer, question: str | None = None) -> Answer:
    """``answer`` with its question redacted and none of the secrets of its question (or
    of ``question``, the text asked when it differs) left anywhere in it."""
    pairs = _replacements(answer.question)
    if question is not None and question != answer.question:
        pairs = sorted({*pairs, *_replacements(question)}, key=lambda pair: -len(pair[0]))
    safe = answer.model_copy(update={"question": redact(answer.question)})
    if not pairs:
        return safe
    return Answer.model_validate(_scrub(safe.model_dump(mode="json"), pairs))
