"""Who to call, end to end: the human step in Slack answers, "Page on-call", and "Who do
I call?" in a thread.

Real bolt App over signed HTTP, the fake Slack Web API, a local fake PagerDuty REST API
(HTTPS, recording every request), a real redis-server, the sample runbooks in embedded
Qdrant with the real model.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.runtime import Runtime
from bot.slack.actions import ESCALATE, PAGE_ONCALL
from retrieval.search.embeddings import FastEmbedder
from tests.bot.slack_harness import (
    SlackHarness,
    action_ids,
    make_runtime,
    next_ts,
    request_id_of,
    text_of,
)
from tests.conftest import RedisServer
from tests.fakes.pagerduty_api import Certificate, FakePagerDuty, self_signed
from tests.fakes.slack_api import FakeSlackAPI, RecordedCall

TOKEN = "pd-scenario-token-9876543210"
CHANNEL = "C0INCIDENT1"
CHECKOUT = "checkout-api/database-connection-failures.md"
ADA = "U0ADA00001"


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    return self_signed(tmp_path_factory.mktemp("pd-tls"))


@pytest.fixture()
def pagerduty(tls: Certificate) -> Iterator[FakePagerDuty]:
    with FakePagerDuty(tls, token=TOKEN) as server:
        server.add_service("PCHK001", policy="PEP0001")
        server.put_on_call("PEP0001", "Ada Lovelace", email="ada@example.com")
        yield server


@pytest.fixture()
def fake() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as api:
        api.set_conversation(CHANNEL, name="inc-checkout-db")
        api.set_user(ADA, profile={"email": "ada@example.com", "real_name": "Ada Lovelace"})
        yield api


@pytest.fixture()
def runtime(
    sample_data_dir: Path,
    redis_server: RedisServer,
    fake: FakeSlackAPI,
    embedder: FastEmbedder,
    pagerduty: FakePagerDuty,
    tmp_path: Path,
) -> Iterator[Runtime]:
    services = tmp_path / "services.yml"
    services.write_text("checkout-api:\n  pagerduty_service: PCHK001\n", encoding="utf-8")
    rt = make_runtime(
        sample_data_dir,
        redis_server.url,
        fake,
        embedder,
        pagerduty_token=TOKEN,
        pagerduty_base_url=pagerduty.base_url,
        pagerduty_ca_file=pagerduty.tls.cert,
        pagerduty_from="runbook-bot@example.com",
        services_map_path=services,
    )
    yield rt
    rt.close()


def _wait(predicate, timeout: float = 15.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _button(call: RecordedCall, action_id: str) -> dict[str, object]:
    for block in call.blocks:
        for element in block.get("elements") or []:
            if isinstance(element, dict) and element.get("action_id") == action_id:
                return element
    raise AssertionError(f"no {action_id} button")


def test_a_thread_answer_names_who_is_on_call_and_pages_them_once(
    slack: SlackHarness, fake: FakeSlackAPI, pagerduty: FakePagerDuty
) -> None:
    parent = next_ts()
    slack.mention("checkout-api database connection refused", channel=CHANNEL, thread_ts=parent)
    (reply,) = slack.thread_posts(CHANNEL, parent)
    shown = text_of(reply)
    assert CHECKOUT in shown
    # who is on call now, by name and PagerDuty page; never a ping in the channel
    assert (
        ":bust_in_silhouette: *On call now for checkout-api (PagerDuty):* "
        "*<https://acme.pagerduty.com/users/PUADALOV|Ada Lovelace>*"
    ) in shown
    assert f"<@{ADA}>" not in shown
    assert pagerduty.requests_to("/oncalls")[0].query["escalation_policy_ids[]"] == ["PEP0001"]

    # "Page on-call" asks first (Slack shows the confirmation before the click is sent)
    page = _button(reply, PAGE_ONCALL)
    confirm = page["confirm"]
    assert isinstance(confirm, dict)
    assert confirm["title"]["text"] == "Page on-call?"
    assert "creates a PagerDuty incident" in confirm["text"]["text"]
    assert "Ada Lovelace" in confirm["text"]["text"]

    rid = request_id_of(reply)
    click = {
        "channel": CHANNEL,
        "message_ts": reply.response["ts"],
        "thread_ts": parent,
        "ephemeral": False,
    }
    result, _ = slack.action(PAGE_ONCALL, rid, **click)  # type: ignore[arg-type]
    assert result.status == 200
    _wait(lambda: len(pagerduty.incidents) == 1)
    sent = pagerduty.requests_to("/incidents", "POST")[0]
    incident = sent.body["incident"]
    assert incident["service"]["id"] == "PCHK001"
    assert sent.headers["from"] == "runbook-bot@example.com"
    assert incident["title"].startswith("Checkout API: database connection failures: ")
    thread_link = f"https://fake.slack.com/archives/{CHANNEL}/p{parent.replace('.', '')}"
    assert thread_link in incident["body"]["details"]

    # the thread says who paged whom, with the incident; the answer shows it was done
    posts = slack.thread_posts(CHANNEL, parent, count=2)
    assert (
        ":pager: <@U0ALICE01> paged on-call (*Ada Lovelace*) through PagerDuty: "
        "<https://acme.pagerduty.com/incidents/PINC0001|incident #1>."
    ) in text_of(posts[1])
    (update,) = fake.wait_for("chat.update", timeout=10)
    assert "Paged on-call by <@U0ALICE01>" in text_of(update)
    assert PAGE_ONCALL not in action_ids(update)

    # a second click (another person, a retry) pages nobody again
    slack.action(PAGE_ONCALL, rid, **click)  # type: ignore[arg-type]
    slack.settle()
    assert len(pagerduty.incidents) == 1
    assert len(slack.thread_posts(CHANNEL, parent, count=2)) == 2


def test_an_ephemeral_answer_mentions_the_person_on_call(
    slack: SlackHarness, pagerduty: FakePagerDuty
) -> None:
    _, response_id = slack.slash("checkout-api database connection refused", channel=CHANNEL)
    (call,) = slack.responses(response_id)
    # only the asker reads it: the on-call person is a mention (found by their email)
    assert f"*On call now for checkout-api (PagerDuty):* <@{ADA}>" in text_of(call)


def test_pagerduty_down_names_the_owner_and_offers_escalate(
    slack: SlackHarness, pagerduty: FakePagerDuty, fake: FakeSlackAPI
) -> None:
    fake.set_usergroups({"checkout-oncall": ("S0CHECKOUT", ["U0CHK0001"])})
    pagerduty.fail_next("/services", 503, times=10)
    parent = next_ts()
    slack.mention("checkout-api database connection refused", channel=CHANNEL, thread_ts=parent)
    (reply,) = slack.thread_posts(CHANNEL, parent)
    shown = text_of(reply)
    assert ":bust_in_silhouette: *Owner:* *@checkout-oncall*" in shown
    assert PAGE_ONCALL not in action_ids(reply)
    assert ESCALATE in action_ids(reply)


def test_who_do_i_call_in_a_thread_always_names_someone(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    parent = next_ts()
    slack.mention("checkout-api database connection refused", channel=CHANNEL, thread_ts=parent)
    slack.thread_posts(CHANNEL, parent)
    slack.mention("who do I call?", channel=CHANNEL, thread_ts=parent)
    posts = slack.thread_posts(CHANNEL, parent, count=2)
    shown = text_of(posts[1])
    assert "*On call now for checkout-api (PagerDuty):*" in shown
    assert "Ada Lovelace" in shown


# --------------------------------------------------------------------------- a runbook's end

LEDGER = """---
service: ledger-api
---
# Ledger API: export job stuck

## Symptoms

The nightly ledger export has not finished after two hours and `ledger_export_running`
stays at 1.

## Fix

Restart the export worker:

```
kubectl -n ledger rollout restart deploy/ledger-export
```
"""

LEDGER_FILES = """---
service: ledger-api
owner: "@ledger-team"
---
# Ledger API: export files missing from the bucket

## Symptoms

The export job finished but no files arrived in `s3://ledger-exports`.

## Fix

Re-run the upload step:

```
kubectl -n ledger create job --from=cronjob/ledger-upload ledger-upload-manual
```
"""

RECONCILE = """---
service: ledger-api
owner: "@ledger-team"
---
# Ledger API: reconciliation mismatch

## Symptoms

The nightly reconciliation reports a mismatch between ledger and payments totals.

## Fix

Re-run the reconciliation for the day:

```
ledger-admin reconcile --date yesterday
```

## Escalation

Page the ledger team lead if totals still differ after a re-run.
"""

BILLING = """---
service: billing
owner: "@billing-oncall"
---
# Billing: export job stuck

## Symptoms

The billing export job is stuck and does not finish.

## Mitigation

### Restart the export worker

```
kubectl -n billing rollout restart deploy/billing-export
```

### Skip the stuck batch

```
billing-admin export skip --batch current
```
"""


def test_what_next_after_the_last_fix_says_the_runbook_has_ended_and_who_to_call(
    tmp_path: Path, redis_server: RedisServer, fake: FakeSlackAPI, embedder: FastEmbedder
) -> None:
    root = tmp_path / "runbooks"
    for rel, text in {
        "ledger/export-stuck.md": LEDGER,
        "ledger/export-files-missing.md": LEDGER_FILES,
        "billing/export-stuck.md": BILLING,
        "ledger/reconcile.md": RECONCILE,
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    rt = make_runtime(
        tmp_path / "data", redis_server.url, fake, embedder, fallback_contact="@sre-oncall"
    )
    fake.set_usergroups({"sre-oncall": ("S0SRE", ["U0SRE0001"])})
    h = SlackHarness(rt, fake)
    try:
        rt.ingest(root)
        parent = next_ts()
        h.mention("ledger export job stuck, what do I do?", channel=CHANNEL, thread_ts=parent)
        (first,) = h.thread_posts(CHANNEL, parent)
        assert "kubectl -n ledger rollout restart deploy/ledger-export" in text_of(first)

        h.mention("that didn't work, what next?", channel=CHANNEL, thread_ts=parent)
        second = h.thread_posts(CHANNEL, parent, count=2)[1]
        shown = text_of(second)
        assert "*That is all this runbook has.* “Fix” was the last fix in" in shown
        assert "Ledger API: export job stuck" in shown
        # who to call: the runbook is ownerless, so the fallback contact, said once
        assert ":bust_in_silhouette: *Ask:* *@sre-oncall*" in shown
        assert shown.count("No owner on record.") == 1
        # the other runbooks of its service, never another service's runbook
        assert "*Other runbooks for this service:*" in shown
        assert "Ledger API: export files missing from the bucket" in shown
        assert "Billing" not in shown
        # not the same text again, and never as another service's closest match
        assert "Closest match (different service)" not in shown
        assert "rollout restart" not in shown
        assert "escalate_to_owner" in action_ids(second)

        h.mention("who do I call?", channel=CHANNEL, thread_ts=parent)
        third = h.thread_posts(CHANNEL, parent, count=3)[2]
        assert ":bust_in_silhouette: Who to call about" in text_of(third)
        assert "*@sre-oncall*" in text_of(third)

        # a runbook with an Escalation section: after its last fix, that section, said so
        other = next_ts()
        h.mention("ledger reconciliation mismatch", channel=CHANNEL, thread_ts=other)
        (fix,) = h.thread_posts(CHANNEL, other)
        assert "ledger-admin reconcile --date yesterday" in text_of(fix)
        h.mention("still failing, what else?", channel=CHANNEL, thread_ts=other)
        escalation = text_of(h.thread_posts(CHANNEL, other, count=2)[1])
        assert "*That is all this runbook has.* No fix follows after “Fix”" in escalation
        assert "Page the ledger team lead" in escalation
        assert ":bust_in_silhouette: *Owner:* *@ledger-team*" in escalation
        assert "Closest match (different service)" not in escalation
        h.settle()
    finally:
        h.close()
        rt.close()
    h.assert_valid()


def test_escalate_on_an_ownerless_runbook_asks_in_its_service_channel(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    fake.set_response(
        "conversations.list",
        {"ok": True, "channels": [{"id": "C0NOTIFY1", "name": "notifications"}]},
    )
    parent = next_ts()
    slack.mention(
        "ses bounce rate high email delivery failures what do i do",
        channel=CHANNEL,
        thread_ts=parent,
    )
    (reply,) = slack.thread_posts(CHANNEL, parent)
    assert ":bust_in_silhouette: *Ask in:* <#C0NOTIFY1>" in text_of(reply)
    slack.action(
        ESCALATE,
        request_id_of(reply),
        channel=CHANNEL,
        message_ts=reply.response["ts"],
        thread_ts=parent,
        ephemeral=False,
    )
    slack.settle()
    (asked,) = [
        c for c in fake.calls_to("chat.postMessage") if c.params.get("channel") == "C0NOTIFY1"
    ]
    line = asked.blocks[0]["text"]["text"]
    assert line.startswith(":rotating_light: <@U0ALICE01> needs help with *<https://")
    thread_link = f"https://fake.slack.com/archives/{CHANNEL}/p{parent.replace('.', '')}"
    assert f"in <{thread_link}|this thread>." in line
    posts = slack.thread_posts(CHANNEL, parent, count=2)
    assert "is escalating to <#C0NOTIFY1>" in text_of(posts[1])
    assert "I asked there, with a link to this thread." in text_of(posts[1])
