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


def audiences(fake: FakeSlackAPI, external: str = "external") -> Audiences:
    resolver = PermissionResolver(
        AccessMap(groups={"sre": GroupRule(users=("U0SRE0001",), channels=("C0SRE00001",))}),
        None,
    )
    channels = Channels(WebClient(token="xoxb-test", base_url=fake.base_url))
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
