"""From "no runbook covers this" to a merged runbook, through the real bolt App over
signed HTTP, the fake Slack Web API and a fake GitHub API: ask, draft from the thread,
review, pull request, merge, ingest, and the same question answered from the new runbook."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.drafts import tracker_for
from bot.reports import gaps_report
from bot.runtime import Runtime
from bot.slack.actions import DRAFT_RUNBOOK
from bot.slack.drafting import SHORTCUT_ID
from retrieval.search.embeddings import FastEmbedder
from tests.bot.slack_harness import SlackHarness, action_ids, make_runtime, text_of
from tests.conftest import ROOT, RedisServer
from tests.fakes.github_api import FakeGitHub
from tests.fakes.slack_api import FakeSlackAPI, RecordedCall

INCIDENT = "C0INC00001"
ALERTS = "C0ALERTS01"
SHARED = "C0EXTINC01"  # Slack Connect with a vendor
PRIVATE = "G0PRIV0001"
SRE_PRIVATE = "C0SREPRIV1"  # listed in the access map for the sre group
TOKEN = "ghp_scenarioTOKEN9876"
QUESTION = "zookeeper ensemble lost quorum what now"
ROOT_TS = "1700002000.000100"
THREAD = [
    {"ts": ROOT_TS, "user": "U0ALICE01", "text": "zookeeper ensemble lost quorum, kafka down"},
    {
        "ts": "1700002000.000200",
        "user": "U0BOB0001",
        "text": "checking\n```kubectl -n kafka exec zk-0 -- zkServer.sh status```",
    },
    {
        "ts": "1700002000.000300",
        "user": "U0BOB0001",
        "text": "restarting the follower: `kubectl -n kafka delete pod zk-2` "
        "<!subteam^S0SRE|@sre-oncall>",
    },
    {
        "ts": "1700002000.000400",
        "user": "U0BOB0001",
        "text": "fixed by restarting zk-2, quorum back",
    },
]


@pytest.fixture()
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=TOKEN) as fake:
        yield fake


@pytest.fixture()
def fake() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as api:
        api.set_conversation(INCIDENT, name="inc-zookeeper")
        api.set_conversation(PRIVATE, name="secret-project", is_private=True)
        api.set_conversation(SRE_PRIVATE, name="sre-private", is_private=True)
        api.set_members(SRE_PRIVATE, ["U0ALICE01"])
        api.set_conversation(ALERTS, name="alerts-inventory")
        api.set_conversation(SHARED, name="ext-vendor-incident", is_ext_shared=True)
        api.set_thread(
            SHARED,
            ROOT_TS,
            [{**m, "user_team": "T1"} for m in THREAD]
            + [
                {
                    "ts": "1700002000.000900",
                    "user": "U0VENDOR1",
                    "user_team": "T9",
                    "text": "vendor here: `curl -X POST https://vendor.example/reset`",
                }
            ],
        )
        api.set_thread(INCIDENT, ROOT_TS, THREAD)
        api.set_thread(PRIVATE, ROOT_TS, THREAD)
        api.set_thread(SRE_PRIVATE, ROOT_TS, THREAD)
        yield api


@pytest.fixture()
def repository() -> dict[str, str]:
    """The runbook repository's settings (none: drafts are handed over as files)."""
    return {"github_token": TOKEN, "github_repo": "acme/runbooks"}


@pytest.fixture()
def runtime(
    repository: dict[str, str],
    sample_data_dir: Path,
    redis_server: RedisServer,
    fake: FakeSlackAPI,
    embedder: FastEmbedder,
    github: FakeGitHub,
) -> Iterator[Runtime]:
    rt = make_runtime(
        sample_data_dir,
        redis_server.url,
        fake,
        embedder,
        github_api_url=github.base_url,
        alert_channels="alerts-*",
        public_url="https://runbooks.acme.io",
        **repository,
    )
    yield rt
    rt.close()


def wait_for(fake: FakeSlackAPI, method: str, count: int = 1) -> list[RecordedCall]:
    return fake.wait_for(method, count, timeout=30)


def view_of(call: RecordedCall) -> dict[str, Any]:
    view = call.params["view"]
    return json.loads(view) if isinstance(view, str) else view


def submit(slack: SlackHarness, view: dict[str, Any], **fields: str) -> Any:
    return slack.submit_view(view, **fields)


def shortcut(slack: SlackHarness, channel: str) -> None:
    slack.shortcut(
        {
            "user": "U0BOB0001",
            "text": THREAD[1]["text"],
            "thread_ts": ROOT_TS,
            "ts": "1700002000.000200",
        },
        channel=channel,
        callback_id=SHORTCUT_ID,
    )


def review(slack: SlackHarness, fake: FakeSlackAPI, count: int = 1) -> dict[str, Any]:
    slack.settle()
    updates = wait_for(fake, "views.update", count)
    return view_of(updates[count - 1])


def test_the_whole_loop_from_no_runbook_to_an_answer(
    slack: SlackHarness, fake: FakeSlackAPI, github: FakeGitHub, runtime: Runtime, tmp_path: Path
) -> None:
    # ask in the incident thread: no runbook covers it, and the answer offers a draft
    slack.mention(QUESTION, channel=INCIDENT, thread_ts=ROOT_TS)
    (answer,) = slack.thread_posts(INCIDENT, ROOT_TS)
    slack.settle()
    assert DRAFT_RUNBOOK in action_ids(answer), text_of(answer)
    value = next(
        e["value"]
        for b in answer.blocks
        if b.get("type") == "actions"
        for e in b["elements"]
        if e["action_id"] == DRAFT_RUNBOOK
    )
    # the button opens the review modal; nothing is created yet
    slack.action(DRAFT_RUNBOOK, value, channel=INCIDENT, thread_ts=ROOT_TS, ephemeral=False)
    view = review(slack, fake)
    assert view["callback_id"] == "draft_runbook_review"
    preview = json.dumps(view)
    assert "zkServer.sh status" in preview and "kubectl -n kafka delete pod zk-2" in preview
    assert not github.calls_to("POST", "/pulls")
    # confirmed with an edited service: the pull request on a new branch links the thread
    result = submit(slack, view, service="kafka", path="kafka/zookeeper-lost-quorum.md")
    assert result.status == 200
    slack.settle()
    (pull,) = github.repo.pulls
    assert "fake.slack.com/archives/C0INC00001" in pull.body
    files = github.files(pull.head)
    text = files["kafka/zookeeper-lost-quorum.md"]
    assert text.startswith("---\ntitle: zookeeper ensemble lost quorum what now\nservice: kafka\n")
    assert "@sre-oncall (user group)" in text
    dm = [c for c in fake.calls_to("chat.postMessage") if c.params.get("channel") == "U0ALICE01"]
    assert dm and "pull request #1" in text_of(dm[-1])

    # the gaps report shows the question with its open pull request
    tracker = tracker_for(runtime.settings)
    groups = gaps_report(runtime.query_log.recent(1), runtime.query_log.recent_feedback(1))
    from bot.drafts import gaps_with_drafts

    shown = gaps_with_drafts(groups, tracker, lambda: runtime.searcher.snapshot().chunks)
    (q,) = [q for g in shown for q in g.questions if "zookeeper" in q.question]
    assert q.draft == "pull request #1 open"

    # merged into the runbook folder and ingested: the same question is answered from it
    folder = tmp_path / "runbooks"
    shutil.copytree(ROOT / "runbooks", folder)
    for path, content in github.merge(pull.number).items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(content, encoding="utf-8")
    report = runtime.ingest(folder, runtime.ingest_options())
    assert "runbooks:kafka/zookeeper-lost-quorum" in report.added, report
    _, asked = slack.mention(QUESTION, channel=INCIDENT)
    (again,) = slack.thread_posts(INCIDENT, asked["ts"])
    slack.settle()
    shown_again = text_of(again)
    assert "Mitigation · zookeeper ensemble lost quorum what now" in shown_again, shown_again
    assert "kubectl -n kafka delete pod zk-2" in shown_again
    assert DRAFT_RUNBOOK not in action_ids(again)  # answered: nothing to draft
    tracker.refresh(force=True)
    shown = gaps_with_drafts(groups, tracker, lambda: runtime.searcher.snapshot().chunks)
    (q,) = [q for g in shown for q in g.questions if "zookeeper" in q.question]
    assert q.draft == "closed: answered by kafka/zookeeper-lost-quorum.md"


def test_a_private_channel_the_access_map_does_not_list_is_refused(
    slack: SlackHarness, fake: FakeSlackAPI, github: FakeGitHub
) -> None:
    shortcut(slack, PRIVATE)
    view = review(slack, fake)
    assert "access map does not list" in json.dumps(view)
    assert "callback_id" not in view  # nothing to confirm
    assert not github.calls


def test_only_members_of_a_private_channel_may_draft_from_it(
    slack: SlackHarness, fake: FakeSlackAPI, github: FakeGitHub
) -> None:
    slack.shortcut(
        {"user": "U0BOB0001", "text": "x", "thread_ts": ROOT_TS, "ts": "1700002000.000200"},
        channel=SRE_PRIVATE,
        callback_id=SHORTCUT_ID,
        user="U0MALLORY",
    )
    view = review(slack, fake)
    assert "You are not in this channel" in json.dumps(view)
    assert not github.calls


def test_a_restricted_runbook_quoted_in_a_public_thread_stays_out(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    quoted = {
        "ts": "1700002000.000500",
        "user": "U0BOB0001",
        "text": "from the sre runbook:\n```vault login -method=oidc role=breakglass```",
    }
    fake.set_thread(INCIDENT, ROOT_TS, [*THREAD, quoted])
    shortcut(slack, INCIDENT)
    shown = json.dumps(review(slack, fake))
    assert "breakglass" not in shown
    assert "Left out: 1 line quoting runbooks" in shown
    assert "zkServer.sh status" in shown


def test_a_listed_private_channel_gets_its_audience_as_access(
    slack: SlackHarness, fake: FakeSlackAPI, github: FakeGitHub
) -> None:
    shortcut(slack, SRE_PRIVATE)
    view = review(slack, fake)
    assert "Readable by: sre" in json.dumps(view)
    submit(slack, view, path="platform/zookeeper.md")
    slack.settle()
    (pull,) = github.repo.pulls
    assert "access:\n- sre" in github.files(pull.head)["platform/zookeeper.md"]


def zookeeper_alert(status: str, ts: str) -> dict[str, Any]:
    title = f"[{status}] ZookeeperEnsembleQuorumLost (kafka prod critical)"
    text = (
        "*Alert:* zookeeper ensemble lost quorum - `critical`\n"
        "*Description:* fewer than 2 of 3 zookeeper nodes are in the ensemble.\n"
        "*Details:*\n  • *alertname:* `ZookeeperEnsembleQuorumLost`\n"
        "  • *service:* `kafka`\n  • *severity:* `critical`\n"
    )
    return {
        "type": "message",
        "subtype": "bot_message",
        "username": "Alertmanager",
        "bot_id": "B0ALERTMGR",
        "text": "",
        "ts": ts,
        "attachments": [
            {
                "color": "danger" if status.startswith("FIRING") else "good",
                "fallback": title,
                "title": title,
                "text": text,
                "mrkdwn_in": ["text"],
            }
        ],
    }


def test_a_resolved_alert_without_a_runbook_offers_a_draft_from_its_thread(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    firing_ts = "1700009000.000100"
    slack.message(zookeeper_alert("FIRING:1", firing_ts), channel=ALERTS, ts=firing_ts)
    slack.settle()
    assert not slack_posts(fake, ALERTS)  # no runbook: the bot stayed quiet
    resolved_ts = "1700009000.000300"
    slack.message(zookeeper_alert("RESOLVED", resolved_ts), channel=ALERTS, ts=resolved_ts)
    (offer,) = slack.thread_posts(ALERTS, firing_ts)
    assert DRAFT_RUNBOOK in action_ids(offer)
    assert "ZookeeperEnsembleQuorumLost" in text_of(offer)
    fake.set_thread(ALERTS, firing_ts, [zookeeper_alert("FIRING:1", firing_ts), *THREAD[1:]])
    value = next(
        e["value"] for b in offer.blocks if b.get("type") == "actions" for e in b["elements"]
    )
    slack.action(DRAFT_RUNBOOK, value, channel=ALERTS, ephemeral=False)
    view = review(slack, fake)
    fields = {
        b["block_id"]: b["element"].get("initial_value")
        for b in view["blocks"]
        if b.get("type") == "input"
    }
    assert fields["title"] == "ZookeeperEnsembleQuorumLost"
    assert fields["service"] == "kafka"
    assert fields["path"] == "kafka/zookeeperensemblequorumlost.md"
    shown = json.dumps(view)
    assert "`service=kafka`" in shown and "zkServer.sh status" in shown


def test_slack_connect_leaves_out_the_other_organization(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    shortcut(slack, SHARED)
    view = review(slack, fake)
    shown = json.dumps(view)
    assert "zkServer.sh status" in shown
    assert "vendor.example" not in shown
    assert "Left out: 1 message" in shown


def test_a_path_outside_the_repository_is_refused_in_the_modal(
    slack: SlackHarness, fake: FakeSlackAPI, github: FakeGitHub
) -> None:
    shortcut(slack, INCIDENT)
    view = review(slack, fake)
    result = submit(slack, view, path="../../etc/passwd.md")
    assert result.status == 200
    assert result.json()["response_action"] == "errors"
    assert "path" in result.json()["errors"]
    slack.settle()
    assert not github.calls


@pytest.mark.parametrize("repository", [{}])
def test_without_a_repository_token_the_file_is_sent_and_offered_on_the_web(
    repository: dict[str, str],
    slack: SlackHarness,
    fake: FakeSlackAPI,
    github: FakeGitHub,
    runtime: Runtime,
) -> None:
    shortcut(slack, INCIDENT)
    view = review(slack, fake)
    assert "sends you the file" in json.dumps(view)
    submit(slack, view, path="kafka/zookeeper.md")
    slack.settle()
    (done,) = fake.wait_for("files.completeUploadExternal", timeout=10)
    assert done.params["channel_id"].startswith("D")
    comment = str(done.params.get("initial_comment") or "")
    assert "kafka/zookeeper.md" in comment and "https://runbooks.acme.io/drafts/" in comment
    (upload,) = [c for c in fake.calls if c.method.startswith("files.upload.")]
    assert b"zkServer.sh status" in upload.body
    assert not github.calls
    (record,) = tracker_for(runtime.settings).ledger.records()
    assert record.published.kind == "file" and record.published.state == "sent"
    draft_id = (record.published.url or "").rsplit("/", 1)[-1]
    assert (runtime.settings.drafts_dir / f"{draft_id}.md").read_text().startswith("---\n")


def slack_posts(fake: FakeSlackAPI, channel: str) -> list[RecordedCall]:
    return [c for c in fake.calls_to("chat.postMessage") if c.params.get("channel") == channel]
