"""What ``serve`` runs the web pages on when Slack is off (no bot token, no signing
secret): the same collaborators the Slack app builds for them, without its routes."""

from __future__ import annotations

import logging

from slack_sdk import WebClient

from bot.metrics import Metrics
from bot.oncall import build_on_call
from bot.runtime import Runtime
from bot.service import AnswerService
from bot.slack.client import make_client
from retrieval.errors import IndexLockedError, RetrievalError

log = logging.getLogger("runbook_bot.serve")


class WebOnly:
    """The answer service (with the human step), a client without a token, metrics;
    ``app`` is None, so the server has no Slack route."""

    app = None

    def __init__(self, runtime: Runtime) -> None:
        runtime.hold_store()
        self.metrics = Metrics()
        self.client: WebClient = make_client(runtime.settings)
        self.service: AnswerService = runtime.service(
            observer=self.metrics, steps=build_on_call(runtime.settings).steps
        )
        try:  # the index and the model now, not on the first question
            runtime.searcher.snapshot(runtime.searcher.generation())
            runtime.embedder.warm()
        except IndexLockedError:
            raise
        except RetrievalError as exc:
            log.warning("could not warm the index at start-up (%s); will retry per question", exc)

    def close(self, wait: bool = True) -> None:
        return None
