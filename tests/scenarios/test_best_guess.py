"""An answer the answerer is not sure of (below the confidence model's "sure" bar) is a
best guess: labelled near the top, never offered for posting to the channel, quotes,
owner and Escalate kept. Through the real bolt App over signed HTTP, the fake Slack Web
API, a real redis-server and the sample runbooks (real model); the bar is set so every
answer is a best guess (``sure_at=1.0``) or none is (``sure_at=0.0``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.runtime import Runtime
from bot.slack.actions import ESCALATE, POST_TO_CHANNEL
from bot.text import ALTERNATIVES, BEST_GUESS_ADVICE, BEST_GUESS_LABEL
from retrieval.answer.answer_config import CALIBRATED_MODEL, AnswerConfig
from retrieval.search.embeddings import FastEmbedder
from tests.bot.slack_harness import (
    SlackHarness,
    action_ids,
    make_runtime,
    request_id_of,
    text_of,
)
from tests.conftest import RedisServer
from tests.fakes.slack_api import FakeSlackAPI, RecordedCall

CHECKOUT = "checkout-api/database-connection-failures.md"
QUESTION = "checkout-api database connection refused"
CHANNEL = "C0PUBLIC01"
LABEL = f"*{BEST_GUESS_LABEL}:* {BEST_GUESS_ADVICE}"
# a question two runbooks are close to: the disk-full runbook leads, the Elasticsearch
# runbook (a cluster red for want of disk) is next
DISK = "disk full on node"

Harness = Callable[[float], SlackHarness]


def sure_at(bar: float) -> AnswerConfig:
    return AnswerConfig(model=replace(CALIBRATED_MODEL, sure_at=bar))


@pytest.fixture()
def fake() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as api:
        api.set_usergroups({"checkout-oncall": ("S0CHECKOUT", ["U0CHK0001"])})
        yield api


@pytest.fixture()
def slack_at(
    sample_data_dir: Path, redis_server: RedisServer, fake: FakeSlackAPI, embedder: FastEmbedder
) -> Iterator[Harness]:
    """``slack_at(bar)``: the bot answering with the "sure" bar at ``bar``."""
    opened: list[tuple[Runtime, SlackHarness]] = []

    def make(bar: float) -> SlackHarness:
        rt = make_runtime(sample_data_dir, redis_server.url, fake, embedder, sure_at(bar))
        harness = SlackHarness(rt, fake)
        opened.append((rt, harness))
        return harness

    yield make
    for rt, harness in opened:
        harness.close()
        harness.assert_valid()
        rt.close()


def labels(call: RecordedCall) -> list[str]:
    return [str(b["elements"][0]["text"]) for b in call.blocks if b.get("block_id") == "best_guess"]


def test_a_best_guess_slash_answer_is_labelled_and_offers_no_post_to_channel(
    slack_at: Harness,
) -> None:
    slack = slack_at(1.0)
    _, response_id = slack.slash(QUESTION, channel=CHANNEL)
    (call,) = slack.responses(response_id)
    assert labels(call) == [LABEL]
    lead = next(i for i, b in enumerate(call.blocks) if b.get("block_id") == "lead")
    assert call.blocks[lead - 1].get("block_id") == "best_guess"  # right above the runbook
    assert str(call.params["text"]).startswith(f"{BEST_GUESS_LABEL}: ")  # the notification
    shown = text_of(call)  # the answer is all there: quotes, links, owner, escalation
    assert f"{CHECKOUT}#L" in shown and "```\nkubectl -n checkout" in shown
    assert "owner <!subteam^S0CHECKOUT|@checkout-oncall>" in shown
    assert any(b.get("block_id") == "escalation" for b in call.blocks)
    assert POST_TO_CHANNEL not in action_ids(call)
    assert {"feedback_helpful", ESCALATE} <= action_ids(call)


def test_a_sure_slash_answer_offers_post_to_channel_and_has_no_label(slack_at: Harness) -> None:
    slack = slack_at(0.0)
    _, response_id = slack.slash(QUESTION, channel=CHANNEL)
    (call,) = slack.responses(response_id)
    assert labels(call) == []
    assert BEST_GUESS_LABEL not in text_of(call)
    assert POST_TO_CHANNEL in action_ids(call)


def test_a_best_guess_in_a_thread_is_labelled_for_the_channel(slack_at: Harness) -> None:
    slack = slack_at(1.0)
    _, event = slack.mention(QUESTION, channel=CHANNEL)
    (reply,) = slack.thread_posts(CHANNEL, event["ts"])
    assert labels(reply) == [LABEL]
    assert CHECKOUT in text_of(reply)
    assert POST_TO_CHANNEL not in action_ids(reply)


def test_post_to_channel_clicked_on_a_best_guess_posts_nothing(
    slack_at: Harness, fake: FakeSlackAPI
) -> None:
    slack = slack_at(1.0)
    _, response_id = slack.slash(QUESTION, channel=CHANNEL)
    rid = request_id_of(slack.responses(response_id)[0])
    _, click = slack.action(POST_TO_CHANNEL, rid, channel=CHANNEL)  # an older copy's button
    (told,) = slack.responses(click)
    assert "best guess" in str(told.params["text"])
    slack.settle()
    assert not fake.calls_to("chat.postMessage")


def test_a_cached_best_guess_comes_back_labelled(slack_at: Harness) -> None:
    slack = slack_at(1.0)
    cache = slack.runtime.cache
    before = cache.stats()
    first, second = (slack.responses(slack.slash(QUESTION, channel=CHANNEL)[1])[0] for _ in "ab")
    assert cache.stats().hits == before.hits + 1  # the second answer came from Redis
    for call in (first, second):
        assert labels(call) == [LABEL]
        assert POST_TO_CHANNEL not in action_ids(call)


def alternatives(call: RecordedCall) -> list[str]:
    return [
        str(b["text"]["text"])
        for b in call.blocks
        if str(b.get("block_id", "")).startswith("alternatives")
    ]


def test_a_best_guess_names_the_next_closest_runbooks_below_its_quotes(
    slack_at: Harness,
) -> None:
    slack = slack_at(1.0)
    _, response_id = slack.slash(DISK, channel=CHANNEL)
    (call,) = slack.responses(response_id)
    (named,) = alternatives(call)
    assert named.startswith(f"*{ALTERNATIVES}*")
    assert "search/elasticsearch-cluster-red.md#L" in named  # linked at its best section
    assert "Elasticsearch cluster status red" in named and "@search-team" in named
    assert "platform/disk-full.md" not in named  # the runbook quoted is not named again
    ids = [str(b.get("block_id", "")) for b in call.blocks]
    where = next(i for i, b in enumerate(ids) if b.startswith("alternatives"))
    quoted = max(i for i, b in enumerate(call.blocks) if "platform/disk-full.md" in str(b))
    assert quoted < where  # below its quotes and escalation, above who to call
    assert where < ids.index("human_step")
    assert where < ids.index("answer_actions")


def test_a_sure_answer_names_no_other_runbook(slack_at: Harness) -> None:
    slack = slack_at(0.0)
    _, response_id = slack.slash(DISK, channel=CHANNEL)
    (call,) = slack.responses(response_id)
    assert alternatives(call) == []
    assert ALTERNATIVES not in text_of(call) and "elasticsearch" not in text_of(call)
