"""bot.text: the terminal rendering leads with the section and says each document's owner once."""

from __future__ import annotations

from datetime import date

from bot.text import BEST_GUESS, render_text
from core.models import Answer, Citation, Suggestion


def cite(section: str, quote: str, **extra: object) -> Citation:
    fields: dict[str, object] = {
        "source_id": "checkout/db",
        "title": "Checkout DB",
        "section": section,
        "path": "checkout/db.md",
        "url": "https://git.example.com/checkout/db.md#L9",
        "revision": "abc",
        "start": 0,
        "end": 1,
        "line": 9,
        "quote": quote,
        "owner": "@checkout-oncall",
        "updated": date(2026, 1, 1),
        "age_days": 12,
    }
    fields.update(extra)
    return Citation.model_validate(fields)


def test_answer_leads_with_the_section_and_has_one_owner_line_per_document() -> None:
    answer = Answer(
        state="answer",
        text="From the runbook *Checkout DB*:",
        citations=(
            cite("Mitigation > Restart", "1. `kubectl rollout restart`", note="steps 1-1 of 3"),
            cite("Diagnosis", "Run `SHOW POOLS;`"),
        ),
    )
    out = render_text(answer)
    assert out.splitlines()[0] == "[Mitigation > Restart · Checkout DB]  checkout/db.md:9"
    assert out.count("owner @checkout-oncall | updated 12 days ago") == 1
    assert "[Diagnosis]  checkout/db.md:9" in out
    assert "(steps 1-1 of 3; the rest is in the runbook)" in out
    assert "*Checkout DB*" not in out


def test_a_section_quoted_in_pieces_is_one_quote_under_one_heading() -> None:
    answer = Answer(
        state="answer",
        text="From the runbook *Checkout DB*:",
        citations=(
            cite("Diagnosis", "Port-forward first:", start=0, end=19),
            cite("Diagnosis", "1. Check the pools", start=21, end=39),
            cite("Diagnosis", "5. Check the replica", start=400, end=420),
        ),
    )
    lines = render_text(answer).splitlines()
    assert sum(line.startswith("[Diagnosis") for line in lines) == 1
    first = lines.index("  | Port-forward first:")
    assert lines[first : first + 6] == [
        "  | Port-forward first:",
        "  |",
        "  | 1. Check the pools",
        "  |",
        "  | …",
        "  |",
    ]
    assert lines[first + 6] == "  | 5. Check the replica"


def test_closest_runbooks_name_title_section_and_owner() -> None:
    answer = Answer(
        state="unsure",
        text="Not sure these answer it: the closest runbooks.",
        reason="low-confidence",
        suggestions=(
            Suggestion(
                source_id="p",
                title="Payments",
                section="Mitigation",
                path="payments.md",
                url="https://git.example.com/payments.md#L3",
                line=3,
                owner=None,
            ),
        ),
        search_link="https://github.com/search?q=repo%3Aacme%2Frunbooks+x",
    )
    out = render_text(answer)
    assert "  Payments (Mitigation)  [payments.md:3] | no owner" in out
    assert "Search: https://github.com/search?q=repo%3Aacme%2Frunbooks+x" in out


def test_a_table_row_is_printed_under_its_header() -> None:
    row = "| `ReplicaLag` | promote the standby |"
    header = "| Alert | Action |\n| --- | --- |"
    answer = Answer(
        state="answer",
        text="x",
        citations=(cite("Alerts", row, header=header, note="row 3 of 20"),),
    )
    lines = render_text(answer).splitlines()
    at = lines.index("  | | Alert | Action |")
    assert lines[at + 1 : at + 3] == ["  | | --- | --- |", f"  | {row}"]
    assert "  (row 3 of 20; the rest is in the runbook)" in lines


def test_a_best_guess_says_so_on_its_first_line() -> None:
    guess = Answer(
        state="answer", text="From *Checkout DB*:", citations=(cite("Mitigation", "Restart"),)
    )
    lines = render_text(guess.model_copy(update={"sure": False})).splitlines()
    assert lines[:3] == [BEST_GUESS, "", "[Mitigation · Checkout DB]  checkout/db.md:9"]
    assert BEST_GUESS not in render_text(guess)
