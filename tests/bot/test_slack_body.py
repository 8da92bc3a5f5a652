"""bot.slack_body: the bodies Slack sends pass; malformed ones are named."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest

from bot.slack_body import body_problem, media_type

FORM = "application/x-www-form-urlencoded"


def test_media_type() -> None:
    assert media_type("Application/JSON; charset=utf-8") == "application/json"
    assert media_type(None) == ""


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b"", FORM),
        (urlencode({"command": "/runbook", "text": "déjà vu 🔥", "user_id": "U1"}).encode(), FORM),
        (
            urlencode({"payload": json.dumps({"type": "block_actions", "actions": []})}).encode(),
            FORM,
        ),
        (json.dumps({"type": "url_verification", "challenge": "c"}).encode(), "application/json"),
        (
            json.dumps({"type": "event_callback", "event": {"text": "ünïcode"}}).encode(),
            "application/json; charset=utf-8",
        ),
        (b"text=a+%26+b&empty=", FORM),
    ],
    ids=["empty", "command", "interactivity", "url-verification", "event", "blank-field"],
)
def test_slack_bodies_pass(body: bytes, content_type: str) -> None:
    assert body_problem(body, content_type) is None


@pytest.mark.parametrize(
    ("body", "content_type", "problem"),
    [
        (b"\xff\xfe", FORM, "body is not UTF-8"),
        (b"{broken", "application/json", "body is not valid JSON"),
        (b"{broken", FORM, "body is not valid JSON"),  # bolt reads a leading { as JSON
        (b'"text"', "application/json", "body is not a JSON object"),
        (b"text=%C3%28", FORM, "form field is not UTF-8"),
        (b"payload=%7B", FORM, "form field 'payload' is not valid JSON"),
        (b"payload=null", FORM, "form field 'payload' is not a JSON object"),
    ],
)
def test_malformed_bodies_are_named(body: bytes, content_type: str, problem: str) -> None:
    assert body_problem(body, content_type) == problem
