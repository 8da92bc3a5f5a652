"""The Slack app over real HTTP: real bolt App, real signatures, fake Slack Web API.

The module shares one app (one Redis, one copy of the sample index) between the tests
that do not break anything; each test uses its own channel/ts/response ids. The harness
(:mod:`tests.bot.slack_harness`) is re-exported here for the scenario tests.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from bot.service import Delivery
from bot.slack.actions import (
    FEEDBACK_HELPFUL as ACTION_FEEDBACK_HELPFUL,
)
from bot.slack.actions import (
    FEEDBACK_NOT_HELPFUL as ACTION_FEEDBACK_NOT_HELPFUL,
)
from bot.slack.actions import (
    OPEN_SEARCH as ACTION_OPEN_SEARCH,
)
from bot.slack.actions import (
    POST_TO_CHANNEL as ACTION_POST_TO_CHANNEL,
)
from bot.slack.alerts import focused_query
from bot.slack.channels import is_incident_channel
from bot.slack.messages import message_text, plain_question, question_of, strip_mention
from bot.slack.requests import RequestStore, StoredRequest
from core.models import Answer, Citation
from retrieval.search.embeddings import FastEmbedder
from tests.bot.block_checks import assert_valid_blocks
from tests.bot.slack_harness import (
    ACCESS_MAP,
    ACK_METHOD,
    METRICS_TOKEN,
    SECRET,
    HttpResult,
    SlackHarness,
    action_ids,
    assert_all_messages_valid,
    copy_index,
    http,
    make_runtime,
    next_ts,
    request_id_of,
    text_of,
    unique,
)
from tests.conftest import RedisServer
from tests.fakes.slack_api import RESPONSE_URL_METHOD, FakeSlackAPI

__all__ = [
    "ACCESS_MAP",
    "SECRET",
    "HttpResult",
    "SlackHarness",
    "action_ids",
    "assert_all_messages_valid",
    "copy_index",
    "http",
    "make_runtime",
    "next_ts",
    "request_id_of",
    "text_of",
    "unique",
]


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def fake_slack() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as fake:
        yield fake


@pytest.fixture(scope="module")
def module_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def harness(
    fake_slack: FakeSlackAPI,
    module_redis: RedisServer,
    sample_index_template: Path,
    embedder: FastEmbedder,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[SlackHarness]:
    data = copy_index(sample_index_template, tmp_path_factory.mktemp("app") / "data")
    runtime = make_runtime(data, module_redis.url, fake_slack, embedder)
    h = SlackHarness(runtime, fake_slack)
    yield h
    h.close()
    runtime.close()


@pytest.fixture()
def slack(harness: SlackHarness) -> Iterator[SlackHarness]:
    harness.settle()
    harness.fake.clear()
    harness.acks.clear()
    yield harness
    harness.settle()
    harness.assert_valid()


# --------------------------------------------------------------------------- /runbook


@pytest.mark.parametrize(
    "text", ["", "help", "  HELP  ", "help me", "can you help me pls", ":fire:"]
)
def test_empty_or_help_acks_with_usage_only(slack: SlackHarness, text: str) -> None:
    result, response_id = slack.slash(text)
    assert result.status == 200
    body = result.json()
    assert body["response_type"] == "ephemeral"
    assert "Ask the runbooks" in json.dumps(body["blocks"])  # the usage, not an answer
    assert_valid_blocks(body)
    slack.settle()
    assert not [c for c in slack.fake.calls_to(RESPONSE_URL_METHOD) if c.response_id == response_id]
    assert not slack.fake.calls_to("chat.postMessage")


def test_slash_command_in_a_dm_answers_without_post_button(slack: SlackHarness) -> None:
    result, response_id = slack.slash(
        "checkout-api database connection refused",
        channel="D0ALICE001",
        channel_name="directmessage",
    )
    assert result.status == 200 and "Searching" not in result.body
    (call,) = slack.responses(response_id)
    assert call.method == ACK_METHOD  # the acknowledgement is the answer: nothing to replace
    assert call.params["response_type"] == "ephemeral"
    assert "checkout-api/database-connection-failures.md" in text_of(call)
    assert ACTION_POST_TO_CHANNEL not in action_ids(call)
    assert "escalate_to_owner" not in action_ids(call)  # no channel to escalate in
    slack.settle()
    assert not slack.fake.calls_to(RESPONSE_URL_METHOD)


def test_slack_markup_in_a_slash_command_is_read_as_the_person_saw_it(
    slack: SlackHarness,
) -> None:
    result, response_id = slack.slash(
        ":fire: checkout-api database connection refused, graph "
        "<https://grafana.example.com/d/abc123/checkout?orgId=1|here>",
        channel="D0ALICE001",
        channel_name="directmessage",
    )
    assert result.status == 200
    (call,) = slack.responses(response_id)
    assert "checkout-api/database-connection-failures.md" in text_of(call)
    assert "Not sure" not in text_of(call)


def test_bad_signature_and_stale_timestamp_are_rejected(slack: SlackHarness) -> None:
    bad, _ = slack.slash("checkout-api database connection refused", secret="not-the-secret")
    assert bad.status == 401
    stale, _ = slack.slash(
        "checkout-api database connection refused", timestamp=int(time.time()) - 600
    )
    assert stale.status == 401
    slack.settle()
    assert not slack.fake.calls_to(RESPONSE_URL_METHOD)


def test_a_replayed_slash_command_is_answered_once(slack: SlackHarness) -> None:
    body, response_id = slack.slash_body("checkout-api database connection refused")
    signed_at = int(time.time())
    first = slack.post(body, "application/x-www-form-urlencoded", timestamp=signed_at)
    replay = slack.post(body, "application/x-www-form-urlencoded", timestamp=signed_at)
    assert first.status == replay.status == 200
    assert "checkout-api/database-connection-failures" in first.body
    assert not replay.body.strip()  # acknowledged, nothing said
    slack.settle()
    assert not [c for c in slack.fake.calls_to(RESPONSE_URL_METHOD) if c.response_id == response_id]
    # the same question asked again (a new invocation, a new trigger_id) is answered
    again, again_id = slack.slash("checkout-api database connection refused")
    assert "checkout-api/database-connection-failures" in again.body
    slack.responses(again_id)


def test_unknown_paths_are_404(slack: SlackHarness) -> None:
    assert slack.get("/nope").status == 404
    assert http(slack.url + "/other", b"x", {"Content-Type": "text/plain"}).status == 404


# --------------------------------------------------------------------------- buttons


def test_feedback_click_is_acknowledged_and_recorded(slack: SlackHarness) -> None:
    _, response_id = slack.slash("checkout-api database connection refused")
    (answer,) = slack.responses(response_id)
    rid = request_id_of(answer)

    result, click_id = slack.action(ACTION_FEEDBACK_HELPFUL, rid)
    assert result.status == 200
    (thanks,) = slack.responses(click_id)
    # the answer is updated in place: the feedback buttons give way to a thank-you
    assert thanks.params["replace_original"] is True
    assert thanks.params["response_type"] == "ephemeral"
    assert "Feedback recorded (helpful)" in text_of(thanks)
    assert "checkout-api/database-connection-failures.md" in text_of(thanks)
    assert ACTION_FEEDBACK_HELPFUL not in action_ids(thanks)

    again, _ = slack.action(ACTION_FEEDBACK_NOT_HELPFUL, rid, user="U0BOB0001")
    assert again.status == 200
    slack.settle()
    feedback = [f for f in slack.runtime.query_log.recent_feedback(1) if f.request_id == rid]
    assert sorted(f.value for f in feedback) == ["helpful", "not_helpful"]
    first = next(f for f in feedback if f.value == "helpful")
    assert first.question == "checkout-api database connection refused"
    assert "runbooks:checkout-api/database-connection-failures" in first.cited
    assert first.service == "checkout-api"
    assert first.user_hash and "U0ALICE01" not in first.user_hash


def test_open_search_link_click_is_acknowledged(slack: SlackHarness) -> None:
    result, click_id = slack.action(ACTION_OPEN_SEARCH, "r-whatever")
    assert result.status == 200
    slack.settle()
    assert not [c for c in slack.fake.calls_to(RESPONSE_URL_METHOD) if c.response_id == click_id]


def test_post_to_channel_posts_the_same_answer_publicly(slack: SlackHarness) -> None:
    _, response_id = slack.slash("checkout-api database connection refused", channel="C0PUBLIC01")
    (answer,) = slack.responses(response_id)
    assert ACTION_POST_TO_CHANNEL in action_ids(answer)
    rid = request_id_of(answer)

    result, click_id = slack.action(ACTION_POST_TO_CHANNEL, rid, channel="C0PUBLIC01")
    assert result.status == 200
    (posted,) = slack.fake.wait_for("chat.postMessage", timeout=10)
    assert posted.params["channel"] == "C0PUBLIC01"
    assert "thread_ts" not in posted.params
    assert "checkout-api/database-connection-failures.md" in text_of(posted)
    assert ACTION_POST_TO_CHANNEL not in action_ids(posted)
    assert "Shared by <@U0ALICE01>" in text_of(posted)  # attributed
    assert "Asked: “checkout-api database connection refused”" in text_of(posted)
    (done,) = slack.responses(click_id)
    assert done.params["text"].startswith("Posted to the channel.")
    assert done.params["replace_original"] is True  # the button is gone
    assert ACTION_POST_TO_CHANNEL not in action_ids(done)


def test_post_to_channel_is_offered_and_checked_by_the_channel_audience(
    slack: SlackHarness,
) -> None:
    question = "break-glass production database access"
    # an sre member in the sre channel: everyone there may read the break-glass runbook
    _, in_sre = slack.slash(question, user="U0SRE0001", channel="C0SREPRIV1")
    (answer,) = slack.responses(in_sre)
    assert "sre/break-glass-access.md" in text_of(answer)
    assert ACTION_POST_TO_CHANNEL in action_ids(answer)

    # the same member in a public channel: answered privately, no button...
    _, in_public = slack.slash(question, user="U0SRE0001", channel="C0GENERAL1")
    (answer,) = slack.responses(in_public)
    assert "sre/break-glass-access.md" in text_of(answer)
    assert ACTION_POST_TO_CHANNEL not in action_ids(answer)

    # ...and a forged (or stale) click is refused at click time
    result, click_id = slack.action(
        ACTION_POST_TO_CHANNEL, request_id_of(answer), user="U0SRE0001", channel="C0GENERAL1"
    )
    assert result.status == 200
    (why,) = slack.responses(click_id)
    assert "Not posted" in why.params["text"]
    assert why.params["response_type"] == "ephemeral"
    slack.settle()
    assert not slack.fake.calls_to("chat.postMessage")


def test_post_to_channel_for_an_expired_request_says_so(slack: SlackHarness) -> None:
    result, click_id = slack.action(ACTION_POST_TO_CHANNEL, "r-0000000000")
    assert result.status == 200
    (why,) = slack.responses(click_id)
    assert "expired" in why.params["text"]


def test_over_long_answer_still_fits_slack_limits(
    slack: SlackHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    citations = tuple(
        Citation(
            source_id=f"big/doc-{i}",
            title=f"Huge runbook {i} <!channel> & friends",
            section="Steps",
            path=f"big/doc-{i}.md",
            url=f"https://example.com/big/doc-{i}.md#L1",
            revision="abcdef1234567890",
            start=0,
            end=20_000,
            line=1,
            quote=("```bash\n" + "kubectl rollout restart deploy/x\n" * 600)[:20_000],
            owner="@big-team",
            updated=date(2026, 1, 1),
            age_days=300,
        )
        for i in range(80)
    )
    answer = Answer(
        state="answer",
        text="Do all of this. " * 400,
        question="a question that produces a monster answer",
        citations=citations,
    )

    def ask(question: str, request_id: str, **_: Any) -> Delivery:
        return Delivery(request_id, answer.model_copy(update={"question": question}))

    monkeypatch.setattr(slack.bot.service, "ask", ask)
    _, response_id = slack.slash("monster")
    (call,) = slack.responses(response_id)
    assert_valid_blocks({"text": call.params["text"], "blocks": call.blocks})
    _, event = slack.mention("monster", channel="C0BIG00001")
    (posted,) = slack.thread_posts("C0BIG00001", event["ts"])
    assert_valid_blocks({"text": posted.params["text"], "blocks": posted.blocks})
    assert "more quoted sections" in text_of(posted)


# --------------------------------------------------------------------------- events


def test_subteam_members_changed_invalidates_the_usergroup(
    slack: SlackHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    monkeypatch.setattr(slack.bot.service.resolver, "invalidate_usergroup", seen.append)
    result = slack.event(
        {
            "type": "subteam_members_changed",
            "subteam_id": "S0SRE",
            "team_id": "T1",
            "added_users": ["U0NEW0001"],
            "event_ts": next_ts(),
        }
    )
    assert result.status == 200
    deadline = time.monotonic() + 5
    while not seen and time.monotonic() < deadline:
        time.sleep(0.02)
    assert seen == ["S0SRE"]


def test_message_events_are_not_answered(slack: SlackHarness) -> None:
    result = slack.event(
        {
            "type": "message",
            "user": "U0ALICE01",
            "text": "checkout-api database connection refused",
            "ts": next_ts(),
            "channel": "C0GENERAL1",
        }
    )
    assert result.status in (200, 404)
    slack.settle()
    assert not slack.fake.calls_to("chat.postMessage")


def test_bot_messages_and_own_mentions_are_ignored(slack: SlackHarness) -> None:
    ts = next_ts()
    slack.event(
        {
            "type": "app_mention",
            "user": "U0OTHERBOT",
            "bot_id": "B0OTHER",
            "text": "<@UBOT> checkout-api database connection refused",
            "ts": ts,
            "channel": "C0GENERAL1",
        }
    )
    slack.settle()
    assert not slack.fake.calls_to("chat.postMessage")


@pytest.mark.parametrize("text", ["", "help", "help me pls", "what now?"])
def test_mention_without_a_question_outside_a_thread_shows_usage(
    slack: SlackHarness, text: str
) -> None:
    _, event = slack.mention(text, channel="C0USAGE001")
    (reply,) = slack.thread_posts("C0USAGE001", event["ts"])
    assert "Ask the runbooks" in text_of(reply)


# --------------------------------------------------------------------------- health, metrics


def test_healthz_and_metrics(slack: SlackHarness) -> None:
    health = slack.get("/healthz")
    assert health.status == 200
    body = health.json()
    assert body == {
        "status": "ok",
        "generation": slack.runtime.searcher.generation(),
        "qdrant": True,
        "store_open": False,  # answered from the persisted snapshot
        "redis": True,
    }
    assert isinstance(body["generation"], int) and body["generation"] >= 1

    _, response_id = slack.slash("checkout-api database connection refused")
    slack.responses(response_id)
    slack.settle()
    assert slack.get("/metrics").status == 401
    metrics = slack.get("/metrics", {"Authorization": f"Bearer {METRICS_TOKEN}"})
    assert metrics.status == 200
    assert "text/plain" in metrics.headers["content-type"]
    assert 'runbook_bot_requests_total{outcome="answer",surface="slash_command"}' in metrics.body
    assert "runbook_bot_stage_seconds_bucket" in metrics.body


# --------------------------------------------------------------------------- helpers


def test_strip_mention() -> None:
    assert strip_mention("<@UBOT> what now?", "UBOT") == "what now?"
    assert strip_mention("hey <@UBOT|runbook>  help <@U0X>", "UBOT") == "hey help <@U0X>"
    assert strip_mention("<@U123> what now?", None) == "what now?"
    assert strip_mention("<@UBOT>", "UBOT") == ""


def test_a_question_is_read_as_the_person_saw_it() -> None:
    typed = (
        ":fire: checkout-api 500s &gt; 5% <https://grafana.example.com/d/abc|dashboard> "
        "since the deploy, cc <@U0ALICE> <!here> <#C0INC|inc-checkout> <!subteam^S1|@sre-oncall>"
    )
    assert plain_question(typed) == (
        "checkout-api 500s > 5% dashboard since the deploy, cc #inc-checkout @sre-oncall"
    )
    assert plain_question("see <https://runbooks.example.com/KubePodCrashLooping>") == (
        "see https://runbooks.example.com/KubePodCrashLooping"
    )
    assert plain_question("error: timeout:30s &amp; retry") == "error: timeout:30s & retry"
    event = {"text": "<@UBOT> db :fire: <https://x.example.com|link>"}
    assert question_of(event, "UBOT") == "db link"


def test_focused_query_uses_the_alert() -> None:
    alert = "[FIRING:1] CheckoutApiDbConnectionErrors checkout-api prod\n... connection refused"
    query = focused_query(alert, "what do i do")
    assert "CheckoutApiDbConnectionErrors" in query
    assert "connection refused" in query
    assert focused_query("", "plain question") == "plain question"
    # nothing alert-like: the first line of the parent plus the question
    assert focused_query("the deploy looks stuck\nmore", "why") == "the deploy looks stuck why"


def test_message_text_reads_attachments_and_blocks() -> None:
    message = {
        "text": "",
        "attachments": [
            {"title": "[FIRING:1] DiskFull", "text": "node-1 disk full", "fallback": "x"}
        ],
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "summary: disk"}}],
    }
    text = message_text(message)
    assert "[FIRING:1] DiskFull" in text and "node-1 disk full" in text and "summary: disk" in text


def test_incident_channel_patterns() -> None:
    patterns = ("inc-*", "incident-*")
    assert is_incident_channel("inc-2041-checkout", patterns)
    assert is_incident_channel("Incident-42", patterns)
    assert not is_incident_channel("general", patterns)
    assert not is_incident_channel(None, patterns)


def test_request_store_falls_back_to_memory_without_redis(tmp_path: Path) -> None:
    server = RedisServer(tmp_path)
    server.start()
    from state.client import redis_client

    store = RequestStore(redis_client(server.url))
    stored = StoredRequest(
        request_id="r-1", question="q", answer=Answer(state="abstain", text="none")
    )
    store.put(stored)
    assert store.get("r-1") == stored
    assert redis_client(server.url).ttl(store.key("r-1")) > 1700
    server.stop()
    assert store.get("r-1") == stored  # from this process's copy
    store.put(stored.model_copy(update={"request_id": "r-2"}))
    assert store.get("r-2") is not None
    assert store.get("r-missing") is None


def test_request_store_keeps_no_secret_of_the_question(redis_server: RedisServer) -> None:
    from state.client import redis_client

    secret = "Pa55word!x"
    question = f"login fails, the password is {secret}"
    client = redis_client(redis_server.url)
    store = RequestStore(client)
    store.put(
        StoredRequest(
            request_id="r-secret",
            question=question,
            answer=Answer(
                state="abstain",
                text=f"Nothing about {secret}",
                question=question,
                search_link="https://example.com/?q=" + secret.replace("!", "%21"),
            ),
        )
    )
    raw = client.get(store.key("r-secret"))
    assert raw is not None and b"Pa55word" not in raw
    kept = store.get("r-secret")
    assert (
        kept is not None
        and kept.question == "login fails, the password is [REDACTED:plain_password]"
    )
