"""What an answer names, and the part a channel's whole audience may see."""

from __future__ import annotations

from core.models import Answer, AnswerWarning, Citation, DocumentMetadata
from retrieval.answer.disclosure import (
    ACCESS_DENIED_TEXT,
    for_audience,
    mentioned_sources,
    reference_source_id,
)

EVERYONE = frozenset({"everyone"})
INDEX = {
    "payments/refunds": DocumentMetadata(access=("everyone",)),
    "payments/refunds-v1": DocumentMetadata(
        access=("sre",), status="superseded", superseded_by="payments/refunds.md"
    ),
    "billing/retry-old": DocumentMetadata(
        access=("everyone",), status="superseded", superseded_by="billing/retry-internal.md"
    ),
    "billing/retry-internal": DocumentMetadata(access=("sre",)),
    "incidents/public-outage": DocumentMetadata(access=("everyone",), doc_type="incident"),
    "incidents/secret-breach": DocumentMetadata(access=("sre",), doc_type="incident"),
}


def lookup(source_id: str) -> DocumentMetadata | None:
    return INDEX.get(source_id)


def cite(source_id: str, title: str | None = None, **kw: object) -> Citation:
    meta = INDEX.get(source_id, DocumentMetadata())
    fields: dict[str, object] = {
        "source_id": source_id,
        "title": title or source_id,
        "section": "Steps",
        "path": f"{source_id}.md",
        "url": None,
        "revision": "r1",
        "start": 0,
        "end": 5,
        "line": 1,
        "quote": "steps",
        "owner": "@team",
        "updated": None,
        "age_days": None,
        "access": meta.access,
        "status": meta.status,
        "superseded_by": meta.superseded_by,
    }
    fields.update(kw)
    return Citation.model_validate(fields)


def answer(**kw: object) -> Answer:
    fields: dict[str, object] = {
        "state": "answer",
        "text": "From the runbook *Refunds*:",
        "question": "refunds failing",
        "citations": (cite("payments/refunds", "Refunds"),),
    }
    fields.update(kw)
    return Answer.model_validate(fields)


SUPERSEDED_NOTE = AnswerWarning(
    kind="superseded",
    message=(
        "'Refunds v1 (internal)' also matches but is superseded by payments/refunds.md; "
        "this answer comes from the current 'Refunds'."
    ),
    source_id="payments/refunds-v1",
)
RETRY_NOTE = AnswerWarning(
    kind="superseded",
    message="'Retry (old)' is superseded by billing/retry-internal.md.",
    source_id="billing/retry-old",
)


def test_reference_source_id() -> None:
    assert reference_source_id("adr/0012-session-store-redis.md") == "adr/0012-session-store-redis"
    assert reference_source_id("./adr/x.md") == "adr/x"
    assert reference_source_id(" ADR-0012 ") == "ADR-0012"


def test_mentioned_sources_lists_everything_the_answer_names() -> None:
    a = answer(
        related=(cite("incidents/secret-breach"), cite("incidents/public-outage")),
        warnings=(SUPERSEDED_NOTE, RETRY_NOTE, AnswerWarning(kind="scope-incomplete", message="x")),
    )
    assert mentioned_sources(a, lookup) == {
        "payments/refunds",
        "incidents/secret-breach",
        "incidents/public-outage",
        "payments/refunds-v1",
        "billing/retry-old",
        "billing/retry-internal",  # named only through the index's superseded_by
    }
    # without the index, a warning's document still counts, its successor cannot be known
    assert "billing/retry-internal" not in mentioned_sources(a)
    cited_old = answer(citations=(cite("billing/retry-old"),))
    assert "billing/retry-internal" in mentioned_sources(cited_old)  # from the citation


def test_everything_readable_is_shown_unchanged() -> None:
    a = answer(related=(cite("incidents/public-outage"),))
    shown = for_audience(a, EVERYONE, lookup)
    assert shown.answer is a and not shown.withheld and not shown.blocked


def test_a_restricted_related_incident_is_left_out() -> None:
    a = answer(
        related=(cite("incidents/secret-breach", "Secret breach"), cite("incidents/public-outage"))
    )
    shown = for_audience(a, EVERYONE, lookup)
    assert [c.source_id for c in shown.answer.related] == ["incidents/public-outage"]
    assert shown.answer.citations == a.citations
    assert shown.withheld == {"incidents/secret-breach"}
    assert shown.left_out == ("related incident",)
    assert not shown.blocked
    # the sre channel may read it
    assert for_audience(a, frozenset({"everyone", "sre"}), lookup).answer == a


def test_a_warning_about_a_restricted_document_is_left_out() -> None:
    a = answer(warnings=(SUPERSEDED_NOTE,))
    shown = for_audience(a, EVERYONE, lookup)
    assert shown.answer.warnings == ()
    assert "Refunds v1" not in shown.answer.model_dump_json()
    assert shown.left_out == ("warning",)


def test_a_restricted_successor_name_is_cut_from_warning_and_citation() -> None:
    a = answer(citations=(cite("billing/retry-old", "Retry (old)"),), warnings=(RETRY_NOTE,))
    shown = for_audience(a, EVERYONE, lookup)
    (warning,) = shown.answer.warnings
    assert warning.message == "'Retry (old)' is superseded."
    assert shown.answer.citations[0].superseded_by is None
    assert "retry-internal" not in shown.answer.model_dump_json()
    assert shown.withheld == {"billing/retry-internal"}
    assert not shown.blocked  # the cited document itself is readable


def test_a_successor_name_matching_no_document_is_cut_too() -> None:
    index = dict(INDEX)
    index["billing/retry-old"] = index["billing/retry-old"].model_copy(
        update={"superseded_by": "ADR-0042"}
    )
    note = RETRY_NOTE.model_copy(update={"message": "'Retry (old)' is superseded by ADR-0042."})
    shown = for_audience(answer(warnings=(note,)), EVERYONE, index.get)
    assert [w.message for w in shown.answer.warnings] == ["'Retry (old)' is superseded."]


def test_a_warning_naming_a_restricted_successor_otherwise_is_dropped() -> None:
    note = RETRY_NOTE.model_copy(
        update={"message": "see billing/retry-internal.md instead of 'Retry (old)'"}
    )
    shown = for_audience(answer(warnings=(note,)), EVERYONE, lookup)
    assert shown.answer.warnings == ()
    assert shown.left_out == ("warning",)


def test_an_unreadable_citation_blocks_the_answer() -> None:
    a = answer(
        citations=(cite("payments/refunds"), cite("billing/retry-internal", "Retry (internal)")),
        warnings=(AnswerWarning(kind="stale", message="old", source_id="billing/retry-internal"),),
    )
    shown = for_audience(a, EVERYONE, lookup)
    assert [c.source_id for c in shown.blocked] == ["billing/retry-internal"]
    assert shown.answer.state == "abstain" and shown.answer.reason == "access-denied"
    assert shown.answer.text == ACCESS_DENIED_TEXT
    assert shown.answer.citations == () and shown.answer.warnings == ()
    assert "Retry (internal)" not in shown.answer.model_dump_json()


def test_a_document_no_longer_indexed_counts_as_unreadable() -> None:
    a = answer(citations=(cite("payments/deleted", access=("everyone",)),))
    shown = for_audience(a, EVERYONE, lookup)
    assert [c.source_id for c in shown.blocked] == ["payments/deleted"]


def test_access_is_judged_by_the_live_index_not_the_stored_citation() -> None:
    # the stored citation still says everyone; the index now restricts the document
    stale = cite("incidents/secret-breach", access=("everyone",))
    shown = for_audience(answer(related=(stale,)), EVERYONE, lookup)
    assert shown.answer.related == ()


def test_a_reference_names_a_document_of_the_same_source() -> None:
    assert reference_source_id("adr/0012.md", "payments:adr/0007") == "payments:adr/0012"
    assert reference_source_id("ADR-0012", "payments:adr/0007") == "ADR-0012"
    index = {
        "payments:billing/retry-old": INDEX["billing/retry-old"],
        "payments:billing/retry-internal": INDEX["billing/retry-internal"],
        "checkout:billing/retry-internal": DocumentMetadata(access=("everyone",)),
    }
    note = RETRY_NOTE.model_copy(update={"source_id": "payments:billing/retry-old"})
    a = answer(
        citations=(cite("payments:billing/retry-old", "Retry (old)", access=("everyone",)),),
        warnings=(note,),
    )
    # checkout's readable document of the same path does not make payments' readable
    shown = for_audience(a, EVERYONE, index.get)
    assert shown.withheld == {"payments:billing/retry-internal"}
    assert [w.message for w in shown.answer.warnings] == ["'Retry (old)' is superseded."]
