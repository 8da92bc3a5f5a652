"""A fake Slack Web API on 127.0.0.1 for tests: records every call and answers like Slack.

    with FakeSlackAPI() as fake:
        client = WebClient(token="xoxb-test", base_url=fake.base_url)
        client.chat_postMessage(channel="C1", text="hi")
        (call,) = fake.wait_for("chat.postMessage")
        assert call.params["text"] == "hi"

Web API methods are served under ``/api/<method>`` (``base_url`` ends in ``/api/``, as
slack_sdk expects); ``response_url`` posts under ``/response/<id>`` are recorded as calls to
the pseudo-method ``"response_url"``. Parameters are merged from the query string, a form
body and a JSON body. ``fail_next`` makes the next call(s) of a method fail with an HTTP
status (429 with ``Retry-After`` by default) or a Slack error (``{"ok": false, ...}``).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.fakes.http_server import LocalHTTPServer

RESPONSE_URL_METHOD = "response_url"

Responder = Callable[["RecordedCall"], Mapping[str, Any]]


@dataclass(frozen=True)
class RecordedCall:
    """One HTTP request the fake received."""

    method: str  # "chat.postMessage", or "response_url" for /response/<id>
    params: dict[str, Any]
    headers: dict[str, str]
    http_method: str = "POST"
    path: str = ""
    body: bytes = b""
    status: int = 200  # the HTTP status the fake answered with
    response_id: str | None = None  # the <id> of /response/<id>
    response: dict[str, Any] = field(default_factory=dict)

    def header(self, name: str) -> str | None:
        """A request header, case-insensitively."""
        lowered = name.lower()
        for key, value in self.headers.items():
            if key.lower() == lowered:
                return value
        return None

    @property
    def token(self) -> str | None:
        auth = self.header("Authorization") or ""
        if auth.startswith("Bearer "):
            return auth.removeprefix("Bearer ")
        token = self.params.get("token")
        return str(token) if token is not None else None

    @property
    def blocks(self) -> list[dict[str, Any]]:
        """The ``blocks`` parameter decoded (slack_sdk sends a list or a JSON string)."""
        blocks = self.params.get("blocks")
        if isinstance(blocks, str):
            blocks = json.loads(blocks)
        return list(blocks or [])


@dataclass
class _Failure:
    status: int
    error: str | None
    retry_after: int | None


@dataclass
class _Reply:
    status: int
    payload: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


class FakeSlackAPI(LocalHTTPServer):
    """A threaded HTTP server that imitates the Slack Web API and ``response_url``."""

    def __init__(
        self, *, bot_user_id: str = "UBOT", bot_id: str = "BBOT", team_id: str = "T1"
    ) -> None:
        super().__init__()
        self.bot_user_id = bot_user_id
        self.bot_id = bot_id
        self.team_id = team_id
        self._calls: list[RecordedCall] = []
        self._changed = threading.Condition()
        self._lock = threading.RLock()
        self._ts = itertools.count(1)
        self._failures: dict[str, deque[_Failure]] = defaultdict(deque)
        self._threads: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self._conversations: dict[str, dict[str, Any]] = {}
        self._members: dict[str, list[str]] = {}
        self._usergroups: dict[str, tuple[str, list[str]]] = {}
        self._users: dict[str, dict[str, Any]] = {}
        self._overrides: dict[str, Mapping[str, Any] | Responder] = {}
        self._delays: dict[str, float] = {}

    # ------------------------------------------------------------------ lifecycle

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """For ``WebClient(base_url=...)``: method names are appended to it."""
        return f"{self.root_url}/api/"

    def response_url(self, response_id: str) -> str:
        """A ``response_url`` whose posts are recorded as ``"response_url"`` calls."""
        return f"{self.root_url}/response/{response_id}"

    # ------------------------------------------------------------------ recorded calls

    @property
    def calls(self) -> list[RecordedCall]:
        with self._changed:
            return list(self._calls)

    def calls_to(self, method: str) -> list[RecordedCall]:
        return [c for c in self.calls if c.method == method]

    def response_posts(self, response_id: str) -> list[dict[str, Any]]:
        """The JSON bodies posted to ``response_url(response_id)``, in order."""
        return [
            c.params for c in self.calls_to(RESPONSE_URL_METHOD) if c.response_id == response_id
        ]

    def wait_for(self, method: str, count: int = 1, timeout: float = 5) -> list[RecordedCall]:
        """Wait until ``method`` was called at least ``count`` times; return those calls."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                found = [c for c in self._calls if c.method == method]
                if len(found) >= count:
                    return found
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    seen = [c.method for c in self._calls]
                    raise AssertionError(
                        f"expected {count} call(s) to {method} within {timeout}s, "
                        f"got {len(found)}; calls so far: {seen}"
                    )
                self._changed.wait(min(remaining, 0.05))

    def clear(self) -> None:
        """Forget the recorded calls (configuration and queued failures stay)."""
        with self._changed:
            self._calls.clear()

    # ------------------------------------------------------------------ configuration

    def fail_next(
        self,
        method: str,
        *,
        status: int | None = None,
        error: str | None = None,
        retry_after: int | None = None,
        times: int = 1,
    ) -> None:
        """Make the next ``times`` calls to ``method`` fail.

        ``fail_next(m)`` / ``fail_next(m, status=429, retry_after=1)``: HTTP 429 with a
        ``Retry-After`` header (what slack_sdk's RateLimitErrorRetryHandler retries).
        ``fail_next(m, error="ratelimited")``: HTTP 200 with ``{"ok": false, "error": ...}``.
        ``fail_next(m, status=500)``: an HTTP 500.
        """
        if status is None:
            status = 200 if error is not None else 429
        if status == 429 and retry_after is None:
            retry_after = 1
        failure = _Failure(status=status, error=error, retry_after=retry_after)
        with self._lock:
            self._failures[method].extend([failure] * times)

    def set_response(self, method: str, response: Mapping[str, Any] | Responder) -> None:
        """Answer ``method`` with a fixed payload, or a function of the call."""
        with self._lock:
            self._overrides[method] = response

    def set_delay(self, method: str, seconds: float) -> None:
        """Hold every answer to ``method`` ``seconds`` after recording the call (a slow
        Slack); 0 answers at once again."""
        with self._lock:
            self._delays[method] = seconds

    def delay_of(self, method: str) -> float:
        with self._lock:
            return self._delays.get(method, 0.0)

    def set_thread(self, channel: str, ts: str, messages: list[dict[str, Any]]) -> None:
        """What ``conversations.replies(channel, ts)`` returns (parent first)."""
        with self._lock:
            self._threads[(channel, ts)] = [dict(m) for m in messages]

    def set_conversation(self, channel: str, **info: Any) -> None:
        """Fields of ``conversations.info(channel)``, e.g. ``is_private=True``."""
        with self._lock:
            self._conversations[channel] = {**self._default_conversation(channel), **info}

    def set_members(self, channel: str, members: list[str]) -> None:
        with self._lock:
            self._members[channel] = list(members)

    def set_usergroups(self, groups: Mapping[str, tuple[str, list[str]]]) -> None:
        """``{handle: (usergroup id, [user ids])}`` for usergroups.list / users.list."""
        with self._lock:
            self._usergroups = {h: (gid, list(users)) for h, (gid, users) in groups.items()}

    def set_user(self, user_id: str, **fields: Any) -> None:
        with self._lock:
            self._users[user_id] = {**self._default_user(user_id), **fields}

    # ------------------------------------------------------------------ request handling

    def _record(self, call: RecordedCall) -> None:
        with self._changed:
            self._calls.append(call)
            self._changed.notify_all()

    def _next_failure(self, method: str) -> _Failure | None:
        with self._lock:
            queue = self._failures.get(method)
            return queue.popleft() if queue else None

    def _next_ts(self) -> str:
        return f"1700000000.{next(self._ts):06d}"

    def handle(self, call: RecordedCall) -> _Reply:
        failure = self._next_failure(call.method)
        if failure is not None:
            headers = {}
            if failure.retry_after is not None:
                headers["Retry-After"] = str(failure.retry_after)
            error = failure.error or ("ratelimited" if failure.status == 429 else "fatal_error")
            return _Reply(failure.status, {"ok": False, "error": error}, headers)
        with self._lock:
            override = self._overrides.get(call.method)
        if override is not None:
            payload = override(call) if callable(override) else override
            return _Reply(200, dict(payload))
        if call.method == RESPONSE_URL_METHOD:
            return _Reply(200, {"ok": True})
        answer = getattr(self, "_api_" + call.method.replace(".", "_"), None)
        return _Reply(200, answer(call.params) if answer is not None else {"ok": True})

    # ------------------------------------------------------------------ default answers

    def _default_conversation(self, channel: str) -> dict[str, Any]:
        return {
            "id": channel,
            "name": channel.lower(),
            "is_channel": not channel.startswith("D"),
            "is_private": channel.startswith("G"),
            "is_im": channel.startswith("D"),
            "is_member": True,
        }

    def _default_user(self, user_id: str) -> dict[str, Any]:
        return {
            "id": user_id,
            "team_id": self.team_id,
            "name": user_id.lower(),
            "real_name": user_id,
            "deleted": False,
            "is_bot": user_id == self.bot_user_id,
            "profile": {"display_name": user_id.lower(), "real_name": user_id},
        }

    def _api_auth_test(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "ok": True,
            "url": "https://fake.slack.com/",
            "team": "Fake",
            "user": "runbook",
            "team_id": self.team_id,
            "user_id": self.bot_user_id,
            "bot_id": self.bot_id,
        }

    def _message(self, params: dict[str, Any], ts: str) -> dict[str, Any]:
        message: dict[str, Any] = {
            "type": "message",
            "ts": ts,
            "user": self.bot_user_id,
            "bot_id": self.bot_id,
            "text": params.get("text", ""),
        }
        blocks = params.get("blocks")
        if blocks:
            message["blocks"] = json.loads(blocks) if isinstance(blocks, str) else blocks
        if params.get("thread_ts"):
            message["thread_ts"] = params["thread_ts"]
        return message

    def _check_message(self, params: dict[str, Any]) -> dict[str, Any] | None:
        if not params.get("channel"):
            return {"ok": False, "error": "channel_not_found"}
        blocks = params.get("blocks")
        if isinstance(blocks, str):
            try:
                blocks = json.loads(blocks)
            except ValueError:
                return {"ok": False, "error": "invalid_blocks_format"}
        if blocks is not None and (not isinstance(blocks, list) or len(blocks) > 50):
            return {"ok": False, "error": "invalid_blocks"}
        if not params.get("text") and not blocks and not params.get("attachments"):
            return {"ok": False, "error": "no_text"}
        return None

    def _api_chat_postMessage(self, params: dict[str, Any]) -> dict[str, Any]:
        error = self._check_message(params)
        if error is not None:
            return error
        ts = self._next_ts()
        return {
            "ok": True,
            "channel": params["channel"],
            "ts": ts,
            "message": self._message(params, ts),
        }

    def _api_chat_postEphemeral(self, params: dict[str, Any]) -> dict[str, Any]:
        error = self._check_message(params)
        if error is not None:
            return error
        if not params.get("user"):
            return {"ok": False, "error": "user_not_found"}
        return {"ok": True, "message_ts": self._next_ts()}

    def _api_chat_update(self, params: dict[str, Any]) -> dict[str, Any]:
        if not params.get("channel") or not params.get("ts"):
            return {"ok": False, "error": "message_not_found"}
        return {
            "ok": True,
            "channel": params["channel"],
            "ts": params["ts"],
            "text": params.get("text", ""),
            "message": self._message(params, str(params["ts"])),
        }

    def _api_chat_getPermalink(self, params: dict[str, Any]) -> dict[str, Any]:
        channel, ts = str(params.get("channel", "")), str(params.get("message_ts", ""))
        if not channel or not ts:
            return {"ok": False, "error": "message_not_found"}
        link = f"https://fake.slack.com/archives/{channel}/p{ts.replace('.', '')}"
        return {"ok": True, "channel": channel, "permalink": link}

    def _api_views_open(self, params: dict[str, Any]) -> dict[str, Any]:
        view = params.get("view")
        view = json.loads(view) if isinstance(view, str) else view
        return {"ok": True, "view": {**(view or {}), "id": f"V{next(self._ts):08d}"}}

    def _api_views_update(self, params: dict[str, Any]) -> dict[str, Any]:
        view = params.get("view")
        view = json.loads(view) if isinstance(view, str) else view
        return {"ok": True, "view": {**(view or {}), "id": params.get("view_id")}}

    def _api_conversations_open(self, params: dict[str, Any]) -> dict[str, Any]:
        users = str(params.get("users") or "")
        return {"ok": True, "channel": {"id": "D" + users.removeprefix("U")[:9]}}

    def _api_files_getUploadURLExternal(self, params: dict[str, Any]) -> dict[str, Any]:
        file_id = f"F{next(self._ts):08d}"
        return {
            "ok": True,
            "upload_url": f"{self.base_url}files.upload.{file_id}",
            "file_id": file_id,
        }

    def _api_files_completeUploadExternal(self, params: dict[str, Any]) -> dict[str, Any]:
        files = params.get("files")
        files = json.loads(files) if isinstance(files, str) else files
        return {
            "ok": True,
            "files": [{"id": f["id"], "title": f.get("title")} for f in files or []],
        }

    def _api_conversations_replies(self, params: dict[str, Any]) -> dict[str, Any]:
        key = (str(params.get("channel", "")), str(params.get("ts", "")))
        with self._lock:
            messages = self._threads.get(key)
        if messages is None:
            return {"ok": False, "error": "thread_not_found"}
        return _page(params, "messages", messages)

    def _api_conversations_info(self, params: dict[str, Any]) -> dict[str, Any]:
        channel = str(params.get("channel", ""))
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        with self._lock:
            info = self._conversations.get(channel) or self._default_conversation(channel)
        return {"ok": True, "channel": dict(info)}

    def _api_conversations_members(self, params: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            members = list(self._members.get(str(params.get("channel", "")), []))
        return _page(params, "members", members)

    def _api_usergroups_list(self, params: dict[str, Any]) -> dict[str, Any]:
        include_users = str(params.get("include_users", "")).lower() in ("1", "true")
        groups = []
        with self._lock:
            items = list(self._usergroups.items())
        for handle, (group_id, users) in items:
            group: dict[str, Any] = {
                "id": group_id,
                "team_id": self.team_id,
                "handle": handle,
                "name": handle,
                "user_count": len(users),
                "date_delete": 0,
            }
            if include_users:
                group["users"] = list(users)
            groups.append(group)
        return {"ok": True, "usergroups": groups}

    def _api_usergroups_users_list(self, params: dict[str, Any]) -> dict[str, Any]:
        wanted = str(params.get("usergroup", ""))
        with self._lock:
            items = list(self._usergroups.values())
        for group_id, users in items:
            if group_id == wanted:
                return {"ok": True, "users": list(users)}
        return {"ok": False, "error": "no_such_subteam"}

    def _api_users_lookupByEmail(self, params: dict[str, Any]) -> dict[str, Any]:
        email = str(params.get("email", "")).lower()
        with self._lock:
            users = list(self._users.values())
        for user in users:
            if email and str((user.get("profile") or {}).get("email", "")).lower() == email:
                return {"ok": True, "user": dict(user)}
        return {"ok": False, "error": "users_not_found"}

    def _api_users_info(self, params: dict[str, Any]) -> dict[str, Any]:
        user_id = str(params.get("user", ""))
        if not user_id:
            return {"ok": False, "error": "user_not_found"}
        with self._lock:
            user = self._users.get(user_id) or self._default_user(user_id)
        return {"ok": True, "user": dict(user)}


def _page(params: Mapping[str, Any], key: str, items: list[Any]) -> dict[str, Any]:
    """Cursor pagination as Slack does it: ``limit`` + ``cursor`` -> ``next_cursor``."""
    start = int(params.get("cursor") or 0)
    limit = int(params.get("limit") or 0) or len(items) or 1
    page = items[start : start + limit]
    more = start + limit < len(items)
    return {
        "ok": True,
        key: page,
        "has_more": more,
        "response_metadata": {"next_cursor": str(start + limit) if more else ""},
    }


def _flatten(values: Mapping[str, list[str]]) -> dict[str, Any]:
    return {k: v[0] if len(v) == 1 else v for k, v in values.items()}


def _parse_params(query: str, content_type: str, body: bytes) -> dict[str, Any]:
    params: dict[str, Any] = _flatten(parse_qs(query, keep_blank_values=True))
    if not body:
        return params
    kind = content_type.split(";")[0].strip().lower()
    if kind == "application/json":
        try:
            decoded = json.loads(body)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict):
            params.update(decoded)
    elif kind == "application/x-www-form-urlencoded":
        form = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
        params.update(_flatten(form))
    return params


class _Handler(BaseHTTPRequestHandler):
    fake: FakeSlackAPI  # set on the per-server subclass

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def _serve(self) -> None:
        split = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        params = _parse_params(split.query, self.headers.get("Content-Type", ""), body)
        headers = dict(self.headers.items())
        response_id: str | None = None
        if split.path.startswith("/api/"):
            method = split.path.removeprefix("/api/")
        elif split.path.startswith("/response/"):
            method = RESPONSE_URL_METHOD
            response_id = split.path.removeprefix("/response/")
        else:
            self._send(_Reply(404, {"ok": False, "error": "unknown_path"}))
            return
        call = RecordedCall(
            method=method,
            params=params,
            headers=headers,
            http_method=self.command,
            path=self.path,
            body=body,
            response_id=response_id,
        )
        try:
            reply = self.fake.handle(call)
        except Exception as exc:  # a broken test responder must not hang the client
            reply = _Reply(500, {"ok": False, "error": f"fake_error: {exc!r}"})
        recorded = dataclasses.replace(call, status=reply.status, response=reply.payload)
        # record before answering, so a client that returns can rely on wait_for/calls
        self.fake._record(recorded)
        delay = self.fake.delay_of(method)
        if delay > 0:
            time.sleep(delay)
        self._send(reply)

    def _send(self, reply: _Reply) -> None:
        data = json.dumps(reply.payload).encode("utf-8")
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def iter_texts(blocks: list[dict[str, Any]]) -> Iterator[str]:
    """Every text string in a list of blocks (handy for asserting on posted messages)."""
    for block in blocks:
        text = block.get("text")
        if isinstance(text, dict):
            yield str(text.get("text", ""))
        for element in block.get("elements", []) or []:
            if isinstance(element, dict):
                inner = element.get("text")
                if isinstance(inner, dict):
                    yield str(inner.get("text", ""))
                elif isinstance(inner, str):
                    yield inner


FakeSlackAPI.handler_class = _Handler
