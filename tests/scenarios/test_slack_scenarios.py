"""End-to-end Slack scenarios: what an on-call engineer sees, through the public entry points.

Real bolt App over real HTTP with real signatures, a fake Slack Web API, a real
redis-server, the real embedded index and model. One subprocess test runs the
``runbook-bot serve`` command line itself.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.runtime import Runtime
from bot.watcher import RunbookWatcher
from retrieval.errors import IndexUnavailableError
from retrieval.search.embeddings import FastEmbedder
from tests.bot.slack_harness import (
    ACCESS_MAP,
    ACK_METHOD,
    SECRET,
    SlackHarness,
    action_ids,
    copy_index,
    http,
    make_runtime,
    next_ts,
    request_id_of,
    text_of,
    unique,
)
from tests.conftest import ROOT, SAMPLE_RUNBOOKS, RedisServer, free_port
from tests.fakes.signing import signed_headers
from tests.fakes.slack_api import RESPONSE_URL_METHOD, FakeSlackAPI

ACK_BUDGET_SECONDS = 3.0
CHECKOUT = "checkout-api/database-connection-failures.md"
BREAK_GLASS = "sre/break-glass-access.md"


@pytest.fixture()
def fake() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as api:
        yield api


@pytest.fixture()
def runtime(
    sample_data_dir: Path, redis_server: RedisServer, fake: FakeSlackAPI, embedder: FastEmbedder
) -> Iterator[Runtime]:
    rt = make_runtime(sample_data_dir, redis_server.url, fake, embedder, sure_min_confidence=0.0)
    yield rt
    rt.close()


# --------------------------------------------------------------------------- /runbook


def test_slash_command_is_acknowledged_with_the_answer_itself(slack: SlackHarness) -> None:
    result, response_id = slack.slash("checkout-api database connection refused")
    print(f"\n/runbook ack took {result.seconds * 1000:.0f} ms (first request)")
    assert result.status == 200
    assert result.seconds < ACK_BUDGET_SECONDS
    assert result.json()["response_type"] == "ephemeral"

    # no interim "Searching…" message is left behind: the acknowledgement is the answer
    (call,) = slack.responses(response_id)
    assert call.method == ACK_METHOD
    shown = text_of(call)
    assert "Searching" not in shown
    assert "<https://" in shown and "|" in shown  # a source link
    assert CHECKOUT in shown
    assert "owner *@checkout-oncall*" in shown
    assert "days ago" in shown
    assert "request `r-" not in shown  # a request id only on errors
    assert "Asked: “checkout-api database connection refused”" in shown
    slack.settle()
    assert not slack.fake.calls_to(RESPONSE_URL_METHOD)

    # warm: a second question acks well within the budget too
    again, second_id = slack.slash("payments provider latency high")
    print(f"/runbook ack took {again.seconds * 1000:.0f} ms (warm)")
    assert again.seconds < ACK_BUDGET_SECONDS
    slack.responses(second_id)


# --------------------------------------------------------------------------- @runbook


def test_mention_answers_once_in_the_thread(slack: SlackHarness, fake: FakeSlackAPI) -> None:
    result, event = slack.mention("checkout-api database connection refused")
    assert result.status == 200
    (reply,) = slack.thread_posts("C0GENERAL1", event["ts"])
    shown = text_of(reply)
    assert "<https://" in shown and CHECKOUT in shown
    assert "owner *@checkout-oncall*" in shown
    assert "Asked:" not in shown  # the question is right above, in the thread
    slack.settle()
    assert len(fake.calls_to("chat.postMessage")) == 1
    assert not fake.calls_to("chat.postEphemeral")


def test_stale_runbook_is_flagged_and_unanswerable_question_says_so(
    slack: SlackHarness,
) -> None:
    _, stale = slack.mention("elasticsearch cluster red unassigned shards")
    (reply,) = slack.thread_posts("C0GENERAL1", stale["ts"])
    shown = text_of(reply)
    assert "search/elasticsearch-cluster-red.md" in shown
    assert ":warning:" in shown and "last updated" in shown and "Verify before acting" in shown
    assert "may be out of date" in reply.params["text"].lower()

    _, unknown = slack.mention("how do i reset the grafana admin password")
    (reply,) = slack.thread_posts("C0GENERAL1", unknown["ts"])
    assert "No runbook covers this" in text_of(reply) or "Not sure these answer it" in text_of(
        reply
    )


def test_mention_in_an_alert_thread_answers_from_the_alert(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    channel = "C0INC00001"
    fake.set_conversation(channel, name="inc-2041-checkout-db")
    parent_ts = next_ts()
    fake.set_thread(
        channel,
        parent_ts,
        [
            {
                "type": "message",
                "ts": parent_ts,
                "bot_id": "B0ALERTS",
                "text": (
                    "[FIRING:1] CheckoutApiDbConnectionErrors checkout-api prod\n"
                    "... connection refused"
                ),
            }
        ],
    )
    _, event = slack.mention("what do i do", channel=channel, thread_ts=parent_ts)
    (reply,) = slack.thread_posts(channel, parent_ts)
    (replies_call,) = fake.calls_to("conversations.replies")
    assert replies_call.params["ts"] == parent_ts
    assert int(replies_call.params["limit"]) == 1
    shown = text_of(reply)
    assert CHECKOUT in shown
    assert reply.params["thread_ts"] == parent_ts != event["ts"]
    # the alert is right above: the answer leads with what to do, not its symptoms
    lead = reply.blocks[0]["text"]["text"]
    assert "Mitigation" in lead and "Symptoms" not in lead
    assert "CheckoutApiDbConnectionErrors` fires" not in shown
    assert "kubectl -n checkout" in reply.params["text"]  # the notification shows a command
    assert "CheckoutApiDbConnectionErrors what do i" not in shown  # never the internal query

    # a bare mention in the alert thread answers from the alert alone
    slack.mention("", channel=channel, thread_ts=parent_ts)
    replies = slack.thread_posts(channel, parent_ts, count=2)
    assert CHECKOUT in text_of(replies[1])
    assert len(fake.calls_to("conversations.info")) == 1  # the channel name is cached


def test_retried_event_is_answered_once(slack: SlackHarness, fake: FakeSlackAPI) -> None:
    ts = next_ts()
    event_id = unique("EvRetry")
    for retry in (None, 1, 2):
        result, _ = slack.mention(
            "checkout-api database connection refused",
            ts=ts,
            event_id=event_id,
            retry_num=retry,
        )
        assert result.status == 200
    slack.thread_posts("C0GENERAL1", ts)
    slack.settle()
    assert len(fake.calls_to("chat.postMessage")) == 1


def test_two_replicas_sharing_redis_answer_an_event_once(
    slack: SlackHarness,
    fake: FakeSlackAPI,
    redis_server: RedisServer,
    sample_index_template: Path,
    embedder: FastEmbedder,
    tmp_path: Path,
) -> None:
    other_data = copy_index(sample_index_template, tmp_path / "replica-2")
    other_rt = make_runtime(other_data, redis_server.url, fake, embedder)
    other = SlackHarness(other_rt, fake)
    try:
        ts = next_ts()
        event_id = unique("EvReplica")
        results: list[int] = []

        def deliver(h: SlackHarness) -> None:
            result, _ = h.mention("disk full on a node", ts=ts, event_id=event_id)
            results.append(result.status)

        threads = [threading.Thread(target=deliver, args=(h,)) for h in (slack, other)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == [200, 200]
        slack.thread_posts("C0GENERAL1", ts)
        slack.settle()
        other.settle()
        assert len(fake.calls_to("chat.postMessage")) == 1
    finally:
        other.close()
        other_rt.close()


# --------------------------------------------------------------------------- failures


def test_index_unavailable_shows_an_error_with_the_request_id(
    slack: SlackHarness,
    fake: FakeSlackAPI,
    runtime: Runtime,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def down(*_: object, **__: object) -> int:
        raise IndexUnavailableError("vector store error: connection refused")

    monkeypatch.setattr(runtime.searcher, "generation", down)
    monkeypatch.setattr(runtime.searcher, "search_chunks", down)

    _, event = slack.mention("checkout-api database connection refused")
    (reply,) = slack.thread_posts("C0GENERAL1", event["ts"])
    shown = text_of(reply)
    # the next step first, the cause in small print, a Retry button
    assert reply.blocks[0]["text"]["text"].startswith(":warning: *I couldn't search")
    assert "Try again in a minute" in shown and "unavailable" in shown
    assert "retry_question" in action_ids(reply)
    rid = shown.split("(request ", 1)[1].split(")", 1)[0]
    assert rid.startswith("r-")

    _, response_id = slack.slash("checkout-api database connection refused")
    (call,) = slack.responses(response_id)
    assert "I couldn't search the runbooks just now" in call.params["text"]
    assert "(request r-" in call.params["text"]
    slack.settle()
    failures = [r for r in caplog.records if r.levelname == "ERROR" and "failed" in r.getMessage()]
    assert any(rid in r.getMessage() for r in failures), [r.getMessage() for r in failures]
    assert slack.bot.in_flight == 0


def test_closed_qdrant_client_is_reported_in_thread_and_health(
    slack: SlackHarness, runtime: Runtime
) -> None:
    runtime.vector_index.client.close()
    health = slack.get("/healthz")
    assert health.status == 503
    assert health.json()["qdrant"] is False and health.json()["status"] == "degraded"
    _, event = slack.mention("checkout-api database connection refused")
    (reply,) = slack.thread_posts("C0GENERAL1", event["ts"])
    assert "I couldn't search the runbooks just now" in text_of(reply)
    assert "(request r-" in text_of(reply)


def test_redis_down_is_degraded_but_questions_are_still_answered(
    slack: SlackHarness, fake: FakeSlackAPI, redis_server: RedisServer
) -> None:
    health = slack.get("/healthz").json()
    assert health["redis"] is True and health["qdrant"] is True
    assert isinstance(health["generation"], int)

    redis_server.stop()
    down = slack.get("/healthz")
    assert down.status == 200
    assert down.json()["redis"] is False and down.json()["status"] == "degraded"

    result, response_id = slack.slash("checkout-api database connection refused")
    assert result.status == 200 and result.seconds < ACK_BUDGET_SECONDS
    (call,) = slack.responses(response_id)
    assert CHECKOUT in text_of(call)
    _, event = slack.mention("checkout-api database connection refused")
    (reply,) = slack.thread_posts("C0GENERAL1", event["ts"])
    assert CHECKOUT in text_of(reply)
    assert "Traceback" not in text_of(reply)

    # a feedback click still works (the answer was kept in this process)
    click, click_id = slack.action("feedback_helpful", request_id_of(call))
    assert click.status == 200
    assert "Feedback recorded" in text_of(slack.responses(click_id)[0])


# --------------------------------------------------------------------------- permissions


def test_restricted_runbook_never_reaches_a_public_thread(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    question = "break-glass production db access"

    # not in sre, public channel: nothing from the restricted runbook anywhere
    _, alice = slack.mention(question, user="U0ALICE01", channel="C0GENERAL1")
    (reply,) = slack.thread_posts("C0GENERAL1", alice["ts"])
    assert BREAK_GLASS not in text_of(reply)
    slack.settle()
    assert not fake.calls_to("chat.postEphemeral")

    # in sre (access.yml users), public channel: privately, not in the thread
    _, sre = slack.mention(question, user="U0SRE0001", channel="C0GENERAL1")
    (reply,) = slack.thread_posts("C0GENERAL1", sre["ts"])
    assert BREAK_GLASS not in text_of(reply)
    # the thread says what happened, without the title, naming the runbook's own owner
    public = text_of(reply)
    assert "A restricted runbook matched this question" in public
    assert "sent it to <@U0SRE0001> privately" in public
    assert "Owner: *@sre-oncall*" in public
    assert "break-glass" not in public.lower()
    assert "No runbook covers this" not in public
    (private,) = fake.wait_for("chat.postEphemeral", timeout=10)
    assert private.params["user"] == "U0SRE0001"
    assert private.params["channel"] == "C0GENERAL1"
    assert BREAK_GLASS in text_of(private)
    assert "1 restricted runbook sent to you privately" in text_of(private)
    assert "Do not paste it in public channels" in text_of(private)

    # the sre channel (its whole audience is sre): in the thread
    _, in_sre = slack.mention(question, user="U0SRE0001", channel="C0SREPRIV1")
    (reply,) = slack.thread_posts("C0SREPRIV1", in_sre["ts"])
    assert BREAK_GLASS in text_of(reply)
    slack.settle()
    assert len(fake.calls_to("chat.postEphemeral")) == 1


def test_slash_answer_offers_post_only_when_the_channel_may_read_it(
    slack: SlackHarness,
) -> None:
    _, public = slack.slash("checkout-api database connection refused", channel="C0GENERAL1")
    assert "post_to_channel" in action_ids(slack.responses(public)[0])
    _, restricted = slack.slash(
        "break-glass production db access", user="U0SRE0001", channel="C0GENERAL1"
    )
    call = slack.responses(restricted)[0]
    assert BREAK_GLASS in text_of(call)
    assert "post_to_channel" not in action_ids(call)


def test_access_denied_names_the_restricted_runbooks_owner(slack: SlackHarness) -> None:
    _, response_id = slack.slash("break-glass production db access vault breakglass role")
    (call,) = slack.responses(response_id)
    shown = text_of(call)
    assert "A runbook you cannot read may cover this.* Ask *@sre-oncall* for access." in shown
    assert BREAK_GLASS not in shown


# --------------------------------------------------------------------------- presentation


def test_alert_thread_answer_leads_with_mitigation_and_links_the_other_fixes(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    channel = "C0INC00002"
    parent_ts = next_ts()
    fake.set_thread(
        channel,
        parent_ts,
        [
            {
                "type": "message",
                "ts": parent_ts,
                "subtype": "bot_message",
                "bot_id": "B0ALERTS",
                "attachments": [
                    {
                        "title": "[FIRING:1] OrderEventsConsumerLag (order-fulfillment critical)",
                        "text": "consumer group order-fulfillment lag is 240000 messages",
                    }
                ],
            }
        ],
    )
    slack.mention("", channel=channel, thread_ts=parent_ts)
    (reply,) = slack.thread_posts(channel, parent_ts)
    # a bare mention under an alert answers from the runbook that names the alert
    preface = reply.blocks[0]["elements"][0]["text"]
    assert "*OrderEventsConsumerLag*: the runbook that names this alert" in preface
    lead = next(b for b in reply.blocks if b.get("block_id") == "lead")["text"]["text"]
    assert "Mitigation &gt; Scale the consumers" in lead
    assert "Symptoms" not in text_of(reply)
    assert "Alert `OrderEventsConsumerLag`" not in text_of(reply)  # not restated
    assert reply.params["text"].startswith(
        "Orders: order-events consumer lag and queue backlog &gt; Mitigation &gt; Scale the "
        "consumers: `kubectl -n orders scale deploy/order-fulfillment-consumer --replicas=24`"
    )
    assert "Other fixes in this runbook:" in text_of(reply)
    assert "Replay the dead-letter queue" in text_of(reply)
    assert "Escalation" in text_of(reply)  # the runbook's Escalation section


def test_a_pasted_secret_is_not_echoed_back(slack: SlackHarness) -> None:
    secret = "ghp_" + "Echo0123456789abcdefghijklmnopqrstuv"
    _, response_id = slack.slash(f"checkout-api database connection refused {secret}")
    (call,) = slack.responses(response_id)
    assert secret not in text_of(call)
    assert "Asked: “checkout-api database connection refused [REDACTED" in text_of(call)


def test_one_owner_line_per_document_and_no_request_id(slack: SlackHarness) -> None:
    _, response_id = slack.slash("checkout-api database connection refused")
    (call,) = slack.responses(response_id)
    owner_lines = [t for t in text_of(call).splitlines() if " · updated " in t]
    assert owner_lines == ["owner *@checkout-oncall* · updated 60 days ago"] or (
        len(owner_lines) == 1 and owner_lines[0].startswith("owner *@checkout-oncall*")
    )
    assert text_of(call).count("Checkout API: database connection failures") <= 2  # text + link
    assert "request `" not in text_of(call)


def test_markdown_of_a_warning_and_nested_code_is_shown_as_slack_shows_it(
    slack: SlackHarness,
) -> None:
    _, response_id = slack.slash("how do i flush all sessions", user="U0ALICE01")
    (call,) = slack.responses(response_id)
    shown = text_of(call)
    assert ":warning: *WARNING:* this logs out every customer" in shown
    assert '```\nsessionctl revoke --all --reason "INC-&lt;number&gt;" --confirm\n```' in shown
    assert "**" not in shown and "> **WARNING" not in shown  # checked for every message too


def test_a_runbook_for_another_service_is_a_closest_match_without_post_button(
    slack: SlackHarness,
) -> None:
    _, response_id = slack.slash("cart service sessions lost", channel="C0PUBLIC01")
    (call,) = slack.responses(response_id)
    lead = call.blocks[0]["text"]["text"]
    assert "Closest match (different service)" in lead
    assert call.params["text"].startswith("Closest match (different service): ")
    assert "post_to_channel" not in action_ids(call)
    # the same runbook asked about by its own service is a normal answer with the button
    _, own = slack.slash("how do i flush all web sessions in redis", channel="C0PUBLIC01")
    (call,) = slack.responses(own)
    assert "Closest match" not in text_of(call)


def test_no_answer_lists_no_runbooks_and_searches_the_runbook_repository(
    slack: SlackHarness,
) -> None:
    _, response_id = slack.slash("how do i reset the grafana admin password")
    (call,) = slack.responses(response_id)
    shown = text_of(call)
    assert "related" not in shown.lower()
    assert shown.count("No runbook covers this") == 2  # the headline and the fallback text
    # the nearest of unrelated runbooks would read as an answer: none is listed
    assert "Search the runbooks repository, or ask the people below." in shown
    # the human step names somebody even when no runbook answers
    step = next(b for b in call.blocks if b.get("block_id", "").endswith("human_step"))
    assert step["text"]["text"].startswith(":bust_in_silhouette: *")
    assert "closest" not in shown.lower()
    assert not any(b.get("block_id") == "closest" for b in call.blocks)
    urls = [
        e["url"]
        for b in call.blocks
        if b.get("type") == "actions"
        for e in b["elements"]
        if e.get("url")
    ]
    assert len(urls) == 1 and "repo%3Aacme%2Frunbooks" in urls[0]


# a task the checkout runbooks come close to without describing it
UNSURE_QUESTION = "upgrading checkout-db to postgres 17, what's the procedure"


def test_not_sure_names_the_closest_runbooks_with_their_owners(slack: SlackHarness) -> None:
    _, response_id = slack.slash(UNSURE_QUESTION)
    (call,) = slack.responses(response_id)
    assert "Not sure any runbook answers this." in text_of(call)
    closest = next(b for b in call.blocks if b.get("block_id") == "closest")
    lines = closest["text"]["text"].splitlines()
    assert 1 <= len(lines) <= 3
    assert all(ln.startswith("• *<https://github.com/acme/runbooks/blob/") for ln in lines)
    assert all(" · owner " in ln or "no owner on record" in ln for ln in lines)
    assert "post_to_channel" not in action_ids(call)


def test_ownerless_runbook_points_to_the_service_channel(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    fake.set_response(
        "conversations.list",
        {"ok": True, "channels": [{"id": "C0NOTIFY1", "name": "notifications"}]},
    )
    _, response_id = slack.slash("ses bounce rate high email delivery failures what do i do")
    (call,) = slack.responses(response_id)
    shown = text_of(call)
    assert "notifications/email-delivery-failures.md" in shown
    # the human step names the service's channel; ownerless is said once, in small print
    assert ":bust_in_silhouette: *Ask in:* <#C0NOTIFY1>" in shown
    assert shown.lower().count("no owner on record") == 1
    note = next(b for b in call.blocks if b.get("block_id") == "step_note")
    assert note["type"] == "context"
    # "Escalate" asks in that channel, with a link to the thread
    assert "escalate_to_owner" in action_ids(call)


def test_ownerless_runbook_falls_back_to_the_configured_contact(
    runtime: Runtime, fake: FakeSlackAPI
) -> None:
    settings = runtime.settings.model_copy(
        update={"fallback_contact": "@sre-oncall", "service_channel_template": ""}
    )
    fake.set_usergroups({"sre-oncall": ("S0SRE", ["U0SRE0001"])})
    rt = Runtime(settings, embedder=runtime.embedder)
    h = SlackHarness(rt, fake)
    try:
        _, response_id = h.slash("ses bounce rate high email delivery failures what do i do")
        (call,) = h.responses(response_id)
        shown = text_of(call)
        assert ":bust_in_silhouette: *Ask:* <!subteam^S0SRE|@sre-oncall>" in shown
        assert shown.lower().count("no owner on record") == 1
        assert "escalate_to_owner" in action_ids(call)  # the fallback can be called on
    finally:
        h.close()
        rt.close()
    h.assert_valid()


# --------------------------------------------------------------------------- lifecycle


def test_a_slow_answer_follows_the_searching_acknowledgement(
    runtime: Runtime, fake: FakeSlackAPI
) -> None:
    h = SlackHarness(runtime, fake, ack_seconds=0.0)
    try:
        result, response_id = h.slash("checkout-api database connection refused")
        ack = result.json()["text"]
        assert ack.startswith("Searching runbooks for “checkout-api database connection refused”")
        (call,) = h.responses(response_id)
        assert call.method == RESPONSE_URL_METHOD
        assert CHECKOUT in text_of(call)
    finally:
        h.close()
    h.assert_valid()


def test_double_click_on_post_to_channel_posts_once_into_the_thread_attributed(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    _, response_id = slack.slash("checkout-api database connection refused", channel="C0PUBLIC01")
    rid = request_id_of(slack.responses(response_id)[0])
    thread = next_ts()
    results = []

    def click() -> None:
        results.append(slack.action("post_to_channel", rid, channel="C0PUBLIC01", thread_ts=thread))

    clicks = [threading.Thread(target=click) for _ in range(2)]
    for t in clicks:
        t.start()
    for t in clicks:
        t.join()
    slack.settle()
    (posted,) = fake.calls_to("chat.postMessage")
    assert posted.params["thread_ts"] == thread  # into the thread it was asked in
    assert "Shared by <@U0ALICE01>" in text_of(posted)
    replies = [slack.responses(click_id)[0] for _, click_id in results]
    done = [r for r in replies if r.params.get("replace_original")]
    again = [r for r in replies if not r.params.get("replace_original")]
    assert len(done) == 1 and "post_to_channel" not in action_ids(done[0])
    assert len(again) == 1 and again[0].params["text"] == "Already posted to the channel."
    # and a third click later changes nothing either
    _, later = slack.action("post_to_channel", rid, channel="C0PUBLIC01")
    assert slack.responses(later)[0].params["text"] == "Already posted to the channel."
    assert len(fake.calls_to("chat.postMessage")) == 1


def test_escalate_to_owner_mentions_the_owner_group_once_in_the_thread(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    fake.set_usergroups({"checkout-oncall": ("S0CHECKOUT", ["U0BOB0001"])})
    _, event = slack.mention("checkout-api database connection refused what do i do")
    (reply,) = slack.thread_posts("C0GENERAL1", event["ts"])
    assert "escalate_to_owner" in action_ids(reply)
    assert "<!subteam^" not in text_of(reply)  # the answer itself pings nobody
    rid = request_id_of(reply)
    for user in ("U0ALICE01", "U0CAROL01"):
        slack.action(
            "escalate_to_owner",
            rid,
            user=user,
            message_ts=reply.response["ts"],
            thread_ts=event["ts"],
            ephemeral=False,
        )
    slack.settle()
    posts = fake.calls_to("chat.postMessage")[1:]
    (escalation,) = posts
    assert escalation.params["thread_ts"] == event["ts"]
    # the two clicks race: whichever is handled first escalates, the other finds it done
    first = escalation.blocks[0]["text"]["text"]
    winner = next(
        u for u in ("U0ALICE01", "U0CAROL01") if first.startswith(f":rotating_light: <@{u}>")
    )
    assert first.startswith(
        f":rotating_light: <@{winner}> is escalating to <!subteam^S0CHECKOUT|@checkout-oncall>"
    )
    (update,) = fake.calls_to("chat.update")  # the button gives way to who escalated
    assert update.params["ts"] == reply.response["ts"]
    assert "escalate_to_owner" not in action_ids(update)
    assert f"Escalated to @checkout-oncall by <@{winner}>." in text_of(update)


def test_slack_rejecting_the_full_answer_gets_the_minimal_one(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    fake.fail_next("chat.postMessage", error="msg_blocks_too_long")
    _, event = slack.mention("checkout-api database connection refused what do i do")
    posts = slack.thread_posts("C0GENERAL1", event["ts"], count=2)
    assert posts[0].response["error"] == "msg_blocks_too_long"
    minimal = posts[1]
    assert minimal.response["ok"] is True
    full = text_of(posts[0])
    # the runbook link and the lead quote's first command, as the full answer had them
    command = next(ln for ln in full.splitlines() if ln.startswith("kubectl -n checkout"))
    assert command in text_of(minimal)
    assert CHECKOUT in text_of(minimal)
    assert "did not fit in a Slack message" in text_of(minimal)


def test_retry_after_an_error_answers_in_place(
    slack: SlackHarness, fake: FakeSlackAPI, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(*_: object, **__: object) -> int:
        raise IndexUnavailableError("vector store error: connection refused")

    with monkeypatch.context() as patch:
        patch.setattr(runtime.searcher, "search_chunks", down)
        _, event = slack.mention("checkout-api database connection refused")
        (error,) = slack.thread_posts("C0GENERAL1", event["ts"])
    assert "retry_question" in action_ids(error)
    retry_id = next(
        e["value"]
        for b in error.blocks
        if b["type"] == "actions"
        for e in b["elements"]
        if e["action_id"] == "retry_question"
    )
    slack.action(
        "retry_question",
        retry_id,
        message_ts=error.response["ts"],
        thread_ts=event["ts"],
        ephemeral=False,
    )
    (update,) = fake.wait_for("chat.update", timeout=30)
    assert update.params["ts"] == error.response["ts"]
    assert CHECKOUT in text_of(update) and "couldn't search" not in text_of(update)


# --------------------------------------------------------------------------- --watch


def test_watcher_reingests_an_edited_runbook(
    slack: SlackHarness, runtime: Runtime, tmp_path: Path
) -> None:
    folder = tmp_path / "runbooks"
    shutil.copytree(SAMPLE_RUNBOOKS, folder)
    watcher = RunbookWatcher(runtime, folder, interval=0.5, debounce_ms=200).start()
    try:
        assert watcher.wait_ready(60)
        assert watcher.runs == 1 and watcher.last_report is not None
        assert watcher.last_report.chunks_embedded == 0  # the same files: nothing to embed
        generation = runtime.searcher.generation()

        phrase = "zorblax quantum defibrillator"
        doc = folder / "platform" / "disk-full.md"
        doc.write_text(
            doc.read_text(encoding="utf-8")
            + f"\n## Recalibrate the {phrase}\n\n"
            + f"When the {phrase} alarms, run `zorblaxctl recalibrate --all` on the node.\n",
            encoding="utf-8",
        )
        started = time.monotonic()
        deadline = started + 30
        while runtime.searcher.generation() == generation and time.monotonic() < deadline:
            time.sleep(0.1)
        assert runtime.searcher.generation() > generation, "the edit was not re-ingested"
        print(f"\nre-ingested within {time.monotonic() - started:.1f}s")

        _, response_id = slack.slash(f"how do i recalibrate the {phrase}")
        (call,) = slack.responses(response_id)
        assert "zorblaxctl recalibrate --all" in text_of(call)
    finally:
        watcher.stop()
    assert not watcher.running


def test_watcher_polls_when_asked_and_survives_errors(
    runtime: Runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "runbooks"
    shutil.copytree(SAMPLE_RUNBOOKS, folder)
    calls: list[Path] = []

    def broken_run(root: Path, options: object, check_only: bool = False) -> object:
        calls.append(root)
        raise RuntimeError("ingest exploded")

    monkeypatch.setattr(runtime.ingestor, "run", broken_run)
    watcher = RunbookWatcher(runtime, folder, interval=0.2, debounce_ms=50, force_polling=True)
    watcher.start()
    try:
        assert watcher.wait_ready(10)
        (folder / "platform" / "new.md").write_text("# New\n\nText.\n", encoding="utf-8")
        deadline = time.monotonic() + 10
        while len(calls) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(calls) >= 2  # the initial sync and the change, both failed...
        assert watcher.errors >= 2
        assert watcher.running  # ...and the watcher carries on
    finally:
        watcher.stop()


# --------------------------------------------------------------------------- the CLI


def _cli(*args: str) -> list[str]:
    """The runbook-bot command line, as installed."""
    return [str(ROOT / ".venv" / "bin" / "runbook-bot"), *args]


def test_serve_subprocess_answers_a_signed_slash_command(
    sample_index_template: Path,
    redis_server: RedisServer,
    fake: FakeSlackAPI,
    model_dir: Path,
    tmp_path: Path,
) -> None:
    data = copy_index(sample_index_template, tmp_path / "data")
    if not (data / "models").exists():
        (data / "models").symlink_to(model_dir)  # the offline model the session assembled
    port, metrics_port = free_port(), free_port()
    env = {
        **os.environ,
        "RUNBOOK_METRICS_TOKEN": "scrape-token",
        "RUNBOOK_METRICS_PORT": str(metrics_port),
        "SLACK_BOT_TOKEN": "xoxb-test",
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": fake.base_url,
        "REDIS_URL": redis_server.url,
        "RUNBOOK_ACCESS_MAP_PATH": str(ACCESS_MAP),
        "RUNBOOK_LOG_FORMAT": "text",
    }
    env.pop("SLACK_APP_TOKEN", None)
    log_path = tmp_path / "serve.log"
    with log_path.open("w") as log_file:
        proc = subprocess.Popen(
            _cli("--data-dir", str(data), "serve", "--port", str(port), "--host", "127.0.0.1"),
            cwd=ROOT,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        health = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                health = http(base + "/healthz")
                break
            except OSError:
                time.sleep(0.2)
        assert health is not None, log_path.read_text()
        assert health.status == 200 and health.json()["qdrant"] is True

        body = (
            "command=%2Frunbook&text=checkout-api+database+connection+refused"
            "&user_id=U0ALICE01&channel_id=C0GENERAL1&channel_name=general&team_id=T1"
            f"&response_url={fake.response_url('subprocess')}&trigger_id=t.1"
        )
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        headers.update(signed_headers(SECRET, body))
        ack = http(base + "/slack/events", body.encode(), headers)
        print(f"\nsubprocess /runbook ack took {ack.seconds * 1000:.0f} ms")
        assert ack.status == 200
        assert ack.seconds < ACK_BUDGET_SECONDS
        assert CHECKOUT in ack.body  # the acknowledgement carries the answer

        # /metrics: the bearer token on the public port, or the loopback metrics port
        assert http(base + "/metrics").status == 401
        scraped = http(base + "/metrics", headers={"Authorization": "Bearer scrape-token"})
        assert scraped.status == 200 and "runbook_bot_requests_total" in scraped.body
        local = http(f"http://127.0.0.1:{metrics_port}/metrics")
        assert local.status == 200 and "runbook_bot_requests_total" in local.body

        # a second process cannot ingest into the data dir the server holds (though it
        # answers from the persisted snapshot without opening the store)
        assert http(base + "/healthz").json()["store_open"] is False
        ingest = subprocess.run(
            _cli("--data-dir", str(data), "ingest", str(SAMPLE_RUNBOOKS)),
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert ingest.returncode != 0
        assert "in use by another runbook-bot process" in ingest.stderr
        assert "Traceback" not in ingest.stderr + ingest.stdout
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    output = log_path.read_text()
    print(output)
    assert code == 0, output
    assert "serving on port" in output and "http mode" in output
    assert f"metrics on port {port} with the bearer token and on 127.0.0.1:{metrics_port}" in output
    assert "scrape-token" not in output
    assert "Traceback" not in output


def test_serve_without_slack_credentials_exits_2(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLACK_")}
    env["SLACK_BOT_TOKEN"] = "xoxb-test"
    result = subprocess.run(
        _cli("--data-dir", str(tmp_path / "data"), "serve", "--port", "0"),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "SLACK_SIGNING_SECRET" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_on_a_port_in_use_exits_1(tmp_path: Path, redis_server: RedisServer) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "RUNBOOK_"))}
    env.update(
        {
            "SLACK_BOT_TOKEN": "xoxb-test",
            "SLACK_SIGNING_SECRET": SECRET,
            "REDIS_URL": redis_server.url,
        }
    )
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env["RUNBOOK_METRICS_PORT"] = str(port)
        result = subprocess.run(
            _cli("--data-dir", str(tmp_path / "data"), "serve", "--port", "0"),
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 1, result.stderr
    assert f"cannot listen on 0.0.0.0:0 (metrics: 127.0.0.1:{port})" in result.stderr
    assert "Traceback" not in result.stderr


def test_every_answer_links_to_the_same_question_in_the_browser(
    sample_data_dir: Path, redis_server: RedisServer, fake: FakeSlackAPI, embedder: FastEmbedder
) -> None:
    rt = make_runtime(
        sample_data_dir, redis_server.url, fake, embedder, public_url="https://runbooks.example.com"
    )
    h = SlackHarness(rt, fake)
    try:
        token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
        for question in (
            f"checkout-api database connection refused, token {token}",
            "how do i reset the grafana admin password",
        ):
            _, response_id = h.slash(question)
            (reply,) = h.responses(response_id)
            urls = [
                e.get("url", "")
                for b in reply.blocks
                if b["type"] == "actions"
                for e in b["elements"]
                if e["action_id"] == "open_in_browser"
            ]
            assert len(urls) == 1, question
            assert urls[0].startswith("https://runbooks.example.com/ask?q=")
            assert token not in urls[0]  # the question is redacted before it travels
        h.assert_valid()
    finally:
        h.close()
        rt.close()
