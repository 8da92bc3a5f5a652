"""Who may read an answer: the asker's scope and a channel's audience, with channels
shared outside the company held to shareable runbooks (conversations.info from the fake
Slack Web API)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from slack_sdk import WebClient

from bot.slack.audiences import Audiences
from bot.slack.channels import Channels
from retrieval.permissions import AccessMap, GroupRule, PermissionResolver
from tests.fakes.slack_api import FakeSlackAPI


@pytest.fixture()
def fake() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as api:
        api.set_conversation("C0SHARED01", name="ext-vendor", is_ext_shared=True)
        api.set_conversation("C0PENDING1", name="ext-soon", is_pending_ext_shared=True)
        yield api


def audiences(
    fake: FakeSlackAPI, external: str = "external", channels: Channels | None = None
) -> Audiences:
    resolver = PermissionResolver(
        AccessMap(groups={"sre": GroupRule(users=("U0SRE0001",), channels=("C0SRE00001",))}),
        None,
    )
    channels = channels or Channels(WebClient(token="xoxb-test", base_url=fake.base_url))
    return Audiences(lambda: resolver, channels, external)


def test_internal_channels_and_people_may_also_read_shareable_runbooks(
    fake: FakeSlackAPI,
) -> None:
    a = audiences(fake)
    assert a.audience("C0GENERAL1").groups == {"everyone", "external"}  # type: ignore[union-attr]
    assert a.audience("C0SRE00001").groups == {"everyone", "sre", "external"}  # type: ignore[union-attr]
    assert a.asker("U0SRE0001", "C0GENERAL1").groups == {"everyone", "sre", "external"}
    assert a.audience("D0ALICE001") is None and a.audience(None) is None


def test_shared_channels_get_only_shareable_runbooks(fake: FakeSlackAPI) -> None:
    a = audiences(fake)
    for channel in ("C0SHARED01", "C0PENDING1"):
        assert a.is_external(channel)
        assert a.audience(channel).groups == {"external"}  # type: ignore[union-attr]
        assert a.asker("U0SRE0001", channel).groups == {"external"}  # even privately
    # a member of another organization, anywhere
    assert a.asker("U0VENDOR1", "C0GENERAL1", external_user=True).groups == {"external"}
    assert a.asker("U0VENDOR1", None, external_user=True).groups == {"external"}


def test_a_channel_slack_says_nothing_about_is_shared_for_public_replies(
    fake: FakeSlackAPI,
) -> None:
    a = audiences(fake)
    fake.fail_next("conversations.info", error="channel_not_found")
    assert a.is_external("C0UNKNOWN1", public=True)
    assert not a.is_external("C0UNKNOWN1", public=False)  # a private answer: the asker's
    assert a.audience("C0UNKNOWN1").groups == {"external"}  # type: ignore[union-attr]


def test_without_an_external_group_nothing_is_shareable(fake: FakeSlackAPI) -> None:
    a = audiences(fake, external="")
    assert a.is_external("C0SHARED01")
    assert a.audience("C0SHARED01").groups == set()  # type: ignore[union-attr]
    assert a.asker("U0SRE0001", "C0SHARED01").groups == set()
    assert a.audience("C0GENERAL1").groups == {"everyone"}  # type: ignore[union-attr]


def test_a_channel_said_to_be_shared_counts_as_shared_at_once(fake: FakeSlackAPI) -> None:
    channels = Channels(WebClient(token="xoxb-test", base_url=fake.base_url))
    a = audiences(fake, channels=channels)
    fake.set_conversation("C0LATER001", name="war-room")
    assert not a.is_external("C0LATER001")  # cached for ten minutes
    fake.set_conversation("C0LATER001", name="war-room", is_ext_shared=True)
    assert not a.is_external("C0LATER001")  # the cache alone does not know

    assert channels.refresh("C0LATER001", shared=True).external  # channel_shared
    assert a.audience("C0LATER001").groups == {"external"}  # type: ignore[union-attr]
    assert a.asker("U0SRE0001", "C0LATER001").groups == {"external"}

    fake.set_conversation("C0LATER001", name="war-room")
    channels.refresh("C0LATER001", shared=False)  # channel_unshared
    assert a.audience("C0LATER001").groups == {"everyone", "external"}  # type: ignore[union-attr]


def test_details_that_lag_behind_an_event_keep_a_channel_shared(fake: FakeSlackAPI) -> None:
    channels = Channels(WebClient(token="xoxb-test", base_url=fake.base_url))
    fake.set_conversation("C0LAGGING1", name="war-room")  # Slack has not caught up yet
    info = channels.refresh("C0LAGGING1", shared=True)
    assert info.external and info.name == "war-room"
    assert channels.info("C0LAGGING1").external
    # unshared, but the details still say shared: shared it stays until they agree
    assert channels.refresh("C0SHARED01", shared=False).external


def test_a_renamed_channel_is_known_by_its_new_name(fake: FakeSlackAPI) -> None:
    channels = Channels(WebClient(token="xoxb-test", base_url=fake.base_url))
    fake.set_conversation("C0RENAME01", name="team-chat")
    channels.remember("C0RENAME01", "team-chat")
    assert channels.name("C0RENAME01") == "team-chat"
    channels.renamed("C0RENAME01", "alerts-payments")
    assert channels.name("C0RENAME01") == "alerts-payments"
    fake.set_conversation("C0RENAME01", name="alerts-payments")
    assert channels.info("C0RENAME01").name == "alerts-payments"  # read again
