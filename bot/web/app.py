"""Wiring: the web pages for a running ``serve``, from the runtime and the Slack app's
collaborators (one AnswerService and one bot client for Slack and the web alike).

::

    config = web_config(runtime.settings, runtime.web_session_secret, host="0.0.0.0")
    pages = build_web_pages(runtime, service, bot_client, config, metrics=metrics)
    BotServer(app, runtime, web_routes=pages.routes(), ...)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date

from slack_sdk import WebClient

from bot.drafts import tracker_for
from bot.metrics import Metrics
from bot.runtime import Runtime
from bot.service import AnswerService
from bot.web.config import WebConfig
from bot.web.pages import WebPages
from bot.web.signin import SlackSignIn
from state.sign_in_states import RedisOAuthStateStore
from state.web_sessions import WebSessionStore

log = logging.getLogger("runbook_bot.web")


def build_web_pages(
    runtime: Runtime,
    service: AnswerService,
    bot_client: WebClient,
    config: WebConfig,
    *,
    metrics: Metrics | None = None,
    today: Callable[[], date] = date.today,
) -> WebPages:
    """The web pages for ``config`` (see :func:`bot.web.config.web_config`)."""
    settings = runtime.settings
    sign_in = None
    sessions = None
    if config.sign_in is not None:
        try:
            client = runtime.redis
        except Exception as exc:  # e.g. an invalid URL: states in this process, no sessions
            log.warning("redis unavailable for sign-in states and sessions (%s)", exc)
            client = None
        states = RedisOAuthStateStore(client, namespace=settings.redis_namespace)
        sign_in = SlackSignIn(config.sign_in, states, bot_client)
        sessions = WebSessionStore(
            client, config.session_max_age, namespace=settings.redis_namespace
        )
    try:
        query_log = runtime.query_log
    except Exception as exc:  # the reports say the log is unavailable
        log.warning("query log unavailable for the web reports (%s)", exc)
        query_log = None
    return WebPages(
        config,
        service,
        runtime.searcher,
        query_log,
        sign_in,
        metrics=metrics,
        today=today,
        read=runtime.extractive.read,
        sessions=sessions,
        drafts=tracker_for(settings),
    )
