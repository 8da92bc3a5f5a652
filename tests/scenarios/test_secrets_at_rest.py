"""Secrets pasted into questions are never stored: not in Redis, the query log or the logs.

Questions with planted secrets go through the real bolt App over signed HTTP (slash
commands, mentions, feedback and Post-to-channel clicks), with a real redis-server and the
real index. Afterwards every key and value in Redis, the query log files and every log
line (bolt's DEBUG response bodies included) are scanned for the secrets. Each planted
secret contains the word "planted", which nothing else in the sample runbooks or the
questions does.
"""

from __future__ import annotations

import io
import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

import pytest
import redis

from bot.runtime import Runtime
from bot.settings import load_settings
from bot.slack.actions import FEEDBACK_HELPFUL as ACTION_FEEDBACK_HELPFUL
from bot.slack.actions import POST_TO_CHANNEL as ACTION_POST_TO_CHANNEL
from retrieval.search.embeddings import FastEmbedder
from tests.bot.test_slack_app import (
    ACCESS_MAP,
    SECRET,
    SlackHarness,
    action_ids,
    request_id_of,
)
from tests.conftest import RedisServer, logging_to
from tests.fakes.slack_api import RESPONSE_URL_METHOD, FakeSlackAPI

MARK = "planted"
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEplantedPEMbody0123456789abcdefABCDEF\n"
    "-----END RSA PRIVATE KEY-----"
)
PLANTED_QUESTIONS = [
    "checkout-api database connection refused, aws key " + "AKIA" + "PLANTED0EXAMPLE1",
    "certificate expiry on the ingress, what now? aws key " + "AKIA" + "PLANTED0EXAMPLE2",
    "slack bot fails with " + "xoxb-" + "1111111111-2222222222-PlantedSlackToken00",
    "git push rejected using " + "ghp_" + "Planted0123456789abcdefghijklmnopqrst",
    "is this key right? " + PEM,
    "jwt " + "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.plantedSig0123456789" + " fails validation",
    "checkout-api database connection refused postgres://app:PlantedDbPw1@db.internal:5432/x",
    "login to the admin console fails with password Planted!One",
    "the payments provider password is PlantedTwo, what now",
    "pw: PlantedThree does not work on the orders queue",
    "mysql -h db -u root --password PlantedFour orders connection refused",
    "mysql --password=PlantedFive orders",
    "mysql -uroot -pPlantedSix orders",
    "sshpass -p 'Planted Seven' ssh admin@bastion disk full",
    "redis-cli -h cache -a PlantedEight ping inventory cache stampede",
    "creds admin / PlantedNine for the elasticsearch cluster",
]


def leaks(text: str) -> bool:
    lowered = text.lower()
    return MARK in lowered or MARK in unquote_plus(lowered)


def redis_dump(client: redis.Redis) -> Iterator[tuple[str, str]]:
    """Every key with each of its values, whatever the type."""
    for raw_key in client.scan_iter(count=1000):
        key = raw_key.decode("utf-8", "replace")
        kind = client.type(raw_key).decode()
        values: list[Any]
        if kind == "string":
            values = [client.get(raw_key)]
        elif kind == "hash":
            values = [*client.hgetall(raw_key).items()]
        elif kind == "list":
            values = client.lrange(raw_key, 0, -1)
        elif kind == "set":
            values = [*client.smembers(raw_key)]
        elif kind == "zset":
            values = client.zrange(raw_key, 0, -1)
        elif kind == "stream":
            values = [fields for _id, fields in client.xrange(raw_key)]
        else:
            raise AssertionError(f"unexpected Redis type {kind} for {key}")
        yield key, key
        for value in values:
            yield key, repr(value) if not isinstance(value, bytes) else value.decode("utf-8")


@pytest.fixture()
def debug_log() -> Iterator[io.StringIO]:
    """Every log line at DEBUG into a buffer; the root logger is restored afterwards."""
    buf = io.StringIO()
    with logging_to(buf, "DEBUG"):
        yield buf


@pytest.mark.parametrize("query_log", ["redis", "file"])
def test_planted_secrets_are_stored_nowhere(
    query_log: str,
    sample_data_dir: Path,
    redis_server: RedisServer,
    embedder: FastEmbedder,
    tmp_path: Path,
    debug_log: io.StringIO,
) -> None:
    log_path = tmp_path / "logs" / "queries.jsonl" if query_log == "file" else None
    with FakeSlackAPI() as fake:
        settings = load_settings(
            data_dir=sample_data_dir,
            redis_url=redis_server.url,
            slack_bot_token="xoxb-test",
            slack_signing_secret=SECRET,
            slack_api_url=fake.base_url,
            access_map_path=ACCESS_MAP,
            query_log_path=log_path,
            sure_min_confidence=0.0,  # every answer may be posted: their copies are checked too
        )
        runtime = Runtime(settings, embedder=embedder)
        slack = SlackHarness(runtime, fake)
        try:
            answered = 0
            for question in PLANTED_QUESTIONS:
                assert leaks(question)
                result, response_id = slack.slash(question, channel="C0PUBLIC01")
                assert result.status == 200
                (reply,) = slack.responses(response_id)
                rid = request_id_of(reply)
                slack.action(ACTION_FEEDBACK_HELPFUL, rid, channel="C0PUBLIC01")
                if ACTION_POST_TO_CHANNEL in action_ids(reply):
                    answered += 1
                    slack.action(ACTION_POST_TO_CHANNEL, rid, channel="C0PUBLIC01")
                slack.mention(question, channel="C0GENERAL1")
            slack.settle()
            assert answered >= 3  # the cache and the request store hold real answers
            # the search link a reply offers does not carry the secret either
            for call in fake.calls_to(RESPONSE_URL_METHOD) + fake.calls_to("chat.postMessage"):
                for block in call.blocks:
                    for element in block.get("elements", []) or []:
                        assert not leaks(str(element.get("url") or "")), element
        finally:
            slack.close()
            runtime.close()

    client = redis.Redis.from_url(redis_server.url)
    stored = list(redis_dump(client))
    keys = {key for key, _ in stored}
    assert any(k.startswith("rbb:answer:") for k in keys)
    assert any(k.startswith("rbb:req:") for k in keys)
    if log_path is None:
        assert {"rbb:querylog", "rbb:feedback"} <= keys
    assert [(key, value[:300]) for key, value in stored if leaks(value)] == []

    if log_path is not None:
        files = [log_path, log_path.with_suffix(".feedback.jsonl")]
        for path in files:
            lines = path.read_text(encoding="utf-8").splitlines()
            assert len(lines) >= len(PLANTED_QUESTIONS)
            assert [line for line in lines if leaks(line)] == []
            assert stat.S_IMODE(path.stat().st_mode) == 0o600

    logged = debug_log.getvalue().splitlines()
    assert any("Responding with status" in line for line in logged)  # bolt's DEBUG lines
    assert [json.loads(line)["msg"][:300] for line in logged if leaks(line)] == []
