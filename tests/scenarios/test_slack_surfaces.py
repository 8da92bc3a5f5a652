"""Direct messages, the message shortcut, the App Home, follow-ups in a thread, and
channels shared outside the company: each through the real bolt App over signed HTTP,
the fake Slack Web API, a real redis-server and the sample runbooks (real model)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.runtime import Runtime
from bot.slack.actions import FEEDBACK_NOT_HELPFUL
from retrieval.search.embeddings import FastEmbedder
from state.querylog import build_record
from tests.bot.alert_fixtures import alert_message
from tests.bot.slack_harness import (
    SlackHarness,
    action_ids,
    make_runtime,
    next_ts,
    request_id_of,
    text_of,
    unique,
)
from tests.conftest import RedisServer
from tests.fakes.slack_api import FakeSlackAPI, RecordedCall

CHECKOUT = "checkout-api/database-connection-failures.md"
ORDERS = "orders/queue-backlog.md"
PAYMENTS = "payments/provider-latency.md"
BREAK_GLASS = "sre/break-glass-access.md"
ALERTS = "C0ALERTS01"
SHARED = "C0EXTPAY01"  # Slack Connect with the payment provider
SHARED_ALERTS = "C0EXTALRT1"
DM = "D0ALICE001"


@pytest.fixture()
def fake() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as api:
        api.set_conversation(ALERTS, name="alerts-orders")
        api.set_conversation(SHARED, name="ext-payments-vendor", is_ext_shared=True)
        api.set_conversation(SHARED_ALERTS, name="alerts-vendor", is_ext_shared=True)
        api.set_usergroups(
            {
                "search-team": ("S0SEARCH01", ["U0ALICE01"]),
                "checkout-oncall": ("S0CHECKOUT", ["U0CHK0001"]),
            }
        )
        yield api


@pytest.fixture()
def runtime(
    sample_data_dir: Path, redis_server: RedisServer, fake: FakeSlackAPI, embedder: FastEmbedder
) -> Iterator[Runtime]:
    rt = make_runtime(sample_data_dir, redis_server.url, fake, embedder, alert_channels="alerts-*")
    yield rt
    rt.close()


def posts_to(fake: FakeSlackAPI, channel: str) -> list[RecordedCall]:
    return [c for c in fake.calls_to("chat.postMessage") if c.params.get("channel") == channel]


def wait_posts(slack: SlackHarness, channel: str, count: int = 1) -> list[RecordedCall]:
    slack.settle()
    found = posts_to(slack.fake, channel)
    assert len(found) >= count, [text_of(c) for c in found]
    return found


def preface_of(call: RecordedCall) -> str:
    block = call.blocks[0]
    assert block.get("block_id") == "preface", block
    return str(block["elements"][0]["text"])


# --------------------------------------------------------------------------- DMs


def test_a_direct_message_is_answered_in_the_conversation(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    result, _ = slack.direct_message("checkout-api database connection refused")
    assert result.status == 200
    (answer,) = wait_posts(slack, DM)
    shown = text_of(answer)
    assert CHECKOUT in shown
    assert "thread_ts" not in answer.params  # a conversation, not a thread
    assert "Asked:" not in shown  # the question is right above
    assert "post_to_channel" not in action_ids(answer)  # there is no channel
    assert "feedback_helpful" in action_ids(answer)
    assert not fake.calls_to("chat.postEphemeral")


def test_a_direct_message_answers_with_the_askers_own_scope(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    question = "break-glass production db access"
    slack.direct_message(question, user="U0SRE0001", channel="D0SRE00001")
    (sre,) = wait_posts(slack, "D0SRE00001")
    assert BREAK_GLASS in text_of(sre)  # in sre: only they read this conversation
    slack.direct_message(question, user="U0ALICE01", channel=DM)
    (alice,) = wait_posts(slack, DM)
    assert BREAK_GLASS not in text_of(alice)


def test_direct_messages_of_bots_edits_and_retries_are_not_answered_twice(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    ts = next_ts()
    event_id = unique("EvDm")
    for retry in (None, 1, 2):
        slack.direct_message("disk full on a node", ts=ts, event_id=event_id, retry_num=retry)
    slack.message({"bot_id": "B0OTHER", "text": "disk full"}, channel=DM, channel_type="im")
    slack.message(
        {"subtype": "message_changed", "message": {"user": "U0ALICE01", "text": "disk full"}},
        channel=DM,
        channel_type="im",
    )
    assert len(wait_posts(slack, DM)) == 1


def test_a_follow_up_in_a_direct_message_continues_the_runbook(slack: SlackHarness) -> None:
    slack.direct_message("order events consumer lag keeps growing, what do i do")
    (first,) = wait_posts(slack, DM)
    assert ORDERS in text_of(first)
    slack.direct_message("and if that doesn't work?")
    _, follow = wait_posts(slack, DM, 2)
    # the first answer showed the runbook's last fix: its escalation follows, said so
    assert preface_of(follow).startswith(
        ":checkered_flag: *That is all this runbook has.* No fix follows after "
        "“Mitigation &gt; Replay the dead-letter queue” in *<https://"
    )
    assert "Orders: order-events consumer lag and queue backlog" in preface_of(follow)
    assert ORDERS in text_of(follow)


# --------------------------------------------------------------------------- shortcut


def test_the_message_shortcut_finds_the_runbook_of_an_alert_privately(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    message = alert_message("alertmanager-firing", ts=next_ts())
    result, response_id = slack.shortcut(message, channel="C0GENERAL1")
    assert result.status == 200
    (answer,) = slack.responses(response_id)
    assert answer.params["response_type"] == "ephemeral"
    shown = text_of(answer)
    assert CHECKOUT in shown
    assert "For the message “[FIRING:1] CheckoutApiDbConnectionErrors" in shown
    assert "the runbook its `runbook_url` names" in shown
    slack.settle()
    assert not fake.calls_to("chat.postMessage")  # private

    # shared with the channel, into the message's thread
    slack.action("post_to_channel", request_id_of(answer), channel="C0GENERAL1")
    (shared,) = wait_posts(slack, "C0GENERAL1")
    assert shared.params["thread_ts"] == message["ts"]
    assert CHECKOUT in text_of(shared)


def test_the_message_shortcut_reads_a_pasted_log(slack: SlackHarness) -> None:
    log_paste = {
        "user": "U0BOB0001",
        "text": (
            "checkout is failing, logs:\n```\n2026-11-30T03:12:09Z ERROR checkout-api "
            'pq: too many connections for role "checkout_app"\n2026-11-30T03:12:10Z ERROR '
            "FATAL: sorry, too many clients already\n```"
        ),
    }
    _, response_id = slack.shortcut(log_paste)
    (answer,) = slack.responses(response_id)
    assert CHECKOUT in text_of(answer)
    assert "For the message “checkout is failing, logs:”" in text_of(answer)
    lead = next(b for b in answer.blocks if b.get("block_id") == "lead")["text"]["text"]
    assert "Symptoms" not in lead  # the log is right there: what to do comes first


def test_the_message_shortcut_on_an_empty_message_says_so(slack: SlackHarness) -> None:
    _, response_id = slack.shortcut({"user": "U0BOB0001", "text": ""})
    (answer,) = slack.responses(response_id)
    assert answer.params["text"] == "This message has no text to find a runbook by."


# --------------------------------------------------------------------------- App Home


def test_the_app_home_shows_the_viewers_runbooks_gaps_and_how_to_ask(
    slack: SlackHarness, fake: FakeSlackAPI, runtime: Runtime
) -> None:
    for n, question in enumerate(["how do i resize the search-api synonym index"] * 2):
        runtime.query_log.record(
            build_record(
                request_id=f"r-gap{n}",
                user_hash="h",
                channel="C1",
                scope_id="s",
                question=question,
                state="abstain",
                reason="no-match",
                cited=[],
                latencies_ms={},
                cache_hit=False,
                service="search-api",
            )
        )
    result = slack.home_opened("U0ALICE01")  # in @search-team
    assert result.status == 200
    (published,) = fake.wait_for("views.publish", timeout=10)
    assert published.params["user_id"] == "U0ALICE01"
    view = published_view(published)
    assert view["type"] == "home"
    shown = "\n".join(text_of_block(b) for b in view["blocks"])
    assert "Search: Elasticsearch cluster status red" in shown  # stale, theirs
    assert "stale: updated" in shown
    assert "Checkout API" not in shown  # not theirs
    assert "search-api" in shown and "how do i resize the search-api synonym index" in shown
    assert "(2×)" in shown
    assert "/runbook" in shown and "Find runbook for this message" in shown

    fake.clear()
    slack.home_opened("U0NOBODY1")
    (other,) = fake.wait_for("views.publish", timeout=10)
    view = published_view(other)
    shown = "\n".join(text_of_block(b) for b in view["blocks"])
    assert "You own no runbooks" in shown
    assert "synonym" not in shown


def test_the_app_home_hides_an_unhelpful_answer_from_a_runbook_the_viewer_may_not_read(
    slack: SlackHarness, fake: FakeSlackAPI, runtime: Runtime
) -> None:
    fake.set_usergroups(
        {
            "search-team": ("S0SEARCH01", ["U0ALICE01"]),
            # both own the platform runbooks; only U0SRE0001 is in sre (access.yml)
            "platform-oncall": ("S0PLATFORM", ["U0SRE0001", "U0PLAT001"]),
        }
    )
    question = "break-glass production db access"
    slack.direct_message(question, user="U0SRE0001", channel="D0SRE00001")
    (answer,) = wait_posts(slack, "D0SRE00001")
    assert BREAK_GLASS in text_of(answer)
    slack.action(
        FEEDBACK_NOT_HELPFUL, request_id_of(answer), user="U0SRE0001", channel="D0SRE00001"
    )
    slack.settle()

    # the query log keeps who may read what the answer cited
    break_glass = "runbooks:sre/break-glass-access"
    (record,) = [r for r in runtime.query_log.recent(1) if r.question == question]
    assert record.cited_access.get(break_glass) == ("sre",)
    (feedback,) = runtime.query_log.recent_feedback(1)
    assert feedback.value == "not_helpful"
    assert feedback.cited_access.get(break_glass) == ("sre",)

    def home_of(user: str) -> str:
        fake.clear()
        slack.home_opened(user)
        (published,) = fake.wait_for("views.publish", timeout=10)
        view = published_view(published)
        return "\n".join(text_of_block(b) for b in view["blocks"])

    sre = home_of("U0SRE0001")
    assert "platform" in sre and question in sre  # in sre: their gap
    outside = home_of("U0PLAT001")
    assert "Your services: platform" in outside  # owns platform runbooks too
    assert question not in outside  # but may not read the runbook the answer came from
    assert "None: every question about your services that you may see" in outside


def published_view(call: RecordedCall) -> dict[str, Any]:
    view = call.params["view"]
    return json.loads(view) if isinstance(view, str) else dict(view)


def text_of_block(block: dict[str, Any]) -> str:
    text = block.get("text")
    parts = [str(text.get("text", ""))] if isinstance(text, dict) else []
    parts += [str(e.get("text", "")) for e in block.get("elements", []) if isinstance(e, dict)]
    return "\n".join(parts)


# --------------------------------------------------------------------------- follow-ups


def test_a_follow_up_in_an_alert_thread_continues_the_same_runbook(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    alert = alert_message("alertmanager-default")
    _, posted = slack.message(alert, channel=ALERTS)
    fake.set_thread(ALERTS, posted["ts"], [dict(alert, ts=posted["ts"])])
    (reply,) = slack.thread_posts(ALERTS, posted["ts"])
    assert ORDERS in text_of(reply)
    first_section = next(b for b in reply.blocks if b.get("block_id") == "lead")["text"]["text"]

    slack.mention("and if that doesn't work?", channel=ALERTS, thread_ts=posted["ts"])
    replies = slack.thread_posts(ALERTS, posted["ts"], count=2)
    follow = replies[1]
    preface = preface_of(follow)
    assert "Continuing from *<https://" in preface
    assert "Orders: order-events consumer lag and queue backlog" in preface
    lead = next(b for b in follow.blocks if b.get("block_id") == "lead")["text"]["text"]
    assert lead != first_section  # the next steps, not the same ones
    assert ORDERS in lead

    slack.mention("who do I call?", channel=ALERTS, thread_ts=posted["ts"])
    replies = slack.thread_posts(ALERTS, posted["ts"], count=3)
    lead = next(b for b in replies[2].blocks if b.get("block_id") == "lead")["text"]["text"]
    assert "Escalation" in lead and ORDERS in lead


def test_a_new_question_in_the_thread_is_answered_as_such(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    _, first = slack.mention("order events consumer lag keeps growing")
    slack.thread_posts("C0GENERAL1", first["ts"])
    fake.set_thread(
        "C0GENERAL1",
        first["ts"],
        [{"ts": first["ts"], "user": "U0ALICE01", "text": "<@UBOT> order events lag"}],
    )
    slack.mention("checkout-api database connection refused", thread_ts=first["ts"])
    replies = slack.thread_posts("C0GENERAL1", first["ts"], count=2)
    assert CHECKOUT in text_of(replies[1])
    assert "Continuing from" not in text_of(replies[1])


# --------------------------------------------------------------------------- Slack Connect


def test_a_shared_channel_gets_only_shareable_runbooks(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    # the payments runbook is marked shareable (access: [everyone, external])
    _, ok = slack.mention(
        "payment provider p99 latency over 2s, how do we fail over", channel=SHARED
    )
    (answer,) = slack.thread_posts(SHARED, ok["ts"])
    assert PAYMENTS in text_of(answer)

    # the checkout runbook is internal: nothing in the thread, a private note to the asker
    _, declined = slack.mention("checkout-api database connection refused", channel=SHARED)
    slack.settle()
    assert not [c for c in posts_to(fake, SHARED) if c.params.get("thread_ts") == declined["ts"]]
    (note,) = fake.calls_to("chat.postEphemeral")
    assert note.params["user"] == "U0ALICE01" and note.params["channel"] == SHARED
    assert "shared with people outside the company" in text_of(note)
    assert CHECKOUT not in text_of(note)

    # the slash command there answers from shareable runbooks only, too
    _, response_id = slack.slash(
        "checkout-api database connection refused",
        channel=SHARED,
        channel_name="ext-payments-vendor",
    )
    (private,) = slack.responses(response_id)
    assert CHECKOUT not in text_of(private)
    assert "shared with people outside the company" in text_of(private)


def test_a_channel_shared_outside_the_company_gets_only_shareable_runbooks_at_once(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    channel = "C0WARROOM1"
    question = "checkout-api database connection refused"
    fake.set_conversation(channel, name="checkout-war-room")
    _, before = slack.mention(question, channel=channel)
    (answer,) = slack.thread_posts(channel, before["ts"])
    assert CHECKOUT in text_of(answer)  # an internal runbook, while the channel is internal

    # shared with a vendor: Slack says so at once, well within the channel details' cache
    fake.set_conversation(channel, name="checkout-war-room", is_ext_shared=True)
    shared = {"type": "channel_shared", "connected_team_id": "E0VENDOR1", "channel": channel}
    assert slack.event({**shared, "event_ts": next_ts()}).status == 200
    slack.settle()
    _, after = slack.mention(question, channel=channel)
    slack.settle()
    assert not [c for c in posts_to(fake, channel) if c.params.get("thread_ts") == after["ts"]]
    (note,) = fake.calls_to("chat.postEphemeral")
    assert "shared with people outside the company" in text_of(note)
    assert CHECKOUT not in text_of(note)

    # no longer shared with anyone: the channel's own audience again
    fake.set_conversation(channel, name="checkout-war-room", is_ext_shared=False)
    unshared = {
        "type": "channel_unshared",
        "previously_connected_team_id": "E0VENDOR1",
        "channel": channel,
        "is_ext_shared": False,
        "event_ts": next_ts(),
    }
    assert slack.event(unshared).status == 200
    slack.settle()
    _, again = slack.mention(question, channel=channel)
    (answer,) = slack.thread_posts(channel, again["ts"])
    assert CHECKOUT in text_of(answer)


def test_a_member_of_another_organization_gets_only_shareable_runbooks(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    event = {
        "type": "app_mention",
        "user": "U0VENDOR1",
        "user_team": "T0VENDOR",
        "text": "<@UBOT> checkout-api database connection refused",
        "ts": next_ts(),
        "channel": "C0GENERAL1",
    }
    slack.event(event)
    slack.settle()
    assert not slack.fake.calls_to("chat.postMessage")
    (note,) = fake.calls_to("chat.postEphemeral")
    assert note.params["user"] == "U0VENDOR1"


def test_alerts_in_a_shared_channel_are_answered_only_from_shareable_runbooks(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    _, payments = slack.message(alert_message("opsgenie"), channel=SHARED_ALERTS)
    (answer,) = slack.thread_posts(SHARED_ALERTS, payments["ts"])
    assert PAYMENTS in text_of(answer)
    slack.message(alert_message("alertmanager-firing"), channel=SHARED_ALERTS)
    slack.settle()
    assert len(posts_to(fake, SHARED_ALERTS)) == 1  # the checkout alert: silence
    assert not fake.calls_to("chat.postEphemeral")


def test_a_channel_slack_says_nothing_about_counts_as_shared(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    fake.fail_next("conversations.info", error="channel_not_found", times=5)
    slack.mention("checkout-api database connection refused", channel="C0UNKNOWN1")
    slack.settle()
    assert not posts_to(fake, "C0UNKNOWN1")
    (note,) = fake.calls_to("chat.postEphemeral")
    assert CHECKOUT not in text_of(note)
