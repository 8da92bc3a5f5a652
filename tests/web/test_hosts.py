"""Host names the web pages answer to (see ``tests/web/test_pages.py`` for the pages)."""

from __future__ import annotations

import pytest

from bot.settings import load_settings
from bot.web.config import web_config
from bot.web.hosts import LOOPBACK_NAMES, host_name, page_hosts


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("localhost", "localhost"),
        ("LocalHost:3000", "localhost"),
        ("127.0.0.1:8080", "127.0.0.1"),
        ("[::1]", "::1"),
        ("[::1]:3000", "::1"),
        ("runbooks.example.org.", "runbooks.example.org"),
        ("", None),
        ("[::1", None),
        ("[::1]x", None),
        ("a:b:c", None),
        ("localhost:", None),
    ],
)
def test_host_name(header: str, name: str | None) -> None:
    assert host_name(header) == name


def test_local_mode_answers_to_loopback_names_and_sign_in_to_its_addresses(tmp_path) -> None:  # type: ignore[no-untyped-def]
    local = load_settings(data_dir=tmp_path, web_local_mode=True)
    assert page_hosts(web_config(local, "k" * 32, "127.0.0.1")) == LOOPBACK_NAMES
    signed = load_settings(
        data_dir=tmp_path,
        public_url="https://Runbooks.example.org",
        web_redirect_uri="https://auth.example.org/auth/slack/callback",
        slack_client_id="1.2",
        slack_client_secret="s",
    )
    hosts = page_hosts(web_config(signed, "k" * 32, "0.0.0.0"))
    assert hosts == {"runbooks.example.org", "auth.example.org"}
    off = load_settings(data_dir=tmp_path)
    assert page_hosts(web_config(off, "k" * 32, "0.0.0.0")) is None
