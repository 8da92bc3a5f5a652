"""Is a request body one that Slack could have sent? Checked before bolt parses it.

Slack posts events as a JSON object and slash commands and interactivity as an
``application/x-www-form-urlencoded`` form (interactivity puts a JSON object in its
``payload`` field). bolt parses bodies the same way but raises on malformed ones; this
module names the problem instead, so the server can answer 400 and log one line.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qsl

JSON_TYPE = "application/json"


def media_type(content_type: str | None) -> str:
    """``"application/json"`` from ``"Application/JSON; charset=utf-8"``."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def _json_object_problem(text: str, what: str) -> str | None:
    try:
        value = json.loads(text)
    except ValueError:
        return f"{what} is not valid JSON"
    if not isinstance(value, dict):
        return f"{what} is not a JSON object"
    return None


def body_problem(body: bytes, content_type: str | None) -> str | None:
    """Why ``body`` is not a well-formed Slack request body, or None when it is.

    Follows bolt's own choice of parser: JSON when the content type says so or the body
    starts with ``{``, a form otherwise.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return "body is not UTF-8"
    if not text:
        return None
    if media_type(content_type) == JSON_TYPE or text.startswith("{"):
        return _json_object_problem(text, "body")
    try:
        fields = parse_qsl(text, keep_blank_values=True, errors="strict")
    except (UnicodeDecodeError, ValueError):
        return "form field is not UTF-8"
    if "payload" in text:
        payload = dict(fields).get("payload")
        if payload is not None:
            return _json_object_problem(payload, "form field 'payload'")
    return None
