"""Notion blocks rendered as Markdown, with heading anchors at their offsets."""

from __future__ import annotations

from ingest.sources.notion_markdown import render_page, rich_text
from tests.fakes.notion_api import (
    Block,
    bulleted,
    callout,
    child_page,
    code,
    heading,
    numbered,
    paragraph,
    quote,
    rich,
    table,
    todo,
)


def stored(blocks: list[Block]) -> list[Block]:
    """Blocks as a sync holds them: ids given, children fetched under ``children``."""
    out = []
    for i, b in enumerate(blocks):
        b = dict(b)
        b["id"] = f"0000000{i}-aaaa-bbbb-cccc-{i:012d}"
        b["children"] = stored(b.get("children") or [])
        out.append(b)
    return out


def test_rich_text_keeps_code_links_and_emphasis() -> None:
    text = rich_text(
        [
            rich("Run "),
            rich("kubectl rollout undo", code=True),
            rich(" then "),
            rich("check the dashboard ", bold=True),
            rich("here", href="https://grafana.example/d/1"),
        ]
    )
    assert text == (
        "Run `kubectl rollout undo` then **check the dashboard** "
        "[here](https://grafana.example/d/1)"
    )


def test_page_renders_lists_code_callouts_tables_and_todos() -> None:
    rendered = render_page(
        stored(
            [
                paragraph("Checkout cannot reach its database."),
                heading(2, "Mitigation"),
                numbered(
                    "Restart pgbouncer:",
                    [code("kubectl -n checkout rollout restart deploy/pgbouncer")],
                ),
                numbered("Scale down", [bulleted("to 4 replicas")]),
                callout("Never delete the PVC."),
                paragraph(""),
                bulleted("first"),
                bulleted("second"),
                todo("checked the graphs", checked=True),
                quote("Escalate after 15 minutes."),
                table([["Alert", "Severity"], ["CHK-5023", "page|now"]]),
                child_page("Old notes"),
                heading(3, "Verify"),
            ]
        )
    )
    assert rendered.text == (
        "Checkout cannot reach its database.\n\n"
        "## Mitigation\n\n"
        "1. Restart pgbouncer:\n"
        "   ```shell\n   kubectl -n checkout rollout restart deploy/pgbouncer\n   ```\n"
        "2. Scale down\n"
        "   - to 4 replicas\n\n"
        "> ⚠️ Never delete the PVC.\n\n"
        "- first\n"
        "- second\n"
        "- [x] checked the graphs\n\n"
        "> Escalate after 15 minutes.\n\n"
        "| Alert | Severity |\n| --- | --- |\n| CHK-5023 | page\\|now |\n\n"
        "### Verify\n"
    )


def test_heading_anchors_point_at_their_headings() -> None:
    blocks = stored(
        [paragraph("intro"), heading(1, "Symptoms"), paragraph("x"), heading(2, "Steps")]
    )
    rendered = render_page(blocks)
    assert [rendered.text[o : o + 12] for o, _ in rendered.anchors] == [
        "# Symptoms\n\n",
        "## Steps\n",
    ]
    assert [a for _, a in rendered.anchors] == [
        b["id"].replace("-", "") for b in blocks if b["type"].startswith("heading")
    ]


def test_toggle_heading_children_follow_it_and_numbering_restarts() -> None:
    rendered = render_page(
        stored(
            [
                heading(2, "Rollback", [numbered("undo"), numbered("verify")]),
                paragraph("between"),
                numbered("again"),
            ]
        )
    )
    assert rendered.text == "## Rollback\n\n1. undo\n2. verify\n\nbetween\n\n1. again\n"


def test_an_empty_page_renders_nothing() -> None:
    assert render_page(stored([paragraph(""), child_page("x")])).text == ""
