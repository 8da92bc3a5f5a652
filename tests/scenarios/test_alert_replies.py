"""Alert posts answered in their thread without a mention: which runbook, and the noise.

Real bolt App over signed HTTP, the fake Slack Web API, a real redis-server, the sample
runbooks in embedded Qdrant with the real model. The alerts are the messages
Alertmanager, Grafana, PagerDuty and Opsgenie post (tests/fixtures/alerts).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.reports import gaps_report
from bot.runtime import Runtime
from core.health import DEFAULT_RETRY_AFTER_SECONDS
from retrieval.search.embeddings import FastEmbedder
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
from tests.retrieval.answer.test_answerer import ETCD_NO_LEADER
from tests.retrieval.answer.test_topics import COLLECTION

ALERTS = "C0ALERTS01"  # #alerts-checkout: matches RUNBOOK_ALERT_CHANNELS
QUIET = "C0QUIET001"  # #team-chat: does not
CHECKOUT = "checkout-api/database-connection-failures.md"


@pytest.fixture()
def fake() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as api:
        api.set_conversation(ALERTS, name="alerts-checkout")
        api.set_conversation(QUIET, name="team-chat")
        api.set_usergroups({"checkout-oncall": ("S0CHECKOUT", ["U0CHK0001"])})
        yield api


def _harness(
    data_dir: Path,
    redis_server: RedisServer,
    fake: FakeSlackAPI,
    embedder: FastEmbedder,
    **settings: Any,
) -> tuple[Runtime, SlackHarness]:
    rt = make_runtime(
        data_dir, redis_server.url, fake, embedder, alert_channels="alerts-*, #ops-*", **settings
    )
    return rt, SlackHarness(rt, fake)


@pytest.fixture()
def slack(
    sample_data_dir: Path, redis_server: RedisServer, fake: FakeSlackAPI, embedder: FastEmbedder
) -> Iterator[SlackHarness]:
    rt, h = _harness(sample_data_dir, redis_server, fake, embedder)
    yield h
    h.close()
    rt.close()
    h.assert_valid()


def posts(fake: FakeSlackAPI, channel: str) -> list[RecordedCall]:
    return [c for c in fake.calls_to("chat.postMessage") if c.params.get("channel") == channel]


def post_alert(
    slack: SlackHarness, name: str, channel: str = ALERTS, **kwargs: Any
) -> dict[str, Any]:
    _, event = slack.message(alert_message(name), channel=channel, **kwargs)
    return event


# --------------------------------------------------------------------------- which runbook


def test_alertmanager_post_is_answered_in_its_thread_from_its_runbook_url(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    result, alert = slack.message(alert_message("alertmanager-firing"), channel=ALERTS)
    assert result.status == 200
    (reply,) = slack.thread_posts(ALERTS, alert["ts"])
    shown = text_of(reply)
    assert reply.params["thread_ts"] == alert["ts"]  # in the alert's thread, not the channel
    preface = reply.blocks[0]["elements"][0]["text"]
    assert preface == (
        ":rotating_light: *CheckoutApiDbConnectionErrors*: the runbook its `runbook_url` names.\n"
        ":link: The alert's runbook_url: <https://github.com/acme/runbooks/blob/main/"
        "checkout-api/database-connection-failures.md#mitigation|"
        "checkout-api/database-connection-failures.md>"
    )
    lead = next(b for b in reply.blocks if b.get("block_id") == "lead")["text"]["text"]
    assert CHECKOUT in lead and "Mitigation" in lead  # what to do, not the symptoms
    assert "Symptoms" not in shown
    assert "escalate_to_owner" in action_ids(reply)
    assert "kubectl -n checkout" in reply.params["text"]
    slack.settle()
    assert len(fake.calls_to("chat.postMessage")) == 1


def test_title_only_alertmanager_post_is_answered_from_the_runbook_naming_the_alert(
    slack: SlackHarness,
) -> None:
    alert = post_alert(slack, "alertmanager-default")
    (reply,) = slack.thread_posts(ALERTS, alert["ts"])
    assert "the runbook that names this alert" in text_of(reply)
    assert "orders/queue-backlog.md" in text_of(reply)


def test_pagerduty_post_without_a_runbook_url_is_answered_from_search(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    alert = post_alert(slack, "pagerduty-triggered")
    (reply,) = slack.thread_posts(ALERTS, alert["ts"])
    shown = text_of(reply)
    assert "platform/disk-full.md" in shown
    assert ":rotating_light: *NodeDiskAlmostFull*: the closest runbook." in shown

    # PagerDuty resolves by editing its message: the reply is updated, nothing is posted
    resolved = alert_message("pagerduty-resolved", ts=alert["ts"])
    slack.event(
        {
            "type": "message",
            "subtype": "message_changed",
            "channel": ALERTS,
            "channel_type": "channel",
            "hidden": True,
            "ts": next_ts(),
            "event_ts": "1700003600.000100",
            "message": resolved,
            "previous_message": alert_message("pagerduty-triggered", ts=alert["ts"]),
        }
    )
    (update,) = fake.wait_for("chat.update", timeout=10)
    assert update.params["ts"] == reply.response["ts"]
    assert update.blocks[0]["block_id"] == "resolved"
    assert "<!date^1700003600^" in update.blocks[0]["elements"][0]["text"]
    slack.settle()
    assert len(posts(fake, ALERTS)) == 1


@pytest.mark.parametrize(
    ("fixture", "runbook"),
    [
        ("opsgenie", "payments/provider-latency.md"),
        ("grafana", "search/elasticsearch-cluster-red.md"),
    ],
)
def test_opsgenie_and_grafana_posts_follow_their_runbook_url(
    slack: SlackHarness, fixture: str, runbook: str
) -> None:
    alert = post_alert(slack, fixture)
    (reply,) = slack.thread_posts(ALERTS, alert["ts"])
    assert runbook in text_of(reply)
    assert "`runbook_url` names" in text_of(reply)


def test_a_runbook_url_to_an_unindexed_document_is_named_in_the_reply(
    slack: SlackHarness,
) -> None:
    alert = post_alert(slack, "alertmanager-unindexed")
    (reply,) = slack.thread_posts(ALERTS, alert["ts"])
    preface = reply.blocks[0]["elements"][0]["text"]
    assert preface.startswith(":warning: *InventoryCacheHitRatioLow*: its runbook_url (<https://")
    assert "inventory/redis-eviction.md" in preface
    assert "is not an indexed runbook" in preface
    assert "inventory/cache-stampede.md" in text_of(reply)  # the best match instead


def _alert_reply(h: SlackHarness, title: str, summary: str, runbook_url: str) -> RecordedCall:
    """The thread reply to an Alertmanager post of ``title`` (``Name (labels)``) whose
    runbook link is ``runbook_url``."""
    name = title.split(" ", 1)[0]
    message = alert_message("alertmanager-firing")
    attachment = message["attachments"][0]
    attachment["title"] = f"[FIRING:1] {title}"
    attachment["fallback"] = attachment["title"]
    attachment["text"] = (
        f"*Alert:* {summary} - `critical`\n"
        f"*Runbook:* <{runbook_url}|:spiral_note_pad:>\n"
        f"*Details:*\n  • *alertname:* `{name}`\n"
    )
    attachment["actions"][0]["url"] = runbook_url
    _, alert = h.message(message, channel=ALERTS)
    (reply,) = h.thread_posts(ALERTS, alert["ts"])
    return reply


def test_a_runbook_url_into_a_file_of_runbooks_is_answered_from_the_runbook_it_points_at(
    tmp_path: Path, redis_server: RedisServer, fake: FakeSlackAPI, embedder: FastEmbedder
) -> None:
    """Every alert's runbook in one file: the alert's runbook_url anchor picks the runbook
    in it, though the alert's words match another runbook of the file better."""
    root = tmp_path / "runbooks"
    root.mkdir()
    (root / "alerts.md").write_text(COLLECTION, encoding="utf-8")
    rt, h = _harness(tmp_path / "data", redis_server, fake, embedder)
    try:
        rt.ingest(root)
        url = "https://github.com/acme/runbooks/blob/main/alerts.md#queue-disk-full"
        reply = _alert_reply(
            h,
            "BrokerVolumeAlmostFull (kafka prod critical)",
            "the root filesystem is above 90%",
            url,
        )
        lead = next(b for b in reply.blocks if b.get("block_id") == "lead")["text"]["text"]
        assert "QueueDiskFull &gt; Mitigation" in lead
        assert "kafka-delete-records" in reply.params["text"]
        assert "journalctl" not in reply.params["text"]  # DiskAlmostFull's fix
        h.settle()
    finally:
        h.close()
        rt.close()
    h.assert_valid()


@pytest.mark.parametrize("section", ["Diagnosis", "Mitigation"])
def test_a_runbook_url_into_a_section_of_a_runbook_is_answered_leading_with_that_section(
    tmp_path: Path,
    redis_server: RedisServer,
    fake: FakeSlackAPI,
    embedder: FastEmbedder,
    section: str,
) -> None:
    """One runbook, the same alert: its runbook_url's #anchor names the section the reply
    opens with, the runbook's Diagnosis or its Mitigation."""
    root = tmp_path / "runbooks"
    (root / "etcd").mkdir(parents=True)
    (root / "etcd" / "etcdNoLeader.md").write_text(ETCD_NO_LEADER, encoding="utf-8")
    rt, h = _harness(tmp_path / "data", redis_server, fake, embedder)
    try:
        rt.ingest(root)
        url = f"https://github.com/acme/runbooks/blob/main/etcd/etcdNoLeader.md#{section.lower()}"
        reply = _alert_reply(
            h, "etcdNoLeader (etcd prod critical)", "etcd cluster has no leader", url
        )
        lead = next(b for b in reply.blocks if b.get("block_id") == "lead")["text"]["text"]
        assert lead.startswith(f":arrow_forward: *{section} · "), lead
        first = {"Diagnosis": "etcdctl endpoint status", "Mitigation": "delete pod etcd-"}
        shown = reply.params["text"]
        assert first[section] in shown, shown
        h.settle()
    finally:
        h.close()
        rt.close()
    h.assert_valid()


# --------------------------------------------------------------------------- noise


def test_retried_deliveries_are_answered_once(slack: SlackHarness, fake: FakeSlackAPI) -> None:
    event_id = unique("EvAlert")
    ts = next_ts()
    for retry in (None, 1, 2):
        result, _ = slack.message(
            alert_message("alertmanager-firing"),
            channel=ALERTS,
            ts=ts,
            event_id=event_id,
            retry_num=retry,
        )
        assert result.status == 200
    slack.thread_posts(ALERTS, ts)
    slack.settle()
    assert len(fake.calls_to("chat.postMessage")) == 1


def test_a_renotification_points_to_the_first_reply(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    first = post_alert(slack, "alertmanager-firing")
    slack.thread_posts(ALERTS, first["ts"])
    slack.settle()  # the first reply recorded: the repeat comes a repeat_interval later
    again = post_alert(slack, "alertmanager-firing")  # Alertmanager's repeat_interval
    (pointer,) = slack.thread_posts(ALERTS, again["ts"])
    line = text_of(pointer)
    assert "*CheckoutApiDbConnectionErrors* fired again" in line
    assert f"p{first['ts'].replace('.', '')}" in line  # a link to the first notification
    assert CHECKOUT not in line and not action_ids(pointer)  # one line, no second answer
    slack.settle()
    assert len(posts(fake, ALERTS)) == 2


def test_a_repeat_while_the_first_reply_is_still_being_posted_points_to_it(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    fake.set_delay("chat.postMessage", 1.5)  # Slack is slow to confirm the first reply
    first = post_alert(slack, "alertmanager-firing")
    slack.thread_posts(ALERTS, first["ts"])  # sent, not yet confirmed or recorded
    fake.set_delay("chat.postMessage", 0)
    again = post_alert(slack, "alertmanager-firing")
    (pointer,) = slack.thread_posts(ALERTS, again["ts"])
    line = text_of(pointer)
    assert "*CheckoutApiDbConnectionErrors* fired again" in line
    assert f"p{first['ts'].replace('.', '')}" in line
    slack.settle()
    assert len(posts(fake, ALERTS)) == 2


def test_resolved_updates_the_reply_instead_of_posting(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    firing = post_alert(slack, "alertmanager-firing")
    (reply,) = slack.thread_posts(ALERTS, firing["ts"])
    post_alert(slack, "alertmanager-resolved", ts="1700009000.000200")
    (update,) = fake.wait_for("chat.update", timeout=10)
    assert update.params["channel"] == ALERTS
    assert update.params["ts"] == reply.response["ts"]
    assert update.blocks[0]["elements"][0]["text"].startswith(":white_check_mark: *Resolved*")
    assert "<!date^1700009000^" in update.blocks[0]["elements"][0]["text"]
    assert CHECKOUT in text_of(update)  # the answer stays
    slack.settle()
    assert len(posts(fake, ALERTS)) == 1

    # the buttons keep the resolution when they render the answer again
    click, _ = slack.action(
        "feedback_helpful",
        request_id_of(reply),
        channel=ALERTS,
        message_ts=reply.response["ts"],
        thread_ts=firing["ts"],
        ephemeral=False,
    )
    assert click.status == 200
    updates = fake.wait_for("chat.update", count=2, timeout=10)
    assert updates[-1].blocks[0]["block_id"] == "resolved"

    # firing again after the resolution is a new alert: a new answer
    refire = post_alert(slack, "alertmanager-firing")
    (answer,) = slack.thread_posts(ALERTS, refire["ts"])
    assert CHECKOUT in text_of(answer)


def test_a_resolution_that_arrives_while_the_reply_is_posted_updates_it(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    # the reply's post takes a moment, and the alert resolves meanwhile (a flapping alert,
    # or a busy Slack): the resolution waits for the reply and updates it
    posting = threading.Event()

    def slow_post(call: RecordedCall) -> dict[str, Any]:
        posting.set()
        time.sleep(1.0)
        return fake._api_chat_postMessage(call.params)

    fake.set_response("chat.postMessage", slow_post)
    post_alert(slack, "alertmanager-firing")
    assert posting.wait(timeout=30)  # the reply is on its way, not yet answered
    post_alert(slack, "alertmanager-resolved", ts="1700009000.000200")
    (update,) = fake.wait_for("chat.update", timeout=10)
    (reply,) = fake.calls_to("chat.postMessage")
    assert update.blocks[0]["elements"][0]["text"].startswith(":white_check_mark: *Resolved*")
    slack.settle()
    assert len(fake.calls_to("chat.postMessage")) == 1  # no "draft a runbook" beside it
    assert reply.params["channel"] == update.params["channel"] == ALERTS


def test_channels_outside_the_alert_channels_get_no_reply(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    post_alert(slack, "alertmanager-firing", channel=QUIET)
    slack.settle()
    assert not fake.calls_to("chat.postMessage")


def test_a_channel_renamed_into_the_alert_channels_is_answered_from_then_on(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    post_alert(slack, "alertmanager-firing", channel=QUIET)
    slack.settle()
    assert not posts(fake, QUIET)
    fake.set_conversation(QUIET, name="alerts-payments")
    renamed = {
        "type": "channel_rename",
        "channel": {"id": QUIET, "name": "alerts-payments", "created": 1700000000},
        "event_ts": next_ts(),
    }
    assert slack.event(renamed).status == 200
    slack.settle()
    alert = post_alert(slack, "alertmanager-firing", channel=QUIET)
    (reply,) = slack.thread_posts(QUIET, alert["ts"])
    assert CHECKOUT in text_of(reply)


def test_people_and_the_bot_itself_are_not_answered(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    # a person pasting an alert asks with a mention; the bot's own posts are never read
    slack.message(
        {"user": "U0ALICE01", "text": "[FIRING:1] CheckoutApiDbConnectionErrors"}, channel=ALERTS
    )
    own = alert_message("alertmanager-firing", bot_id="BBOT", user="UBOT")
    slack.message(own, channel=ALERTS)
    # a reply inside an alert's thread is no new alert
    slack.message(
        alert_message("alertmanager-firing", thread_ts="1700000500.000001"), channel=ALERTS
    )
    slack.settle()
    assert not fake.calls_to("chat.postMessage")


def test_no_confident_runbook_means_silence_by_default(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    unknown = {
        "subtype": "bot_message",
        "bot_id": "B0ALERTMGR",
        "username": "Alertmanager",
        "attachments": [{"title": "[FIRING:1] QuantumFluxCapacitorDrift (flux prod)"}],
    }
    slack.message(unknown, channel=ALERTS)
    slack.settle()
    assert not fake.calls_to("chat.postMessage")


def test_no_confident_runbook_can_be_one_line(
    sample_data_dir: Path, redis_server: RedisServer, fake: FakeSlackAPI, embedder: FastEmbedder
) -> None:
    rt, slack = _harness(sample_data_dir, redis_server, fake, embedder, alert_unsure="note")
    try:
        unknown = {
            "subtype": "bot_message",
            "bot_id": "B0ALERTMGR",
            "attachments": [{"title": "[FIRING:1] QuantumFluxCapacitorDrift (flux prod)"}],
        }
        _, alert = slack.message(unknown, channel=ALERTS)
        (note,) = slack.thread_posts(ALERTS, alert["ts"])
        assert text_of(note).endswith("No runbook for *QuantumFluxCapacitorDrift*.")
        assert len(note.blocks) == 1
    finally:
        slack.close()
        rt.close()


def test_replies_per_channel_are_rate_limited(
    sample_data_dir: Path, redis_server: RedisServer, fake: FakeSlackAPI, embedder: FastEmbedder
) -> None:
    rt, slack = _harness(sample_data_dir, redis_server, fake, embedder, alert_rate_limit=1)
    try:
        first = post_alert(slack, "alertmanager-firing")
        slack.thread_posts(ALERTS, first["ts"])
        post_alert(slack, "grafana")  # another alert, over the limit
        slack.settle()
        assert len(posts(fake, ALERTS)) == 1
    finally:
        slack.close()
        rt.close()


def test_alerts_are_answered_once_while_redis_is_down(
    slack: SlackHarness, fake: FakeSlackAPI, redis_server: RedisServer
) -> None:
    redis_server.stop()
    first = post_alert(slack, "alertmanager-firing")
    slack.thread_posts(ALERTS, first["ts"])
    slack.settle()  # the first reply recorded: the repeat comes a repeat_interval later
    again = post_alert(slack, "alertmanager-firing")
    slack.thread_posts(ALERTS, again["ts"])  # the pointer, from this process's memory
    slack.settle()
    assert [CHECKOUT in text_of(c) for c in posts(fake, ALERTS)] == [True, False]


def test_an_alert_answered_while_redis_was_down_gets_a_pointer_after_it_returns(
    slack: SlackHarness, fake: FakeSlackAPI, redis_server: RedisServer
) -> None:
    redis_server.stop()
    first = post_alert(slack, "alertmanager-firing")
    slack.thread_posts(ALERTS, first["ts"])
    slack.settle()
    redis_server.start()  # empty: the claim lived only in this process
    time.sleep(DEFAULT_RETRY_AFTER_SECONDS + 0.2)  # the stores ask Redis again
    again = post_alert(slack, "alertmanager-firing")  # the re-notification
    (pointer,) = slack.thread_posts(ALERTS, again["ts"])
    assert "*CheckoutApiDbConnectionErrors* fired again" in text_of(pointer)
    assert f"p{first['ts'].replace('.', '')}" in text_of(pointer)
    slack.settle()
    assert [CHECKOUT in text_of(c) for c in posts(fake, ALERTS)] == [True, False]


# --------------------------------------------------------------------------- escalation


def test_escalate_on_an_alert_reply_mentions_the_owner_once(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    alert = post_alert(slack, "alertmanager-firing")
    (reply,) = slack.thread_posts(ALERTS, alert["ts"])
    rid = request_id_of(reply)
    for user in ("U0BOB0001", "U0CAROL01"):  # two people click, one after the other
        result, _ = slack.action(
            "escalate_to_owner",
            rid,
            user=user,
            channel=ALERTS,
            message_ts=reply.response["ts"],
            thread_ts=alert["ts"],
            ephemeral=False,
        )
        assert result.status == 200
        slack.settle()
    escalations = [c for c in posts(fake, ALERTS) if "is escalating to" in text_of(c)]
    assert len(escalations) == 1
    (escalation,) = escalations
    assert escalation.params["thread_ts"] == alert["ts"]
    assert escalation.blocks[0]["text"]["text"].startswith(
        ":rotating_light: <@U0BOB0001> is escalating to <!subteam^S0CHECKOUT|@checkout-oncall>"
    )


# --------------------------------------------------------------------------- the card


def test_an_alert_reply_is_a_compact_card_that_expands_in_place(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    alert = post_alert(slack, "alertmanager-firing")
    (card,) = slack.thread_posts(ALERTS, alert["ts"])
    shown = text_of(card)
    # the lead, its first commands byte for byte, the human step, two kinds of buttons
    lead = next(b for b in card.blocks if b.get("block_id") == "lead")["text"]["text"]
    assert CHECKOUT in lead and "Mitigation" in lead
    assert "\n```\nkubectl -n checkout" in lead
    assert ":bust_in_silhouette: *Owner:*" in shown
    assert action_ids(card) == {"full_runbook", "escalate_to_owner"}
    assert "Other fixes" not in shown and "Related incidents" not in shown
    assert len(card.blocks) <= 5
    assert len(json.dumps(card.blocks)) < 2600  # the whole playbook was about 2,600 characters

    # "Full runbook" shows the whole answer in place, with all its buttons
    slack.action(
        "full_runbook",
        request_id_of(card),
        channel=ALERTS,
        message_ts=card.response["ts"],
        thread_ts=alert["ts"],
        ephemeral=False,
    )
    (expanded,) = fake.wait_for("chat.update", timeout=10)
    assert expanded.params["ts"] == card.response["ts"]
    assert "Other fixes in this runbook" in text_of(expanded)
    assert {"feedback_helpful", "escalate_to_owner"} <= action_ids(expanded)
    slack.settle()
    assert len(posts(fake, ALERTS)) == 1  # nothing new posted


def test_resolved_collapses_the_card_to_one_line_with_the_runbook_link(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    firing = post_alert(slack, "alertmanager-firing")
    (card,) = slack.thread_posts(ALERTS, firing["ts"])
    post_alert(slack, "alertmanager-resolved", ts="1700009100.000200")
    (update,) = fake.wait_for("chat.update", timeout=10)
    assert update.params["ts"] == card.response["ts"]
    assert len(update.blocks) == 1
    line = update.blocks[0]["elements"][0]["text"]
    assert line.startswith(":white_check_mark: *Resolved* <!date^1700009100^")
    assert "*CheckoutApiDbConnectionErrors* cleared · *<https://github.com/acme/runbooks/" in line
    assert CHECKOUT in line
    assert not action_ids(update)


def test_with_web_pages_full_runbook_opens_the_runbook_page(
    sample_data_dir: Path, redis_server: RedisServer, fake: FakeSlackAPI, embedder: FastEmbedder
) -> None:
    rt, slack = _harness(
        sample_data_dir, redis_server, fake, embedder, public_url="https://runbooks.acme.io"
    )
    try:
        alert = post_alert(slack, "alertmanager-firing")
        (card,) = slack.thread_posts(ALERTS, alert["ts"])
        (button,) = [
            e
            for b in card.blocks
            if b.get("type") == "actions"
            for e in b["elements"]
            if e["action_id"] == "full_runbook"
        ]
        assert button["url"] == (
            "https://runbooks.acme.io/runbooks/runbooks:checkout-api/database-connection-failures"
        )
    finally:
        slack.close()
        rt.close()
    slack.assert_valid()


def test_a_runbook_url_naming_no_indexed_runbook_is_never_silence_and_is_a_gap(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    unknown = alert_message("alertmanager-firing")
    attachment = unknown["attachments"][0]
    attachment["title"] = "[FIRING:1] QuantumFluxCapacitorDrift (flux prod)"
    attachment["fallback"] = attachment["title"]
    url = "https://github.com/acme/runbooks/blob/main/flux/capacitor-drift.md"
    attachment["text"] = f"*Runbook:* <{url}|:spiral_note_pad:>\n"
    attachment["actions"][0]["url"] = url
    _, alert = slack.message(unknown, channel=ALERTS)  # RUNBOOK_ALERT_UNSURE is "silence"
    (note,) = slack.thread_posts(ALERTS, alert["ts"])
    assert len(note.blocks) == 1
    line = text_of(note)
    assert "No runbook for *QuantumFluxCapacitorDrift*." in line
    assert f"Its runbook_url (<{url}|flux/capacitor-drift.md>) is not an indexed runbook." in line
    # the gaps report lists it
    slack.settle()
    records = slack.runtime.query_log.recent(1)
    groups = gaps_report(records, [])
    reasons = {reason for g in groups for reason, _ in g.reasons}
    assert "unindexed-runbook-url" in reasons
    questions = [q.question for g in groups for q in g.questions]
    assert any("QuantumFluxCapacitorDrift" in q and "capacitor-drift.md" in q for q in questions)
