"""The one Slack Web API client factory: the configured API URL, a timeout, and one
retry policy (rate limits, 429 honouring Retry-After; connection resets).

:func:`make_client` is the bot's client (its bot token), used by the app and by every
command that talks to Slack (``report --post``, ``ask --as-user``); :func:`web_client`
builds the others on the same policy (Sign in with Slack's code exchange and the signed-in
user's own token)."""

from __future__ import annotations

from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
)

from bot.settings import Settings

DEFAULT_SLACK_API_URL = "https://slack.com/api/"
RATE_LIMIT_RETRIES = 2
CONNECTION_RETRIES = 1
TIMEOUT_SECONDS = 30


def bot_token(settings: Settings) -> str | None:
    """The configured bot token, or None when it is unset or blank."""
    token = settings.slack_bot_token
    value = token.get_secret_value().strip() if token is not None else ""
    return value or None


def web_client(
    token: str | None, api_url: str | None = None, *, timeout: int = TIMEOUT_SECONDS
) -> WebClient:
    """A WebClient with the retry policy (``api_url`` None or "": Slack's own)."""
    return WebClient(
        token=token,
        base_url=api_url or DEFAULT_SLACK_API_URL,
        timeout=timeout,
        retry_handlers=[
            RateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES),
            ConnectionErrorRetryHandler(max_retry_count=CONNECTION_RETRIES),
        ],
    )


def make_client(settings: Settings) -> WebClient:
    """The bot's WebClient for the configured workspace (no token when none is configured)."""
    return web_client(bot_token(settings), settings.slack_api_url)
