"""Two deployments sharing one Redis database keep apart by RUNBOOK_REDIS_NAMESPACE."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from pydantic import ValidationError

from bot.runtime import Runtime
from bot.settings import load_settings
from bot.slack.app import SlackBot
from bot.slack.requests import StoredRequest
from core.models import Answer
from retrieval.search.embeddings import FastEmbedder
from state.answer_cache import CacheKey
from state.querylog import build_record
from tests.conftest import SAMPLE_RUNBOOKS, RedisServer
from tests.fakes.slack_api import FakeSlackAPI

ANSWER = Answer(state="abstain", text="none", reason="no-match")


def deployment(
    namespace: str, data_dir: Path, redis_url: str, embedder: FastEmbedder, api_url: str
) -> Runtime:
    return Runtime(
        load_settings(
            data_dir=data_dir,
            redis_url=redis_url,
            redis_namespace=namespace,
            access_map_path=SAMPLE_RUNBOOKS / "access.yml",
            slack_bot_token="xoxb-test",
            slack_signing_secret="secret",
            slack_api_url=api_url,
        ),
        embedder=embedder,
    )


@pytest.fixture()
def pair(
    sample_data_dir: Path, tmp_path: Path, redis_server: RedisServer, embedder: FastEmbedder
) -> Iterator[tuple[Runtime, Runtime]]:
    with FakeSlackAPI() as fake:
        a = deployment("team-a", sample_data_dir, redis_server.url, embedder, fake.base_url)
        b = deployment("team-b", tmp_path / "b", redis_server.url, embedder, fake.base_url)
        yield a, b
        a.close()
        b.close()


def test_two_namespaces_on_one_redis_keep_apart(
    pair: tuple[Runtime, Runtime], redis_server: RedisServer
) -> None:
    a, b = pair
    key = CacheKey("disk full on node-7", "scope", 5, "extractive")
    old = CacheKey("disk full on node-7", "scope", 4, "extractive")
    for rt in (a, b):
        rt.cache.put(key, ANSWER)
        rt.cache.put(old, ANSWER)
    assert a.cache.cleanup(5) == 1  # only its own older generation
    assert b.cache.get(old, lambda _: True) is not None
    assert a.cache.clear() == 1
    assert a.cache.get(key, lambda _: True) is None
    assert b.cache.get(key, lambda _: True) is not None  # the other deployment's answer stays
    assert b.cache.stats().keys == 2

    # each deployment answers its own Slack app's events
    assert a.dedup.first_time("event:Ev1") and b.dedup.first_time("event:Ev1")
    assert not a.dedup.first_time("event:Ev1")

    a.query_log.record(
        build_record(
            request_id="r-a",
            user_hash="h",
            channel=None,
            scope_id="s",
            question="q",
            state="abstain",
        )
    )
    assert [r.request_id for r in a.query_log.recent(1)] == ["r-a"]
    assert b.query_log.recent(1) == []

    handlers = SlackBot(a)
    try:
        handlers.requests.put(StoredRequest(request_id="r-1", question="q", answer=ANSWER))
        assert handlers.requests.key("r-1") == "team-a:req:r-1"
    finally:
        handlers.close()

    client = redis.Redis.from_url(redis_server.url)
    keys = sorted(k.decode() for k in client.scan_iter())
    assert keys and all(k.startswith(("team-a:", "team-b:")) for k in keys), keys
    assert "team-a:req:r-1" in keys and "team-a:querylog" in keys


def test_the_namespace_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings().redis_namespace == "rbb"
    monkeypatch.setenv("RUNBOOK_REDIS_NAMESPACE", "staging")
    assert load_settings().redis_namespace == "staging"
    for bad in ("a:b", "", "team*", "x" * 65):
        with pytest.raises(ValidationError):
            load_settings(redis_namespace=bad)
