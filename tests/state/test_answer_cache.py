from __future__ import annotations

import json
import logging
from collections.abc import Sequence

import pytest
import redis

from core.models import Answer, Citation
from state.answer_cache import CacheKey, RedisAnswerCache
from state.client import redis_client
from tests.conftest import RedisServer

NS = "t"


def citation(source_id: str = "payments/db.md", revision: str = "r1") -> Citation:
    return Citation(
        source_id=source_id,
        title="Database",
        section="Failover",
        path=source_id,
        url=None,
        revision=revision,
        start=0,
        end=10,
        line=1,
        quote="Run the failover script.",
        owner="@payments",
        updated=None,
        age_days=None,
    )


def answer(question: str = "how do I fail over the db?", **kw: object) -> Answer:
    fields: dict[str, object] = {
        "state": "answer",
        "text": "Run the failover script.",
        "question": question,
        "citations": (citation(),),
    }
    fields.update(kw)
    return Answer.model_validate(fields)


def key(
    question: str = "how do I fail over the db?",
    scope_id: str = "scope-a",
    generation: int = 1,
    mode: str = "extractive",
) -> CacheKey:
    return CacheKey(question, scope_id, generation, mode)


def always_live(_revisions: Sequence[tuple[str, str]]) -> bool:
    return True


@pytest.fixture()
def client(redis_server: RedisServer) -> redis.Redis:
    return redis_client(redis_server.url)


@pytest.fixture()
def cache(client: redis.Redis) -> RedisAnswerCache:
    return RedisAnswerCache(client, ttl_seconds=60, namespace=NS, retry_after_seconds=0.0)


def test_normalized_question_ignores_case_space_and_trailing_punctuation(
    redis_server: RedisServer,
) -> None:
    a = key("  How do I   fail over\tthe DB?!? ")
    b = key("how do i fail over the db")
    assert a.normalized_question() == "how do i fail over the db"
    assert a.digest() == b.digest()
    assert key("fail over db?").digest() != key("fail over db now").digest()


def test_keys_differ_per_scope_generation_and_mode(
    cache: RedisAnswerCache, redis_server: RedisServer
) -> None:
    base = key()
    variants = [key(scope_id="scope-b"), key(generation=2), key(mode="llm")]
    assert len({cache.redis_key(k) for k in [base, *variants]}) == 4
    assert cache.redis_key(base) == f"{NS}:answer:1:{base.digest()}"


def test_hit_for_same_scope_miss_for_other_scope(cache: RedisAnswerCache) -> None:
    cache.put(key(scope_id="sre"), answer())
    assert cache.get(key(scope_id="everyone"), always_live) is None
    hit = cache.get(key("HOW do I fail over the DB", scope_id="sre"), always_live)
    assert hit is not None
    assert hit.citations == answer().citations
    assert hit.question == "HOW do I fail over the DB"  # the asker's own words


def test_a_best_guess_stays_one_and_an_entry_from_before_the_sure_bar_is_sure(
    cache: RedisAnswerCache, client: redis.Redis
) -> None:
    cache.put(key(), answer(sure=False))
    hit = cache.get(key(), always_live)
    assert hit is not None and hit.sure is False
    # an entry written before answers said whether they were sure: as every answer was then
    older = answer().model_dump(mode="json")
    del older["sure"]
    client.set(cache.redis_key(key("older")), json.dumps(older))
    old = cache.get(key("older"), always_live)
    assert old is not None and old.sure is True and old.citations == answer().citations


def test_same_question_other_generation_misses(cache: RedisAnswerCache) -> None:
    cache.put(key(generation=1), answer())
    assert cache.get(key(generation=2), always_live) is None
    assert cache.get(key(generation=1), always_live) is not None


def test_entry_expires_with_ttl_and_does_not_store_the_question(
    cache: RedisAnswerCache, client: redis.Redis
) -> None:
    cache.put(key(), answer("why does xoxb-1234567890-secret fail"))
    rkey = cache.redis_key(key())
    assert 0 < client.ttl(rkey) <= 60
    raw = client.get(rkey)
    assert raw is not None and b"xoxb" not in raw


def test_retired_revision_is_not_served_and_is_deleted(
    cache: RedisAnswerCache, client: redis.Redis
) -> None:
    private = citation("sre/secrets.md", "r9")
    cache.put(key(), answer(citations=(citation(), private)))
    asked: list[list[tuple[str, str]]] = []

    def retired(revisions: Sequence[tuple[str, str]]) -> bool:
        asked.append(list(revisions))
        return ("sre/secrets.md", "r9") not in revisions

    assert cache.get(key(), retired) is None
    assert asked == [[("payments/db.md", "r1"), ("sre/secrets.md", "r9")]]
    assert client.exists(cache.redis_key(key())) == 0
    assert cache.get(key(), always_live) is None  # gone for good


def test_unreadable_entry_is_a_miss_and_is_dropped(
    cache: RedisAnswerCache, client: redis.Redis
) -> None:
    client.set(cache.redis_key(key()), b'{"state": "answer", "old_field": 1}')
    assert cache.get(key(), always_live) is None
    assert client.exists(cache.redis_key(key())) == 0


def test_cleanup_removes_older_generations_only(
    cache: RedisAnswerCache, client: redis.Redis
) -> None:
    for generation in (1, 2, 3):
        cache.put(key(generation=generation), answer())
        cache.put(key("another question", generation=generation), answer())
    client.set("other:answer:1:x", b"not ours")
    assert cache.cleanup(3) == 4
    left = sorted(k.decode() for k in client.scan_iter(match=f"{NS}:answer:*"))
    assert left and all(k.startswith(f"{NS}:answer:3:") for k in left)
    assert client.get("other:answer:1:x") == b"not ours"
    assert cache.clear() == 2
    assert cache.stats().keys == 0


def test_stats_count_hits_and_misses_in_redis_and_in_process(
    cache: RedisAnswerCache, client: redis.Redis
) -> None:
    cache.put(key(), answer())
    assert cache.get(key(), always_live) is not None
    assert cache.get(key(), always_live) is not None
    assert cache.get(key(scope_id="other"), always_live) is None
    stats = cache.stats()
    assert (stats.hits, stats.misses, stats.keys, stats.available) == (2, 1, 1, True)
    # a second replica shares the Redis counters but has its own in-process ones
    replica = RedisAnswerCache(client, ttl_seconds=60, namespace=NS)
    assert replica.get(key(), always_live) is not None
    shared = replica.stats()
    assert (shared.hits, shared.misses) == (3, 1)
    assert (shared.local_hits, shared.local_misses) == (1, 0)
    assert client.hgetall(f"{NS}:stats") == {b"hits": b"3", b"misses": b"1"}


def test_redis_down_degrades_quietly_and_resumes(
    cache: RedisAnswerCache, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="runbook_bot.cache")
    cache.put(key(), answer())
    assert cache.get(key(), always_live) is not None

    redis_server.stop()
    for _ in range(3):
        assert cache.get(key(), always_live) is None
        cache.put(key("new question"), answer())
    assert cache.cleanup(5) == 0
    assert cache.clear() == 0
    stats = cache.stats()
    assert stats.available is False
    assert (stats.hits, stats.misses) == (1, 3)  # this process's own counts
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].name == "runbook_bot.cache"
    assert "unavailable" in warnings[0].getMessage()

    redis_server.start()  # same port, empty data
    assert cache.get(key(), always_live) is None
    cache.put(key(), answer())
    assert cache.get(key(), always_live) is not None
    assert cache.stats().available is True
    messages = [r.getMessage() for r in caplog.records]
    assert messages.count("cache resumed") == 1
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1


def test_default_retry_interval_skips_redis_while_down(redis_server: RedisServer) -> None:
    cache = RedisAnswerCache(redis_client(redis_server.url), ttl_seconds=60, namespace=NS)
    cache.put(key(), answer())
    redis_server.stop()
    assert cache.get(key(), always_live) is None  # fails, starts the retry interval
    redis_server.start()
    cache.put(key(), answer())  # skipped: still inside the interval
    assert cache.get(key(), always_live) is None
    assert cache.stats().available is False
