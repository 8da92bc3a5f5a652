"""Follow-ups in a thread, and who owns a runbook (App Home)."""

from __future__ import annotations

import pytest

from bot.follow_ups import follow_up
from bot.slack.app_home import owns


@pytest.mark.parametrize(
    ("question", "wants"),
    [
        ("and if that doesn't work?", "next"),
        ("that didn't help", "next"),
        ("still failing", "next"),
        ("the lag keeps growing", "next"),
        ("what else can I try?", "next"),
        ("tried that, no luck", "next"),
        ("who do I call?", "escalate"),
        ("escalate", "escalate"),
        ("who owns this?", "escalate"),
        ("checkout-api database connection refused", None),
        ("how do i restart pgbouncer", None),
        ("what do i do", None),
        ("", None),
    ],
)
def test_what_a_follow_up_asks_for(question: str, wants: str | None) -> None:
    assert follow_up(question) == wants


def test_owners_as_runbooks_write_them() -> None:
    groups = frozenset({"checkout-oncall", "S0CHECKOUT"})
    assert owns("@checkout-oncall", "U1", groups)
    assert owns("@acme/checkout-oncall", "U1", groups)
    assert owns("<!subteam^S0CHECKOUT|@checkout-oncall>", "U1", groups)
    assert owns("@payments-oncall, @checkout-oncall", "U1", groups)
    assert owns("<@U1>", "U1", frozenset())
    assert owns("U1", "U1", frozenset())
    assert not owns("<@U2>", "U1", groups)
    assert not owns("@payments-oncall", "U1", groups)
    assert not owns(None, "U1", groups)
    assert not owns("", "U1", groups)
