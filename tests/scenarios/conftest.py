"""What the Slack scenarios share: the bot served over signed HTTP for the module's own
``runtime`` and fake Slack Web API (``fake``), every message it sent checked at the end."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.runtime import Runtime
from tests.bot.slack_harness import SlackHarness
from tests.fakes.slack_api import FakeSlackAPI


@pytest.fixture()
def slack(runtime: Runtime, fake: FakeSlackAPI) -> Iterator[SlackHarness]:
    h = SlackHarness(runtime, fake)
    yield h
    h.close()
    h.assert_valid()
