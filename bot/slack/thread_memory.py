"""What the bot last answered in a thread (or a direct message): the runbook and the
sections it quoted, so a follow-up ("and if that doesn't work?") continues from there.

Kept in Redis ``{ns}:thread:{channel}:{thread}`` for a week, in this process while
Redis is down. Only what the thread already shows is kept: the runbook's source id,
title and the quoted sections' names.
"""

from __future__ import annotations

import logging

from pydantic import ValidationError

from core.models import Answer, Frozen
from state.ttl_store import TtlStore

log = logging.getLogger("runbook_bot.slack")

THREAD_TTL_SECONDS = 7 * 24 * 3600
#: a direct message's conversation without threads
DM_CONVERSATION = "dm"


class ThreadTopic(Frozen):
    """The runbook a thread is about, and what of it the thread has shown."""

    source_id: str
    title: str
    sections: tuple[str, ...] = ()  # quoted, in the order shown
    escalation_shown: bool = False
    request_id: str | None = None


class ThreadMemory:
    def __init__(self, store: TtlStore, ttl_seconds: int = THREAD_TTL_SECONDS) -> None:
        self._store = store
        self._ttl = ttl_seconds

    @staticmethod
    def _key(channel: str, thread: str) -> str:
        return f"{channel}:{thread}"

    def get(self, channel: str, thread: str) -> ThreadTopic | None:
        raw = self._store.get(self._key(channel, thread))
        if raw is None:
            return None
        try:
            return ThreadTopic.model_validate_json(raw)
        except ValidationError:
            log.info("dropping an unreadable thread topic")
            return None

    def remember(
        self,
        channel: str,
        thread: str,
        answer: Answer,
        request_id: str | None = None,
        *,
        escalation_shown: bool = False,
    ) -> ThreadTopic | None:
        """Note the answer shown in the thread: its lead runbook and the sections quoted
        from it (added to those shown before when the thread stays with the runbook)."""
        if answer.state != "answer" or not answer.citations:
            return None
        lead = answer.citations[0]
        quoted = tuple(
            dict.fromkeys(c.section for c in answer.citations if c.source_id == lead.source_id)
        )
        earlier = self.get(channel, thread)
        if earlier is not None and earlier.source_id == lead.source_id:
            quoted = tuple(dict.fromkeys((*earlier.sections, *quoted)))
            escalation_shown = escalation_shown or earlier.escalation_shown
        topic = ThreadTopic(
            source_id=lead.source_id,
            title=lead.title,
            sections=quoted,
            escalation_shown=escalation_shown,
            request_id=request_id,
        )
        self._store.put(self._key(channel, thread), topic.model_dump_json(), self._ttl)
        return topic
