"""``runbook-bot report stale|gaps`` over the ingested sample runbooks."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import redis
import yaml

from bot.cli import main
from bot.commands.report import run_gaps, run_stale
from bot.settings import Settings, load_settings
from core.models import Chunk, DocumentMetadata
from retrieval.permissions import AccessMap, GroupRule, PermissionResolver, UsergroupDirectory
from state.querylog import FileQueryLog, RedisQueryLog, build_feedback, build_record
from tests.bot.block_checks import assert_valid_blocks
from tests.conftest import SAMPLE_RUNBOOKS, RedisServer, free_port
from tests.fakes.slack_api import FakeSlackAPI

ES_RED = "search/elasticsearch-cluster-red.md"
EMAIL = "notifications/email-delivery-failures.md"
DEFAULT_STALE_AFTER = 180

_ENV = (
    "REDIS_URL",
    "RUNBOOK_REDIS_URL",
    "RUNBOOK_QUERY_LOG_PATH",
    "RUNBOOK_STALE_AFTER_DAYS",
    "RUNBOOK_QUERY_LOG_RETENTION_DAYS",
    "RUNBOOK_DEFAULT_ACCESS_GROUP",
    "SLACK_BOT_TOKEN",
    "RUNBOOK_SLACK_BOT_TOKEN",
    "SLACK_API_URL",
    "RUNBOOK_SLACK_API_URL",
)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Start from a clean environment."""
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env file


@pytest.fixture()
def dead_redis(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", f"redis://127.0.0.1:{free_port()}/0")


def front_matter(rel: str) -> dict[str, Any]:
    text = (SAMPLE_RUNBOOKS / rel).read_text(encoding="utf-8")
    return dict(yaml.safe_load(text.split("---", 2)[1]))


def review_days(fm: dict[str, Any]) -> int:
    raw = str(fm.get("review_every") or "")
    return int(raw.removesuffix("d")) if raw else DEFAULT_STALE_AFTER


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def stale_json(capsys: pytest.CaptureFixture[str], data_dir: Path, *extra: str) -> Any:
    code, out, err = run(
        capsys, "--data-dir", str(data_dir), "report", "stale", "--format", "json", *extra
    )
    assert code == 0, err
    return json.loads(out), err


def test_stale_report_of_the_sample_runbooks(
    sample_data_dir: Path, capsys: pytest.CaptureFixture[str], dead_redis: None
) -> None:
    rows, err = stale_json(capsys, sample_data_dir)
    by = {(r["kind"], r["path"]): r for r in rows}

    fm = front_matter(ES_RED)
    updated: date = fm["updated"]
    age = (date.today() - updated).days
    limit = review_days(fm)
    assert age > limit, "the sample is meant to be stale"
    es = by[("stale", ES_RED)]
    assert es["owner"] == fm["owner"] == "@search-team"
    assert es["age_days"] == age
    assert es["limit_days"] == limit
    assert es["updated"] == updated.isoformat()
    assert f"{age} days ago" in es["detail"]

    fm = front_matter(EMAIL)
    assert "owner" not in fm
    email = by[("ownerless", EMAIL)]
    assert email["owner"] is None
    assert email["age_days"] == (date.today() - fm["updated"]).days
    assert (("stale", EMAIL) in by) == (email["age_days"] > review_days(fm))

    # Redis is down: a one-line note, and no citation counts
    assert "reporting without citation counts" in err
    assert len(err.strip().splitlines()) == 1
    assert all(r["citations"] is None for r in rows)
    # the superseded ADR is linked from no current sample document
    assert not [r for r in rows if r["kind"] in ("superseded", "deprecated")]


def test_stale_report_ranks_by_citations_from_redis(
    sample_data_dir: Path,
    capsys: pytest.CaptureFixture[str],
    redis_server: RedisServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("REDIS_URL", redis_server.url)
    log = RedisQueryLog(redis.Redis.from_url(redis_server.url))
    for i in range(3):
        log.record(
            build_record(
                request_id=f"r-{i}",
                user_hash="u",
                channel=None,
                scope_id="s",
                question="es cluster red",
                state="answer",
                cited=["runbooks:search/elasticsearch-cluster-red"],
            )
        )
    rows, err = stale_json(capsys, sample_data_dir)
    assert err == ""
    assert (rows[0]["path"], rows[0]["citations"]) == (ES_RED, 3)
    assert all(r["citations"] == 0 for r in rows[1:])

    code, out, _ = run(capsys, "--data-dir", str(sample_data_dir), "report", "stale")
    assert code == 0
    header, first = out.splitlines()[:2]
    assert header.split()[:3] == ["KIND", "CITED", "AGE"]
    assert first.split()[:2] == ["stale", "3"] and ES_RED in first


def test_stale_slack_format(
    sample_data_dir: Path, capsys: pytest.CaptureFixture[str], dead_redis: None
) -> None:
    code, out, _ = run(
        capsys, "--data-dir", str(sample_data_dir), "report", "stale", "--format", "slack"
    )
    assert code == 0
    message = json.loads(out)
    assert_valid_blocks(message)
    assert "@search-team" in out


def test_post_needs_a_token(
    sample_data_dir: Path, capsys: pytest.CaptureFixture[str], dead_redis: None
) -> None:
    code, out, err = run(
        capsys, "--data-dir", str(sample_data_dir), "report", "stale", "--post", "C123"
    )
    assert code == 2
    assert out == ""
    assert "SLACK_BOT_TOKEN" in err


def test_post_sends_the_slack_report_without_restricted_documents(
    sample_data_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    dead_redis: None,
) -> None:
    with FakeSlackAPI() as fake:
        monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test-token")
        monkeypatch.setenv("SLACK_API_URL", fake.base_url)
        code, out, err = run(
            capsys,
            "--data-dir",
            str(sample_data_dir),
            "report",
            "stale",
            "--format",
            "json",
            "--post",
            "C0REPORTS",
        )
        assert code == 0, err
        (call,) = fake.wait_for("chat.postMessage")
    assert call.params["channel"] == "C0REPORTS"
    assert call.token == "xoxb-test-token"
    message = {"text": call.params["text"], "blocks": call.blocks}
    assert_valid_blocks(message)
    posted = json.dumps(message)
    assert "search/elasticsearch-cluster-red.md" in posted
    assert ES_RED in {r["path"] for r in json.loads(out)}
    assert "1 restricted documents are left out" in err  # sre/break-glass-access.md
    assert "posted the report to C0REPORTS" in err


def test_post_reports_a_slack_error(
    sample_data_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    dead_redis: None,
) -> None:
    with FakeSlackAPI() as fake:
        fake.fail_next("chat.postMessage", error="channel_not_found")
        monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test-token")
        monkeypatch.setenv("SLACK_API_URL", fake.base_url)
        code, _, err = run(
            capsys, "--data-dir", str(sample_data_dir), "report", "stale", "--post", "#nope"
        )
    assert code == 1
    assert "channel_not_found" in err


def test_gaps_from_the_query_log_file(
    sample_data_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    path = tmp_path / "queries.jsonl"
    monkeypatch.setenv("RUNBOOK_QUERY_LOG_PATH", str(path))
    log = FileQueryLog(path)
    for i, question in enumerate(["kafka lag", "Kafka  lag", "vpn down"]):
        log.record(
            build_record(
                request_id=f"r-{i}",
                user_hash="u",
                channel=None,
                scope_id="s",
                question=question,
                state="abstain",
                reason="no-match",
                service="orders" if i < 2 else None,
            )
        )
    log.record_feedback(
        build_feedback(
            request_id="r-9", user_hash="u", value="not_helpful", question="password=hunter2 fails"
        )
    )
    code, out, err = run(
        capsys, "--data-dir", str(sample_data_dir), "report", "gaps", "--format", "json"
    )
    assert code == 0, err
    groups = json.loads(out)
    assert [(g["service"], g["count"]) for g in groups] == [("orders", 2), ("unknown", 2)]
    assert groups[0]["questions"] == [{"question": "kafka lag", "count": 2}]
    assert "hunter2" not in out

    code, out, _ = run(capsys, "report", "gaps", "--format", "slack", "--days", "7")
    assert code == 0
    assert_valid_blocks(json.loads(out))


def test_gaps_fail_when_the_query_log_is_unreachable(
    capsys: pytest.CaptureFixture[str], dead_redis: None, tmp_path: Path
) -> None:
    code, out, err = run(capsys, "--data-dir", str(tmp_path / "data"), "report", "gaps")
    assert code == 1
    assert out == ""
    assert err.startswith("error: cannot read the query log")


def test_days_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["report", "stale", "--days", "0"])
    assert exc.value.code == 2
    assert "--days" in capsys.readouterr().err


def test_stale_report_of_an_empty_index(
    capsys: pytest.CaptureFixture[str], dead_redis: None, tmp_path: Path
) -> None:
    code, out, err = run(capsys, "--data-dir", str(tmp_path / "empty"), "report", "stale")
    assert code == 1
    assert out == ""
    assert "run `runbook-bot ingest DIR` first" in err


# --------------------------------------------------------------------------- a fake runtime


@dataclass
class FakeSnapshot:
    chunks: list[Chunk]


@dataclass
class FakeSearcher:
    chunks: list[Chunk]

    def snapshot(self) -> FakeSnapshot:
        return FakeSnapshot(self.chunks)


@dataclass
class FakeRuntime:
    settings: Settings
    searcher: FakeSearcher
    query_log: FileQueryLog
    access_map: AccessMap = field(default_factory=AccessMap)

    def resolver(self, directory: UsergroupDirectory | None = None) -> PermissionResolver:
        return PermissionResolver(
            self.access_map, directory, None, self.settings.default_access_group
        )


def _chunk(path: str, **meta: Any) -> Chunk:
    sid = path.removesuffix(".md")
    return Chunk(
        chunk_id=sid,
        source_id=sid,
        path=path,
        title=f"Title {sid}",
        heading_path=(),
        text="body",
        start=0,
        end=4,
        content_hash="h",
        line=1,
        metadata=DocumentMetadata(**meta),
    )


def test_posted_report_leaves_out_restricted_documents(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    old = date(2020, 1, 1)
    chunks = [
        _chunk("public/old.md", owner="@web", updated=old),
        _chunk("sre/secret-procedure.md", owner="@sre", updated=old, access=("sre",)),
    ]
    with FakeSlackAPI() as fake:
        settings = load_settings(
            data_dir=tmp_path, slack_bot_token="xoxb-test", slack_api_url=fake.base_url
        )
        rt = FakeRuntime(settings, FakeSearcher(chunks), FileQueryLog(tmp_path / "q.jsonl"))
        args = argparse.Namespace(format="table", days=30, post="C1")
        assert run_stale(args, rt) == 0
        (call,) = fake.wait_for("chat.postMessage")
    out = capsys.readouterr().out
    assert "public/old.md" in out and "sre/secret-procedure.md" in out  # the operator
    posted = json.dumps({"text": call.params["text"], "blocks": call.blocks})
    assert "public/old.md" in posted
    assert "secret-procedure" not in posted and "@sre" not in posted  # the channel


SRE_CHANNEL = "C0SREPRIV1"
SHARED_CHANNEL = "C0EXTPAY01"
SECRET_QUESTION = "break-glass db credential expired"
PUBLIC_QUESTION = "why are web pages slow"


def _gaps_runtime(tmp_path: Path, api_url: str) -> FakeRuntime:
    """Two gaps: an abstention about the web, and a "not helpful" on an answer that cited
    a runbook only sre may read."""
    chunks = [
        _chunk("web/slow-pages.md", owner="@web", service="web"),
        _chunk("platform/disk-full.md", owner="@platform", service="platform"),
        _chunk("sre/break-glass.md", owner="@sre", service="platform", access=("sre",)),
    ]
    log = FileQueryLog(tmp_path / "q.jsonl")
    log.record(
        build_record(
            request_id="r-web",
            user_hash="u",
            channel=None,
            scope_id="s",
            question=PUBLIC_QUESTION,
            state="abstain",
            reason="no-match",
            service="web",
        )
    )
    cited = {"sre/break-glass": ("sre",)}
    log.record(
        build_record(
            request_id="r-sre",
            user_hash="u",
            channel=None,
            scope_id="s",
            question=SECRET_QUESTION,
            state="answer",
            service="platform",
            cited=list(cited),
            cited_access=cited,
        )
    )
    log.record_feedback(
        build_feedback(
            request_id="r-sre",
            user_hash="u",
            value="not_helpful",
            question=SECRET_QUESTION,
            service="platform",
            cited=list(cited),
            cited_access=cited,
        )
    )
    settings = load_settings(data_dir=tmp_path, slack_bot_token="xoxb-test", slack_api_url=api_url)
    access = AccessMap(groups={"sre": GroupRule(channels=(SRE_CHANNEL,)), "everyone": GroupRule()})
    return FakeRuntime(settings, FakeSearcher(chunks), log, access)


def _post_gaps(
    capsys: pytest.CaptureFixture[str], fake: FakeSlackAPI, rt: FakeRuntime, channel: str
) -> tuple[str, str, str]:
    """(what was posted, the terminal's stdout, stderr)"""
    fake.clear()
    args = argparse.Namespace(format="table", days=30, post=channel)
    assert run_gaps(args, rt) == 0
    (call,) = fake.wait_for("chat.postMessage")
    assert call.params["channel"] == channel
    message = {"text": call.params["text"], "blocks": call.blocks}
    assert_valid_blocks(message)
    out, err = capsys.readouterr()
    return json.dumps(message), out, err


def test_posted_gaps_leave_out_questions_the_channel_may_not_read(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with FakeSlackAPI() as fake:
        fake.set_conversation(SHARED_CHANNEL, is_ext_shared=True)
        rt = _gaps_runtime(tmp_path, fake.base_url)

        posted, out, err = _post_gaps(capsys, fake, rt, "C0PUBLIC1")
        assert PUBLIC_QUESTION in out and SECRET_QUESTION in out  # the operator sees all
        assert PUBLIC_QUESTION in posted
        assert SECRET_QUESTION not in posted  # a public channel: not everyone is in sre
        assert "1 question the channel may not read left out" in err

        posted, _, _ = _post_gaps(capsys, fake, rt, SRE_CHANNEL)  # everyone there is in sre
        assert PUBLIC_QUESTION in posted and SECRET_QUESTION in posted

        # shared outside the company: only shareable runbooks, and none is
        posted, _, _ = _post_gaps(capsys, fake, rt, SHARED_CHANNEL)
        assert PUBLIC_QUESTION not in posted and SECRET_QUESTION not in posted


def test_posted_gaps_need_a_channel_that_can_be_found(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with FakeSlackAPI() as fake:
        rt = _gaps_runtime(tmp_path, fake.base_url)
        args = argparse.Namespace(format="table", days=30, post="#nowhere")
        assert run_gaps(args, rt) == 1
        assert not fake.calls_to("chat.postMessage")
    assert "cannot find the channel #nowhere" in capsys.readouterr().err


def test_posted_gaps_need_a_token(
    sample_data_dir: Path, capsys: pytest.CaptureFixture[str], dead_redis: None
) -> None:
    code, out, err = run(
        capsys, "--data-dir", str(sample_data_dir), "report", "gaps", "--post", "C123"
    )
    assert (code, out) == (2, "")
    assert "SLACK_BOT_TOKEN" in err
