from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

MANIFEST = Path(__file__).resolve().parents[2] / "slack" / "manifest.yml"
EVENTS_URL = "https://runbook-bot.example.com/slack/events"


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    data = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_bot_scopes(manifest: dict[str, Any]) -> None:
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    assert {
        "commands",
        "app_mentions:read",
        "chat:write",
        "channels:history",
        "groups:history",
        "im:history",
        "usergroups:read",
        "users:read",
    } <= scopes


def test_events_and_interactivity(manifest: dict[str, Any]) -> None:
    settings = manifest["settings"]
    events = settings["event_subscriptions"]
    assert events["request_url"] == EVENTS_URL
    assert {
        "app_mention",
        "subteam_members_changed",
        "message.channels",  # alert posts in public channels
        "message.groups",  # ... and in private ones
        "message.im",  # direct messages
        "app_home_opened",
        "channel_shared",  # a channel shared outside the company: shareable runbooks only
        "channel_unshared",
        "channel_rename",  # alert and incident channels are matched by name
        "group_rename",
    } <= set(events["bot_events"])
    assert settings["interactivity"] == {"is_enabled": True, "request_url": EVENTS_URL}
    assert settings["socket_mode_enabled"] is False
    assert settings["org_deploy_enabled"] is False


def test_bot_user_and_slash_command(manifest: dict[str, Any]) -> None:
    features = manifest["features"]
    assert features["bot_user"]["display_name"] == "runbook"
    (command,) = features["slash_commands"]
    assert command["command"] == "/runbook"
    assert command["url"] == EVENTS_URL
    assert command["usage_hint"] == "[service] question"
    assert command["description"]


def test_app_home_and_the_message_shortcut(manifest: dict[str, Any]) -> None:
    from bot.slack.shortcuts import CALLBACK_ID

    features = manifest["features"]
    assert features["app_home"]["home_tab_enabled"] is True
    assert features["app_home"]["messages_tab_enabled"] is True  # people can DM the bot
    assert features["app_home"]["messages_tab_read_only_enabled"] is False
    from bot.slack.drafting import SHORTCUT_ID

    find, draft = features["shortcuts"]
    assert find["callback_id"] == CALLBACK_ID
    assert find["name"] == "Find runbook for this message"
    assert draft["callback_id"] == SHORTCUT_ID
    assert draft["name"] == "Draft a runbook from this thread"
    for shortcut in (find, draft):
        assert shortcut["type"] == "message"
        assert 0 < len(shortcut["description"]) <= 150  # Slack's limit


# Events the manifest subscribes to -> the scopes the bot needs to receive each everywhere
# it listens (channel_shared in private channels needs groups:read).
EVENT_SCOPES = {
    "message.channels": {"channels:history"},
    "message.groups": {"groups:history"},
    "message.im": {"im:history"},
    "app_mention": {"app_mentions:read"},
    "app_home_opened": set(),
    "subteam_members_changed": {"usergroups:read"},
    "channel_shared": {"channels:read", "groups:read"},
    "channel_unshared": {"channels:read", "groups:read"},
    "channel_rename": {"channels:read"},
    "group_rename": {"groups:read"},
}
# A ``message`` listener is fed by these subscriptions.
MESSAGE_EVENTS = {"message.channels", "message.groups", "message.im"}


def test_every_event_has_its_scope(manifest: dict[str, Any]) -> None:
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    for event in manifest["settings"]["event_subscriptions"]["bot_events"]:
        assert event in EVENT_SCOPES, f"{event}: which scopes does it need?"
        assert EVENT_SCOPES[event] <= scopes, (event, EVENT_SCOPES[event] - scopes)


def test_every_event_the_code_listens_to_is_subscribed(manifest: dict[str, Any]) -> None:
    import re

    root = Path(__file__).resolve().parents[2] / "bot"
    listened: set[str] = set()
    for path in root.rglob("*.py"):
        listened |= set(re.findall(r"\.event\(\s*\"([a-z_.]+)\"", path.read_text("utf-8")))
    assert {"app_mention", "channel_shared", "channel_unshared"} <= listened
    subscribed = set(manifest["settings"]["event_subscriptions"]["bot_events"])
    for event in sorted(listened):
        wanted = MESSAGE_EVENTS if event == "message" else {event}
        assert wanted <= subscribed, (event, wanted - subscribed)


def test_manifest_field_limits(manifest: dict[str, Any]) -> None:
    info = manifest["display_information"]
    assert 0 < len(info["name"]) <= 35
    assert 0 < len(info.get("description", "")) <= 140
    assert len(manifest["features"]["bot_user"]["display_name"]) <= 80
    for command in manifest["features"]["slash_commands"]:
        assert len(command["description"]) <= 2000
        assert len(command["usage_hint"]) <= 1000


# Web API methods the code may call -> scopes any of which allows the call.
METHOD_SCOPES = {
    "chat_postMessage": {"chat:write"},
    "chat_postEphemeral": {"chat:write"},
    "chat_update": {"chat:write"},
    "chat_getPermalink": set(),  # no scope: any message the bot can see
    "views_publish": set(),  # no scope: the App Home of someone who opened it
    "conversations_replies": {"channels:history", "groups:history"},
    "conversations_history": {"channels:history", "groups:history"},
    "conversations_info": {"channels:read", "groups:read"},
    "conversations_members": {"channels:read", "groups:read"},
    "conversations_list": {"channels:read"},  # public channels only
    "usergroups_list": {"usergroups:read"},
    "usergroups_users_list": {"usergroups:read"},
    "users_info": {"users:read"},
    "users_lookupByEmail": {"users:read.email"},
    "reactions_add": {"reactions:write"},
}


def test_manifest_names_every_scope_the_code_calls(manifest: dict[str, Any]) -> None:
    import re
    from pathlib import Path

    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    root = Path(__file__).resolve().parents[2] / "bot"
    called: set[str] = set()
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        called |= set(re.findall(r"\.([a-z]+_[A-Za-z_]+)\(", text)) & set(METHOD_SCOPES)
    assert called, "expected the bot to call the Slack Web API"
    for method in sorted(called):
        assert METHOD_SCOPES[method] <= scopes, (method, METHOD_SCOPES[method] - scopes)
