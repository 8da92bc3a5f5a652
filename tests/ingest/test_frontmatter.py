from __future__ import annotations

from datetime import date

import pytest

from ingest.errors import MalformedDocumentError
from ingest.frontmatter import (
    as_list,
    header_lines,
    header_names,
    parse_date,
    parse_duration_days,
    split_front_matter,
    superseded_by_text,
)
from ingest.titles import first_h1


def test_front_matter_fields_and_body_offset() -> None:
    text = "---\ntitle: X\naccess: [sre]\nupdated: 2026-01-02\n---\n# Body\n"
    fm = split_front_matter(text, "x.md")
    assert fm.fields["title"] == "X"
    assert fm.fields["access"] == ["sre"]
    assert text[fm.body_start :] == "# Body\n"


def test_no_front_matter() -> None:
    fm = split_front_matter("# Title\ntext\n", "x.md")
    assert fm.fields == {} and fm.body_start == 0


def test_broken_yaml_names_the_line() -> None:
    text = "---\ntitle: ok\nowner: [unclosed\nservice: x\n---\nbody\n"
    with pytest.raises(MalformedDocumentError) as err:
        split_front_matter(text, "bad.md")
    assert err.value.line is not None and err.value.line >= 3
    assert "bad.md" in str(err.value)


def test_unclosed_front_matter() -> None:
    with pytest.raises(MalformedDocumentError):
        split_front_matter("---\ntitle: x\n\nbody", "x.md")


def test_header_line_style() -> None:
    body = "# Cache\nService: inventory-service\n**Owner:** @inv\nUpdated: 2026-10-20\n\ntext"
    found = header_lines(body)
    assert found["service"] == "inventory-service"
    assert found["owner"] == "@inv"
    assert found["updated"] == "2026-10-20"


def test_a_header_lines_value_is_read_as_text_and_names() -> None:
    body = "# Gitaly\n- Owner: [Gitaly Team](https://handbook.example.com/gitaly)\n\ntext"
    assert header_lines(body)["owner"] == "Gitaly Team"
    assert header_names("Gitaly Team") == ("Gitaly Team",)
    assert header_names("@a, @b") == ("@a", "@b")
    assert header_names("@a @b") == ("@a", "@b")
    assert header_names("Platform Engineering and @db-oncall") == (
        "Platform Engineering",
        "@db-oncall",
    )


def test_h1_skips_code() -> None:
    assert first_h1("```\n# not it\n```\n# Real\n") == "Real"


def test_dates_and_durations() -> None:
    assert parse_date("2026-03-04", "x", "updated") == date(2026, 3, 4)
    assert parse_date(date(2025, 1, 1), "x", "updated") == date(2025, 1, 1)
    with pytest.raises(MalformedDocumentError):
        parse_date("last tuesday", "x", "updated")
    assert parse_duration_days("90d", "x") == 90
    assert parse_duration_days("2w", "x") == 14
    assert parse_duration_days("6m", "x") == 180
    assert parse_duration_days(30, "x") == 30
    with pytest.raises(MalformedDocumentError):
        parse_duration_days("often", "x")


def test_lists_and_superseded_text() -> None:
    assert as_list("sre, dba") == ("sre", "dba")
    assert as_list(["a", "b"]) == ("a", "b")
    assert superseded_by_text("Status: Superseded by ADR-0012 (Redis).") == "ADR-0012"


def test_toml_front_matter_between_plus_lines() -> None:
    text = (
        '+++\ntitle = "Disk full"\nowner = "team-storage"\naccess = ["sre"]\n'
        "updated = 2026-01-02\n\n[params]\nweight = 3\n+++\n# Body\n"
    )
    fm = split_front_matter(text, "x.md")
    assert fm.fields["title"] == "Disk full"
    assert fm.fields["access"] == ["sre"]
    assert parse_date(fm.fields["updated"], "x.md", "updated") == date(2026, 1, 2)
    assert text[fm.body_start :] == "# Body\n"
    assert fm.lines["owner"] == 3 and fm.lines["updated"] == 5  # lines of the file
    assert "weight" not in fm.lines  # a key of a table is not a field


def test_broken_toml_names_the_line() -> None:
    text = '+++\ntitle = "ok"\nowner = [unclosed\n+++\nbody\n'
    with pytest.raises(MalformedDocumentError) as err:
        split_front_matter(text, "bad.md")
    assert "TOML" in str(err.value) and "bad.md" in str(err.value)
    assert err.value.line == 3
    with pytest.raises(MalformedDocumentError, match=r"not closed with '\+\+\+'"):
        split_front_matter('+++\ntitle = "x"\n\nbody', "x.md")
