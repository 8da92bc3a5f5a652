"""Noise control for alert auto-replies: one reply per alert per channel, a rate limit.

Per channel and alert fingerprint, the first notification within the window claims the
alert (Redis ``{ns}:alert:{channel}:{fingerprint}``); re-notifications find the claim
and the reply it led to (to point to it, or stay quiet). The reply's message is kept
with the claim, so a RESOLVED notification can update it in place (``chat.update``) and
release the claim: the next time the alert fires it is a new alert. Replies per channel
are counted in fixed windows (``{ns}:alert-rate:{channel}:{window}``).
All of it is shared by replicas and kept in this process while Redis is down.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from core.models import Frozen
from state.ttl_store import TtlStore

log = logging.getLogger("runbook_bot.slack")


class AlertRecord(Frozen):
    """What the bot did about one alert in one channel."""

    alert_ts: str  # the first notification
    reply_ts: str | None = None  # the bot's reply in its thread (None: it stayed quiet)
    request_id: str | None = None
    text: str | None = None  # the reply as posted, to update it when the alert resolves
    blocks: str | None = None  # JSON
    # the first notification has been dealt with (replied to, or left quiet); False only
    # for the claim, while its answer is still being composed and posted (a record kept
    # before the field existed was written once the alert was dealt with)
    settled: bool = True

    def message_blocks(self) -> list[dict[str, Any]]:
        try:
            value = json.loads(self.blocks) if self.blocks else []
        except ValueError:
            return []
        return value if isinstance(value, list) else []


class AlertLedger:
    def __init__(
        self,
        alerts: TtlStore,
        rates: TtlStore,
        *,
        window_seconds: int,
        rate_limit: int,
        rate_window_seconds: int,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._alerts = alerts
        self._rates = rates
        self._window = window_seconds
        self._limit = rate_limit
        self._rate_window = rate_window_seconds
        self._clock = clock

    @staticmethod
    def _key(channel: str, fingerprint: str) -> str:
        return f"{channel}:{fingerprint}"

    def _read(self, raw: str | None) -> AlertRecord | None:
        if raw is None:
            return None
        try:
            return AlertRecord.model_validate_json(raw)
        except ValidationError:
            log.info("dropping an unreadable alert record")
            return None

    def claim(self, channel: str, fingerprint: str, alert_ts: str) -> AlertRecord | None:
        """None when this notification is the alert's first in the window (now claimed);
        otherwise the record of the first one."""
        record = AlertRecord(alert_ts=alert_ts, settled=False)
        key = self._key(channel, fingerprint)
        if self._alerts.claim(key, record.model_dump_json(), self._window):
            return None
        earlier = self._read(self._alerts.get(key))
        return earlier or record

    def answered(self, channel: str, fingerprint: str, record: AlertRecord) -> None:
        """Keep what was replied (for re-notifications and the resolution), for another
        window."""
        self._alerts.put(self._key(channel, fingerprint), record.model_dump_json(), self._window)

    def record(self, channel: str, fingerprint: str) -> AlertRecord | None:
        """What the bot did about the alert so far, if it has claimed it."""
        return self._read(self._alerts.get(self._key(channel, fingerprint)))

    def release(self, channel: str, fingerprint: str) -> None:
        """Forget the alert: its next notification is answered as a first."""
        self._alerts.delete(self._key(channel, fingerprint))

    def resolve(self, channel: str, fingerprint: str) -> AlertRecord | None:
        """The alert resolved: its record (to update the reply), and the claim released."""
        key = self._key(channel, fingerprint)
        record = self._read(self._alerts.get(key))
        if record is not None:
            self._alerts.delete(key)
        return record

    def allow(self, channel: str) -> bool:
        """One more reply in ``channel``, within the rate limit? (Counts it when so.)"""
        if self._limit <= 0:
            return False
        window = int(self._clock() // self._rate_window)
        return self._rates.count(f"{channel}:{window}", self._rate_window) <= self._limit
