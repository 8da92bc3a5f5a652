"""Follow-ups in a thread, and who owns a runbook (App Home)."""

from __future__ import annotations

import pytest

from bot.slack.answering import continuing_preface
from bot.slack.app_home import owns
from bot.slack.thread_memory import ThreadTopic
from retrieval.reading.follow_ups import follow_up


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


def test_a_follow_up_says_it_continues_after_the_fix_shown_not_the_check() -> None:
    topic = ThreadTopic(
        source_id="s",
        title="Checkout API: database connection failures",
        sections=(
            "Mitigation > Relieve an exhausted pgbouncer pool",
            "Diagnosis > Check pgbouncer",
        ),
    )
    preface = continuing_preface(topic, "https://example.test/runbook.md#L90")
    assert preface.endswith("after “Mitigation &gt; Relieve an exhausted pgbouncer pool”.")
    checks_only = topic.model_copy(update={"sections": ("Diagnosis > Check pgbouncer",)})
    assert continuing_preface(checks_only, None).endswith("after “Diagnosis &gt; Check pgbouncer”.")
    assert continuing_preface(topic.model_copy(update={"sections": ()}), None).endswith(
        "database connection failures*."
    )
