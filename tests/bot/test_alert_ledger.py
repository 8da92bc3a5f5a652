"""Noise-control and thread state: shared through a real Redis, kept in-process when it
is down."""

from __future__ import annotations

import redis

from bot.slack.alert_ledger import AlertLedger, AlertRecord
from bot.slack.thread_memory import ThreadMemory
from core.models import Answer, Citation
from state.client import redis_client
from state.ttl_store import TtlStore
from tests.conftest import RedisServer


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def ledger(client: redis.Redis | None, clock: Clock, namespace: str = "t1") -> AlertLedger:
    return AlertLedger(
        TtlStore(client, "alert", namespace, clock=clock),
        TtlStore(client, "alert-rate", namespace, clock=clock),
        window_seconds=3600,
        rate_limit=2,
        rate_window_seconds=600,
        clock=clock,
    )


def test_one_claim_per_alert_and_channel_across_replicas(redis_server: RedisServer) -> None:
    clock = Clock()
    a = ledger(redis_client(redis_server.url), clock)
    b = ledger(redis_client(redis_server.url), clock)  # another replica
    assert a.claim("C1", "fp", "1.1") is None  # first: claimed
    earlier = b.claim("C1", "fp", "1.2")  # a re-notification on the other replica
    assert earlier is not None and earlier.alert_ts == "1.1"
    assert b.claim("C2", "fp", "1.3") is None  # another channel is another alert
    a.answered("C1", "fp", AlertRecord(alert_ts="1.1", reply_ts="1.5"))
    again = b.claim("C1", "fp", "1.4")
    assert again is not None and again.reply_ts == "1.5"
    keys = {k.decode() for k in redis.Redis.from_url(redis_server.url).keys("*")}
    assert keys == {"t1:alert:C1:fp", "t1:alert:C2:fp"}


def test_only_a_claim_in_flight_is_unsettled(redis_server: RedisServer) -> None:
    clock = Clock()
    book = ledger(redis_client(redis_server.url), clock)
    assert book.claim("C1", "fp", "1.1") is None
    claimed = book.record("C1", "fp")
    assert claimed is not None and not claimed.settled  # its reply is on its way
    book.answered("C1", "fp", AlertRecord(alert_ts="1.1", reply_ts="1.5"))
    answered = book.record("C1", "fp")
    assert answered is not None and answered.settled
    # a record kept before records said whether they were settled was written once the
    # alert had been dealt with
    redis.Redis.from_url(redis_server.url).set("t1:alert:C2:fp", '{"alert_ts": "2.1"}')
    kept = book.record("C2", "fp")
    assert kept is not None and kept.settled


def test_resolution_returns_the_reply_and_releases_the_claim(redis_server: RedisServer) -> None:
    clock = Clock()
    book = ledger(redis_client(redis_server.url), clock)
    assert book.claim("C1", "fp", "1.1") is None
    blocks = '[{"type": "section", "text": {"type": "mrkdwn", "text": "x"}}]'
    book.answered("C1", "fp", AlertRecord(alert_ts="1.1", reply_ts="1.5", blocks=blocks))
    record = book.resolve("C1", "fp")
    assert record is not None and record.reply_ts == "1.5"
    assert record.message_blocks()[0]["type"] == "section"
    assert book.resolve("C1", "fp") is None  # resolved once
    assert book.claim("C1", "fp", "2.1") is None  # firing again is a new alert


def test_rate_limit_per_channel_and_window(redis_server: RedisServer) -> None:
    clock = Clock()
    book = ledger(redis_client(redis_server.url), clock)
    assert [book.allow("C1") for _ in range(3)] == [True, True, False]
    assert book.allow("C2")  # per channel
    clock.now += 600  # the next window
    assert book.allow("C1")


def test_redis_down_keeps_working_in_process(redis_server: RedisServer) -> None:
    clock = Clock()
    book = ledger(redis_client(redis_server.url), clock)
    redis_server.stop()
    assert book.claim("C1", "fp", "1.1") is None
    assert book.claim("C1", "fp", "1.2") is not None  # still one reply per alert
    book.answered("C1", "fp", AlertRecord(alert_ts="1.1", reply_ts="1.5"))
    resolved = book.resolve("C1", "fp")
    assert resolved is not None and resolved.reply_ts == "1.5"
    assert [book.allow("C1") for _ in range(3)] == [True, True, False]
    clock.now += 3601
    assert book.claim("C9", "fp", "3.1") is None
    assert book.claim("C9", "fp", "3.2") is not None


def test_claims_expire_with_the_window() -> None:
    clock = Clock()
    book = ledger(None, clock)
    assert book.claim("C1", "fp", "1.1") is None
    clock.now += 3599
    assert book.claim("C1", "fp", "1.2") is not None
    clock.now += 2
    assert book.claim("C1", "fp", "1.3") is None


def _answer(source: str, *sections: str) -> Answer:
    citations = tuple(
        Citation(
            source_id=source,
            title=f"Title of {source}",
            section=s,
            path=f"{source}.md",
            url=None,
            revision="r",
            start=0,
            end=1,
            line=1,
            quote="x",
            owner=None,
            updated=None,
            age_days=None,
        )
        for s in sections
    )
    return Answer(state="answer", text="t", citations=citations)


def test_thread_memory_follows_the_runbook_a_thread_is_about(redis_server: RedisServer) -> None:
    memory = ThreadMemory(TtlStore(redis_client(redis_server.url), "thread", "t1"))
    assert memory.get("C1", "1.1") is None
    memory.remember("C1", "1.1", _answer("orders/q", "Mitigation > Scale"), "r-1")
    memory.remember("C1", "1.1", _answer("orders/q", "Mitigation > Replay"), "r-2")
    topic = memory.get("C1", "1.1")
    assert topic is not None
    assert topic.sections == ("Mitigation > Scale", "Mitigation > Replay")
    assert (topic.title, topic.request_id) == ("Title of orders/q", "r-2")
    memory.remember("C1", "1.1", _answer("payments/p", "Mitigation > Fail over"))
    other = memory.get("C1", "1.1")
    assert other is not None and other.sections == ("Mitigation > Fail over",)
    # an answer without citations changes nothing
    assert memory.remember("C1", "1.1", Answer(state="abstain", text="none")) is None
    assert redis.Redis.from_url(redis_server.url).ttl("t1:thread:C1:1.1") > 6 * 24 * 3600
