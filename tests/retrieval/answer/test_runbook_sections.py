"""retrieval.answer.runbook_sections and bot.service_names over the real sample index: the
action section an alert's answer opens with (verbatim), the Escalation section, and
services named."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from bot.runtime import Runtime
from bot.service_names import named_services, other_service
from core.models import DocumentMetadata, SearchFilter
from retrieval.answer.runbook_sections import RunbookSections, restates
from retrieval.search.embeddings import FastEmbedder
from tests.conftest import SAMPLE_RUNBOOKS, runtime_over
from tests.retrieval.answer.test_topics import COLLECTION

CHECKOUT = "runbooks:checkout-api/database-connection-failures"


def test_an_answer_restating_symptoms_opens_with_the_first_action_verbatim(
    sample_runtime: Runtime,
) -> None:
    sections = RunbookSections(sample_runtime.searcher.snapshot, today=lambda: date(2026, 12, 1))
    # a question about the alert's meaning: retrieval leads with the Symptoms section
    question = "what does CheckoutApiDbConnectionErrors mean"
    answer = sample_runtime.answerer.answer(question)
    assert answer.state == "answer" and restates(answer.citations[0])  # what retrieval chose
    led = sections.action_first(answer, question)
    first = led.citations[0]
    assert first.section == "Mitigation > Roll back a bad deploy"  # the runbook's first step
    assert first.source_id == CHECKOUT
    original = (SAMPLE_RUNBOOKS / first.path).read_text(encoding="utf-8")
    assert original[first.start : first.end] == first.quote
    assert original.splitlines()[first.line - 1] in first.quote.splitlines()[0]
    assert not any(restates(c) for c in led.citations if c.source_id == CHECKOUT)
    # an answer that already leads with something to do is left as it is
    assert sections.action_first(led, question) == led


def test_a_procedure_split_over_chunks_is_quoted_from_step_one(sample_runtime: Runtime) -> None:
    sections = RunbookSections(sample_runtime.searcher.snapshot)
    names = [s.section for s in sections.actions(CHECKOUT)]
    assert names == [
        "Mitigation > Roll back a bad deploy",
        "Mitigation > Relieve an exhausted pgbouncer pool",
        "Mitigation > Fail over to the standby",
    ]


def test_the_escalation_section(sample_runtime: Runtime) -> None:
    sections = RunbookSections(sample_runtime.searcher.snapshot)
    escalation = sections.escalation(CHECKOUT)
    assert escalation is not None and escalation.section == "Escalation"
    assert escalation.markdown.startswith("- Not resolved in 15 minutes")
    assert escalation.url is not None and escalation.url.endswith("#L133")
    assert sections.escalation("no/such-doc") is None


def test_services_a_question_names() -> None:
    known = ["sessions", "checkout-api", "identity-service"]
    assert named_services("cart service sessions lost", known) == ("cart",)
    assert named_services("checkout-api db down", known) == ("checkout-api",)
    assert named_services('alert service="cart" fired', known) == ("cart",)
    assert named_services("postgres://app:pw@db/x refused", known) == ()
    assert named_services("the web service is slow", known) == ()
    assert named_services("disk full", known, alert_service="inventory") == ("inventory",)


def test_a_document_about_another_service() -> None:
    sessions = DocumentMetadata(service="sessions", tags=("redis",))
    adr = ("ADR-0012: Move web sessions from Memcached to Redis", "adr/0012-session-store.md")
    assert other_service(["cart"], *adr, sessions) == "cart"
    assert other_service(["sessions"], *adr, sessions) is None
    orders = DocumentMetadata(service="order-fulfillment")
    assert other_service(["orders"], "Orders: consumer lag", "orders/lag.md", orders) is None
    identity = DocumentMetadata(service="identity-service")
    assert other_service(["identity"], "Identity: 403s", "identity/403.md", identity) is None
    assert other_service([], *adr, sessions) is None


def test_a_follow_up_continues_after_what_the_thread_showed(sample_runtime: Runtime) -> None:
    sections = RunbookSections(sample_runtime.searcher.snapshot, today=lambda: date(2026, 12, 1))
    pinned = SearchFilter(groups=("everyone",), sources=(CHECKOUT,))
    answer = sample_runtime.extractive.answer("what do i do", pinned)
    shown = ["Mitigation > Roll back a bad deploy"]
    nxt = sections.continue_after(answer, shown, escalate=False)
    assert nxt is not None
    assert nxt.citations[0].section == "Mitigation > Relieve an exhausted pgbouncer pool"
    assert {c.source_id for c in nxt.citations} == {CHECKOUT}
    original = (SAMPLE_RUNBOOKS / nxt.citations[0].path).read_text(encoding="utf-8")
    for c in nxt.citations:
        assert original[c.start : c.end] == c.quote  # verbatim
    # after the last action comes the Escalation section, and so does "who do I call"
    shown = [*shown, "Mitigation > Relieve an exhausted pgbouncer pool"]
    shown.append("Mitigation > Fail over to the standby")
    last = sections.continue_after(answer, shown, escalate=False)
    assert last is not None and last.citations[0].section == "Escalation"
    asked = sections.continue_after(answer, ["Diagnosis"], escalate=True)
    assert asked is not None and asked.citations[0].section == "Escalation"
    assert (
        sections.continue_after(answer.model_copy(update={"citations": ()}), [], escalate=True)
        is None
    )


def test_in_a_file_of_runbooks_the_sections_shown_are_the_cited_runbooks(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """One file holds three alerts' runbooks: the action an answer opens with, and the
    actions linked under it, are the cited alert's, never the first alert's in the file."""
    with runtime_over({"alerts.md": COLLECTION}, tmp_path, embedder) as rt:
        sections = RunbookSections(rt.searcher.snapshot)
        question = "what does it mean when a broker data disk is above 85%"
        answer = rt.extractive.answer(question, SearchFilter())
        assert answer.citations and answer.citations[0].section == "QueueDiskFull > Meaning"
        led = sections.action_first(answer, question)
        assert led.citations[0].section == "QueueDiskFull > Mitigation"
        assert "kafka-delete-records" in led.citations[0].quote
        lead = led.citations[0]
        assert [a.section for a in sections.actions(lead.source_id, lead.section)] == [
            "QueueDiskFull > Mitigation"
        ]
        # without a cited section the whole file's actions are listed, in order
        assert [a.section for a in sections.actions(lead.source_id)] == [
            "QueueConsumerLag > Mitigation",
            "DiskAlmostFull > Mitigation",
            "QueueDiskFull > Mitigation",
        ]
        nxt = sections.continue_after(led, [lead.section], escalate=False)
        assert nxt is None or all(c.section.startswith("QueueDiskFull") for c in nxt.citations)


THREE_ALERTS = COLLECTION.replace(
    "Restart the stuck consumer pod",
    "#### Restart the consumer\n\nRestart the stuck consumer pod",
).replace(
    "deploy/orders-consumer`.",
    "deploy/orders-consumer`.\n\n#### Scale out\n\nAdd consumers: "
    "`kubectl scale deploy/orders-consumer --replicas=6`.",
)


def test_a_thread_about_one_runbook_of_a_file_continues_with_that_runbook(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """A follow-up ("and if that doesn't work?") continues the runbook the thread has
    shown, even when the follow-up's words lead to another runbook of the same file."""
    with runtime_over({"alerts.md": THREE_ALERTS}, tmp_path, embedder) as rt:
        sections = RunbookSections(rt.searcher.snapshot)
        other = rt.extractive.answer("node root filesystem above 90%, vacuum journald?")
        assert other.citations[0].section.startswith("DiskAlmostFull > ")
        shown = ["QueueConsumerLag > Mitigation > Restart the consumer"]
        nxt = sections.continue_after(other, shown, escalate=False)
    assert nxt is not None
    assert [c.section for c in nxt.citations] == ["QueueConsumerLag > Mitigation > Scale out"]
    assert "--replicas=6" in nxt.citations[0].quote
