"""A runbook drafted from real-looking Slack threads: what it keeps, in which section, and
that it passes the project's own ``ingest --check``; publishing to a fake GitHub API."""

from __future__ import annotations

import io
import json
import logging
from datetime import date
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.drafts import (
    DraftInvalid,
    DraftLedger,
    DraftTracker,
    Published,
    PublishSettings,
    ReadyDraft,
    Subject,
    build_draft,
    check_draft,
    checked_path,
    draft_path,
    make_publisher,
    new_record,
    with_drafts,
)
from bot.drafts.publishing import DraftState
from bot.reports import GapGroup, GapQuestion, format_gaps_table
from bot.slack.draft_thread import ThreadReader, restricted_lines, thread_link
from bot.slack.home_view import HomeData, render_home
from bot.slack.report_view import format_gaps_slack
from ingest.sync import IngestOptions
from tests.fakes.github_api import FakeGitHub

TODAY = date(2026, 12, 6)
ROOT = "https://acme.slack.com/archives/C0INC00001/p1700000000000100"
NAMES = {"U0ALICE01": "@alice", "U0BOB0001": "@bob", "U0CAROL01": "@carol"}
BOT = "U0RUNBOOK"


def reader(external: bool = False) -> ThreadReader:
    return ThreadReader(
        team_id="T1",
        bot_user_id=BOT,
        external=external,
        name_of=lambda u: NAMES.get(u, f"@{u}"),
        permalink=lambda ts: thread_link(ROOT, ts, "1700000000.000100"),
    )


ALERT = {
    "ts": "1700000000.000100",
    "bot_id": "B0ALERTMGR",
    "subtype": "bot_message",
    "text": "[FIRING:1] CheckoutDbPoolExhausted (checkout-api page)",
    "attachments": [
        {
            "title": "[FIRING:1] CheckoutDbPoolExhausted",
            "text": "*Alert:* pool exhausted\n*Labels:*\n• alertname: CheckoutDbPoolExhausted"
            "\n• service: checkout-api\n• severity: page",
        }
    ],
}
THREAD = [
    ALERT,
    {
        "ts": "1700000000.000200",
        "user": "U0ALICE01",
        "text": "seeing `ERROR: too many connections for role checkout` in the logs",
    },
    {
        "ts": "1700000000.000300",
        "user": "U0ALICE01",
        "text": "checking the pools\n```kubectl -n checkout exec deploy/pgbouncer -- "
        "psql -c 'SHOW POOLS'```",
        "edited": {"user": "U0ALICE01", "ts": "1700000001.000000"},
    },
    {"ts": "1700000000.000400", "user": BOT, "text": "> restricted runbook quote: break glass"},
    {"ts": "1700000000.000500", "subtype": "tombstone", "text": "This message was deleted."},
    {
        "ts": "1700000000.000600",
        "user": "U0BOB0001",
        "text": "<!subteam^S0SRE0001|@sre-oncall> can you look? also <@U0CAROL01>\n"
        "restarting: `kubectl -n checkout rollout restart deploy/checkout-api` "
        "with DB_PASSWORD=hunter2hunter2",
    },
    {
        "ts": "1700000000.000700",
        "user": "U0BOB0001",
        "text": "root cause was a leaked connection in the retry loop",
    },
    {"ts": "1700000000.000800", "user": "U0ALICE01", "text": "fixed by the restart, all green"},
]


def subject(**kw: object) -> Subject:
    base: dict[str, object] = {
        "title": "Checkout DB pool exhausted",
        "service": "checkout-api",
        "owner": "@checkout-oncall",
        "thread_url": ROOT,
    }
    return Subject(**{**base, **kw})  # type: ignore[arg-type]


def test_a_thread_becomes_sections_in_order_attributed_and_linked() -> None:
    read = reader().read(THREAD)
    assert read.left_out == 2  # the bot's own answer and the deleted message
    assert read.alert is not None and read.alert.name == "CheckoutDbPoolExhausted"
    draft = build_draft(read.messages, subject(alert=read.alert), today=TODAY)
    md = draft.markdown
    assert md.startswith("---\ntitle: Checkout DB pool exhausted\nservice: checkout-api\n")
    assert "alerts:\n- CheckoutDbPoolExhausted" in md
    assert "updated: 2026-12-06" in md and "review_every: 90d" in md
    symptoms = md.split("## Symptoms")[1].split("## Diagnosis")[0]
    assert "`CheckoutDbPoolExhausted`" in symptoms and "`service=checkout-api`" in symptoms
    assert "> seeing ERROR: too many connections for role checkout in the logs" in symptoms
    diagnosis = md.split("## Diagnosis")[1].split("## Mitigation")[0]
    assert "psql -c 'SHOW POOLS'" in diagnosis and "@alice" in diagnosis
    assert "p1700000000000300?thread_ts=1700000000.000100" in diagnosis  # linked
    assert "root cause was a leaked connection" in diagnosis  # a finding, as prose
    mitigation = md.split("## Mitigation")[1].split("## Escalation")[0]
    restart = mitigation.index("rollout restart")
    assert restart < mitigation.index("fixed by the restart")  # in thread order
    assert "@bob" in mitigation
    escalation = md.split("## Escalation")[1]
    assert "@sre-oncall (user group), pulled in by @bob" in escalation
    assert "@carol, pulled in by @bob" in escalation
    assert "restricted runbook quote" not in md and "deleted" not in md
    assert "hunter2hunter2" not in md and "[REDACTED" in md
    check_draft(md, draft_path("checkout-api", "Checkout DB pool exhausted"), IngestOptions())


def test_a_thread_without_commands_says_what_is_missing() -> None:
    thread = [
        {"ts": "1.1", "user": "U0ALICE01", "text": "checkout is slow for some users, anyone?"},
        {"ts": "1.2", "user": "U0BOB0001", "text": "no idea, it went away"},
    ]
    read = reader().read(thread)
    draft = build_draft(read.messages, subject(), today=TODAY)
    assert not draft.sections.diagnosis and not draft.sections.mitigation
    diagnosis = draft.markdown.split("## Diagnosis")[1].split("## Mitigation")[0]
    assert "TODO: the thread has no command" in diagnosis
    assert "```" not in draft.markdown  # no step invented
    check_draft(draft.markdown, "checkout-api/slow.md", IngestOptions())


def test_pasted_output_is_a_symptom_not_a_step() -> None:
    thread = [
        {
            "ts": "1.1",
            "user": "U0ALICE01",
            "text": "logs:\n```2026-12-06T03:01Z FATAL: remaining connection slots are reserved\n"
            "2026-12-06T03:01Z info: retrying```",
        }
    ]
    draft = build_draft(reader().read(thread).messages, subject(), today=TODAY)
    assert draft.sections.symptoms == (
        "2026-12-06T03:01Z FATAL: remaining connection slots are reserved",
    )
    assert not draft.sections.diagnosis and not draft.sections.mitigation


def test_quotes_of_restricted_runbooks_are_left_out() -> None:
    restricted = restricted_lines(
        ["## Procedure\n1. Log in:\n   vault login -method=oidc role=breakglass"]
    )
    thread = [
        {
            "ts": "1.1",
            "user": "U0ALICE01",
            "text": "per the sre runbook:\n> vault login -method=oidc role=breakglass\n"
            "`kubectl get pods -n checkout`",
        }
    ]
    plain = ThreadReader(
        team_id="T1",
        bot_user_id=BOT,
        external=False,
        name_of=lambda u: NAMES.get(u, u),
        permalink=lambda ts: None,
        restricted=restricted,
    )
    read = plain.read(thread)
    assert read.withheld == 1
    md = build_draft(read.messages, subject(), today=TODAY).markdown
    assert "breakglass" not in md and "kubectl get pods -n checkout" in md


def test_slack_connect_leaves_out_the_other_organization() -> None:
    thread = [
        {"ts": "1.1", "user": "U0ALICE01", "user_team": "T1", "text": "`kubectl get pods`"},
        {"ts": "1.2", "user": "U0VENDOR1", "user_team": "T9", "text": "`curl -X POST vendor`"},
    ]
    read = reader(external=True).read(thread)
    assert read.left_out == 1
    md = build_draft(read.messages, subject(), today=TODAY).markdown
    assert "kubectl get pods" in md and "vendor" not in md


def test_restricted_access_goes_into_the_front_matter_and_is_checked() -> None:
    draft = build_draft([], subject(access=("sre",)), today=TODAY)
    assert "access:\n- sre" in draft.markdown
    with pytest.raises(DraftInvalid, match="unknown access group"):
        check_draft(draft.markdown, "sre/x.md", IngestOptions(known_groups=frozenset({"x"})))


def test_paths_stay_inside_the_repository() -> None:
    assert draft_path("checkout-api", "DB: pool exhausted!") == "checkout-api/db-pool-exhausted.md"
    assert draft_path(None, "x") == "general/x.md"
    for bad in ("../etc/passwd.md", "/abs.md", "a/b.txt", "a/../b.md", ""):
        with pytest.raises(DraftInvalid):
            checked_path(bad)


def test_a_pull_request_on_a_new_branch_linking_the_thread_and_no_token_in_logs() -> None:
    token = "ghp_secretTOKEN123456"
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.DEBUG)
    try:
        with FakeGitHub(token=token) as fake:
            settings = PublishSettings(
                github_token=SecretStr(token),
                github_repo="acme/runbooks",
                github_api_url=fake.base_url,
            )
            publisher = make_publisher(settings, lambda *a: None)
            draft = ReadyDraft(
                "DB pool", "checkout-api", "checkout-api/db-pool.md", "# x\n", ROOT, "U0ALICE01"
            )
            done = publisher.publish(draft)
            assert done.kind == "pull_request" and done.state == "open"
            pull = fake.pull(done.number or 0)
            assert pull.head.startswith("runbook-draft/") and pull.base == "main"
            assert ROOT in pull.body
            assert fake.files(pull.head)["checkout-api/db-pool.md"] == "# x\n"
            assert "checkout-api/db-pool.md" not in fake.files("main")
            fake.merge(done.number or 0)
            assert publisher.state(done) == "merged"
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    assert token not in stream.getvalue()


def test_the_gaps_report_shows_each_questions_draft_in_the_cli_slack_and_app_home(
    tmp_path: Path,
) -> None:
    ledger = DraftLedger(tmp_path)
    opened = Published(
        "pull_request", "kafka/zk.md", "https://github.com/acme/runbooks/pull/7", "open", number=7
    )
    ledger.add(new_record("ZooKeeper  quorum LOST", "ZK", "kafka", opened, ROOT, "h"))
    states = iter(["open", "merged"])

    class Repo:
        kind = "github"

        def publish(self, draft: ReadyDraft) -> Published:
            raise AssertionError("not publishing here")

        def state(self, published: Published) -> DraftState:
            return next(states)  # type: ignore[return-value]

    tracker = DraftTracker(ledger, lambda: Repo(), ttl_seconds=0)
    groups = [GapGroup("kafka", 2, (GapQuestion("zookeeper quorum lost", 2), GapQuestion("x", 1)))]
    shown = with_drafts(groups, tracker.for_gaps(set()))
    assert shown[0].questions[0].draft == "pull request #7 open"
    assert shown[0].questions[1].draft is None
    table = format_gaps_table(shown)
    assert "[draft: pull request #7 open https://github.com/acme/runbooks/pull/7]" in table
    slack = json.dumps(format_gaps_slack(shown))
    assert "<https://github.com/acme/runbooks/pull/7|pull request #7 open>" in slack
    home = json.dumps(render_home(HomeData(1, ("kafka",), (), tuple(shown), 30)))
    assert "pull request #7 open" in home
    merged = with_drafts(groups, tracker.for_gaps({"kafka/zk.md"}))
    assert merged[0].questions[0].draft == "closed: answered by kafka/zk.md"
    assert ledger.records()[0].state == "merged"
