"""The one Slack Web API client factory: the bot token, the configured API URL, and
retries on rate limits (429, honouring Retry-After) and connection resets.

Used by the bot and by every command that talks to Slack (``report --post``, ``ask
--as-user``)."""

from __future__ import annotations

from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
)

from bot.settings import Settings

DEFAULT_SLACK_API_URL = "https://slack.com/api/"
RATE_LIMIT_RETRIES = 2
TIMEOUT_SECONDS = 30


def bot_token(settings: Settings) -> str | None:
    """The configured bot token, or None when it is unset or blank."""
    token = settings.slack_bot_token
    value = token.get_secret_value().strip() if token is not None else ""
    return value or None


def make_client(settings: Settings) -> WebClient:
    """A WebClient for the configured workspace (no token when none is configured)."""
    return WebClient(
        token=bot_token(settings),
        base_url=settings.slack_api_url or DEFAULT_SLACK_API_URL,
        timeout=TIMEOUT_SECONDS,
        retry_handlers=[
            RateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES),
            ConnectionErrorRetryHandler(),
        ],
    )
