"""Which web mode ``serve`` runs, and the settings that are refused."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from bot.settings import WEB_CALLBACK_PATH, Settings
from bot.web.config import is_loopback, web_config
from bot.web.errors import WebConfigError
from bot.web.signin import SCOPES
from tests.conftest import ROOT
from tests.serve_process import cli_command


def settings(**values: object) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"])
def test_loopback_addresses(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.1.2.3", "runbooks.internal", ""])
def test_addresses_others_can_reach(host: str) -> None:
    assert not is_loopback(host)


def test_local_mode_only_on_a_loopback_address() -> None:
    s = settings(web_local_mode=True, web_local_groups=["sre", " "])
    config = web_config(s, "secret", "127.0.0.1")
    assert config.mode == "local" and config.local_groups == ("sre",)
    with pytest.raises(WebConfigError, match=r"127\.0\.0\.1"):
        web_config(s, "secret", "0.0.0.0")


def test_sign_in_needs_an_address_to_come_back_to() -> None:
    s = settings(slack_client_id="1.2", slack_client_secret="x")
    with pytest.raises(WebConfigError, match="RUNBOOK_PUBLIC_URL"):
        web_config(s, "secret", "0.0.0.0")
    config = web_config(
        settings(slack_client_id="1.2", slack_client_secret="x", public_url="https://rb.example/"),
        "secret",
        "0.0.0.0",
    )
    assert config.mode == "slack" and config.secure_cookies
    assert config.sign_in is not None
    assert config.sign_in.redirect_uri == "https://rb.example/auth/slack/callback"
    assert config.sign_in.authorize_url == "https://slack.com/openid/connect/authorize"


def test_nothing_configured_is_off_and_blank_values_are_unset() -> None:
    s = settings(slack_client_id=" ", slack_client_secret="", public_url="")
    assert web_config(s, "secret", "0.0.0.0").mode == "off"
    assert s.public_url is None


@pytest.mark.parametrize(
    "value",
    ["javascript:alert(1)", "runbooks.example.org", "https://x.example/?a=b", "https://x#f"],
)
def test_addresses_must_be_plain_http_urls(value: str) -> None:
    with pytest.raises(ValidationError):
        settings(public_url=value)


def test_serve_refuses_local_mode_on_a_public_address(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "SLACK_BOT_TOKEN": "xoxb-test",
        "SLACK_SIGNING_SECRET": "s",
        "RUNBOOK_WEB_LOCAL_MODE": "true",
    }
    result = subprocess.run(
        cli_command("--data-dir", str(tmp_path / "data"), "serve", "--host", "0.0.0.0"),
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert "RUNBOOK_WEB_LOCAL_MODE=true" in result.stderr and "127.0.0.1" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_slack_app_manifest_allows_sign_in() -> None:
    manifest = yaml.safe_load((ROOT / "slack" / "manifest.yml").read_text(encoding="utf-8"))
    oauth = manifest["oauth_config"]
    assert set(SCOPES) <= set(oauth["scopes"]["user"])
    assert any(url.endswith(WEB_CALLBACK_PATH) for url in oauth["redirect_urls"])
