"""retrieval.answer.preconditions over real parts (chunked and outlined as the index does):
which "Prerequisites" section governs a quoted procedure, and how an answer carries it."""

from __future__ import annotations

from datetime import date

from core.models import Answer, Citation, DocumentMetadata
from ingest.chunker import chunk_document
from retrieval.answer.citations import make_citation
from retrieval.answer.outline import Part, document_parts
from retrieval.answer.preconditions import governing, with_preconditions
from tests.conftest import markdown_document

TODAY = date(2026, 12, 1)
REVISION = "0123456789abcdef"
URL = f"https://git.example.com/runbooks/blob/{REVISION}/orders/db.md#L{{line}}"

TEXT = """# Orders DB operations

How the orders database is restored and its passwords rotated.

## Requirements

- A shell on `db-bastion-1`.

## Restore from backup

### Prerequisites

- The `orders-db-restore` role in Vault.
- `pgbackrest` 2.50 or later.

### Steps

1. Stop the writers: `kubectl -n orders scale deploy/orders-api --replicas=0`
2. Restore: `pgbackrest --stanza=orders-db --delta restore`

### Verify

1. Compare the row count: `psql -c 'SELECT count(*) FROM orders'`

### What it costs

Checkout takes no orders while the restore runs.

## Rotate the replication password

1. `vault write -f database/rotate-role/orders-replication`
2. `kubectl -n orders rollout restart deploy/orders-replica`

## Fail over to the standby

### Before you begin

#### Access

- The `orders-db-admin` role in Vault.

#### Tools

- `patronictl` on `db-bastion-1`.

### Steps

1. `patronictl -c /etc/patroni.yml switchover --candidate orders-db-1`

## Dependencies

- pgbouncer, in front of every writer.
"""


def parts_of(text: str = TEXT) -> list[Part]:
    title = text.split("\n", 1)[0].removeprefix("# ")
    d = markdown_document(text, title, "orders/db.md")
    d = d.model_copy(update={"metadata": DocumentMetadata(url=URL, revision=REVISION)})
    return document_parts(chunk_document(d, 0))


def part(parts: list[Part], section: str) -> Part:
    return next(p for p in parts if p.section == section)


def governed_by(parts: list[Part], section: str) -> str | None:
    found = governing(parts, part(parts, section))
    return " > ".join(found[0][1:]) if found is not None else None


def cite(p: Part) -> Citation:
    return make_citation(p.chunk, p.body_start, p.end, p.body, p.line_of(p.body_start), TODAY)


def answered(*quoted: Part) -> Answer:
    return Answer(state="answer", text="", citations=tuple(cite(p) for p in quoted))


def test_the_nearest_precondition_before_the_steps_governs_them() -> None:
    parts = parts_of()
    # its sibling, nearer than the document's Requirements (a sibling of its section)
    assert (
        governed_by(parts, "Restore from backup > Steps") == "Restore from backup > Prerequisites"
    )
    assert (
        governed_by(parts, "Restore from backup > Verify") == "Restore from backup > Prerequisites"
    )
    # a procedure of its own: the document's Requirements, not the restore's Prerequisites
    assert governed_by(parts, "Rotate the replication password") == "Requirements"
    assert governed_by(parts, "Fail over to the standby > Steps") == (
        "Fail over to the standby > Before you begin"
    )


def test_none_for_prose_for_the_precondition_itself_or_before_any() -> None:
    parts = parts_of()
    assert governed_by(parts, "Restore from backup > What it costs") is None  # no steps
    assert governed_by(parts, "Restore from backup > Prerequisites") is None  # itself
    assert governed_by(parts, "Fail over to the standby > Before you begin > Access") is None
    assert governed_by(parts, "Dependencies") is None  # itself, after every procedure
    text = "# Orders DB\n\n## Steps\n\n1. `pgbackrest restore`\n\n## Prerequisites\n\n- Vault.\n"
    assert governed_by(parts_of(text), "Steps") is None  # the precondition comes after them


def test_a_precondition_under_another_procedure_governs_nothing_of_this_one() -> None:
    text = """# Ledger operations

## Rebuild the ledger index

### Before you begin

- A read replica from #payments-dba.

### Steps

1. `ledgerctl index build --env prod`

## Rotate the signing key

1. `ledgerctl keys rotate --env prod`
"""
    parts = parts_of(text)
    assert governed_by(parts, "Rebuild the ledger index > Steps") is not None
    assert governed_by(parts, "Rotate the signing key") is None


def test_the_answer_names_it_once_linked_at_its_heading_above_the_first_steps() -> None:
    parts = parts_of()
    steps, verify = (
        part(parts, "Restore from backup > Steps"),
        part(parts, "Restore from backup > Verify"),
    )
    shown = with_preconditions(answered(steps, verify), lambda _: parts)
    before = shown.citations[0].before
    assert before is not None
    assert before.heading == "Prerequisites"
    assert before.section == "Restore from backup > Prerequisites"
    heading_line = TEXT.splitlines().index("### Prerequisites") + 1
    assert before.line == heading_line
    assert before.url == URL.replace("{line}", str(heading_line))
    assert shown.citations[1].before is None  # once per answer
    # the quotes themselves are unchanged: which, in what order, verbatim
    assert [c.model_copy(update={"before": None}) for c in shown.citations] == list(
        answered(steps, verify).citations
    )


def test_a_precondition_of_subsections_only_is_named_by_its_own_heading() -> None:
    parts = parts_of()
    shown = with_preconditions(
        answered(part(parts, "Fail over to the standby > Steps")), lambda _: parts
    )
    before = shown.citations[0].before
    assert before is not None
    assert (before.heading, before.section) == (
        "Before you begin",
        "Fail over to the standby > Before you begin",
    )
    assert before.line == TEXT.splitlines().index("#### Access") + 1  # its first line of text


def test_a_decorated_heading_is_named_plain() -> None:
    text = (
        "# Orders DB\n\n## **Prerequisites**\n\n- Vault.\n\n## Steps\n\n1. `pgbackrest restore`\n"
    )
    parts = parts_of(text)
    shown = with_preconditions(answered(part(parts, "Steps")), lambda _: parts)
    assert shown.citations[0].before is not None
    assert shown.citations[0].before.heading == "Prerequisites"


def test_none_when_the_answer_quotes_it_or_the_thread_showed_it() -> None:
    parts = parts_of()
    steps = part(parts, "Restore from backup > Steps")
    prerequisites = part(parts, "Restore from backup > Prerequisites")
    for quoted in ((steps, prerequisites), (prerequisites, steps)):
        shown = with_preconditions(answered(*quoted), lambda _: parts)
        assert all(c.before is None for c in shown.citations)
    # a subsection of it quoted is the precondition quoted
    failover = part(parts, "Fail over to the standby > Steps")
    access = part(parts, "Fail over to the standby > Before you begin > Access")
    shown = with_preconditions(answered(failover, access), lambda _: parts)
    assert all(c.before is None for c in shown.citations)
    # a thread that has shown it already
    thread = with_preconditions(
        answered(steps), lambda _: parts, shown=("Restore from backup > Prerequisites",)
    )
    assert thread.citations[0].before is None


def test_none_for_another_revision_or_a_document_no_longer_indexed() -> None:
    parts = parts_of()
    steps = cite(part(parts, "Restore from backup > Steps"))
    older = Answer(
        state="answer", text="", citations=(steps.model_copy(update={"revision": "old"}),)
    )
    assert with_preconditions(older, lambda _: parts).citations[0].before is None
    gone = Answer(state="answer", text="", citations=(steps,))
    assert with_preconditions(gone, lambda _: []).citations[0].before is None


def test_a_section_quoted_in_pieces_names_it_above_its_first_piece() -> None:
    # the opening words fill one indexed chunk, the steps fall in the next
    opening = " ".join(["The restore replays the archived WAL onto a fresh data directory."] * 30)
    text = (
        "# Orders DB\n\n## Prerequisites\n\n- The `orders-db-restore` role in Vault.\n\n"
        f"## Restore\n\n{opening}\n\n1. `pgbackrest --stanza=orders-db --delta restore`\n"
    )
    parts = parts_of(text)
    pieces = [p for p in parts if p.section == "Restore"]
    assert len(pieces) == 2 and not pieces[0].shows_steps and pieces[1].shows_steps
    shown = with_preconditions(answered(*pieces), lambda _: parts)
    first, second = shown.citations
    assert first.before is not None and first.before.heading == "Prerequisites"
    assert second.before is None
