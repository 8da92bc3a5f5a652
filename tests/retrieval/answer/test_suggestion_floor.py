"""The "not sure" tier offers only runbooks near the closest one, never unrelated ones
to fill its slots (sample runbooks, real index and model)."""

from __future__ import annotations

from bot.runtime import Runtime


def test_not_sure_offers_only_runbooks_above_the_relevance_floor(sample_runtime: Runtime) -> None:
    answer = sample_runtime.extractive.answer("how to rotate tls certificates")
    assert answer.state == "unsure"
    # the certificate runbook; not access-denied or break-glass runbooks to fill the list
    assert [s.title for s in answer.suggestions] == ["Platform: TLS certificate expiring soon"]
