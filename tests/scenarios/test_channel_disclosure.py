"""Nothing a channel may not read is posted there: not a citation, a related incident, a
warning or a superseded-by name. Checked when answering in a channel and again, against
the live index, when "Post to channel" is clicked.

A small corpus of its own: a public refunds runbook with a restricted earlier version and
a restricted incident about the same failure, and a public legacy runbook superseded by a
restricted one. Real bolt App over signed HTTP, real Redis, embedded Qdrant, real model.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.runtime import Runtime
from bot.slack.actions import POST_TO_CHANNEL as ACTION_POST_TO_CHANNEL
from core.models import SearchFilter
from retrieval.search.embeddings import FastEmbedder
from tests.bot.test_slack_app import (
    SlackHarness,
    action_ids,
    assert_all_messages_valid,
    make_runtime,
    request_id_of,
    text_of,
)
from tests.conftest import RedisServer
from tests.fakes.slack_api import FakeSlackAPI

SRE_USER = "U0SRE0001"  # in the sre group (runbooks/access.yml)
PLAIN_USER = "U0PLAIN01"
INCIDENT_CHANNEL = "C0INC42420"  # a public incident channel: its audience is everyone

REFUNDS = """\
---
title: "Payments: refunds not completing"
service: payments
owner: "@payments-oncall"
updated: {today}
status: current
doc_type: runbook
access: [everyone]
---

# Payments: refunds not completing

## Symptoms

- Refunds do not complete and customers report missing refunds.

## Mitigation

1. Check the provider callback secret against the provider dashboard.
2. Restart the refund worker: `kubectl -n payments rollout restart deploy/refund-worker`.
3. Replay the rejected callbacks from the provider dashboard.
"""

REFUNDS_V1 = """\
---
title: "Refund webhook signature mismatch, refunds stuck PENDING (v1, internal)"
service: payments
owner: "@payments-oncall"
updated: {today}
status: superseded
superseded_by: payments/refund-webhook.md
doc_type: runbook
access: [sre]
---

# Refund webhook signature mismatch, refunds stuck PENDING (v1, internal)

## Mitigation

1. Refund webhook signature mismatch and refunds stuck `PENDING`: compare the refund
   webhook signing secret with the provider dashboard, restart the refund worker and
   replay the refund webhooks so no refund stays stuck PENDING.
"""

INCIDENT = """\
---
title: "Incident 2026-10-02: refund webhook signature mismatch after key leak"
service: payments
owner: "@payments-oncall"
updated: {today}
status: current
doc_type: incident
access: [{incident_access}]
---

# Incident 2026-10-02: refund webhook signature mismatch after key leak

## Summary

The refund webhook signing secret was rotated after a key leak; refund webhooks were
rejected with `signature mismatch` for 3 hours and refunds stayed `PENDING` until the
refund worker was restarted and the refund webhooks replayed.
"""

LEGACY = """\
---
title: "Invoice retry scheduler (legacy)"
service: billing
owner: "@billing-oncall"
updated: {today}
status: superseded
superseded_by: billing/invoice-retry-internal.md
doc_type: runbook
access: [everyone]
---

# Invoice retry scheduler (legacy)

## Mitigation

1. When the invoice retry scheduler stalls, run `billing-cli invoice-retry --resume`.
"""

LEGACY_SUCCESSOR = """\
---
title: "Invoice retry scheduler (internal)"
service: billing
owner: "@billing-oncall"
updated: {today}
status: current
doc_type: runbook
access: [sre]
---

# Invoice retry scheduler (internal)

## Mitigation

1. Drain the billing queue before resuming the scheduler.
"""

REFUND_Q = "refund webhook signature mismatch, refunds stuck PENDING"
REFUNDS_TITLE = "Payments: refunds not completing"
LEGACY_Q = "invoice retry scheduler stalls, how do I resume invoice-retry"
INCIDENT_TITLE = "refund webhook signature mismatch after key leak"
V1_TITLE = "(v1, internal)"
RESTRICTED_NAME = "invoice-retry-internal"


def write_corpus(root: Path, incident_access: str = "sre") -> None:
    from datetime import date

    today = date.today().isoformat()
    files = {
        "payments/refund-webhook.md": REFUNDS,
        "payments/refund-webhook-v1.md": REFUNDS_V1,
        "incidents/2026-10-02-refund-webhook.md": INCIDENT,
        "billing/invoice-retry-legacy.md": LEGACY,
        "billing/invoice-retry-internal.md": LEGACY_SUCCESSOR,
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.format(today=today, incident_access=incident_access))


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "runbooks"
    write_corpus(root)
    return root


@pytest.fixture()
def fake() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as api:
        api.set_conversation(INCIDENT_CHANNEL, name="inc-4242-refunds")
        yield api


@pytest.fixture()
def runtime(
    corpus: Path,
    tmp_path: Path,
    redis_server: RedisServer,
    fake: FakeSlackAPI,
    embedder: FastEmbedder,
) -> Iterator[Runtime]:
    rt = make_runtime(tmp_path / "data", redis_server.url, fake, embedder, sure_min_confidence=0.0)
    rt.ingest(corpus)
    yield rt
    rt.close()


@pytest.fixture()
def slack(runtime: Runtime, fake: FakeSlackAPI) -> Iterator[SlackHarness]:
    h = SlackHarness(runtime, fake)
    yield h
    h.close()
    assert_all_messages_valid(fake)


def posted_to(slack: SlackHarness, channel: str) -> list[str]:
    slack.settle()
    return [
        text_of(c)
        for c in slack.fake.calls_to("chat.postMessage")
        if c.params["channel"] == channel
    ]


def test_post_to_channel_leaves_out_a_restricted_incident_and_warning(
    slack: SlackHarness,
) -> None:
    _, response_id = slack.slash(
        REFUND_Q, user=SRE_USER, channel=INCIDENT_CHANNEL, channel_name="inc-4242-refunds"
    )
    (private,) = slack.responses(response_id)
    mine = text_of(private)
    # the asker (sre) sees the restricted incident and the superseded v1 warning...
    assert "Payments: refunds not completing" in mine
    assert INCIDENT_TITLE in mine
    assert V1_TITLE in mine
    # ...and may post: every cited runbook is readable by the whole channel
    assert ACTION_POST_TO_CHANNEL in action_ids(private)

    _, click_id = slack.action(
        ACTION_POST_TO_CHANNEL, request_id_of(private), user=SRE_USER, channel=INCIDENT_CHANNEL
    )
    (done,) = slack.responses(click_id)
    (public,) = posted_to(slack, INCIDENT_CHANNEL)
    assert REFUNDS_TITLE in public  # the answer itself (no link: the corpus is no git checkout)
    assert INCIDENT_TITLE not in public
    assert "2026-10-02-refund-webhook" not in public
    assert V1_TITLE not in public and "refund-webhook-v1" not in public
    assert done.params["text"].startswith("Posted to the channel.")
    assert "1 related incident" in done.params["text"] and "1 warning" in done.params["text"]


def test_a_mention_never_names_a_restricted_successor(
    slack: SlackHarness, runtime: Runtime
) -> None:
    # what the answerer itself says to an everyone-only scope names the restricted runbook
    raw = runtime.answerer.answer(LEGACY_Q, SearchFilter(groups=("everyone",)))
    assert RESTRICTED_NAME in raw.model_dump_json()

    _, event = slack.mention(LEGACY_Q, user=PLAIN_USER, channel="C0GENERAL1")
    (reply,) = slack.thread_posts("C0GENERAL1", event["ts"])
    shown = text_of(reply)
    assert "Invoice retry scheduler (legacy)" in shown  # the warning stays, without the name
    assert "superseded" in shown
    assert RESTRICTED_NAME not in shown
    slack.settle()
    assert not slack.fake.calls_to("chat.postEphemeral")


def test_access_is_rechecked_when_post_is_clicked(
    slack: SlackHarness, runtime: Runtime, corpus: Path
) -> None:
    write_corpus(corpus, incident_access="everyone")
    runtime.ingest(corpus)
    _, response_id = slack.slash(
        REFUND_Q, user=SRE_USER, channel=INCIDENT_CHANNEL, channel_name="inc-4242-refunds"
    )
    (private,) = slack.responses(response_id)
    assert INCIDENT_TITLE in text_of(private)  # readable by everyone when answered
    assert ACTION_POST_TO_CHANNEL in action_ids(private)

    write_corpus(corpus, incident_access="sre")  # restricted before the click
    runtime.ingest(corpus)
    _, click_id = slack.action(
        ACTION_POST_TO_CHANNEL, request_id_of(private), user=SRE_USER, channel=INCIDENT_CHANNEL
    )
    (done,) = slack.responses(click_id)
    (public,) = posted_to(slack, INCIDENT_CHANNEL)
    assert REFUNDS_TITLE in public
    assert INCIDENT_TITLE not in public
    assert "1 related incident" in done.params["text"]
