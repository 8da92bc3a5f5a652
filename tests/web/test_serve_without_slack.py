"""``runbook-bot serve`` for the web pages alone: in local mode, or with only Sign in with
Slack, it starts without a bot token or signing secret, turns the Slack routes off and
says so in one log line; the web answer ends with the same human step as Slack."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.conftest import SAMPLE_RUNBOOKS, RedisServer, free_port
from tests.serve_process import cli_command, serving
from tests.web.conftest import copy_index

SLACK_OFF = "Slack is off: no SLACK_BOT_TOKEN or SLACK_SIGNING_SECRET"


def _env(redis_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "RUNBOOK_"))}
    env.update(
        {
            "REDIS_URL": redis_url,
            "RUNBOOK_ACCESS_MAP_PATH": str(SAMPLE_RUNBOOKS / "access.yml"),
            "RUNBOOK_LOG_FORMAT": "text",
            **extra,
        }
    )
    return env


@pytest.fixture()
def data(tmp_path: Path, sample_index_template: Path, model_dir: Path) -> Path:
    return copy_index(sample_index_template, tmp_path / "data", model_dir)


def test_local_mode_serves_the_web_pages_without_slack(
    tmp_path: Path, data: Path, redis_server: RedisServer
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    env = _env(redis_server.url, RUNBOOK_WEB_LOCAL_MODE="true", RUNBOOK_FALLBACK_CONTACT="#sre")
    with log.open("wb") as out, serving(data, port, env, tmp_path, output=out, log=log):
        # the Slack route is off; the pages answer, ending with who to call
        assert httpx.post(base + "/slack/events", content=b"{}", timeout=10).status_code == 404
        page = httpx.get(
            base + "/ask",
            params={"q": "checkout-api database connection refused"},
            headers={"Host": f"127.0.0.1:{port}"},
            timeout=60,
        )
        assert page.status_code == 200, page.text
        assert 'class="human-step"' in page.text
        assert "<strong>Owner:</strong>" in page.text and "@checkout-oncall" in page.text
        ownerless = httpx.get(
            base + "/ask",
            params={"q": "ses bounce rate high email delivery failures what do i do"},
            timeout=60,
        )
        assert "<strong>Ask:</strong>" in ownerless.text and "#sre" in ownerless.text
        assert ownerless.text.count("No owner on record.") == 1
    output = log.read_text()
    assert output.count(SLACK_OFF) == 1, output
    assert "web pages in local mode (no sign-in)" in output
    assert "Traceback" not in output


def test_sign_in_alone_serves_the_web_pages_without_slack(
    tmp_path: Path, data: Path, redis_server: RedisServer
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    env = _env(
        redis_server.url,
        RUNBOOK_SLACK_CLIENT_ID="1111.2222",
        RUNBOOK_SLACK_CLIENT_SECRET="client-secret-value",
        RUNBOOK_PUBLIC_URL=base,
        RUNBOOK_SLACK_TEAM_ID="T0ACME001",
    )
    with log.open("wb") as out, serving(data, port, env, tmp_path, output=out, log=log):
        assert httpx.post(base + "/slack/events", content=b"{}", timeout=10).status_code == 404
        start = httpx.get(base + "/auth/slack/login", timeout=10)
        assert start.status_code == 303
        assert "team=T0ACME001" in start.headers["location"]  # the workspace, configured
    output = log.read_text()
    assert output.count(SLACK_OFF) == 1, output
    assert "web pages with Sign in with Slack" in output
    assert "client-secret-value" not in output


def test_sign_in_without_a_bot_token_needs_the_workspace(tmp_path: Path) -> None:
    env = _env(
        "redis://127.0.0.1:1/0",
        RUNBOOK_SLACK_CLIENT_ID="1111.2222",
        RUNBOOK_SLACK_CLIENT_SECRET="client-secret-value",
        RUNBOOK_PUBLIC_URL="http://127.0.0.1:9",
    )
    done = subprocess.run(
        cli_command("--data-dir", str(tmp_path / "d"), "serve", "--host", "127.0.0.1"),
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "set RUNBOOK_SLACK_TEAM_ID" in done.stderr
    assert "Traceback" not in done.stderr
