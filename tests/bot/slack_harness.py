"""A Slack harness for tests: the real bolt App served over HTTP, signed requests to it,
and what the fake Slack Web API received.

A slash command's answer arrives either in the acknowledgement itself (when it is ready
in time) or through its ``response_url``; :meth:`SlackHarness.responses` returns both,
so tests read "the answer to this slash command" wherever it went.
"""

from __future__ import annotations

import itertools
import json
import shutil
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from bot.runtime import Runtime
from bot.server import BotServer
from bot.settings import load_settings
from bot.slack.actions import FEEDBACK_HELPFUL, FULL_RUNBOOK
from bot.slack.app import SlackBot
from retrieval.answer.answer_config import AnswerConfig
from retrieval.search.embeddings import FastEmbedder
from tests.bot.block_checks import assert_valid_blocks, markdown_leaks
from tests.conftest import ROOT
from tests.fakes.signing import signed_headers
from tests.fakes.slack_api import RESPONSE_URL_METHOD, FakeSlackAPI, RecordedCall, iter_texts

SECRET = "secret"
METRICS_TOKEN = "metrics-token"
ACCESS_MAP = ROOT / "runbooks" / "access.yml"
MESSAGE_METHODS = ("chat.postMessage", "chat.postEphemeral", "chat.update", RESPONSE_URL_METHOD)
ACK_METHOD = "ack"  # a slash command's acknowledgement that carried the answer
_ids = itertools.count(1)


# --------------------------------------------------------------------------- harness


def unique(prefix: str) -> str:
    return f"{prefix}{next(_ids):06d}"


def next_ts() -> str:
    return f"1700001000.{next(_ids):06d}"


def make_runtime(
    data_dir: Path,
    redis_url: str,
    fake: FakeSlackAPI,
    embedder: FastEmbedder,
    answer_config: AnswerConfig | None = None,
    **settings: Any,
) -> Runtime:
    """A Runtime for the harness; ``settings`` override (e.g. ``alert_channels=...``),
    ``answer_config`` the answer settings (e.g. a confidence model's "sure" bar)."""
    loaded = load_settings(
        data_dir=data_dir,
        redis_url=redis_url,
        slack_bot_token="xoxb-test",
        slack_signing_secret=SECRET,
        slack_api_url=fake.base_url,
        access_map_path=ACCESS_MAP,
        **settings,
    )
    return Runtime(loaded, embedder=embedder, answer_config=answer_config)


def copy_index(template: Path, target: Path) -> Path:
    shutil.copytree(template, target)
    return target


@dataclass
class HttpResult:
    status: int
    body: str
    headers: dict[str, str]
    seconds: float

    def json(self) -> Any:
        return json.loads(self.body)


def http(url: str, data: bytes | None = None, headers: dict[str, str] | None = None) -> HttpResult:
    request = urllib.request.Request(url, data=data, headers=headers or {})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            body = resp.read().decode("utf-8")
            return HttpResult(
                resp.status, body, dict(resp.headers.items()), time.perf_counter() - started
            )
    except urllib.error.HTTPError as exc:
        body = exc.read().decode("utf-8", "replace")
        return HttpResult(exc.code, body, dict(exc.headers.items()), time.perf_counter() - started)


class SlackHarness:
    """A SlackBot served by a BotServer on a free port, and signed requests to it."""

    def __init__(
        self, runtime: Runtime, fake: FakeSlackAPI, secret: str = SECRET, **bot_options: Any
    ) -> None:
        self.runtime = runtime
        self.fake = fake
        self.secret = secret
        self.bot = SlackBot(runtime, **bot_options)
        self.acks: list[RecordedCall] = []
        self.server = BotServer(
            self.bot.app,
            runtime,
            host="127.0.0.1",
            port=0,
            metrics=self.bot.metrics.render,
            metrics_token=METRICS_TOKEN,
        ).start()

    @property
    def url(self) -> str:
        return self.server.url

    def close(self) -> None:
        self.server.stop()
        self.bot.close(wait=True)

    def settle(self, timeout: float = 30.0) -> None:
        """Wait until every acknowledged request has been handled (listeners and answers)."""
        assert self.bot.wait_idle(timeout), "requests still in flight"

    def assert_valid(self) -> None:
        """Every message sent (acknowledgements included) is within Slack's limits and
        shows no raw Markdown."""
        assert_all_messages_valid(self.fake)
        for ack in self.acks:
            assert_valid_blocks({"text": ack.params.get("text"), "blocks": ack.blocks})
            assert not markdown_leaks({"blocks": ack.blocks}), markdown_leaks(
                {"blocks": ack.blocks}
            )

    # -- requests ---------------------------------------------------------------------

    def post(
        self,
        body: str,
        content_type: str,
        *,
        timestamp: int | None = None,
        secret: str | None = None,
        extra_headers: dict[str, str] | None = None,
    ) -> HttpResult:
        headers = {"Content-Type": content_type}
        headers.update(signed_headers(secret or self.secret, body, timestamp))
        headers.update(extra_headers or {})
        return http(self.url + "/slack/events", body.encode("utf-8"), headers)

    def slash(
        self,
        text: str,
        *,
        user: str = "U0ALICE01",
        channel: str = "C0GENERAL1",
        channel_name: str = "general",
        response_id: str | None = None,
        **kwargs: Any,
    ) -> tuple[HttpResult, str]:
        body, response_id = self.slash_body(
            text, user=user, channel=channel, channel_name=channel_name, response_id=response_id
        )
        result = self.post(body, "application/x-www-form-urlencoded", **kwargs)
        self.record_ack(result, response_id)
        return result, response_id

    def record_ack(self, result: HttpResult, response_id: str) -> None:
        """Keep an acknowledgement that carried a message (the answer, usage) as a call."""
        if result.status != 200 or not result.body.strip().startswith("{"):
            return
        params = result.json()
        if params.get("blocks") and not str(params.get("text", "")).startswith("Searching"):
            self.acks.append(
                RecordedCall(method=ACK_METHOD, params=params, headers={}, response_id=response_id)
            )

    def slash_body(
        self,
        text: str,
        *,
        user: str = "U0ALICE01",
        channel: str = "C0GENERAL1",
        channel_name: str = "general",
        response_id: str | None = None,
    ) -> tuple[str, str]:
        """The form body of one ``/runbook`` invocation, and its response_url id."""
        response_id = response_id or unique("slash-")
        body = urlencode(
            {
                "token": "legacy",
                "team_id": "T1",
                "team_domain": "fake",
                "channel_id": channel,
                "channel_name": channel_name,
                "user_id": user,
                "user_name": user.lower(),
                "command": "/runbook",
                "text": text,
                "api_app_id": "A1",
                "response_url": self.fake.response_url(response_id),
                "trigger_id": unique("trigger."),
            }
        )
        return body, response_id

    def event(
        self, event: dict[str, Any], *, event_id: str | None = None, retry_num: int | None = None
    ) -> HttpResult:
        payload = {
            "token": "legacy",
            "team_id": "T1",
            "api_app_id": "A1",
            "type": "event_callback",
            "event_id": event_id or unique("Ev"),
            "event_time": int(time.time()),
            "event": event,
            "authorizations": [{"team_id": "T1", "user_id": "UBOT", "is_bot": True}],
        }
        extra = {}
        if retry_num is not None:
            extra = {"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": "http_timeout"}
        return self.post(json.dumps(payload), "application/json", extra_headers=extra)

    def mention(
        self,
        text: str,
        *,
        channel: str = "C0GENERAL1",
        user: str = "U0ALICE01",
        ts: str | None = None,
        thread_ts: str | None = None,
        event_id: str | None = None,
        retry_num: int | None = None,
    ) -> tuple[HttpResult, dict[str, Any]]:
        event: dict[str, Any] = {
            "type": "app_mention",
            "user": user,
            "text": f"<@UBOT> {text}".rstrip(),
            "ts": ts or next_ts(),
            "channel": channel,
            "event_ts": ts,
        }
        if thread_ts is not None:
            event["thread_ts"] = thread_ts
        return self.event(event, event_id=event_id, retry_num=retry_num), event

    def message(
        self,
        message: dict[str, Any],
        *,
        channel: str,
        channel_type: str = "channel",
        ts: str | None = None,
        event_id: str | None = None,
        retry_num: int | None = None,
    ) -> tuple[HttpResult, dict[str, Any]]:
        """A ``message`` event (``message.channels``/``.groups``/``.im``): ``message`` as
        posted (an alert from tests/fixtures/alerts, a person's text), in ``channel``."""
        ts = ts or str(message.get("ts") or next_ts())
        event = {
            **message,
            "type": "message",
            "channel": channel,
            "channel_type": channel_type,
            "ts": ts,
            "event_ts": ts,
        }
        return self.event(event, event_id=event_id, retry_num=retry_num), event

    def direct_message(
        self, text: str, *, user: str = "U0ALICE01", channel: str = "D0ALICE001", **kwargs: Any
    ) -> tuple[HttpResult, dict[str, Any]]:
        return self.message(
            {"user": user, "text": text}, channel=channel, channel_type="im", **kwargs
        )

    def shortcut(
        self,
        message: dict[str, Any],
        *,
        user: str = "U0ALICE01",
        channel: str = "C0GENERAL1",
        callback_id: str = "find_runbook",
    ) -> tuple[HttpResult, str]:
        """Run the message shortcut on ``message``; its answer goes to the response_url."""
        response_id = unique("shortcut-")
        ts = str(message.get("ts") or next_ts())
        payload = {
            "type": "message_action",
            "callback_id": callback_id,
            "trigger_id": unique("trigger."),
            "action_ts": str(time.time()),
            "team": {"id": "T1", "domain": "fake"},
            "user": {"id": user, "name": user.lower(), "team_id": "T1"},
            "channel": {"id": channel, "name": channel.lower()},
            "message_ts": ts,
            "message": {"type": "message", **message, "ts": ts},
            "response_url": self.fake.response_url(response_id),
            "token": "legacy",
        }
        body = urlencode({"payload": json.dumps(payload)})
        return self.post(body, "application/x-www-form-urlencoded"), response_id

    def home_opened(self, user: str = "U0ALICE01") -> HttpResult:
        event = {
            "type": "app_home_opened",
            "user": user,
            "channel": "D0HOME0001",
            "tab": "home",
            "event_ts": str(time.time()),
        }
        return self.event(event)

    def action(
        self,
        action_id: str,
        value: str,
        *,
        user: str = "U0ALICE01",
        channel: str = "C0GENERAL1",
        response_id: str | None = None,
        message_ts: str | None = None,
        thread_ts: str | None = None,
        ephemeral: bool = True,
    ) -> tuple[HttpResult, str]:
        """Click a button: on an ephemeral message by default, or on the channel message
        at ``message_ts`` (in the thread ``thread_ts``) with ``ephemeral=False``."""
        response_id = response_id or unique("action-")
        container: dict[str, Any] = {
            "type": "message",
            "message_ts": message_ts or next_ts(),
            "channel_id": channel,
            "is_ephemeral": ephemeral,
        }
        if thread_ts:
            container["thread_ts"] = thread_ts
        payload = {
            "type": "block_actions",
            "team": {"id": "T1", "domain": "fake"},
            "user": {"id": user, "username": user.lower(), "team_id": "T1"},
            "api_app_id": "A1",
            "token": "legacy",
            "container": container,
            "trigger_id": unique("trigger."),
            "channel": {"id": channel, "name": channel.lower()},
            "response_url": self.fake.response_url(response_id),
            "actions": [
                {
                    "action_id": action_id,
                    "block_id": "answer_actions",
                    "value": value,
                    "type": "button",
                    "action_ts": str(time.time()),
                }
            ],
        }
        body = urlencode({"payload": json.dumps(payload)})
        return self.post(body, "application/x-www-form-urlencoded"), response_id

    def submit_view(
        self, view: dict[str, Any], *, user: str = "U0ALICE01", **fields: str
    ) -> HttpResult:
        """Submit a modal the bot opened: its inputs keep their initial values unless
        ``fields`` (by block id) give others."""
        values = {}
        for block in view["blocks"]:
            if block.get("type") == "input":
                name = block["block_id"]
                value = fields.get(name, block["element"].get("initial_value", ""))
                values[name] = {name: {"type": "plain_text_input", "value": value}}
        payload = {
            "type": "view_submission",
            "team": {"id": "T1", "domain": "fake"},
            "user": {"id": user, "team_id": "T1"},
            "api_app_id": "A1",
            "token": "legacy",
            "trigger_id": unique("trigger."),
            "view": {
                "id": str(view.get("id") or "V1"),
                "type": "modal",
                "callback_id": view["callback_id"],
                "private_metadata": view.get("private_metadata", ""),
                "state": {"values": values},
            },
        }
        body = urlencode({"payload": json.dumps(payload)})
        return self.post(body, "application/x-www-form-urlencoded")

    def get(self, path: str, headers: dict[str, str] | None = None) -> HttpResult:
        return http(self.url + path, headers=headers)

    # -- what the fake received -------------------------------------------------------

    def responses(
        self, response_id: str, count: int = 1, timeout: float = 30
    ) -> list[RecordedCall]:
        deadline = time.monotonic() + timeout
        while True:
            calls = [c for c in self.acks if c.response_id == response_id] + [
                c for c in self.fake.calls_to(RESPONSE_URL_METHOD) if c.response_id == response_id
            ]
            if len(calls) >= count or time.monotonic() > deadline:
                assert len(calls) >= count, f"no post to response_url {response_id}"
                return calls
            time.sleep(0.02)

    def thread_posts(
        self, channel: str, thread_ts: str, count: int = 1, timeout: float = 30
    ) -> list[RecordedCall]:
        deadline = time.monotonic() + timeout
        while True:
            calls = [
                c
                for c in self.fake.calls_to("chat.postMessage")
                if c.params.get("channel") == channel and c.params.get("thread_ts") == thread_ts
            ]
            if len(calls) >= count or time.monotonic() > deadline:
                assert len(calls) >= count, f"no reply in {channel} thread {thread_ts}"
                return calls
            time.sleep(0.02)


def text_of(call: RecordedCall) -> str:
    """Everything a message shows: the fallback text and every block text."""
    return "\n".join([str(call.params.get("text") or ""), *iter_texts(call.blocks)])


def assert_all_messages_valid(fake: FakeSlackAPI) -> None:
    """assert_valid_blocks on every message with blocks (and no raw Markdown in them); a
    non-empty text on the others."""
    for call in fake.calls:
        if call.method not in MESSAGE_METHODS:
            continue
        if call.params.get("blocks"):
            assert_valid_blocks({"text": call.params.get("text"), "blocks": call.blocks})
            leaks = markdown_leaks({"blocks": call.blocks})
            assert not leaks, leaks
        else:
            assert str(call.params.get("text") or "").strip(), f"empty message: {call.params}"


def request_id_of(call: RecordedCall) -> str:
    """The request id the message's buttons carry (feedback, or an alert card's)."""
    for wanted in (FEEDBACK_HELPFUL, FULL_RUNBOOK):
        for block in call.blocks:
            if block.get("type") == "actions":
                for element in block["elements"]:
                    if element.get("action_id") == wanted:
                        return str(element["value"])
    raise AssertionError("no feedback button in the message")


def action_ids(call: RecordedCall) -> set[str]:
    return {
        str(element.get("action_id"))
        for block in call.blocks
        if block.get("type") == "actions"
        for element in block["elements"]
    }
