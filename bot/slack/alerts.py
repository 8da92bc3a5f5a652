"""Alerts in Slack: what a thread's parent message says, and the search it leads to.

A mention in a thread reads the thread's parent. When the parent is an alert (posted by
an integration, or naming an alert), the alert is visible right above the answer: the
search is focused on it, and the answer opens with what to do rather than restating the
alert's symptoms.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.slack.alert_post import AlertPost, parse_alert_post
from bot.slack.messages import is_from_integration, message_text, strip_mention
from retrieval.reading import AlertContext, build_query, parse_alert_text


@dataclass(frozen=True)
class ThreadParent:
    """The message a thread hangs off, as far as answering goes."""

    text: str
    context: AlertContext
    is_alert: bool
    post: AlertPost | None = None  # the alert, as its integration posted it

    @property
    def service(self) -> str | None:
        return self.context.service


def read_parent(message: Mapping[str, Any], bot_user_id: str | None) -> ThreadParent | None:
    text = strip_mention(message_text(message), bot_user_id)
    if not text.strip():
        return None
    ctx = parse_alert_text(text)
    post = parse_alert_post(message)
    alert = is_from_integration(message) or bool(ctx.alert_name)
    return ThreadParent(text, ctx, alert, post)


def focused_query(alert: str, question: str) -> str:
    """A search query from an alert message and the question asked about it."""
    alert = alert.strip()
    if not alert:
        return question
    ctx: AlertContext = parse_alert_text(alert)
    query = build_query(dataclasses.replace(ctx, question=question or ctx.question))
    if ctx.alert_name or ctx.summary or ctx.evidence:
        return query or question
    first_line = next((ln.strip() for ln in alert.splitlines() if ln.strip()), "")
    return " ".join(p for p in (first_line[:300], question) if p)
