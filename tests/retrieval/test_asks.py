"""The asks of a compound question."""

from __future__ import annotations

from retrieval.asks import asks, refers_back


def test_a_question_splits_where_and_starts_a_new_question() -> None:
    assert asks(
        "how do i bounce config-policy-controller for one hosted cluster and what do i do "
        "with the logs after"
    ) == (
        "how do i bounce config-policy-controller for one hosted cluster",
        "what do i do with the logs after",
    )
    assert asks("who do we escalate to, and then how quick will they respond") == (
        "who do we escalate to",
        "how quick will they respond",
    )
    # "and" inside one ask joins words, not questions
    assert asks("drain and cordon the node, how do i do that") == (
        "drain and cordon the node, how do i do that",
    )
    assert asks("restart redis and postgres") == ("restart redis and postgres",)


def test_an_ask_that_refers_back_is_about_the_first_asks_subject() -> None:
    assert refers_back("how fast do they come back to us")
    assert refers_back("is it safe")
    assert not refers_back("what do i do with the logs after")
