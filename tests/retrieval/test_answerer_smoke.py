from __future__ import annotations

from bot.runtime import Runtime


def test_sample_runtime_answers(sample_runtime: Runtime) -> None:
    ans = sample_runtime.extractive.answer("checkout-api database connection refused")
    assert ans.state == "answer"
    assert ans.citations[0].path == "checkout-api/database-connection-failures.md"
