"""bot.reports: stale/ownerless/superseded rows, gaps, and their three renderings."""

from __future__ import annotations

import json
from datetime import date

from bot.reports import (
    DocInfo,
    GapGroup,
    GapQuestion,
    GapReader,
    ReportRow,
    citation_counts,
    documents_from_chunks,
    format_gaps_json,
    format_gaps_table,
    format_json,
    format_table,
    gaps_report,
    readable_by,
    resolve_link,
    stale_report,
)
from bot.slack.home_view import HomeData, render_home
from bot.slack.report_view import format_gaps_slack, format_slack
from core.models import Chunk, DocumentMetadata
from ingest.chunker import chunk_document
from ingest.documents import DocumentConfig, DocumentFacts, parse_document
from state.querylog import Feedback, QueryRecord
from tests.bot.block_checks import assert_valid_blocks

TODAY = date(2026, 6, 1)
STALE_AFTER = 180
SLACK_TOKEN = "xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx"


def doc(path: str, **kw: object) -> DocInfo:
    fields: dict[str, object] = {
        "source_id": path.removesuffix(".md"),
        "path": path,
        "title": path.rsplit("/", 1)[-1].removesuffix(".md").replace("-", " ").title(),
        "owner": "@team",
        "updated": date(2026, 5, 1),
        "review_every_days": None,
        "status": "current",
        "superseded_by": None,
        "doc_type": "runbook",
        "service": None,
        "links": (),
        "access": ("everyone",),
    }
    fields.update(kw)
    return DocInfo(**fields)  # type: ignore[arg-type]


# 364 days old, reviews every 180 days: stale by its own review_every (and by age).
ES_RED = doc(
    "search/es-red.md", owner="@search-team", updated=date(2025, 6, 2), review_every_days=180
)
# 243 days old, no review_every: stale by the global stale_after_days.
DISK = doc("platform/disk-full.md", owner="@platform-team", updated=date(2025, 10, 1))
# 61 days old: fresh by the global limit, stale by its own 30-day review interval.
PSP = doc("payments/psp.md", owner="@payments", updated=date(2026, 4, 1), review_every_days=30)
# 170 days old, review every 365: not stale.
CERTS = doc("platform/certs.md", updated=date(2025, 12, 13), review_every_days=365)
# no owner anywhere
EMAIL = doc("notifications/email.md", owner=None, updated=date(2026, 5, 20))
# superseded, linked from a current runbook and from its own successor
OLD_ADR = doc(
    "adr/0007-memcached.md",
    status="superseded",
    superseded_by="adr/0012-redis.md",
    owner=None,
    updated=date(2023, 3, 6),
    doc_type="adr",
)
NEW_ADR = doc("adr/0012-redis.md", links=("adr/0007-memcached.md",), doc_type="adr")
CHECKOUT = doc("checkout/db.md", links=("adr/0007-memcached.md", "platform/certs.md"))
# deprecated and linked only from another retired document: nothing to report
DEPRECATED = doc("orders/legacy.md", status="deprecated", updated=date(2020, 1, 1))
RETIRED_LINKER = doc("orders/older.md", status="superseded", links=("orders/legacy.md",))
DOCS = [ES_RED, DISK, PSP, CERTS, EMAIL, OLD_ADR, NEW_ADR, CHECKOUT, DEPRECATED, RETIRED_LINKER]


def rows_by(rows: list[ReportRow]) -> dict[tuple[str, str], ReportRow]:
    return {(r.kind, r.path): r for r in rows}


# --------------------------------------------------------------------------- stale report


def test_stale_by_age_and_by_own_review_every() -> None:
    rows = rows_by(stale_report(DOCS, TODAY, STALE_AFTER, {}))

    es = rows[("stale", "search/es-red.md")]
    assert (es.age_days, es.limit_days, es.owner) == (364, 180, "@search-team")
    assert "2025-06-02" in es.detail and "review every 180 days" in es.detail

    disk = rows[("stale", "platform/disk-full.md")]
    assert (disk.age_days, disk.limit_days) == (243, STALE_AFTER)
    assert "stale_after_days" in disk.detail

    psp = rows[("stale", "payments/psp.md")]
    assert (psp.age_days, psp.limit_days) == (61, 30)
    assert "its review_every" in psp.detail

    assert ("stale", "platform/certs.md") not in rows  # within its 365-day interval
    assert ("stale", "checkout/db.md") not in rows


def test_stale_boundary_is_strictly_greater() -> None:
    exactly = doc("x/edge.md", updated=date(2025, 12, 3))  # 180 days before TODAY
    assert (TODAY - exactly.updated).days == STALE_AFTER  # type: ignore[operator]
    assert stale_report([exactly], TODAY, STALE_AFTER, {}) == []
    older = doc("x/edge.md", updated=date(2025, 12, 2))
    assert [r.kind for r in stale_report([older], TODAY, STALE_AFTER, {})] == ["stale"]


def test_ownerless() -> None:
    rows = rows_by(stale_report(DOCS, TODAY, STALE_AFTER, {}))
    email = rows[("ownerless", "notifications/email.md")]
    assert email.owner is None
    assert email.age_days == 12
    assert ("stale", "notifications/email.md") not in rows


def test_superseded_still_linked_from_a_current_document() -> None:
    rows = rows_by(stale_report(DOCS, TODAY, STALE_AFTER, {}))
    old = rows[("superseded", "adr/0007-memcached.md")]
    # the successor linking back to what it replaces is expected; the runbook is not
    assert old.linked_from == ("checkout/db.md",)
    assert "superseded by adr/0012-redis.md" in old.detail
    assert "checkout/db.md" in old.detail
    # a retired document is not reviewed: no stale or ownerless rows for it
    assert ("stale", "adr/0007-memcached.md") not in rows
    assert ("ownerless", "adr/0007-memcached.md") not in rows
    # deprecated, but only a retired document links to it
    assert not [r for r in rows.values() if r.path in ("orders/legacy.md", "orders/older.md")]


def test_link_by_source_id_counts_and_deprecated_kind() -> None:
    legacy = doc("orders/legacy.md", status="deprecated")
    linker = doc("orders/new.md", links=("orders/legacy",))
    (row,) = stale_report([legacy, linker], TODAY, STALE_AFTER, {})
    assert (row.kind, row.linked_from) == ("deprecated", ("orders/new.md",))
    assert row.detail.startswith("deprecated; still linked from orders/new.md")


def test_ranked_by_citations_then_age() -> None:
    cited = {"payments/psp": 9, "search/es-red": 4, "checkout/db": 100}
    rows = stale_report(DOCS, TODAY, STALE_AFTER, cited)
    assert [(r.kind, r.path, r.citations) for r in rows] == [
        ("stale", "payments/psp.md", 9),
        ("stale", "search/es-red.md", 4),
        ("superseded", "adr/0007-memcached.md", 0),  # 1183 days old
        ("stale", "platform/disk-full.md", 0),  # 243
        ("ownerless", "notifications/email.md", 0),  # 12
    ]


def test_without_a_query_log_citations_are_unknown_and_rank_by_age() -> None:
    rows = stale_report(DOCS, TODAY, STALE_AFTER, None)
    assert all(r.citations is None for r in rows)
    ages = [r.age_days or 0 for r in rows]
    assert ages == sorted(ages, reverse=True)


def test_citation_counts_count_each_record_once_per_document() -> None:
    records = [
        record("r-1", cited=("search/es-red", "search/es-red", "payments/psp")),
        record("r-2", cited=("search/es-red",)),
        record("r-3", state="abstain", reason="no-match"),
    ]
    assert citation_counts(records) == {"search/es-red": 2, "payments/psp": 1}


def test_readable_by_keeps_documents_of_the_group() -> None:
    secret = doc("sre/break-glass.md", access=("sre",))
    assert readable_by([ES_RED, secret], "everyone") == [ES_RED]


# --------------------------------------------------------------------------- documents


def chunk(path: str, text: str, n: int = 0, **meta: object) -> Chunk:
    source_id = path.removesuffix(".md")
    return Chunk(
        chunk_id=f"{source_id}#{n}",
        source_id=source_id,
        path=path,
        title="Title of " + path,
        heading_path=("Section",),
        text=text,
        start=n * 100,
        end=n * 100 + len(text),
        content_hash="h",
        line=1 + n,
        metadata=DocumentMetadata(**meta),  # type: ignore[arg-type]
    )


def test_documents_from_chunks_one_per_source_with_resolved_links() -> None:
    meta = {
        "owner": "@checkout-team",
        "updated": date(2026, 1, 2),
        "review_every_days": 90,
        "service": "checkout-api",
        "url": "https://git.example/blob/abc/checkout/db.md#L{line}",
    }
    first = chunk(
        "checkout/db.md",
        "See [the ADR](../adr/0007-memcached.md#context) and [disk](/platform/disk-full.md).\n"
        "External [docs](https://example.com/x.md), [anchor](#steps), ![img](../img/a.png).\n"
        "`[not](../code/span.md)`\n",
        **meta,
    )
    second = chunk(
        "checkout/db.md",
        "```\n[in a fence](../fenced.md)\n```\n"
        "Again [the ADR](../adr/0007-memcached.md) and [same dir](pool.md 'title').\n"
        "[ref]: ../orders/queue-backlog.md\n"
        "[escape](../../outside.md)\n",
        n=1,
        **meta,
    )
    other = chunk("adr/0007-memcached.md", "Superseded.", status="superseded")
    docs = documents_from_chunks([first, other, second])

    assert [d.path for d in docs] == ["adr/0007-memcached.md", "checkout/db.md"]
    db = docs[1]
    assert db.links == (
        "adr/0007-memcached.md",
        "platform/disk-full.md",
        "checkout/pool.md",
        "orders/queue-backlog.md",
    )
    assert (db.owner, db.updated, db.review_every_days, db.service) == (
        "@checkout-team",
        date(2026, 1, 2),
        90,
        "checkout-api",
    )
    assert db.title == "Title of checkout/db.md"
    assert db.url == "https://git.example/blob/abc/checkout/db.md#L1"
    assert docs[0].status == "superseded"


def test_resolve_link() -> None:
    assert resolve_link("../a/b.md", "x/y.md") == "a/b.md"
    assert resolve_link("./b%20c.md?plain=1#top", "x/y.md") == "x/b c.md"
    assert resolve_link("/a.md", "x/y/z.md") == "a.md"
    for external in ("https://x/y.md", "mailto:a@b", "//cdn/x.md", "#anchor", "../../up.md"):
        assert resolve_link(external, "x/y.md") is None


# --------------------------------------------------------------------------- gaps


def record(
    request_id: str,
    question: str = "how do I fix it",
    *,
    state: str = "answer",
    reason: str | None = None,
    service: str | None = None,
    cited: tuple[str, ...] = (),
    cited_access: dict[str, tuple[str, ...]] | None = None,
) -> QueryRecord:
    return QueryRecord(
        request_id=request_id,
        ts=1_780_000_000.0,
        user_hash="u",
        channel=None,
        scope_id="s",
        question=question,
        state=state,
        reason=reason,
        cited=cited,
        service=service,
        cited_access=cited_access or {},
    )


def feedback(
    request_id: str,
    value: str,
    question: str,
    service: str | None = None,
    cited: tuple[str, ...] = (),
    cited_access: dict[str, tuple[str, ...]] | None = None,
) -> Feedback:
    return Feedback(
        request_id=request_id,
        ts=1_780_000_100.0,
        user_hash="u",
        value=value,  # type: ignore[arg-type]
        question=question,
        service=service,
        cited=cited,
        cited_access=cited_access or {},
    )


GAP_RECORDS = [
    record("r-1", "How to reindex products?", state="abstain", reason="no-match", service="search"),
    record(
        "r-2",
        "how  to REINDEX products?",
        state="abstain",
        reason="low-confidence",
        service="search",
    ),
    record("r-3", "shard allocation stuck", state="abstain", reason="no-match", service="search"),
    record("r-4", "psp timeout", service="payments", cited=("payments/psp",)),
    record("r-5", "what is the vpn", state="abstain", reason="no-match"),
    record("r-6", "break glass", state="abstain", reason="access-denied", service="platform"),
    record("r-7", "anything", state="abstain", reason="error", service="platform"),
    record("r-8", "refund stuck", service="payments"),
]
GAP_FEEDBACK = [
    feedback("r-4", "not_helpful", "psp timeout"),  # service comes from the record
    feedback("r-1", "not_helpful", "How to reindex products?"),  # already counted
    feedback("r-8", "helpful", "refund stuck"),
    feedback("r-9", "not_helpful", f"token {SLACK_TOKEN} rejected", service="payments"),
]


def test_gaps_grouped_by_service_most_frequent_first() -> None:
    groups = gaps_report(GAP_RECORDS, GAP_FEEDBACK)
    assert [(g.service, g.count) for g in groups] == [
        ("search", 3),
        ("payments", 2),
        ("unknown", 1),
    ]
    search = groups[0]
    assert [(q.question, q.count) for q in search.questions] == [
        ("How to reindex products?", 2),
        ("shard allocation stuck", 1),
    ]
    assert dict(search.reasons) == {"no-match": 2, "low-confidence": 1}
    payments = groups[1]
    assert dict(payments.reasons) == {"not_helpful": 2}
    assert [q.question for q in groups[2].questions] == ["what is the vpn"]


def test_gaps_count_a_not_sure_as_unanswered_and_an_answer_not() -> None:
    groups = gaps_report(
        [
            record("u1", "zookeeper quorum lost", state="unsure", reason="low-confidence"),
            record("u2", "whats the cmd to fail over", state="unsure", reason="no-command"),
            record("a1", "disk full on db-1", state="answer", service="platform"),
        ],
        [],
    )
    shown = {q.question: dict(g.reasons) for g in groups for q in g.questions}
    assert set(shown) == {"zookeeper quorum lost", "whats the cmd to fail over"}
    assert {r for g in groups for r in dict(g.reasons)} == {"low-confidence", "no-command"}


def test_gaps_leave_out_errors_and_access_denied_and_redact() -> None:
    groups = gaps_report(GAP_RECORDS, GAP_FEEDBACK)
    assert "platform" not in {g.service for g in groups}
    text = format_gaps_json(groups) + format_gaps_table(groups)
    assert SLACK_TOKEN not in text
    assert "[REDACTED:slack_token]" in text
    everything = gaps_report(GAP_RECORDS, GAP_FEEDBACK, exclude_reasons=())
    assert {g.service for g in everything} >= {"platform"}


def indexed(source_id: str, service: str, access: tuple[str, ...]) -> Chunk:
    """One chunk of an indexed runbook (what a GapReader reads of the index)."""
    meta = DocumentMetadata(service=service, access=access)
    return Chunk(
        chunk_id=f"{source_id}#0",
        source_id=source_id,
        path=f"{source_id}.md",
        title=source_id,
        heading_path=(source_id,),
        text=source_id,
        start=0,
        end=1,
        content_hash="h",
        line=1,
        metadata=meta,
    )


INDEX = [
    indexed("sre/break-glass", "platform", ("sre",)),
    indexed("sre/vault-seal", "vault-internal", ("sre",)),
    indexed("platform/disk-full", "platform", ("everyone",)),
]
RESTRICTED_GAPS = [
    # a private answer from the restricted runbook, marked not helpful in Slack
    record("p-1", "who approves break glass", service="platform", cited=("sre/break-glass",)),
    # an abstention whose closest runbook only its asker's groups read
    record(
        "p-2", "vault seal keys", state="abstain", reason="low-confidence", service="vault-internal"
    ),
    # a runbook no longer indexed: the groups recorded with the answer decide
    record(
        "p-3",
        "old vault steps",
        state="abstain",
        reason="low-confidence",
        service="platform",
        cited=("sre/retired",),
        cited_access={"sre/retired": ("sre",)},
    ),
    # cited runbook neither indexed nor recorded: nobody can tell who may read it
    record(
        "p-4",
        "gone for good",
        state="abstain",
        reason="low-confidence",
        service="platform",
        cited=("sre/unknown",),
    ),
    # recorded as restricted when answered, public now: both must allow
    record(
        "p-5",
        "disk answer was sre-only",
        state="abstain",
        reason="low-confidence",
        service="platform",
        cited=("platform/disk-full",),
        cited_access={"platform/disk-full": ("sre",)},
    ),
    record("p-6", "disk full on node", state="abstain", reason="no-match", service="platform"),
]
RESTRICTED_FEEDBACK = [
    feedback("p-1", "not_helpful", "who approves break glass"),  # cites through its record
    feedback(
        "p-7", "not_helpful", "break glass ttl", service="platform", cited=("sre/break-glass",)
    ),
]


def test_gaps_show_a_reader_only_rows_of_runbooks_they_may_read() -> None:
    def shown(groups: set[str]) -> set[str]:
        reader = GapReader.of(groups, INDEX)
        found = gaps_report(RESTRICTED_GAPS, RESTRICTED_FEEDBACK, reader=reader)
        return {q.question for g in found for q in g.questions}

    assert shown({"everyone"}) == {"disk full on node"}
    assert shown({"everyone", "sre"}) == {
        "who approves break glass",
        "vault seal keys",
        "old vault steps",
        "disk answer was sre-only",
        "disk full on node",
        "break glass ttl",
    }
    everything = gaps_report(RESTRICTED_GAPS, RESTRICTED_FEEDBACK)  # the CLI: every row
    assert "gone for good" in {q.question for g in everything for q in g.questions}


def test_gaps_empty() -> None:
    assert gaps_report([], []) == []
    assert "no unanswered" in format_gaps_table([])
    assert json.loads(format_gaps_json([])) == []
    assert_valid_blocks(format_gaps_slack([], window_days=7))


# --------------------------------------------------------------------------- formats


def test_format_table() -> None:
    rows = stale_report(DOCS, TODAY, STALE_AFTER, {"search/es-red": 4})
    table = format_table(rows)
    lines = table.splitlines()
    assert lines[0].split() == ["KIND", "CITED", "AGE", "OWNER", "PATH", "DETAIL"]
    assert len(lines) == len(rows) + 1
    es = lines[1]
    assert es.split()[:5] == ["stale", "4", "364d", "@search-team", "search/es-red.md"]
    # fixed width: every path starts in the same column
    column = lines[0].index("PATH")
    for line, row in zip(lines[1:], rows, strict=True):
        assert line[column:].startswith(row.path)
    assert "(none)" in table  # the ownerless document
    assert format_table([]) == "no stale, ownerless or retired-but-linked documents"


def test_format_table_strips_control_characters() -> None:
    evil = doc("x/evil.md", owner="@a\x1b[31m\nb", updated=date(2020, 1, 1))
    table = format_table(stale_report([evil], TODAY, STALE_AFTER, {}))
    assert "\x1b" not in table
    assert len(table.splitlines()) == 2


def test_format_json() -> None:
    rows = stale_report(DOCS, TODAY, STALE_AFTER, {"search/es-red": 4})
    data = json.loads(format_json(rows))
    es = next(d for d in data if d["path"] == "search/es-red.md")
    assert es == {
        "kind": "stale",
        "source_id": "search/es-red",
        "path": "search/es-red.md",
        "title": "Es Red",
        "owner": "@search-team",
        "age_days": 364,
        "detail": es["detail"],
        "citations": 4,
        "updated": "2025-06-02",
        "limit_days": 180,
        "linked_from": [],
        "url": None,
    }
    old = next(d for d in data if d["kind"] == "superseded")
    assert old["linked_from"] == ["checkout/db.md"]
    assert json.loads(format_json([])) == []


def test_format_slack_groups_by_owner_and_escapes() -> None:
    evil = doc(
        "x/evil.md",
        title="<!channel> & <@U123> `",
        owner="@ops <team>",
        updated=date(2020, 1, 1),
        url="https://git.example/x/evil.md#L{line}",
    )
    rows = stale_report([*DOCS, evil], TODAY, STALE_AFTER, {"payments/psp": 3})
    message = format_slack(rows, window_days=30)
    assert_valid_blocks(message)
    assert message["text"].startswith("Runbook health report: ")
    sections = [b["text"]["text"] for b in message["blocks"] if b["type"] == "section"]
    body = "\n".join(sections)
    # one section per owner, in rank order; owners as written, not as Slack mentions
    assert sections[0].startswith("*Owner: @payments*")
    assert any(s.startswith("*Owner: @search-team*") for s in sections)
    assert any(s.startswith("*No owner*") and "notifications/email.md" in s for s in sections)
    assert "*Owner: @ops &lt;team&gt;*" in body
    assert "&lt;!channel&gt; &amp; &lt;@U123&gt;" in body
    assert "<!channel>" not in body and "<@U123>" not in body
    assert "cited 3×" in body
    context = message["blocks"][1]["elements"][0]["text"]
    assert "in the last 30 days" in context
    assert all(
        t["verbatim"] for b in message["blocks"] if b["type"] == "section" for t in [b["text"]]
    )


def test_format_slack_says_when_citations_are_unknown() -> None:
    message = format_slack(stale_report(DOCS, TODAY, STALE_AFTER, None))
    assert_valid_blocks(message)
    assert "query log was unavailable" in message["blocks"][1]["elements"][0]["text"]
    assert "cited" not in json.dumps(message["blocks"][2:])


def test_format_slack_stays_within_limits_for_large_reports() -> None:
    docs = [
        doc(
            f"team{i % 60}/runbook-{i:04d}.md",
            title="A very long runbook title " * 8,
            owner=f"@team-{i % 60}",
            updated=date(2020, 1, 1),
        )
        for i in range(600)
    ]
    rows = stale_report(docs, TODAY, STALE_AFTER, {})
    message = format_slack(rows, window_days=30)
    assert_valid_blocks(message)
    blocks = message["blocks"]
    assert len(blocks) <= 50
    assert all(len(b["text"]["text"]) <= 3000 for b in blocks if b["type"] == "section")
    assert blocks[-1]["type"] == "context"
    assert "more findings not shown" in blocks[-1]["elements"][0]["text"]

    one_owner = stale_report(
        [doc(f"a/{i}.md", owner="@one", updated=date(2020, 1, 1)) for i in range(400)],
        TODAY,
        STALE_AFTER,
        {},
    )
    message = format_slack(one_owner)
    assert_valid_blocks(message)
    assert sum(1 for b in message["blocks"] if b["type"] == "section") > 1


def test_format_slack_empty() -> None:
    message = format_slack([])
    assert_valid_blocks(message)
    assert message["text"] == "Runbook health report: all clear"


def test_gaps_formats() -> None:
    groups = gaps_report(GAP_RECORDS, GAP_FEEDBACK)
    table = format_gaps_table(groups).splitlines()
    assert table[0].split() == ["SERVICE", "COUNT", "ASKED", "QUESTION"]
    assert table[1].split()[:4] == ["search", "3", "2", "How"]
    assert table[2].split()[0] == "1"  # service and count only on a group's first line

    data = json.loads(format_gaps_json(groups))
    assert data[0] == {
        "service": "search",
        "count": 3,
        "questions": [
            {"question": "How to reindex products?", "count": 2},
            {"question": "shard allocation stuck", "count": 1},
        ],
        "reasons": {"no-match": 2, "low-confidence": 1},
    }

    message = format_gaps_slack(groups, window_days=7)
    assert_valid_blocks(message)
    assert message["text"] == "Runbook gaps: 6 unanswered questions in the last 7 days"
    sections = [b["text"]["text"] for b in message["blocks"] if b["type"] == "section"]
    assert sections[0].startswith("*search*: 3 questions")
    assert "• How to reindex products? (×2)" in sections[0]


def test_gaps_slack_escapes_and_stays_within_limits() -> None:
    many = [
        GapGroup(
            service=f"svc-{i}",
            count=40,
            questions=tuple(GapQuestion(f"<!here> q{i}-{j} " + "x" * 250, 1) for j in range(40)),
        )
        for i in range(30)
    ]
    message = format_gaps_slack(many)
    assert_valid_blocks(message)
    assert "<!here>" not in json.dumps(message)
    assert "more questions not shown" in message["blocks"][-1]["elements"][0]["text"]


def ingested(path: str, text: str) -> list[Chunk]:
    """The chunks ingest makes of ``text``: its parser and chunker, no embedding."""
    facts = DocumentFacts(source_id=path, path=path, revision="r", content_hash="h")
    parsed = parse_document(text, facts, DocumentConfig())
    return chunk_document(parsed.document, parsed.body_start)


UNWRITTEN = """# DiskFillingUp

## Meaning

The disk fills up.

## Impact

## Diagnosis

TODO

## Mitigation
"""

NAVIGATION = """# Dashboard SOPs

## [Fleet dashboard SOPs](./fleet.md)
## **Common panels**

---

## Panel value: No Data

Reload the dashboard; check the data source in the panel's settings.
"""


def test_sections_not_written_yet_are_reported_to_fill_in() -> None:
    """A TODO and a heading with nothing under it are sections to write; a heading that
    is a link, or a label over a rule, is none. A runbook with nothing but placeholders
    says so."""
    placeholder = "# Restarts\n\n## Meaning\n\nTBD\n\n## Mitigation\n\n_TODO: not written yet._\n"
    chunks = [
        *ingested("disk.md", UNWRITTEN),
        *ingested("nav.md", NAVIGATION),
        *ingested("restarts.md", placeholder),
    ]
    docs = {d.path: d for d in documents_from_chunks(chunks)}
    assert docs["disk.md"].unwritten == ("Impact", "Diagnosis", "Mitigation")
    assert not docs["disk.md"].whole_unwritten
    assert docs["nav.md"].unwritten == () and not docs["nav.md"].whole_unwritten
    assert docs["restarts.md"].whole_unwritten
    rows = stale_report(list(docs.values()), TODAY, STALE_AFTER)
    unwritten = {r.path: r.detail for r in rows if r.kind == "unwritten"}
    assert unwritten == {
        "disk.md": "not written yet: Impact, Diagnosis, Mitigation",
        "restarts.md": "nothing written yet: every section is a placeholder",
    }
    assert "unwritten" in format_table(rows) and "Diagnosis, Mitigation" in format_table(rows)


def test_the_app_home_names_the_sections_to_write() -> None:
    chunks = ingested("disk.md", UNWRITTEN)
    rows = stale_report(documents_from_chunks(chunks), TODAY, STALE_AFTER)
    data = HomeData(owned=1, services=(), rows=tuple(rows), gaps=(), gaps_days=30)
    blocks = render_home(data)
    assert_valid_blocks({"text": "App Home", "blocks": blocks})
    shown = json.dumps(blocks)
    assert "not written yet: Impact, Diagnosis, Mitigation" in shown
