"""The Slack app: ``/runbook``, mentions, buttons and user-group changes, on slack-bolt.

Every request is acknowledged first (Slack gives 3 seconds) and answered afterwards on a
small worker pool, so a slow search never delays an acknowledgement:

* ``/runbook <question>`` acks with an ephemeral "Searching runbooks…" and answers
  through ``response_url`` (ephemeral, only the asker sees it). The answer offers
  "Post to channel" only when every cited runbook is readable by the whole channel.
* ``@runbook <question>`` answers in the thread of the mention, from the whole channel's
  point of view (the public answer cites only what everyone there may read); runbooks
  only the asker may read go to them as an ephemeral message. Inside an alert thread the
  alert (the thread's parent) focuses the query. Each event is answered once, across
  Slack's retries and across replicas.
* Feedback buttons are recorded in the query log; "Post to channel" re-checks the
  audience rule at click time.

Nothing is ever silent: any failure is shown where the answer would have gone, with the
request id that the log line carries too.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from typing import Any

import redis
from pydantic import ValidationError
from slack_bolt import Ack, App, BoltContext, Respond
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
)

from bot import blocks
from bot.blocks import Message, render_answer, render_error, render_searching, render_usage
from bot.runtime import Runtime
from bot.service import AnswerService, Delivery, Observer
from bot.slack_directory import SlackUsergroupDirectory
from retrieval.cache import REDIS_ERRORS, ServiceHealth
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
from retrieval.types import Answer, Citation, Frozen

log = logging.getLogger("runbook_bot.slack")

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
ACTION_OPEN_SEARCH: str | None = getattr(blocks, "ACTION_OPEN_SEARCH", None)

HELP_WORDS = frozenset({"help", "-h", "--help", "?", "usage"})
_LEADING_MENTION = re.compile(r"^\s*<@[UW][A-Z0-9]+(?:\|[^>]*)?>")
THANKS = "Thanks for the feedback - it helps the runbook owners."


# --------------------------------------------------------------------------- logs, metrics


def _new_request_id() -> str:
    try:
        from bot.logs import new_request_id
    except ImportError:  # bot.logs is optional
        import secrets

        return "r-" + secrets.token_hex(5)
    return str(new_request_id())


@contextlib.contextmanager
def _request_context(request_id: str) -> Iterator[None]:
    """Bind the request id to every log line inside (when bot.logs can)."""
    try:
        from bot.logs import bind_request_id
    except ImportError:
        yield
        return
    with bind_request_id(request_id):
        yield


def _load_metrics() -> Any | None:
    try:
        from bot.metrics import Metrics
    except ImportError:
        return None
    return Metrics()


def _call_metric(metrics: Any | None, name: str, *args: Any, **kwargs: Any) -> None:
    """Call ``metrics.<name>(...)`` if it exists; metrics never fail a request."""
    if metrics is None:
        return
    fn = getattr(metrics, name, None)
    if fn is None:
        return
    try:
        fn(*args, **kwargs)
    except Exception:  # a metrics bug must not break answering
        log.debug("metrics call %s failed", name, exc_info=True)


class MetricsObserver(Observer):
    """Forwards AnswerService hooks to :class:`bot.metrics.Metrics`."""

    def __init__(self, metrics: Any) -> None:
        self._metrics = metrics

    def stage(self, stage: str, seconds: float) -> None:
        _call_metric(self._metrics, "observe_stage", stage, seconds)

    def cache(self, hit: bool) -> None:
        _call_metric(self._metrics, "cache", hit)

    def answered(self, answer: Answer) -> None:
        _call_metric(self._metrics, "answered", answer)


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
        namespace: str = "rbb",
        *,
        max_local: int = MAX_LOCAL_REQUESTS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._ttl = ttl_seconds
        self._ns = namespace
        self._max = max_local
        self._clock = clock
        self._lock = threading.Lock()
        self._local: OrderedDict[str, tuple[float, str]] = OrderedDict()
        self._health = ServiceHealth(log, "request store", "keeping answers in this process")

    def key(self, request_id: str) -> str:
        return f"{self._ns}:req:{request_id}"

    def put(self, stored: StoredRequest) -> None:
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
        except (SlackApiError, OSError) as exc:
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
        for key in ("pretext", "title", "text"):
            if att.get(key):
                parts.append(str(att[key]))
        for field in att.get("fields") or []:
            if isinstance(field, Mapping) and field.get("title"):
                parts.append(f"{field.get('title')}: {field.get('value', '')}")
        if len(parts) == (1 if message.get("text") else 0) and att.get("fallback"):
            parts.append(str(att["fallback"]))
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


def readable_by(citations: Sequence[Citation], audience: Scope | None) -> bool:
    """Can everyone in ``audience`` read every cited document?"""
    if audience is None or not citations:
        return False
    return all(audience.groups.intersection(c.access) for c in citations)


def _restricted_count(private: Answer, audience: Scope) -> int:
    ids = {c.source_id for c in private.citations if not audience.groups.intersection(c.access)}
    return max(len(ids), 1)


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


# --------------------------------------------------------------------------- the handlers


class SlackHandlers:
    """The app's collaborators and listeners; :attr:`app` is the bolt App."""

    def __init__(
        self,
        runtime: Runtime,
        client: WebClient | None = None,
        *,
        metrics: Any | None = None,
        today: Callable[[], date] = date.today,
        answer_workers: int = ANSWER_WORKERS,
        socket_mode: bool = False,
    ) -> None:
        settings = runtime.settings
        self.runtime = runtime
        self.settings = settings
        self.client = client or make_client(runtime)
        self.metrics = metrics if metrics is not None else _load_metrics()
        self.today = today
        observer = MetricsObserver(self.metrics) if self.metrics is not None else None
        self.directory = SlackUsergroupDirectory(self.client)
        self.service: AnswerService = runtime.service(self.directory, observer)
        self.requests = RequestStore(_redis_or_none(runtime))
        self.channels = ChannelNames(self.client)
        self._pool = ThreadPoolExecutor(answer_workers, thread_name_prefix="runbook-answer")
        self._closed = False
        self.warm()
        if self.client.token is None:
            raise ValueError("a Slack bot token is required (SLACK_BOT_TOKEN)")
        signing = settings.slack_signing_secret
        if signing is None and not socket_mode:
            raise ValueError("a Slack signing secret is required (SLACK_SIGNING_SECRET)")
        self.app = App(
            client=self.client,
            signing_secret=signing.get_secret_value() if signing is not None else None,
            # Socket Mode requests arrive over an authenticated websocket, unsigned
            request_verification_enabled=not socket_mode,
            process_before_response=False,
            token_verification_enabled=False,
            listener_executor=ThreadPoolExecutor(
                LISTENER_WORKERS, thread_name_prefix="runbook-listener"
            ),
            logger=logging.getLogger("runbook_bot.bolt"),
        )
        self._register(self.app)

    # -- lifecycle ---------------------------------------------------------------

    def warm(self) -> None:
        """Load the model and the search snapshot now, not on the first question."""
        started = time.perf_counter()
        try:
            self.runtime.embedder.warm()
            self.runtime.searcher.snapshot()
            _ = self.runtime.answerer
        except IndexLockedError:
            raise
        except RetrievalError as exc:
            log.warning("could not warm the index at start-up (%s); will retry per question", exc)
            return
        log.info("warmed model and search snapshot in %.2fs", time.perf_counter() - started)

    def close(self, wait: bool = True) -> None:
        """Finish (``wait``) the answers in flight and stop taking new ones."""
        self._closed = True
        self._pool.shutdown(wait=wait, cancel_futures=not wait)

    def _submit(self, fn: Callable[..., None], *args: Any) -> None:
        if self._closed:
            log.warning("shutting down: not starting %s", getattr(fn, "__name__", fn))
            return
        self._pool.submit(fn, *args)

    # -- registration ------------------------------------------------------------

    def _register(self, app: App) -> None:
        app.command("/runbook")(self.on_command)
        app.event("app_mention")(self.on_mention)
        app.event("subteam_members_changed")(self.on_subteam_members_changed)
        app.action(ACTION_FEEDBACK_HELPFUL)(self.on_feedback)
        app.action(ACTION_FEEDBACK_NOT_HELPFUL)(self.on_feedback)
        app.action(ACTION_POST_TO_CHANNEL)(self.on_post_to_channel)
        if ACTION_OPEN_SEARCH is not None:
            app.action(ACTION_OPEN_SEARCH)(self.on_open_search)
        app.error(self.on_error)

    # -- scopes ------------------------------------------------------------------

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
                question=redact(question),
                channel_id=channel_id,
                service=answer.citations[0].service if answer.citations else None,
                cited=tuple(c.source_id for c in answer.citations),
                incident=incident,
                answer=answer.model_copy(update={"question": redact(answer.question)}),
            )
        )

    # -- /runbook ----------------------------------------------------------------

    def on_command(self, ack: Ack, body: dict[str, Any], respond: Respond) -> None:
        text = " ".join(str(body.get("text") or "").split())
        if not text or text.lower() in HELP_WORDS:
            usage = render_usage()
            ack(text=usage.text, blocks=usage.blocks, response_type="ephemeral")
            return
        searching = render_searching(text)
        ack(text=searching.text, blocks=searching.blocks, response_type="ephemeral")
        request_id = _new_request_id()
        _call_metric(self.metrics, "request", "slash")
        self._submit(self._answer_command, request_id, text[:MAX_QUESTION_CHARS], body, respond)

    def _answer_command(
        self, request_id: str, question: str, body: dict[str, Any], respond: Respond
    ) -> None:
        with _request_context(request_id):
            started = time.perf_counter()
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
                offer = answer.state == "answer" and readable_by(
                    answer.citations, self._audience(channel_id)
                )
                self._store(delivery, question, channel_id, incident)
                message = render_answer(
                    answer,
                    request_id=request_id,
                    today=self.today(),
                    offer_post=offer,
                    incident=incident,
                )
                _respond(respond, message)
                self._observe_answer(answer, started)
            except Exception as exc:
                self._failed(request_id, exc, "slash command")
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
        first_event = self.runtime.dedup.first_time(f"event:{event_id}")
        first_message = self.runtime.dedup.first_time(f"msg:{channel}:{ts}")
        if not (first_event and first_message):
            log.info("duplicate app_mention %s (%s:%s) ignored", event_id, channel, ts)
            return
        request_id = _new_request_id()
        _call_metric(self.metrics, "request", "mention")
        self._submit(self._answer_mention, request_id, dict(event), context.bot_user_id)

    def _answer_mention(
        self, request_id: str, event: dict[str, Any], bot_user_id: str | None
    ) -> None:
        channel = str(event["channel"])
        ts = str(event["ts"])
        thread_ts = str(event.get("thread_ts") or ts)
        with _request_context(request_id):
            started = time.perf_counter()
            try:
                self._mention(request_id, event, channel, thread_ts, bot_user_id, started)
            except Exception as exc:
                self._failed(request_id, exc, "mention")
                self._post(channel, thread_ts, render_error(request_id, _error_detail(exc)))

    def _mention(
        self,
        request_id: str,
        event: dict[str, Any],
        channel: str,
        thread_ts: str,
        bot_user_id: str | None,
        started: float,
    ) -> None:
        user_id = str(event.get("user") or "")
        question = strip_mention(str(event.get("text") or ""), bot_user_id)
        question = question[:MAX_QUESTION_CHARS]
        alert = ""
        if event.get("thread_ts") and event.get("thread_ts") != event.get("ts"):
            alert = self._thread_parent(channel, thread_ts, bot_user_id)
        if not question and not alert:
            self._post(channel, thread_ts, render_usage())
            return
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
        self._post(channel, thread_ts, public, raise_errors=True)
        self._observe_answer(delivery.public, started)
        if delivery.private is not None and user_id:
            n = _restricted_count(delivery.private, audience)
            note = f"{n} restricted runbook{'s' if n != 1 else ''} sent to you privately"
            private = render_answer(
                delivery.private, request_id=request_id, today=today, private_note=note
            )
            self.client.chat_postEphemeral(
                channel=channel, user=user_id, thread_ts=thread_ts, **_message_kwargs(private)
            )

    def _thread_parent(self, channel: str, thread_ts: str, bot_user_id: str | None) -> str:
        """The text of the thread's parent message (the alert), or "" when unreadable."""
        try:
            resp = self.client.conversations_replies(channel=channel, ts=thread_ts, limit=1)
        except (SlackApiError, OSError) as exc:
            log.warning("conversations.replies %s/%s failed: %s", channel, thread_ts, exc)
            return ""
        messages = resp.get("messages") or []
        if not messages or not isinstance(messages[0], Mapping):
            return ""
        parent = messages[0]
        return strip_mention(message_text(parent), bot_user_id) if parent else ""

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
        request_id = str(action.get("value") or "")
        value: FeedbackValue = (
            "helpful" if action.get("action_id") == ACTION_FEEDBACK_HELPFUL else "not_helpful"
        )
        user_id = str((body.get("user") or {}).get("id") or "")
        with _request_context(request_id or "-"):
            try:
                stored = self.requests.get(request_id) if request_id else None
                if user_id and not self.runtime.dedup.first_time(
                    f"feedback:{request_id}:{user_id}:{value}"
                ):
                    log.info("duplicate feedback ignored", extra={"request_id": request_id})
                else:
                    self.runtime.query_log.record_feedback(
                        build_feedback(
                            request_id=request_id or "unknown",
                            user_hash=hash_user(user_id or "unknown", self.runtime.user_salt),
                            value=value,
                            question=stored.question if stored else "",
                            service=stored.service if stored else None,
                            cited=stored.cited if stored else (),
                        )
                    )
                    _call_metric(self.metrics, "feedback", value)
                    log.info(
                        "feedback %s for request %s",
                        value,
                        request_id,
                        extra={"request_id": request_id, "feedback": value},
                    )
                respond(text=THANKS, response_type="ephemeral", replace_original=False)
            except Exception as exc:
                self._failed(request_id or "-", exc, "feedback")
                _respond(respond, render_error(request_id or "-", _error_detail(exc)))

    def on_post_to_channel(self, ack: Ack, body: dict[str, Any], respond: Respond) -> None:
        ack()
        action = (body.get("actions") or [{}])[0]
        request_id = str(action.get("value") or "")
        self._submit(self._post_to_channel, request_id, body, respond)

    def _post_to_channel(self, request_id: str, body: dict[str, Any], respond: Respond) -> None:
        with _request_context(request_id or "-"):
            try:
                stored = self.requests.get(request_id) if request_id else None
                if stored is None:
                    respond(
                        text="This answer has expired - ask again with /runbook.",
                        response_type="ephemeral",
                        replace_original=False,
                    )
                    return
                channel = str((body.get("channel") or {}).get("id") or stored.channel_id or "")
                why = self._cannot_post(stored, channel)
                if why is not None:
                    respond(text=why, response_type="ephemeral", replace_original=False)
                    return
                message = render_answer(
                    stored.answer,
                    request_id=request_id,
                    today=self.today(),
                    incident=stored.incident,
                )
                try:
                    self.client.chat_postMessage(channel=channel, **_message_kwargs(message))
                except SlackApiError as exc:
                    error = exc.response.get("error") if exc.response is not None else None
                    if error in ("not_in_channel", "channel_not_found", "is_archived"):
                        respond(
                            text=(
                                "I can't post in this channel "
                                f"({error}) - invite me with /invite @runbook and try again."
                            ),
                            response_type="ephemeral",
                            replace_original=False,
                        )
                        return
                    raise
                log.info("posted request %s to %s", request_id, channel)
                respond(
                    text="Posted to the channel.",
                    response_type="ephemeral",
                    replace_original=False,
                )
            except Exception as exc:
                self._failed(request_id or "-", exc, "post to channel")
                _respond(respond, render_error(request_id or "-", _error_detail(exc)))

    def _cannot_post(self, stored: StoredRequest, channel: str) -> str | None:
        """Why the stored answer may not be posted to ``channel`` now (None: it may)."""
        if not channel or channel.startswith("D"):
            return "There is no channel to post to here."
        audience = self.service.resolver.audience_for_channel(channel)
        answer = stored.answer
        if answer.state != "answer" or not answer.citations:
            return "Only answers with a cited runbook can be posted to the channel."
        current = self._current_access([c.source_id for c in answer.citations])
        blocked: list[str] = []
        for citation in answer.citations:
            access = current.get(citation.source_id)
            if access is None:
                return (
                    f"Not posted: {citation.title} is no longer in the index. "
                    "Ask again to get the current runbook."
                )
            if not audience.groups.intersection(access):
                blocked.append(citation.title)
        if blocked:
            return (
                "Not posted: not everyone in this channel may read "
                + ", ".join(blocked[:3])
                + (" and more" if len(blocked) > 3 else "")
                + ". The answer stays visible only to you."
            )
        return None

    def _current_access(self, source_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """Each document's access groups as the live index has them now."""
        wanted = set(source_ids)
        found: dict[str, tuple[str, ...]] = {}
        for chunk in self.runtime.searcher.snapshot().chunks:
            if chunk.source_id in wanted and chunk.source_id not in found:
                found[chunk.source_id] = tuple(chunk.metadata.access)
        return found

    def on_open_search(self, ack: Ack) -> None:
        ack()

    # -- other events ------------------------------------------------------------

    def on_subteam_members_changed(self, event: dict[str, Any]) -> None:
        subteam = str(event.get("subteam_id") or "")
        if subteam:
            self.service.resolver.invalidate_usergroup(subteam)
            log.info("user group %s changed: cached members dropped", subteam)

    def on_error(self, error: Exception, body: dict[str, Any]) -> None:
        log.error(
            "unhandled error in a Slack listener (%s): %s",
            body.get("type") if isinstance(body, dict) else "?",
            error,
            exc_info=error,
        )

    # -- bookkeeping -------------------------------------------------------------

    def _observe_answer(self, answer: Answer, started: float) -> None:
        _call_metric(self.metrics, "observe_stage", "request", time.perf_counter() - started)
        if answer.state == "abstain":
            _call_metric(self.metrics, "abstention", answer.reason or "unknown")

    def _failed(self, request_id: str, exc: BaseException, where: str) -> None:
        _call_metric(self.metrics, "error", type(exc).__name__)
        log.error(
            "request %s failed in %s: %s: %s",
            request_id,
            where,
            type(exc).__name__,
            exc,
            exc_info=exc,
            extra={"request_id": request_id},
        )


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
