"""The one WebClient factory: the bot's client and Sign in with Slack's share one retry
policy, checked against the fake Slack Web API (a real HTTP server)."""

from __future__ import annotations

from pathlib import Path

from bot.settings import load_settings
from bot.slack.client import (
    DEFAULT_SLACK_API_URL,
    TIMEOUT_SECONDS,
    bot_token,
    make_client,
    web_client,
)
from tests.fakes.slack_api import FakeSlackAPI


def _policy(client: object) -> list[tuple[str, int]]:
    handlers = client.retry_handlers  # type: ignore[attr-defined]
    return [(type(h).__name__, h.max_retry_count) for h in handlers]


def test_every_client_has_the_same_retry_policy(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path, slack_bot_token="xoxb-1")
    bot, other = make_client(settings), web_client("xoxp-2", timeout=10)
    assert _policy(bot) == _policy(other)
    assert [name for name, _ in _policy(bot)] == [
        "RateLimitErrorRetryHandler",
        "ConnectionErrorRetryHandler",
    ]
    assert (bot.token, bot.timeout, bot.base_url) == (
        "xoxb-1",
        TIMEOUT_SECONDS,
        DEFAULT_SLACK_API_URL,
    )
    assert (other.token, other.timeout) == ("xoxp-2", 10)


def test_a_blank_bot_token_is_no_token(tmp_path: Path) -> None:
    assert bot_token(load_settings(data_dir=tmp_path, slack_bot_token="  ")) is None
    assert make_client(load_settings(data_dir=tmp_path, slack_bot_token="  ")).token is None


def test_the_bot_client_retries_a_rate_limit(tmp_path: Path) -> None:
    with FakeSlackAPI() as fake:
        settings = load_settings(
            data_dir=tmp_path, slack_bot_token="xoxb-1", slack_api_url=fake.base_url
        )
        fake.fail_next("chat.postMessage", status=429, retry_after=0)
        response = make_client(settings).chat_postMessage(channel="C1", text="hi")
        assert response["ok"] is True
        assert len(fake.calls_to("chat.postMessage")) == 2


def test_the_sign_in_client_retries_a_rate_limit() -> None:
    with FakeSlackAPI() as fake:
        fake.fail_next("auth.test", status=429, retry_after=0)
        assert web_client("xoxp-2", fake.base_url, timeout=10).auth_test()["ok"] is True
        calls = fake.calls_to("auth.test")
        assert len(calls) == 2 and calls[-1].token == "xoxp-2"
