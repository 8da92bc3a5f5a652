"""The Slack app: wiring only. Builds the collaborators once, registers each surface's
listeners on a bolt ``App``, and runs answers on a worker pool of their own.

Every request is acknowledged first (Slack gives 3 seconds) and answered afterwards, so
a slow search never delays an acknowledgement. Surfaces live in their own modules:
``/runbook`` (:mod:`bot.slack.slash`), mentions (:mod:`bot.slack.mentions`), alert posts
(:mod:`bot.slack.alert_replies`), direct messages (:mod:`bot.slack.direct_messages`),
the message shortcut (:mod:`bot.slack.shortcuts`), the App Home
(:mod:`bot.slack.app_home`), buttons (:mod:`bot.slack.buttons`), workspace events
(:mod:`bot.slack.directory_events`), channel changes (:mod:`bot.slack.channel_events`);
a new surface is one listeners module registered here, plus the manifest.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import date
from typing import Any

import redis
from slack_bolt import App
from slack_sdk import WebClient

from bot.metrics import Metrics
from bot.oncall import build_on_call
from bot.runtime import Runtime
from bot.service import AnswerService
from bot.slack.alert_ledger import AlertLedger
from bot.slack.alert_replies import AlertReplies
from bot.slack.answering import Answering
from bot.slack.app_home import AppHome, HomeSources
from bot.slack.audiences import Audiences
from bot.slack.buttons import AnswerButtons
from bot.slack.channel_events import ChannelEvents
from bot.slack.channels import Channels
from bot.slack.client import make_client
from bot.slack.contacts import Contacts
from bot.slack.context import SlackContext
from bot.slack.direct_messages import DirectMessages
from bot.slack.directory import SlackUsergroupDirectory
from bot.slack.directory_events import DirectoryEvents
from bot.slack.drafting import Drafting, drafting_tools
from bot.slack.mentions import Mentions
from bot.slack.requests import RequestStore
from bot.slack.sender import Sender
from bot.slack.shortcuts import MessageShortcut
from bot.slack.slash import SlashCommand
from bot.slack.thread_memory import ThreadMemory
from bot.slack.workers import InFlight, TrackedPool, backstop
from core.models import SearchFilter
from retrieval.answer import DocumentLookup, RunbookMatcher, RunbookSections, snapshot_lookup
from retrieval.errors import IndexLockedError, RetrievalError
from state.ttl_store import TtlStore

log = logging.getLogger("runbook_bot.slack")

ANSWER_WORKERS = 4
LISTENER_WORKERS = 16
#: a slash command acknowledges with the answer itself when it is ready this soon
ACK_WITH_ANSWER_SECONDS = 2.0


class SlackBot:
    """The bolt App (:attr:`app`) and what it runs on."""

    def __init__(
        self,
        runtime: Runtime,
        client: WebClient | None = None,
        *,
        metrics: Metrics | None = None,
        today: Callable[[], date] = date.today,
        answer_workers: int = ANSWER_WORKERS,
        ack_seconds: float = ACK_WITH_ANSWER_SECONDS,
        socket_mode: bool = False,
    ) -> None:
        settings = runtime.settings
        runtime.hold_store()
        self.runtime = runtime
        self.client = client or make_client(settings)
        if self.client.token is None:
            raise ValueError("a Slack bot token is required (SLACK_BOT_TOKEN)")
        signing = settings.slack_signing_secret
        if signing is None and not socket_mode:
            raise ValueError("a Slack signing secret is required (SLACK_SIGNING_SECRET)")
        self.metrics = metrics if metrics is not None else Metrics()
        self._in_flight = InFlight()
        # Answers run on their own small pool, so a slow search never holds up the
        # listener threads that acknowledge requests.
        self._pool = TrackedPool(answer_workers, "runbook-answer", self._in_flight)
        self._listeners = TrackedPool(LISTENER_WORKERS, "runbook-listener", self._in_flight)
        self._closed = False
        self._services: tuple[int, frozenset[str]] | None = None

        directory = SlackUsergroupDirectory(self.client)
        searcher = runtime.searcher
        sections = RunbookSections(searcher.snapshot, today=today)
        self.channels = Channels(self.client)
        contacts = Contacts(
            directory,
            self.channels,
            service_channel_template=settings.service_channel_template,
            fallback=settings.fallback_contact,
            client=self.client,
        )
        self.on_call = build_on_call(settings, contacts)  # the human step of every answer
        self.service: AnswerService = runtime.service(
            directory, self.metrics, sections, steps=self.on_call.steps
        )
        store = _redis_or_none(runtime)
        namespace = settings.redis_namespace
        self.requests = RequestStore(store, namespace=namespace)
        self.audiences = Audiences(
            lambda: self.service.resolver, self.channels, settings.external_access_group
        )
        self.answering = Answering(
            service=self.service,
            sections=sections,
            contacts=contacts,
            requests=self.requests,
            lookup=self._lookup,
            known_services=self._known_services,
            hidden_owner=self._hidden_owner,
            audiences=self.audiences,
            matcher=RunbookMatcher(lambda: searcher.snapshot()),
            today=today,
            alert_keep_seconds=settings.alert_window_seconds,
            public_url=settings.public_url,
            alert_note=settings.alert_unsure == "note",
            pager=self.on_call.pager,
        )
        self.context = SlackContext(
            settings=settings,
            client=self.client,
            service=self.service,
            answering=self.answering,
            requests=self.requests,
            channels=self.channels,
            sender=Sender(self.client),
            metrics=self.metrics,
            dedup=runtime.dedup,
            feedback_log=lambda: runtime.query_log,
            user_salt=lambda: runtime.user_salt,
            submit=self._submit,
            today=today,
            ack_seconds=ack_seconds,
            audiences=self.audiences,
            threads=ThreadMemory(TtlStore(store, "thread", namespace)),
            alerts=AlertLedger(
                TtlStore(store, "alert", namespace),
                TtlStore(store, "alert-rate", namespace),
                window_seconds=settings.alert_window_seconds,
                rate_limit=settings.alert_rate_limit,
                rate_window_seconds=settings.alert_rate_window_seconds,
            ),
        )
        self.warm()
        self.app = App(
            client=self.client,
            signing_secret=signing.get_secret_value() if signing is not None else None,
            # Socket Mode requests arrive over an authenticated websocket, unsigned
            request_verification_enabled=not socket_mode,
            process_before_response=False,
            token_verification_enabled=False,  # no auth.test at start-up
            listener_executor=self._listeners,
            logger=_bolt_logger(),
        )
        self.drafts = drafting_tools(self, store, directory)
        home = HomeSources(
            chunks=lambda: searcher.snapshot().chunks,
            query_log=lambda: runtime.query_log,
            directory=directory,
            drafts=self.drafts.tracker,
        )
        for surface in (
            SlashCommand(self.context),
            Mentions(self.context),
            AlertReplies(self.context),
            DirectMessages(self.context),
            MessageShortcut(self.context),
            AppHome(self.context, home),
            AnswerButtons(self.context),
            DirectoryEvents(self.context),
            ChannelEvents(self.context),
            Drafting(self.context, self.drafts),
        ):
            surface.register(self.app)
        self.app.error(self._on_error)

    # -- lifecycle -------------------------------------------------------------------

    def warm(self) -> None:
        """Open the index, load the search snapshot and the model now, not on a question."""
        started = time.perf_counter()
        try:
            generation = self.runtime.searcher.generation()
            snapshot = self.runtime.searcher.snapshot(generation)
            _ = snapshot.term_stats  # tokenizes every chunk once: not on the first question
            _ = snapshot.openers, snapshot.fillers  # the index's template, read once too
            self.runtime.embedder.warm()
            self.runtime.lexicon.warm()
            _ = self.runtime.answerer
        except IndexLockedError:
            raise
        except RetrievalError as exc:
            log.warning("could not warm the index at start-up (%s); will retry per question", exc)
            return
        self.metrics.set_index_generation(generation)
        log.info(
            "warmed model and search snapshot (generation %d) in %.2fs",
            generation,
            time.perf_counter() - started,
        )

    def close(self, wait: bool = True) -> None:
        """Stop taking new work; ``wait`` for the answers in flight."""
        # listeners first: one that already acknowledged a request still hands on its answer
        self._listeners.shutdown(wait=wait, cancel_futures=not wait)
        self._closed = True
        self._pool.shutdown(wait=wait, cancel_futures=not wait)

    @property
    def in_flight(self) -> int:
        """Listener calls and answers accepted and not yet finished."""
        return self._in_flight.count

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until nothing is in flight (every acked request handled); False on timeout."""
        return self._in_flight.wait_idle(timeout)

    def _submit(self, fn: Callable[..., None], *args: Any) -> None:
        if self._closed:
            log.warning("shutting down: dropping %s", getattr(fn, "__name__", fn))
            return
        self._pool.submit(backstop, fn, *args)

    # -- what the answering pipeline reads of the live index -----------------------------

    def _lookup(self) -> DocumentLookup:
        return snapshot_lookup(self.runtime.searcher.snapshot())

    def _known_services(self) -> frozenset[str]:
        snap = self.runtime.searcher.snapshot()
        cached = self._services
        if cached is not None and cached[0] == snap.generation:
            return cached[1]
        services = frozenset(
            chunks[0].metadata.service
            for chunks in snap.chunks_by_source.values()
            if chunks and chunks[0].metadata.service
        )
        self._services = (snap.generation, services)
        return services

    def _hidden_owner(self, question: str) -> str | None:
        """The owner of the best runbook for ``question`` whoever may read it (for "ask
        its owners for access"); only the owner's name is used."""
        found = self.runtime.extractive.retrieve(question, SearchFilter(groups=None))
        lead = found.runbooks[0] if found.runbooks else None
        return lead.chunk.metadata.owner if lead is not None else None

    def _on_error(self, error: Exception, body: dict[str, Any]) -> None:
        kind = body.get("type") if isinstance(body, dict) else None
        log.error("unhandled error in a Slack listener (%s): %s", kind, error, exc_info=error)


class _SkipTokenNotice(logging.Filter):
    """bolt warns that the SLACK_BOT_TOKEN it read itself is unused: the client has it."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "`token` will be unused" not in str(record.msg)


def _bolt_logger() -> logging.Logger:
    logger = logging.getLogger("runbook_bot.bolt")
    if not any(isinstance(f, _SkipTokenNotice) for f in logger.filters):
        logger.addFilter(_SkipTokenNotice())
    return logger


def _redis_or_none(runtime: Runtime) -> redis.Redis | None:
    try:
        return runtime.redis
    except Exception as exc:  # e.g. an invalid URL: run without it
        log.warning("redis unavailable (%s); keeping requests in this process", exc)
        return None
