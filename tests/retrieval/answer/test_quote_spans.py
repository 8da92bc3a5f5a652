"""Quote spans: a part's exact span of the original file, a procedure cut at a step, a
table by its row, a section split over indexed pieces."""

from __future__ import annotations

from retrieval.answer.quote_spans import MAX_QUOTE_CHARS, pieces, quote_part, quote_parts
from retrieval.reading.evidence import TermStats
from retrieval.reading.tokenize import tokenize
from tests.retrieval.answer.test_composer import STATS, TEXT, parts_of


def test_quotes_are_verbatim_and_exclude_the_heading() -> None:
    for part in parts_of(TEXT):
        q = quote_part(part, tokenize("restart"), STATS)
        assert TEXT[q.start : q.end] == q.text
        assert not q.text.startswith("#")


def test_a_long_procedure_is_cut_at_a_step_with_a_note() -> None:
    steps = "\n".join(
        f"{i}. Step {i}: " + "run the command and check the output carefully " * 5
        for i in range(1, 11)
    )
    text = f"# T\n\n## Steps\n\n> **WARNING:** read first.\n\nDo this:\n\n{steps}\n"
    parts = parts_of(text)
    part = next(p for p in parts if p.heading == "Steps")
    warning, q = quote_parts(part, parts, tokenize("run"), STATS)
    assert warning.text == "> **WARNING:** read first."  # never alone: the steps follow
    assert text[q.start : q.end] == q.text
    assert q.note is not None and q.note.endswith("of 10") and q.note.startswith("steps 1-")
    shown = int(q.note.split("-")[1].split()[0])
    assert q.text.rstrip().split("\n")[-1].startswith(f"{shown}. ")
    assert len(q.text) <= MAX_QUOTE_CHARS
    assert q.text.startswith("Do this:")  # the lead-in stays with the steps


ALERTS = "DiskFull CpuHigh ReplicaLag BackupFailed TokenExpiry QueueBacklog GcPause".split()


TABLE = (
    "# Platform alerts\n\n## Alert reference\n\n| Alert | Meaning | Action |\n| --- | --- | --- |\n"
    + (
        "".join(
            f"| `{name}` | {name} fired for the {i}th pool; check the dashboard and the logs "
            f"of every worker in the pool. | Restart pool {i} with `kubectl rollout restart "
            f"deploy/pool-{i}` and page its owning team when it persists past an hour. |\n"
            for i, name in enumerate(ALERTS + [a + "Critical" for a in ALERTS[:5]])
        )
    )
)


def test_a_long_table_is_quoted_by_the_row_the_question_names_under_its_header() -> None:
    part = next(p for p in parts_of(TABLE) if p.heading == "Alert reference")
    assert len(part.body) > MAX_QUOTE_CHARS
    stats = TermStats.from_doc_terms({"t": tokenize(TABLE), "o": tokenize("unrelated")})
    q = quote_part(part, tokenize("BackupFailed firing what do i do"), stats)
    assert TABLE[q.start : q.end] == q.text  # the row, verbatim
    assert q.text.startswith("| `BackupFailed` |") and "\n" not in q.text
    assert q.header == "| Alert | Meaning | Action |\n| --- | --- | --- |"
    assert q.note == "row 4 of 12"
    # no row stands out (every row restarts a pool): the table as before, no header
    q = quote_part(part, tokenize("how do i restart a pool"), stats)
    assert q.header is None and q.text.startswith("| Alert | Meaning | Action |")


SHORT_TABLE = """# Database quick reference

## Alerts

| Alert | Severity | What to do |
| --- | --- | --- |
| PostgresReplicationLagHigh | warning | Rebuild the replica with `pg-rebuild-replica <host>` |
| PostgresConnectionsExhausted | critical | Kill idle transactions with `pg-kill-idle` |
| PostgresDiskFull | critical | Extend the volume with `pg-extend-volume <host> +50G` |

## Contacts

| Team | Channel |
| --- | --- |
| DBA | #dba |
| Storage | #storage |
"""


def test_a_short_table_of_alerts_is_quoted_by_the_row_asked_about() -> None:
    parts = parts_of(SHORT_TABLE)
    alerts = next(p for p in parts if p.heading == "Alerts")
    assert len(alerts.body) < MAX_QUOTE_CHARS
    stats = TermStats.from_doc_terms({"t": tokenize(SHORT_TABLE), "o": tokenize("unrelated")})
    q = quote_part(alerts, tokenize("PostgresDiskFull what do i do"), stats)
    assert SHORT_TABLE[q.start : q.end] == q.text
    assert q.text.startswith("| PostgresDiskFull |") and q.note == "row 3 of 3"
    assert q.header == "| Alert | Severity | What to do |\n| --- | --- | --- |"
    # asked about them all: the whole table
    q = quote_part(alerts, tokenize("which postgres alerts are there"), stats)
    assert q.header is None and q.text == alerts.body.rstrip()
    # two rows: the table is short enough to read whole
    contacts = next(p for p in parts if p.heading == "Contacts")
    q = quote_part(contacts, tokenize("storage team channel"), stats)
    assert q.header is None and q.text == contacts.body.rstrip()


def test_a_table_with_text_below_it_is_quoted_whole() -> None:
    text = SHORT_TABLE.replace("\n## Contacts", "Page the DBA when in doubt.\n\n## Contacts")
    alerts = next(p for p in parts_of(text) if p.heading == "Alerts")
    stats = TermStats.from_doc_terms({"t": tokenize(text), "o": tokenize("unrelated")})
    q = quote_part(alerts, tokenize("PostgresDiskFull what do i do"), stats)
    assert q.header is None and q.text == alerts.body.rstrip()


def test_a_short_part_is_quoted_whole() -> None:
    part = next(p for p in parts_of(TEXT) if p.heading == "Restart pgbouncer")
    q = quote_part(part, tokenize("restart"), STATS)
    assert q.text == part.body and q.note is None


def test_a_section_split_over_chunks_is_quoted_from_its_first_piece() -> None:
    intro = "\n\n".join(f"Paragraph {i}: " + "check the replica lag first " * 10 for i in range(3))
    text = f"# T\n\n## Fail over\n\n{intro}\n\n1. Promote the replica.\n2. Restart the pooler.\n"
    parts = parts_of(text, max_tokens=128)  # small chunks: the section is split
    group = pieces(parts[-1], parts)
    assert len(group) > 1 and group[-1] is parts[-1]  # the section was split
    quotes = quote_parts(parts[-1], parts, tokenize("promote"), STATS)  # chosen by its end...
    assert quotes[0].text.startswith("Paragraph 0")  # ...quoted from its beginning
    assert quotes[-1].text.rstrip().endswith("2. Restart the pooler.")
    for q in quotes:
        assert text[q.start : q.end] == q.text


def test_two_sections_under_the_same_heading_are_two_sections() -> None:
    """``#### Note`` twice in a row: quoting the second note does not quote the first as
    if it were an earlier piece of one section."""
    text = (
        "# T\n\n## Finding\n\nAbout the finding.\n\n#### Note\n\nThe log4j fields.\n\n"
        "#### Note\n\nTo test it, query the test domain.\n"
    )
    parts = parts_of(text)
    first, second = (p for p in parts if p.heading == "Note")
    assert pieces(second, parts) == [second] and pieces(first, parts) == [first]
    quotes = quote_parts(second, parts, tokenize("test"), STATS)
    assert [q.text for q in quotes] == ["To test it, query the test domain."]


def test_what_to_do_skips_to_the_fix_a_playbook_labels_in_bold() -> None:
    """A playbook with no headings below the alert: the fix begins at a bold label
    further down than one section's quote reaches."""
    about = "\n\n".join(
        f"Paragraph {i}: " + "the series limit explained at length " * 10 for i in range(8)
    )
    fix = "How to **fix**:\n\n1. Temporarily increase the limit.\n2. Scale up the ingesters.\n"
    text = f"# Playbooks\n\n## SeriesLimit\n\n{about}\n\n{fix}"
    parts = parts_of(text, max_tokens=128)
    group = pieces(parts[1], parts)
    assert len(group) > 3  # the section is split; its quote stops before the fix
    plain = quote_parts(group[0], parts, tokenize("series limit"), STATS)
    assert not any("How to **fix**" in q.text for q in plain)
    assert plain[-1].note == "part of this section"  # the cut is said, with no steps shown
    acting = quote_parts(group[0], parts, tokenize("series limit"), STATS, acting=True)
    assert acting[0].text.startswith("Paragraph 0")  # what the alert means, then
    assert any(q.text.startswith("How to **fix**") for q in acting[1:])  # its fix
    assert acting[-1].text.rstrip().endswith("2. Scale up the ingesters.")
    for q in acting:
        assert text[q.start : q.end] == q.text


def test_a_piece_holding_only_link_definitions_is_not_quoted() -> None:
    intro = "\n\n".join(
        f"Paragraph {i}: " + "email the [support desk][desk] now " * 10 for i in range(3)
    )
    links = "\n".join(f"[desk{i}]: https://example.com/support/{i}" for i in range(12))
    text = f"# T\n\n## Contact\n\n{intro}\n\n{links}\n"
    parts = parts_of(text, max_tokens=128)  # small chunks: the section is split
    group = pieces(parts[0], parts)
    assert len(group) > 1 and group[-1].body.lstrip().startswith("[desk")  # split off
    quotes = quote_parts(parts[0], parts, tokenize("email"), STATS)
    assert quotes and all("https://example.com/support/11" not in q.text for q in quotes)


def test_a_templates_prompts_left_after_the_text_are_not_quoted() -> None:
    """An alert playbook's template leaves prompts under what its author wrote ("- >
    Describe the expected behavior"): the quote ends where the writing does, verbatim."""
    text = (
        "# PostgresSplitBrain\n\n## Metrics\n\n"
        "- The expression counts the instances not in replica mode; above 1 it fires.\n"
        "- > Describe the expected behavior of the metric under normal conditions.\n"
        "- > Add screenshots of a dashboard when this alert is firing\n\n"
        "## Troubleshooting\n\n- > Basic troubleshooting order\n"
    )
    parts = parts_of(text)
    metrics = next(p for p in parts if p.heading == "Metrics")
    q = quote_part(metrics, tokenize("replica"), STATS)
    assert text[q.start : q.end] == q.text
    assert q.text.endswith("above 1 it fires.")
    # nothing but prompts: the section is quoted as written (it is a stub, and never chosen)
    only = next(p for p in parts if p.heading == "Troubleshooting")
    assert quote_part(only, tokenize("order"), STATS).text == "- > Basic troubleshooting order"
