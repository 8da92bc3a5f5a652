"""What the pages print: safe links, plain-word ages and warnings, clean excerpts."""

from __future__ import annotations

import re
from datetime import date

from bot.web.present import (
    age_text,
    emphasis,
    gap_reason,
    headline,
    hit_excerpt,
    reason_text,
    safe_url,
    warning_text,
)
from core.models import Answer, AnswerWarning, Chunk, Citation, DocumentMetadata

TODAY = date(2026, 12, 1)


def citation(**fields: object) -> Citation:
    values: dict[str, object] = {
        "source_id": "search/es",
        "title": "Search: ES red",
        "section": "Mitigation",
        "path": "search/es.md",
        "url": "https://github.com/acme/runbooks/blob/abc/search/es.md#L3",
        "revision": "abc",
        "start": 0,
        "end": 10,
        "line": 3,
        "quote": "1. Restart",
        "owner": "@search-team",
        "updated": date(2025, 6, 2),
        "age_days": None,
    }
    values.update(fields)
    return Citation.model_validate(values)


def test_only_web_links_are_links() -> None:
    assert safe_url("https://x.example/a#L1") == "https://x.example/a#L1"
    assert safe_url("HTTP://x.example") == "HTTP://x.example"
    for bad in ("javascript:alert(1)", "data:text/html,x", "//x.example", "", None, "https://a b"):
        assert safe_url(bad) is None


def test_ages_in_plain_words() -> None:
    assert age_text(date(2026, 11, 30), None, TODAY) == "updated 1 day ago"
    assert age_text(None, 58, TODAY) == "updated 58 days ago"
    assert age_text(TODAY, None, TODAY) == "updated today"
    assert age_text(None, None, TODAY) == "updated: unknown"


def test_a_stale_warning_names_the_age_and_the_owner() -> None:
    answer = Answer(state="answer", text="x", citations=(citation(),))
    warning = AnswerWarning(
        kind="stale", message="Runbook may be out of date.", source_id="search/es"
    )
    text = warning_text(warning, answer, TODAY)
    assert "last updated 547 days ago" in text and "owner @search-team" in text
    said = AnswerWarning(
        kind="stale",
        message="Last updated 547 days ago (owner @search-team).",
        source_id="search/es",
    )
    assert warning_text(said, answer, TODAY) == said.message  # nothing said twice


def test_emphasis_escapes_before_it_marks_up() -> None:
    html = str(emphasis("From *<script>alert(1)</script>*, section *A & B*:"))
    assert "<script>" not in html
    assert "<strong>&lt;script&gt;alert(1)&lt;/script&gt;</strong>" in html
    assert "<strong>A &amp; B</strong>" in html


def indexed(title: str, heading_path: tuple[str, ...], text: str, path: str = "s.md") -> Chunk:
    """A chunk as ingest indexes it: title and heading path, then the section."""
    return Chunk(
        chunk_id="c",
        source_id="s",
        path=path,
        title=title,
        heading_path=heading_path,
        text=text,
        start=0,
        end=10,
        content_hash="h",
        line=5,
        metadata=DocumentMetadata(),
    )


def test_an_excerpt_is_the_sections_own_words() -> None:
    chunk = indexed(
        "Platform: disk full",
        ("Platform: disk full", "Diagnosis"),
        "Platform: disk full\nDiagnosis\n\n## Diagnosis\n\n1. Check:\n```bash\ndf -h\n```\n",
    )
    assert hit_excerpt(chunk) == "1. Check: df -h"
    assert hit_excerpt(chunk, limit=6) == "1. Ch…"


def test_an_excerpt_leaves_out_setext_headings_too() -> None:
    chunk = indexed(
        "Queue backlog",
        ("Mitigation",),
        "Queue backlog\nMitigation\n\nMitigation\n----------\n\n1. Scale the consumers.\n",
    )
    assert hit_excerpt(chunk) == "1. Scale the consumers."


def test_an_excerpt_leaves_out_asciidoc_and_restructuredtext_titles() -> None:
    rst = indexed(
        "Monitors",
        ("Monitors", "Mitigation"),
        "Monitors\nMitigation\n\nMitigation\n~~~~~~~~~~\n\n1. Restart the monitor.\n",
        "ceph/mon.rst",
    )
    assert hit_excerpt(rst) == "1. Restart the monitor."
    adoc = indexed(
        "Disk full",
        ("Disk full", "Mitigation"),
        "Disk full\nMitigation\n\n== Mitigation\n\nVacuum the journal.\n",
        "ops/disk.adoc",
    )
    assert hit_excerpt(adoc) == "Vacuum the journal."


def test_a_comment_inside_code_stays_in_the_excerpt() -> None:
    chunk = indexed(
        "Platform: disk full",
        ("Platform: disk full", "Diagnosis"),
        "Platform: disk full\nDiagnosis\n\n## Diagnosis\n\n```bash\n# what grew\ndu -xh /\n```\n",
    )
    assert hit_excerpt(chunk) == "# what grew du -xh /"


def test_a_runbook_not_written_yet_has_its_own_headline_and_words() -> None:
    unwritten = Answer(state="abstain", text="x", reason="unwritten")
    assert headline(unwritten) == "The runbook for this is not written yet"
    assert "nothing in it is written yet" in reason_text(unwritten)
    assert gap_reason("unwritten") == "runbook not written yet"
    assert (
        headline(Answer(state="abstain", text="x", reason="no-match")) == "No runbook covers this"
    )


def test_a_quoted_table_row_is_shown_under_its_header() -> None:
    from bot.web.pages import _environment

    row = "| `ReplicaLag` | the replica is behind | promote the standby |"
    header = "| Alert | Meaning | Action |\n| --- | --- | --- |"
    answer = Answer(
        state="answer",
        text="x",
        citations=(citation(quote=row, header=header, note="row 3 of 20"),),
    )
    html = (
        _environment()
        .get_template("_answer.html")
        .render(
            answer=answer,
            today=TODAY,
            q="ReplicaLag",
            delivery={"request_id": "r-1", "cache_hit": False},
        )
    )
    table = html.split("<table>", 1)[1].split("</table>", 1)[0]
    assert [c.strip() for c in re.findall(r"<th>(.*?)</th>", table)] == [
        "Alert",
        "Meaning",
        "Action",
    ]
    assert "<td><code>ReplicaLag</code></td>" in table and table.count("<tr>") == 2
    assert "Row 3 of 20" in html


def test_a_section_in_two_pieces_says_which_part_once_above_the_first() -> None:
    from bot.web.pages import _environment

    template = _environment().get_template("_answer.html")
    pieces = (
        citation(quote="Git takes a lock.", end=17),
        citation(
            quote="An OOM kill leaves it.", start=19, end=41, line=4, note="part of this section"
        ),
    )
    answer = Answer(state="answer", text="x", citations=pieces)
    delivery = {"request_id": "r-0123456789", "cache_hit": False}
    html = template.render(answer=answer, today=TODAY, q="git lock", delivery=delivery)
    assert html.count("Part of this section") == 1
    assert html.index("Part of this section") < html.index("Git takes a lock.")
    # one source line under the two, naming where they begin
    assert html.count('class="source"') == 1 and "<code>search/es.md:3</code>" in html


def test_the_part_of_section_note_comes_above_the_quote_and_unsure_reads_as_in_slack() -> None:
    from bot.text import NOT_SURE
    from bot.web.pages import _environment

    template = _environment().get_template("_answer.html")
    answer = Answer(
        state="answer",
        text="From the runbook *Search: ES red*, section *Mitigation*:",
        citations=(citation(quote="1. Restart\n2. Wait", note="steps 1-2 of 7"),),
    )
    delivery = {"request_id": "r-0123456789", "cache_hit": False}
    html = template.render(answer=answer, today=TODAY, q="es red", delivery=delivery)
    assert html.index("Steps 1-2 of 7") < html.index("<blockquote")
    assert "From the runbook" not in html  # the heading under it says the same
    assert "r-0123456789" not in html.split('name="request_id"')[0]

    unsure = Answer(state="unsure", text="x", reason="low-confidence")
    html = template.render(answer=unsure, today=TODAY, q="es red", delivery=delivery)
    assert f">{NOT_SURE}</h2>" in html
