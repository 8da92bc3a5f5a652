"""Alert posts answered without a mention, in the alert's thread.

In channels whose names match ``RUNBOOK_ALERT_CHANNELS``, a message an alerting
integration posts (Alertmanager, Grafana, PagerDuty, Opsgenie: a ``bot_message`` or a
message with a ``bot_id``, never the bot's own) is read as an alert
(:func:`bot.slack.alert_post.parse_alert_post`) and answered in its thread with its own
runbook (``runbook_url``, else its name) or the best confident match
(:meth:`bot.slack.answering.Answering.for_alert`).

Noise control (:class:`bot.slack.alert_ledger.AlertLedger`): one reply per alert
fingerprint per channel within ``RUNBOOK_ALERT_WINDOW_SECONDS`` (a re-notification gets a
one-line pointer to the first, or nothing); a RESOLVED notification updates the earlier
reply in place, collapsing it to one line; nothing confident means silence (or one line, if
configured; always one line when its ``runbook_url`` names no indexed runbook); at most
``RUNBOOK_ALERT_RATE_LIMIT`` replies per channel per rate window. Each event is handled
once across Slack's retries and replicas.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from slack_bolt import App, BoltContext
from slack_sdk.errors import SlackApiError, SlackRequestError

from bot.logs import bind_request_id, new_request_id
from bot.slack.alert_ledger import AlertRecord
from bot.slack.alert_post import AlertPost, parse_alert_post
from bot.slack.alerts import ThreadParent
from bot.slack.answering import Asked
from bot.slack.blockkit import Message
from bot.slack.channels import matches_channel
from bot.slack.context import SlackContext
from bot.slack.drafting import resolved_offer
from bot.slack.messages import is_from_integration
from bot.slack.notices import mark_resolved, render_repeat

log = logging.getLogger("runbook_bot.slack")
SURFACE = "slack_alert"
CHANNEL_TYPES = frozenset({"channel", "group"})
NEW_POST_SUBTYPES = frozenset({None, "bot_message"})
# how long a resolution waits for the alert's reply still being composed and posted (an
# answer takes well under a second), and how often it looks
SETTLE_SECONDS = 15.0
SETTLE_POLL_SECONDS = 0.05


def in_a_channel(event: dict[str, Any]) -> bool:
    """A message in a public or private channel (direct messages have their surface)."""
    return event.get("channel_type") in CHANNEL_TYPES


class AlertReplies:
    def __init__(self, ctx: SlackContext) -> None:
        self.ctx = ctx

    def register(self, app: App) -> None:
        app.event("message", matchers=[in_a_channel])(self.on_message)

    def on_message(self, body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
        ctx = self.ctx
        patterns = ctx.settings.alert_channels
        if not patterns:
            return
        subtype = event.get("subtype")
        changed = subtype == "message_changed"
        if not changed and subtype not in NEW_POST_SUBTYPES:
            return
        message = event.get("message") if changed else event
        if not isinstance(message, dict) or not is_from_integration(message):
            return  # people ask with a mention; the bot reads only integrations' posts
        if _own(message, context):
            return
        channel = str(event.get("channel") or "")
        ts = str(message.get("ts") or "")
        thread_ts = message.get("thread_ts")
        if not channel or not ts or (thread_ts and thread_ts != ts):
            return  # a reply inside a thread is no new alert
        if not matches_channel(ctx.channels.name(channel), patterns):
            return
        alert = parse_alert_post(message)
        if alert is None or (changed and alert.status != "resolved"):
            return  # not an alert; an edited alert that still fires changes nothing
        event_id = str(body.get("event_id") or f"{channel}:{ts}:{subtype}")
        dedup = ctx.dedup
        claims = [f"event:{event_id}"] + ([] if changed else [f"msg:{channel}:{ts}"])
        if not all(dedup.first_time(key) for key in claims):
            log.info("duplicate alert post %s (%s:%s) ignored", event_id, channel, ts)
            ctx.metrics.request(SURFACE, "duplicate")
            return
        ctx.submit(self.handle, new_request_id(), channel, ts, alert, _event_time(event, ts))

    def handle(self, request_id: str, channel: str, ts: str, alert: AlertPost, at: float) -> None:
        ctx = self.ctx
        fingerprint = alert.fingerprint
        with bind_request_id(request_id):
            try:
                if alert.status == "resolved":
                    self._resolved(channel, alert, at)
                    return
                earlier = ctx.alerts.claim(channel, fingerprint, ts)
                if earlier is not None and not earlier.settled and earlier.alert_ts != ts:
                    # a repeat while the first notification is still being answered: wait
                    # for its reply to point to it (or, if that failed, answer this one)
                    self._settled(channel, fingerprint)
                    earlier = ctx.alerts.claim(channel, fingerprint, ts)
                if earlier is not None:
                    self._repeated(channel, ts, alert, earlier)
                    return
                if not ctx.alerts.allow(channel):
                    ctx.alerts.release(channel, fingerprint)
                    log.warning(
                        "alert replies in %s over the rate limit: %s not answered",
                        channel,
                        alert.alertname,
                    )
                    ctx.metrics.request(SURFACE, "rate_limited")
                    return
                self._answer(request_id, channel, ts, alert)
            except Exception as exc:
                # nothing is posted under an alert about the bot's own trouble; the next
                # notification of the alert is answered afresh
                ctx.alerts.release(channel, fingerprint)
                ctx.failed(request_id, exc, SURFACE)

    def _answer(self, request_id: str, channel: str, ts: str, alert: AlertPost) -> None:
        ctx = self.ctx
        asked = Asked(
            text="",
            user_id="",
            channel_id=channel,
            thread_ts=ts,
            incident=ctx.incident(channel),
            parent=ThreadParent(alert.text, alert.context(), True, alert),
            query=alert.query(),
            alert=True,
        )
        reply = ctx.answering.for_alert(request_id, asked, alert)
        if reply is None:
            ctx.alerts.answered(channel, alert.fingerprint, AlertRecord(alert_ts=ts))
            log.info("no confident runbook for %s: no reply", alert.alertname)
            ctx.metrics.request(SURFACE, "silent")
            return
        message = reply.reply.message
        with ctx.metrics.time_stage("slack"):
            reply_ts = ctx.sender.post(channel, message, thread_ts=ts, minimal=reply.reply.minimal)
        ctx.alerts.answered(
            channel,
            alert.fingerprint,
            AlertRecord(
                alert_ts=ts,
                reply_ts=reply_ts,
                request_id=request_id if reply.answer is not None else None,
                text=message.text,
                blocks=_dump(message),
            ),
        )
        if reply.answer is not None:
            ctx.threads.remember(channel, ts, reply.answer, request_id)
        log.info(
            "answered alert %s in %s from %s (%s)",
            alert.alertname,
            channel,
            reply.match.source_id or (reply.answer.citations[0].source_id if reply.answer else "-"),
            reply.match.matched_by or "search",
        )
        ctx.metrics.request(SURFACE, "answer" if reply.answer is not None else "note")

    def _repeated(self, channel: str, ts: str, alert: AlertPost, earlier: AlertRecord) -> None:
        """A re-notification: a one-line pointer to the first reply, or nothing."""
        ctx = self.ctx
        if (
            ctx.settings.alert_repeats != "pointer"
            or earlier.reply_ts is None
            or earlier.alert_ts == ts
            or not ctx.alerts.allow(channel)
        ):
            ctx.metrics.request(SURFACE, "repeat")
            return
        permalink = self._permalink(channel, earlier.alert_ts)
        note = render_repeat(alert.alertname or alert.title, permalink, None)
        ctx.sender.post(channel, note, thread_ts=ts)
        ctx.metrics.request(SURFACE, "repeat_pointer")

    def _resolved(self, channel: str, alert: AlertPost, at: float) -> None:
        """The alert resolved: its reply says so (updated in place), nothing new is posted."""
        ctx = self.ctx
        self._settled(channel, alert.fingerprint)
        record = ctx.alerts.resolve(channel, alert.fingerprint)
        if record is None or record.reply_ts is None:
            ctx.metrics.request(SURFACE, "resolved_unanswered")
            if record is not None:  # no runbook answered it: offer to draft one
                offer = resolved_offer(channel, record.alert_ts, alert.alertname)
                ctx.sender.post(channel, offer, thread_ts=record.alert_ts)
            return
        message: Message | None = None
        if record.request_id:
            stored = ctx.requests.get(record.request_id)
            if stored is not None:  # the card collapses to one line with the runbook's link
                view = stored.view.model_copy(update={"resolved": at})
                stored = stored.model_copy(update={"view": view})
                ctx.requests.put(stored)
                message = ctx.answering.render(stored)
        if message is None:
            shown = Message(text=record.text or "", blocks=record.message_blocks())
            message = mark_resolved(shown, at)
        ctx.sender.update(channel, record.reply_ts, message)
        if record.request_id is None:  # the reply was "no runbook for X": offer to draft one
            offer = resolved_offer(channel, record.alert_ts, alert.alertname)
            ctx.sender.post(channel, offer, thread_ts=record.alert_ts)
        log.info("alert %s resolved in %s: reply updated", alert.alertname, channel)
        ctx.metrics.request(SURFACE, "resolved")

    def _settled(self, channel: str, fingerprint: str) -> None:
        """Wait while the alert's first notification is still being answered, up to
        ``SETTLE_SECONDS``: a resolution that arrives before the reply is posted updates
        that reply, rather than finding none and posting beside it, and a repeat points
        to it."""
        deadline = time.monotonic() + SETTLE_SECONDS
        while time.monotonic() < deadline:
            record = self.ctx.alerts.record(channel, fingerprint)
            if record is None or record.settled:
                return
            time.sleep(SETTLE_POLL_SECONDS)

    def _permalink(self, channel: str, ts: str) -> str | None:
        try:
            resp = self.ctx.client.chat_getPermalink(channel=channel, message_ts=ts)
        except (SlackApiError, SlackRequestError, OSError) as exc:
            log.info("chat.getPermalink %s/%s failed: %s", channel, ts, exc)
            return None
        link = resp.get("permalink")
        return str(link) if link else None


def _own(message: dict[str, Any], context: BoltContext) -> bool:
    """Posted by this bot (bolt drops most of its own events; an edit is not dropped)."""
    return bool(
        (context.bot_id and message.get("bot_id") == context.bot_id)
        or (context.bot_user_id and message.get("user") == context.bot_user_id)
    )


def _event_time(event: dict[str, Any], ts: str) -> float:
    for value in (event.get("event_ts"), event.get("ts"), ts):
        try:
            return float(str(value))
        except (TypeError, ValueError):
            continue
    return time.time()


def _dump(message: Message) -> str:
    return json.dumps(message.blocks, ensure_ascii=False)
