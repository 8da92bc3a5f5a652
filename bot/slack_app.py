"""The Slack app: ``/runbook``, mentions, buttons and user-group changes, on slack-bolt.

Every request is acknowledged first (Slack gives 3 seconds) and answered afterwards on a
small worker pool, so a slow search never delays an acknowledgement:

* ``/runbook <question>`` acks with an ephemeral "Searching runbooks…" and answers
  through ``response_url`` (ephemeral, only the asker sees it). The answer offers
  "Post to channel" only when every cited runbook is readable by the whole channel;
  anything else it names that the channel may not read (a related incident, a warning
  or superseded-by name) is left out of the posted copy.
* ``@runbook <question>`` answers in the thread of the mention, from the whole channel's
  point of view (the public answer cites only what everyone there may read); runbooks
  only the asker may read go to them as an ephemeral message. Inside an alert thread the
  alert (the thread's parent) focuses the query. Each event is answered once, across
  Slack's retries and across replicas.
* Feedback buttons are recorded in the query log; "Post to channel" re-checks the
  audience rule at click time against the live index, for everything the answer names
  (:meth:`AnswerService.disclose`).

Nothing is ever silent: any failure is shown where the answer would have gone, with the
request id that the log line carries too.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
import json
import logging
import re
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import date
from typing import Any, ParamSpec, TypeVar

import redis
from pydantic import ValidationError
from slack_bolt import Ack, App, BoltContext, BoltRequest, Respond
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
)

from bot import blocks
from bot.blocks import Message, render_answer, render_error, render_searching, render_usage
from bot.logs import bind_request_id, new_request_id
from bot.metrics import Metrics
from bot.runtime import Runtime
from bot.service import AnswerService, Delivery, Observer
from bot.slack_directory import SlackUsergroupDirectory
from retrieval.cache import DEFAULT_NAMESPACE, REDIS_ERRORS, ServiceHealth, check_namespace
from retrieval.disclosure import Disclosure, snapshot_lookup
from retrieval.errors import (
    EmbeddingError,
    IndexLockedError,
    IndexUnavailableError,
    RetrievalError,
)
from retrieval.permissions import Scope
from retrieval.query import AlertContext, build_query, parse_alert_text
from retrieval.querylog import FeedbackValue, build_feedback, hash_user
from retrieval.redact import redact
from retrieval.storable import storable_answer
from retrieval.types import Answer, Frozen

log = logging.getLogger("runbook_bot.slack")
P = ParamSpec("P")
T = TypeVar("T")

DEFAULT_SLACK_API_URL = "https://slack.com/api/"
REQUEST_TTL_SECONDS = 30 * 60  # as long as a response_url lives
CHANNEL_NAME_TTL_SECONDS = 600.0
ANSWER_WORKERS = 4
LISTENER_WORKERS = 16
MAX_LOCAL_REQUESTS = 2_000
MAX_QUESTION_CHARS = 2_000
MAX_ALERT_CHARS = 8_000

ACTION_FEEDBACK_HELPFUL = blocks.ACTION_FEEDBACK_HELPFUL
ACTION_FEEDBACK_NOT_HELPFUL = blocks.ACTION_FEEDBACK_NOT_HELPFUL
ACTION_POST_TO_CHANNEL = blocks.ACTION_POST_TO_CHANNEL
ACTION_OPEN_SEARCH = blocks.ACTION_OPEN_SEARCH  # a link button: only acknowledged

HELP_WORDS = frozenset({"help", "-h", "--help", "?", "usage"})
_LEADING_MENTION = re.compile(r"^\s*<@[UW][A-Z0-9]+(?:\|[^>]*)?>")
SURFACE_SLASH = "slash_command"
SURFACE_MENTION = "slack_mention"
THANKS = "Thanks for the feedback - it helps the runbook owners."


# --------------------------------------------------------------------------- metrics


class MetricsObserver(Observer):
    """Forwards AnswerService's hooks (stage latencies, cache, answers) to Metrics."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    def stage(self, stage: str, seconds: float) -> None:
        self._metrics.observe_stage(stage, seconds)

    def cache(self, hit: bool) -> None:
        self._metrics.cache(hit)

    def answered(self, answer: Answer) -> None:
        self._metrics.answered(answer)  # counts abstentions, tracks the index generation


def _failed_stage(exc: BaseException) -> str:
    if isinstance(exc, EmbeddingError):
        return "embed"
    if isinstance(exc, IndexUnavailableError | TimeoutError):
        return "search"
    if isinstance(exc, SlackApiError | SlackRequestError):
        return "slack"
    return "answer"


# --------------------------------------------------------------------------- stored requests


class StoredRequest(Frozen):
    """What a button click needs to know about the answer it belongs to."""

    request_id: str
    question: str  # redacted
    channel_id: str | None = None
    service: str | None = None
    cited: tuple[str, ...] = ()
    incident: bool = False
    answer: Answer


class RequestStore:
    """Delivered answers by request id: Redis ``{ns}:req:{rid}`` (shared by replicas) with a
    bounded in-process copy that answers while Redis is down."""

    def __init__(
        self,
        client: redis.Redis | None,
        ttl_seconds: int = REQUEST_TTL_SECONDS,
        namespace: str = DEFAULT_NAMESPACE,
        *,
        max_local: int = MAX_LOCAL_REQUESTS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._ttl = ttl_seconds
        self._ns = check_namespace(namespace)
        self._max = max_local
        self._clock = clock
        self._lock = threading.Lock()
        self._local: OrderedDict[str, tuple[float, str]] = OrderedDict()
        self._health = ServiceHealth(log, "request store", "keeping answers in this process")

    def key(self, request_id: str) -> str:
        return f"{self._ns}:req:{request_id}"

    def put(self, stored: StoredRequest) -> None:
        """Keep ``stored``: its question redacted, none of the question's secrets in it."""
        stored = stored.model_copy(
            update={
                "question": redact(stored.question),
                "answer": storable_answer(stored.answer, stored.question),
            }
        )
        payload = stored.model_dump_json()
        with self._lock:
            self._local.pop(stored.request_id, None)
            self._local[stored.request_id] = (self._clock() + self._ttl, payload)
            while len(self._local) > self._max:
                self._local.popitem(last=False)
        if self._client is None or not self._health.usable():
            return
        try:
            self._client.set(self.key(stored.request_id), payload, ex=self._ttl)
        except REDIS_ERRORS as exc:
            self._health.failed(exc)
            return
        self._health.ok()

    def get(self, request_id: str) -> StoredRequest | None:
        raw: bytes | str | None = None
        if self._client is not None and self._health.usable():
            try:
                raw = self._client.get(self.key(request_id))
            except REDIS_ERRORS as exc:
                self._health.failed(exc)
            else:
                self._health.ok()
        if raw is None:
            with self._lock:
                entry = self._local.get(request_id)
            if entry is not None and entry[0] > self._clock():
                raw = entry[1]
        if raw is None:
            return None
        try:
            return StoredRequest.model_validate_json(raw)
        except ValidationError:
            log.info("dropping an unreadable stored request %s", request_id)
            return None


# --------------------------------------------------------------------------- channels


class ChannelNames:
    """Channel names by id (conversations.info), cached; None when Slack will not say."""

    def __init__(self, client: WebClient, ttl_seconds: float = CHANNEL_NAME_TTL_SECONDS) -> None:
        self._client = client
        self._ttl = ttl_seconds
        self._lock = threading.Lock()
        self._names: dict[str, tuple[float, str | None]] = {}

    def remember(self, channel_id: str, name: str | None) -> None:
        if name:
            with self._lock:
                self._names[channel_id] = (time.monotonic() + self._ttl, name)

    def name(self, channel_id: str) -> str | None:
        now = time.monotonic()
        with self._lock:
            entry = self._names.get(channel_id)
        if entry is not None and entry[0] > now:
            return entry[1]
        name: str | None = None
        try:
            info = self._client.conversations_info(channel=channel_id)
            channel = info.get("channel") or {}
            name = str(channel.get("name") or "") or None
        except (SlackApiError, SlackRequestError, OSError) as exc:
            log.warning("conversations.info %s failed: %s", channel_id, exc)
        with self._lock:  # failures are cached too, briefly: no retry storm
            self._names[channel_id] = (now + (self._ttl if name else 60.0), name)
        return name


def is_incident_channel(name: str | None, patterns: Sequence[str]) -> bool:
    if not name:
        return False
    lowered = name.lower().lstrip("#")
    return any(fnmatch.fnmatchcase(lowered, p.lower()) for p in patterns)


# --------------------------------------------------------------------------- text helpers


def strip_mention(text: str, bot_user_id: str | None) -> str:
    """The question without the bot's ``<@UBOT>`` mention(s)."""
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}(?:\|[^>]*)?>", " ", text)
    else:
        text = _LEADING_MENTION.sub(" ", text)
    return " ".join(text.split())


def message_text(message: Mapping[str, Any]) -> str:
    """All readable text of a Slack message: text, attachments and section blocks."""
    parts: list[str] = []
    if message.get("text"):
        parts.append(str(message["text"]))
    for att in message.get("attachments") or []:
        if not isinstance(att, Mapping):
            continue
        found = [str(att[key]) for key in ("pretext", "title", "text") if att.get(key)]
        for field in att.get("fields") or []:
            if isinstance(field, Mapping) and field.get("title"):
                found.append(f"{field.get('title')}: {field.get('value', '')}")
        if not found and att.get("fallback"):
            found.append(str(att["fallback"]))
        parts.extend(found)
    for block in message.get("blocks") or []:
        if not isinstance(block, Mapping) or block.get("type") not in ("section", "header"):
            continue
        text = block.get("text")
        if isinstance(text, Mapping) and text.get("text"):
            candidate = str(text["text"])
            if candidate not in parts:
                parts.append(candidate)
        for field in block.get("fields") or []:
            if isinstance(field, Mapping) and field.get("text"):
                parts.append(str(field["text"]))
    return "\n".join(parts)[:MAX_ALERT_CHARS]


def focused_query(alert: str, question: str) -> str:
    """A search query from an alert message and the question asked about it."""
    alert = alert.strip()
    if not alert:
        return question
    ctx: AlertContext = parse_alert_text(alert)
    query = build_query(dataclasses.replace(ctx, question=question or ctx.question))
    if ctx.alert_name or ctx.summary or ctx.evidence:
        return query or question
    first_line = next((ln.strip() for ln in alert.splitlines() if ln.strip()), "")
    return " ".join(p for p in (first_line[:300], question) if p)


def _restricted_count(private: Answer, audience: Scope) -> int:
    ids = {c.source_id for c in private.citations if not audience.groups.intersection(c.access)}
    return max(len(ids), 1)


def _left_out_note(left_out: Sequence[str]) -> str:
    """ " Left out ...: 1 related incident, 1 warning." (empty when nothing was)."""
    if not left_out:
        return ""
    counts = Counter(left_out)
    parts = [f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in counts.items()]
    return " Left out, as not everyone there may read them: " + ", ".join(parts) + "."


def _error_detail(exc: BaseException) -> str | None:
    if isinstance(exc, IndexLockedError):
        return "The runbook index is locked by another process."
    if isinstance(exc, IndexUnavailableError):
        return "The runbook index is unavailable right now; try again in a minute."
    if isinstance(exc, EmbeddingError):
        return "The search model failed to run."
    if isinstance(exc, TimeoutError):
        return "The search timed out."
    return None


def _message_kwargs(message: Message) -> dict[str, Any]:
    return {"text": message.text, "blocks": message.blocks}


# --------------------------------------------------------------------------- work in flight


class InFlight:
    """Counts work accepted and not yet finished; :meth:`wait_idle` waits for none."""

    def __init__(self) -> None:
        self._count = 0
        self._changed = threading.Condition()

    @property
    def count(self) -> int:
        with self._changed:
            return self._count

    def enter(self) -> None:
        with self._changed:
            self._count += 1

    def exit(self) -> None:
        with self._changed:
            self._count -= 1
            self._changed.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: self._count == 0, timeout)


class TrackedPool(ThreadPoolExecutor):
    """A thread pool whose queued and running tasks are counted in an :class:`InFlight`."""

    def __init__(self, max_workers: int, name: str, in_flight: InFlight) -> None:
        super().__init__(max_workers, thread_name_prefix=name)
        self._in_flight = in_flight

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        self._in_flight.enter()
        try:
            future = super().submit(fn, *args, **kwargs)
        except BaseException:
            self._in_flight.exit()
            raise
        future.add_done_callback(lambda _: self._in_flight.exit())
        return future


# --------------------------------------------------------------------------- the handlers


class SlackHandlers:
    """The app's collaborators and listeners; :attr:`app` is the bolt App."""

    def __init__(
        self,
        runtime: Runtime,
        client: WebClient | None = None,
        *,
        metrics: Metrics | None = None,
        today: Callable[[], date] = date.today,
        answer_workers: int = ANSWER_WORKERS,
        socket_mode: bool = False,
    ) -> None:
        settings = runtime.settings
        self.runtime = runtime
        self.settings = settings
        self.client = client or make_client(runtime)
        if self.client.token is None:
            raise ValueError("a Slack bot token is required (SLACK_BOT_TOKEN)")
        signing = settings.slack_signing_secret
        if signing is None and not socket_mode:
            raise ValueError("a Slack signing secret is required (SLACK_SIGNING_SECRET)")
        self.metrics = metrics if metrics is not None else Metrics()
        self.today = today
        self.directory = SlackUsergroupDirectory(self.client)
        self.service: AnswerService = runtime.service(self.directory, MetricsObserver(self.metrics))
        self.requests = RequestStore(_redis_or_none(runtime), namespace=settings.redis_namespace)
        self.channels = ChannelNames(self.client)
        self._in_flight = InFlight()
        # Answers run on their own small pool, so a slow search never holds up the
        # listener threads that acknowledge requests.
        self._pool = TrackedPool(answer_workers, "runbook-answer", self._in_flight)
        self._listeners = TrackedPool(LISTENER_WORKERS, "runbook-listener", self._in_flight)
        self._closed = False
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
        self._register(self.app)

    # -- lifecycle ---------------------------------------------------------------

    def warm(self) -> None:
        """Open the index, load the search snapshot and the model now, not on a question."""
        started = time.perf_counter()
        try:
            generation = self.runtime.searcher.generation()
            snapshot = self.runtime.searcher.snapshot(generation)
            _ = snapshot.term_stats  # tokenizes every chunk once: not on the first question
            self.runtime.embedder.warm()
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
        self._pool.submit(_backstop, fn, *args)

    # -- registration ------------------------------------------------------------

    def _register(self, app: App) -> None:
        app.command("/runbook")(self.on_command)
        app.event("app_mention")(self.on_mention)
        app.event("subteam_members_changed")(self.on_subteam_members_changed)
        app.action(ACTION_FEEDBACK_HELPFUL)(self.on_feedback)
        app.action(ACTION_FEEDBACK_NOT_HELPFUL)(self.on_feedback)
        app.action(ACTION_POST_TO_CHANNEL)(self.on_post_to_channel)
        app.action(ACTION_OPEN_SEARCH)(self.on_open_search)
        app.error(self.on_error)

    # -- scopes and requests -----------------------------------------------------

    def _audience(self, channel_id: str | None) -> Scope | None:
        if not channel_id or channel_id.startswith("D"):
            return None
        return self.service.resolver.audience_for_channel(channel_id)

    def _incident(self, channel_id: str | None, name: str | None = None) -> bool:
        patterns = self.settings.incident_channel_patterns
        if not channel_id or channel_id.startswith("D") or not patterns:
            return False
        if name and name not in ("directmessage", "privategroup", "mpdm"):
            self.channels.remember(channel_id, name)
            return is_incident_channel(name, patterns)
        return is_incident_channel(self.channels.name(channel_id), patterns)

    def _store(
        self, delivery: Delivery, question: str, channel_id: str | None, incident: bool
    ) -> None:
        answer = delivery.public
        self.requests.put(
            StoredRequest(
                request_id=delivery.request_id,
                question=question,  # put() redacts
                channel_id=channel_id,
                service=answer.citations[0].service if answer.citations else None,
                cited=tuple(c.source_id for c in answer.citations),
                incident=incident,
                answer=answer,
            )
        )

    # -- /runbook ----------------------------------------------------------------

    def on_command(
        self, ack: Ack, body: dict[str, Any], respond: Respond, request: BoltRequest
    ) -> None:
        # Slack never retries a slash command, so the same signed body twice is a replay
        # (valid for the 5-minute signature window): answer it once. Socket Mode has no
        # raw body; its payload (with the per-invocation trigger_id) stands in.
        raw = request.raw_body or json.dumps(body, sort_keys=True)
        digest = hashlib.sha256(raw.encode("utf-8")).hexdigest()
        if not self.runtime.dedup.first_time(f"command:{digest}"):
            ack()
            log.info("duplicate slash command ignored")
            self.metrics.request(SURFACE_SLASH, "duplicate")
            return
        text = " ".join(str(body.get("text") or "").split())
        if not text or text.lower() in HELP_WORDS:
            usage = render_usage()
            ack(text=usage.text, blocks=usage.blocks, response_type="ephemeral")
            self.metrics.request(SURFACE_SLASH, "usage")
            return
        searching = render_searching(text)
        ack(text=searching.text, blocks=searching.blocks, response_type="ephemeral")
        self._submit(
            self._answer_command, new_request_id(), text[:MAX_QUESTION_CHARS], body, respond
        )

    def _answer_command(
        self, request_id: str, question: str, body: dict[str, Any], respond: Respond
    ) -> None:
        with bind_request_id(request_id):
            try:
                user_id = str(body.get("user_id") or "")
                channel_id = str(body.get("channel_id") or "") or None
                incident = self._incident(channel_id, body.get("channel_name"))
                resolver = self.service.resolver
                delivery = self.service.ask(
                    question,
                    request_id,
                    asker=resolver.scope_for_user(user_id),
                    audience=None,  # the reply is ephemeral: only the asker sees it
                    user_id=user_id,
                    channel_id=channel_id,
                )
                answer = delivery.public
                offer = self._postable(answer, self._audience(channel_id))
                self._store(delivery, question, channel_id, incident)
                message = render_answer(
                    answer,
                    request_id=request_id,
                    today=self.today(),
                    offer_post=offer,
                    incident=incident,
                )
                with self.metrics.time_stage("slack"):
                    _respond(respond, message)
                self.metrics.request(SURFACE_SLASH, answer.state)
            except Exception as exc:
                self._failed(request_id, exc, SURFACE_SLASH)
                _respond(respond, render_error(request_id, _error_detail(exc)))

    # -- @runbook ----------------------------------------------------------------

    def on_mention(self, body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
        channel = str(event.get("channel") or "")
        ts = str(event.get("ts") or "")
        if not channel or not ts:
            return
        if event.get("bot_id") or (
            context.bot_user_id and event.get("user") == context.bot_user_id
        ):
            return
        if event.get("subtype") in ("message_changed", "message_deleted", "bot_message"):
            return
        event_id = str(body.get("event_id") or f"{channel}:{ts}")
        # Claim the event, then the message, in that order and only while winning: a
        # concurrent retry loses the event claim and leaves the message claim alone (two
        # independent claims could each be won by a different delivery, answering none).
        dedup = self.runtime.dedup
        if not (dedup.first_time(f"event:{event_id}") and dedup.first_time(f"msg:{channel}:{ts}")):
            log.info("duplicate app_mention %s (%s:%s) ignored", event_id, channel, ts)
            self.metrics.request(SURFACE_MENTION, "duplicate")
            return
        self._submit(self._answer_mention, new_request_id(), dict(event), context.bot_user_id)

    def _answer_mention(
        self, request_id: str, event: dict[str, Any], bot_user_id: str | None
    ) -> None:
        channel = str(event["channel"])
        thread_ts = str(event.get("thread_ts") or event["ts"])
        with bind_request_id(request_id):
            try:
                outcome = self._mention(request_id, event, channel, thread_ts, bot_user_id)
                self.metrics.request(SURFACE_MENTION, outcome)
            except Exception as exc:
                self._failed(request_id, exc, SURFACE_MENTION)
                self._post(channel, thread_ts, render_error(request_id, _error_detail(exc)))

    def _mention(
        self,
        request_id: str,
        event: dict[str, Any],
        channel: str,
        thread_ts: str,
        bot_user_id: str | None,
    ) -> str:
        """Answer one mention in its thread; the outcome for the metrics."""
        user_id = str(event.get("user") or "")
        question = strip_mention(str(event.get("text") or ""), bot_user_id)[:MAX_QUESTION_CHARS]
        alert = ""
        if event.get("thread_ts") and event.get("thread_ts") != event.get("ts"):
            alert = self._thread_parent(channel, thread_ts, bot_user_id)
        if question.lower() in HELP_WORDS:
            question = ""
        if not question and not alert:
            self._post(channel, thread_ts, render_usage(), raise_errors=True)
            return "usage"
        query = focused_query(alert, question) if alert else question
        incident = self._incident(channel)
        resolver = self.service.resolver
        audience = resolver.audience_for_channel(channel)
        delivery = self.service.ask(
            query,
            request_id,
            asker=resolver.scope_for_user(user_id),
            audience=audience,
            user_id=user_id,
            channel_id=channel,
        )
        self._store(delivery, query, channel, incident)
        today = self.today()
        public = render_answer(
            delivery.public, request_id=request_id, today=today, incident=incident
        )
        with self.metrics.time_stage("slack"):
            self._post(channel, thread_ts, public, raise_errors=True)
            if delivery.private is not None and user_id:
                n = _restricted_count(delivery.private, audience)
                note = f"{n} restricted runbook{'s' if n != 1 else ''} sent to you privately"
                private = render_answer(
                    delivery.private, request_id=request_id, today=today, private_note=note
                )
                # ephemeral: only the asker sees it, never a reply in the thread
                self.client.chat_postEphemeral(
                    channel=channel, user=user_id, thread_ts=thread_ts, **_message_kwargs(private)
                )
        return delivery.public.state

    def _thread_parent(self, channel: str, thread_ts: str, bot_user_id: str | None) -> str:
        """The text of the thread's parent message (the alert), or "" when unreadable."""
        try:
            resp = self.client.conversations_replies(channel=channel, ts=thread_ts, limit=1)
        except (SlackApiError, SlackRequestError, OSError) as exc:
            log.warning("conversations.replies %s/%s failed: %s", channel, thread_ts, exc)
            return ""
        messages = resp.get("messages") or []
        if not messages or not isinstance(messages[0], Mapping):
            return ""
        return strip_mention(message_text(messages[0]), bot_user_id)

    def _post(
        self, channel: str, thread_ts: str, message: Message, *, raise_errors: bool = False
    ) -> None:
        try:
            self.client.chat_postMessage(
                channel=channel, thread_ts=thread_ts, **_message_kwargs(message)
            )
        except Exception:
            if raise_errors:
                raise
            log.exception("could not post to %s (thread %s)", channel, thread_ts)

    # -- buttons -----------------------------------------------------------------

    def on_feedback(self, ack: Ack, body: dict[str, Any], respond: Respond) -> None:
        ack()
        action = (body.get("actions") or [{}])[0]
        request_id = str(action.get("value") or "")[:100] or "unknown"
        value: FeedbackValue = (
            "helpful" if action.get("action_id") == ACTION_FEEDBACK_HELPFUL else "not_helpful"
        )
        user_id = str((body.get("user") or {}).get("id") or "unknown")
        with bind_request_id(request_id):
            try:
                if self.runtime.dedup.first_time(f"feedback:{request_id}:{user_id}:{value}"):
                    stored = self.requests.get(request_id)
                    self.runtime.query_log.record_feedback(
                        build_feedback(
                            request_id=request_id,
                            user_hash=hash_user(user_id, self.runtime.user_salt),
                            value=value,
                            question=stored.question if stored else "",
                            service=stored.service if stored else None,
                            cited=stored.cited if stored else (),
                        )
                    )
                    self.metrics.feedback(value)
                    log.info("feedback %s", value, extra={"feedback": value, "known": bool(stored)})
                else:
                    log.info("repeated feedback %s ignored", value)
                respond(text=THANKS, response_type="ephemeral", replace_original=False)
            except Exception as exc:
                self._failed(request_id, exc, "feedback")
                _respond(respond, render_error(request_id, _error_detail(exc)))

    def on_post_to_channel(self, ack: Ack, body: dict[str, Any], respond: Respond) -> None:
        ack()
        action = (body.get("actions") or [{}])[0]
        request_id = str(action.get("value") or "")[:100] or "unknown"
        self._submit(self._post_to_channel, request_id, body, respond)

    def _post_to_channel(self, request_id: str, body: dict[str, Any], respond: Respond) -> None:
        with bind_request_id(request_id):
            try:
                self._share(request_id, body, respond)
            except Exception as exc:
                self._failed(request_id, exc, "post to channel")
                _respond(respond, render_error(request_id, _error_detail(exc)))

    def _share(self, request_id: str, body: dict[str, Any], respond: Respond) -> None:
        def tell(text: str) -> None:
            respond(text=text, response_type="ephemeral", replace_original=False)

        stored = self.requests.get(request_id)
        if stored is None:
            tell("This answer has expired - ask again with /runbook.")
            return
        channel = str((body.get("channel") or {}).get("id") or stored.channel_id or "")
        shown, why = self._for_channel(stored, channel)
        if shown is None or why is not None:
            log.info("not posting to %s: %s", channel, why)
            tell(why or "Not posted.")
            return
        message = render_answer(
            shown.answer, request_id=request_id, today=self.today(), incident=stored.incident
        )
        try:
            self.client.chat_postMessage(channel=channel, **_message_kwargs(message))
        except SlackApiError as exc:
            error = exc.response.get("error") if exc.response is not None else None
            if error not in ("not_in_channel", "channel_not_found", "is_archived"):
                raise
            tell(f"I can't post in this channel ({error}) - invite me and try again.")
            return
        log.info("posted the answer to %s", channel)
        tell("Posted to the channel." + _left_out_note(shown.left_out))

    def _postable(self, answer: Answer, audience: Scope | None) -> bool:
        """Offer "Post to channel"? Only for an answer whose every citation the whole
        audience may read now (what else it names is left out when posting)."""
        if audience is None or answer.state != "answer" or not answer.citations:
            return False
        return not self.service.disclose(answer, audience).blocked

    def _for_channel(
        self, stored: StoredRequest, channel: str
    ) -> tuple[Disclosure | None, str | None]:
        """The stored answer as ``channel`` may see it now, or why it may not be posted."""
        if not channel or channel.startswith("D"):
            return None, "There is no channel to post to here."
        answer = stored.answer
        if answer.state != "answer" or not answer.citations:
            return None, "Only answers that cite a runbook can be posted to the channel."
        audience = self.service.resolver.audience_for_channel(channel)
        shown = self.service.disclose(answer, audience)
        if not shown.blocked:
            return shown, None
        lookup = snapshot_lookup(self.runtime.searcher.snapshot())
        for citation in shown.blocked:
            if lookup(citation.source_id) is None:
                return None, (
                    f"Not posted: {citation.title} is no longer in the index. "
                    "Ask again for the current runbook."
                )
        titles = list(dict.fromkeys(c.title for c in shown.blocked))
        names = ", ".join(titles[:3]) + (" and more" if len(titles) > 3 else "")
        return None, (
            f"Not posted: not everyone in this channel may read {names}. "
            "The answer stays visible only to you."
        )

    def on_open_search(self, ack: Ack) -> None:
        ack()  # a link button: Slack opens the URL, the app only acknowledges

    # -- other events ------------------------------------------------------------

    def on_subteam_members_changed(self, event: dict[str, Any]) -> None:
        subteam = str(event.get("subteam_id") or "")
        if subteam:
            self.service.resolver.invalidate_usergroup(subteam)
            log.info("user group %s changed: cached members dropped", subteam)

    def on_error(self, error: Exception, body: dict[str, Any]) -> None:
        kind = body.get("type") if isinstance(body, dict) else None
        log.error("unhandled error in a Slack listener (%s): %s", kind, error, exc_info=error)

    # -- bookkeeping -------------------------------------------------------------

    def _failed(self, request_id: str, exc: BaseException, surface: str) -> None:
        self.metrics.error(_failed_stage(exc))
        self.metrics.request(surface, "error")
        log.error(
            "request %s failed (%s): %s: %s",
            request_id,
            surface,
            type(exc).__name__,
            exc,
            exc_info=exc,
            extra={"request_id": request_id},
        )


class _SkipTokenNotice(logging.Filter):
    """bolt warns that the SLACK_BOT_TOKEN it read itself is unused: the client has it."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "`token` will be unused" not in str(record.msg)


def _bolt_logger() -> logging.Logger:
    logger = logging.getLogger("runbook_bot.bolt")
    if not any(isinstance(f, _SkipTokenNotice) for f in logger.filters):
        logger.addFilter(_SkipTokenNotice())
    return logger


def _backstop(fn: Callable[..., None], *args: Any) -> None:
    """Run ``fn``: the work functions handle their own errors, this logs anything left."""
    try:
        fn(*args)
    except Exception:
        log.exception("unhandled error in %s", getattr(fn, "__name__", fn))


def _respond(respond: Respond, message: Message) -> None:
    try:
        resp = respond(
            text=message.text,
            blocks=message.blocks,
            response_type="ephemeral",
            replace_original=False,
        )
    except Exception:
        log.exception("could not post to response_url")
        return
    status = getattr(resp, "status_code", 200)
    if status >= 300:
        log.error("response_url answered %s: %s", status, getattr(resp, "body", ""))


def _redis_or_none(runtime: Runtime) -> redis.Redis | None:
    try:
        return runtime.redis
    except Exception as exc:  # e.g. an invalid URL: run without it
        log.warning("redis unavailable (%s); keeping requests in this process", exc)
        return None


def make_client(runtime: Runtime) -> WebClient:
    """The Web API client: the bot token, the configured API URL, retries on 429 and resets."""
    settings = runtime.settings
    token = settings.slack_bot_token.get_secret_value() if settings.slack_bot_token else None
    return WebClient(
        token=token,
        base_url=settings.slack_api_url or DEFAULT_SLACK_API_URL,
        retry_handlers=[
            RateLimitErrorRetryHandler(max_retry_count=2),
            ConnectionErrorRetryHandler(),
        ],
    )


def build_app(runtime: Runtime, client: WebClient | None = None) -> App:
    """The bolt App for ``runtime`` (model and snapshot warmed once, here)."""
    return SlackHandlers(runtime, client).app
