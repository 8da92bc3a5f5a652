from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections.abc import Iterator

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler
from slack_sdk.signature import SignatureVerifier
from slack_sdk.webhook import WebhookClient

from bot.slack.notices import render_error
from tests.fakes.signing import signed_headers
from tests.fakes.slack_api import FakeSlackAPI


@pytest.fixture()
def fake() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as api:
        yield api


@pytest.fixture()
def client(fake: FakeSlackAPI) -> WebClient:
    return WebClient(token="xoxb-test", base_url=fake.base_url)


def test_base_url_and_auth_test(fake: FakeSlackAPI, client: WebClient) -> None:
    assert fake.base_url == f"http://127.0.0.1:{fake.port}/api/"
    response = client.auth_test()
    assert response["user_id"] == "UBOT"
    assert response["bot_id"] == "BBOT"
    assert response["team_id"] == "T1"
    (call,) = fake.calls_to("auth.test")
    assert call.token == "xoxb-test"
    assert call.header("authorization") == "Bearer xoxb-test"


def test_chat_post_message_is_recorded_with_blocks(fake: FakeSlackAPI, client: WebClient) -> None:
    message = render_error("r-1")
    first = client.chat_postMessage(
        channel="C1", text=message.text, blocks=message.blocks, thread_ts="1.2"
    )
    second = client.chat_postMessage(channel="C1", text="again")
    assert first["ok"] and first["channel"] == "C1"
    assert float(second["ts"]) > float(first["ts"])
    calls = fake.wait_for("chat.postMessage", count=2)
    assert calls[0].params["text"] == message.text
    assert calls[0].params["thread_ts"] == "1.2"
    assert calls[0].blocks == message.blocks
    assert calls[0].status == 200
    assert first["message"]["thread_ts"] == "1.2"


def test_chat_post_message_errors_like_slack(client: WebClient) -> None:
    with pytest.raises(SlackApiError) as no_text, pytest.warns(UserWarning):
        client.chat_postMessage(channel="C1")
    assert no_text.value.response["error"] == "no_text"
    blocks = [{"type": "divider"}] * 51
    with pytest.raises(SlackApiError) as too_many:
        client.chat_postMessage(channel="C1", text="x", blocks=blocks)
    assert too_many.value.response["error"] == "invalid_blocks"


def test_post_ephemeral_form_encoded_and_unknown_methods(
    fake: FakeSlackAPI, client: WebClient
) -> None:
    response = client.chat_postEphemeral(channel="C1", user="U1", text="only you")
    assert response["message_ts"]
    (call,) = fake.calls_to("chat.postEphemeral")
    assert call.params["user"] == "U1"
    assert client.api_call("reactions.add", params={"name": "eyes"})["ok"] is True
    assert fake.calls_to("reactions.add")[0].params["name"] == "eyes"
    assert [c.method for c in fake.calls] == ["chat.postEphemeral", "reactions.add"]


def test_configurable_reads(fake: FakeSlackAPI, client: WebClient) -> None:
    parent = {"ts": "1.0", "user": "U1", "text": "db down <@UBOT>"}
    reply = {"ts": "1.1", "user": "U2", "text": "which cluster?", "thread_ts": "1.0"}
    fake.set_thread("C1", "1.0", [parent, reply])
    fake.set_conversation("G1", is_private=True, name="payments-oncall")
    fake.set_members("G1", ["U1", "U2", "U3"])
    fake.set_usergroups({"checkout-oncall": ("S1", ["U1", "U2"])})
    fake.set_user("U1", real_name="Ada")

    replies = client.conversations_replies(channel="C1", ts="1.0")
    assert [m["text"] for m in replies["messages"]] == ["db down <@UBOT>", "which cluster?"]
    with pytest.raises(SlackApiError):
        client.conversations_replies(channel="C1", ts="9.9")

    assert client.conversations_info(channel="G1")["channel"]["is_private"] is True
    assert client.conversations_info(channel="C7")["channel"]["is_private"] is False

    page = client.conversations_members(channel="G1", limit=2)
    assert page["members"] == ["U1", "U2"]
    rest = client.conversations_members(
        channel="G1", limit=2, cursor=page["response_metadata"]["next_cursor"]
    )
    assert rest["members"] == ["U3"]
    assert rest["response_metadata"]["next_cursor"] == ""

    groups = client.usergroups_list(include_users=True)["usergroups"]
    assert [(g["handle"], g["id"], g["users"]) for g in groups] == [
        ("checkout-oncall", "S1", ["U1", "U2"])
    ]
    assert client.usergroups_users_list(usergroup="S1")["users"] == ["U1", "U2"]
    assert client.users_info(user="U1")["user"]["real_name"] == "Ada"
    assert client.users_info(user="U9")["user"]["id"] == "U9"


def test_set_response_overrides_a_method(fake: FakeSlackAPI, client: WebClient) -> None:
    fake.set_response("team.info", {"ok": True, "team": {"id": "T1", "name": "Fake"}})
    fake.set_response("bots.info", lambda call: {"ok": True, "bot": {"id": call.params["bot"]}})
    assert client.team_info()["team"]["name"] == "Fake"
    assert client.bots_info(bot="B7")["bot"]["id"] == "B7"


def test_rate_limit_429_is_retried_by_slack_sdk(fake: FakeSlackAPI) -> None:
    client = WebClient(
        token="xoxb-test",
        base_url=fake.base_url,
        retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=1)],
    )
    fake.fail_next("chat.postMessage", status=429, retry_after=0)
    response = client.chat_postMessage(channel="C1", text="hi")
    assert response["ok"] is True
    first, second = fake.calls_to("chat.postMessage")
    assert (first.status, second.status) == (429, 200)
    assert first.response == {"ok": False, "error": "ratelimited"}


def test_rate_limit_without_retry_handler_raises(fake: FakeSlackAPI, client: WebClient) -> None:
    fake.fail_next("chat.postMessage")
    with pytest.raises(SlackApiError) as raised:
        client.chat_postMessage(channel="C1", text="hi")
    assert raised.value.response.status_code == 429
    assert raised.value.response.headers["Retry-After"] == "1"
    assert client.chat_postMessage(channel="C1", text="hi")["ok"] is True


def test_fail_next_with_slack_error(fake: FakeSlackAPI, client: WebClient) -> None:
    fake.fail_next("conversations.info", error="channel_not_found", times=2)
    for _ in range(2):
        with pytest.raises(SlackApiError) as raised:
            client.conversations_info(channel="C1")
        assert raised.value.response["error"] == "channel_not_found"
        assert raised.value.response.status_code == 200
    assert client.conversations_info(channel="C1")["ok"] is True


def test_response_url_posts_are_recorded(fake: FakeSlackAPI) -> None:
    url = fake.response_url("abc")
    assert url == f"http://127.0.0.1:{fake.port}/response/abc"
    response = WebhookClient(url).send_dict({"text": "answer", "response_type": "ephemeral"})
    assert response.status_code == 200
    (call,) = fake.wait_for("response_url")
    assert call.response_id == "abc"
    assert fake.response_posts("abc") == [{"text": "answer", "response_type": "ephemeral"}]
    assert fake.response_posts("other") == []


def test_wait_for_waits_for_calls_from_other_threads(fake: FakeSlackAPI, client: WebClient) -> None:
    def later() -> None:
        time.sleep(0.2)
        client.chat_postMessage(channel="C1", text="late")

    worker = threading.Thread(target=later)
    worker.start()
    (call,) = fake.wait_for("chat.postMessage", timeout=5)
    worker.join()
    assert call.params["text"] == "late"
    with pytest.raises(AssertionError, match="expected 2 call"):
        fake.wait_for("chat.postMessage", count=2, timeout=0.1)
    fake.clear()
    assert fake.calls == []


def test_stop_is_idempotent_and_start_twice_fails() -> None:
    api = FakeSlackAPI().start()
    with pytest.raises(RuntimeError):
        api.start()
    api.stop()
    api.stop()


def test_signed_headers_verify_with_slack_sdk() -> None:
    body = "token=x&command=%2Frunbook&text=db+down"
    headers = signed_headers("s3cret", body)
    assert SignatureVerifier("s3cret").is_valid_request(body, headers)
    assert not SignatureVerifier("other").is_valid_request(body, headers)

    fixed = signed_headers("s3cret", body, timestamp=1_700_000_000)
    expected = hmac.new(b"s3cret", f"v0:1700000000:{body}".encode(), hashlib.sha256).hexdigest()
    assert fixed == {
        "X-Slack-Request-Timestamp": "1700000000",
        "X-Slack-Signature": f"v0={expected}",
    }
    assert signed_headers("s3cret", body.encode(), timestamp=1_700_000_000) == fixed
