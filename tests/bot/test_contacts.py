"""bot.slack.contacts: owners become Slack user groups when the workspace has them; an
ownerless runbook gets its service's channel or the configured fallback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from slack_sdk import WebClient

from bot.slack.channels import Channels
from bot.slack.contacts import Contacts
from bot.slack.directory import SlackUsergroupDirectory
from bot.slack.presentation import Contact
from tests.fakes.slack_api import FakeSlackAPI


@pytest.fixture()
def fake() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as api:
        api.set_usergroups({"checkout-oncall": ("S0CHECKOUT", []), "sre-oncall": ("S0SRE", [])})
        api.set_response(
            "conversations.list",
            {"ok": True, "channels": [{"id": "C0NOTIFY1", "name": "notifications"}]},
        )
        yield api


def contacts(fake: FakeSlackAPI, **options: str | None) -> Contacts:
    client = WebClient(token="xoxb-test", base_url=fake.base_url)
    return Contacts(SlackUsergroupDirectory(client), Channels(client), **options)  # type: ignore[arg-type]


def test_owners_resolve_to_user_groups(fake: FakeSlackAPI) -> None:
    c = contacts(fake)
    assert c.for_document("@checkout-oncall", "checkout-api") == Contact(
        kind="usergroup", label="@checkout-oncall", id="S0CHECKOUT"
    )
    # a GitHub team from CODEOWNERS: its team name may be the Slack handle
    assert c.resolve("@acme/sre-oncall").id == "S0SRE"
    assert c.resolve("<!subteam^S0X1234|@dba>") == Contact(
        kind="usergroup", label="@dba", id="S0X1234"
    )
    assert c.resolve("team-platform") == Contact(kind="text", label="team-platform")


def test_unknown_owners_are_looked_up_once(fake: FakeSlackAPI) -> None:
    c = contacts(fake)
    for _ in range(3):
        assert c.for_document("@nobody-here", None) == Contact(kind="text", label="@nobody-here")
    assert len(fake.calls_to("usergroups.list")) == 1


def test_ownerless_runbooks_get_the_service_channel_or_the_fallback(fake: FakeSlackAPI) -> None:
    c = contacts(fake, service_channel_template="{service}", fallback="@sre-oncall")
    assert c.for_document(None, "notifications") == Contact(
        kind="channel", label="#notifications", id="C0NOTIFY1", source="service-channel"
    )
    assert c.for_document(None, "payments") == Contact(
        kind="usergroup", label="@sre-oncall", id="S0SRE", source="fallback"
    )
    assert contacts(fake).for_document(None, "payments") is None
    assert contacts(fake, fallback="#notifications").for_document(None, None) == Contact(
        kind="channel", label="#notifications", id="C0NOTIFY1", source="fallback"
    )
