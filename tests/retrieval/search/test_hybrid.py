"""Grouping fused hits by document: an index page is not an answer."""

from __future__ import annotations

from core.models import Chunk, DocumentMetadata, Hit
from retrieval.search.hybrid import group_by_document
from retrieval.search.link_pages import (
    LINK_LIST_SHARE,
    is_link_list,
    link_share,
    mostly_links,
    read_link_share,
)


def hit(source_id: str, body: str, score: float) -> Hit:
    prefix = f"{source_id}\n\n"
    chunk = Chunk(
        chunk_id=source_id + "#s",
        source_id=source_id,
        path=source_id + ".md",
        title=source_id,
        heading_path=(),
        text=prefix + body,
        start=0,
        end=len(body),
        content_hash="h",
        line=1,
        metadata=DocumentMetadata(),
    )
    return Hit(chunk=chunk, fused_score=score)


INDEX = "- [Alerts](alerts.md)\n- [Deploys](deploy.md)\n- https://example.org/cdn"
PROSE = "Restart pgbouncer with `kubectl rollout restart`. See [the docs](x.md)."


def test_link_share() -> None:
    assert link_share(INDEX) >= LINK_LIST_SHARE > link_share(PROSE)
    assert link_share("") == 0.0


def test_a_page_of_links_is_recognised() -> None:
    assert is_link_list([hit("index", INDEX, 0.03).chunk])
    assert not is_link_list([hit("runbook", PROSE, 0.03).chunk, hit("runbook", INDEX, 0.03).chunk])


DASHBOARD = "https://dashboards.example.org/explore?panes=" + "%7B%22expr%22%3A%22rate%22" * 80
PLAYBOOK = f"""## Overview

PgBouncer is single threaded: when its process uses a whole core, queries queue and
time out, and another PgBouncer node may be needed.

## Verification

The closer the saturation is to 1, the sooner a node must be added.

- [Explore query for the pgbouncer nodes]({DASHBOARD})
- [Explore query for the patroni nodes]({DASHBOARD})

## Escalation

For escalation, contact [#database](https://chat.example.org/archives/C3NB).
"""
GENERATED_INDEX = (
    "<!-- MARKER: generated from the service catalog, do not edit -->\n\n"
    "## Troubleshooting Pointers\n\n"
    + "".join(f"* [../ops/page-{n}.md](../ops/page-{n}.md)\n" for n in range(12))
    + "\n<!-- ## Summary -->\n\n<!-- ## Architecture -->\n\n<!-- ## Performance -->\n"
)


def test_long_link_targets_do_not_make_a_runbook_an_index() -> None:
    # as written, the two dashboard links are most of the page; as read, the prose is
    assert link_share(PLAYBOOK) >= LINK_LIST_SHARE
    assert read_link_share(PLAYBOOK) < 0.5
    assert not mostly_links(PLAYBOOK)
    assert not is_link_list([hit("playbook", PLAYBOOK, 0.03).chunk])


def test_a_wiki_home_page_of_page_links_is_an_index() -> None:
    home = "# Home\n\n- [[Restart the pod]]\n- [[Failover|Database-failover]]\n- [[Disk full]]\n"
    assert mostly_links(home)
    assert not mostly_links(
        "When [[Disk full]] fires, stop the writer first, then compact the tables and "
        "watch the volume until it drops below eighty percent."
    )


def test_an_index_stays_an_index_however_it_is_measured() -> None:
    for index in (INDEX, GENERATED_INDEX):
        assert mostly_links(index), index
    uncommented = GENERATED_INDEX.replace("<!-- ## Summary -->", "Summary")
    assert read_link_share(GENERATED_INDEX) > read_link_share(uncommented)  # comments: unread
    assert read_link_share("See [the docs](x.md).") == 7 / 11  # "thedocs" of "Seethedocs."


def test_grouping_keeps_fused_order() -> None:
    docs = group_by_document([hit("index", INDEX, 0.030), hit("runbook", PROSE, 0.025)])
    assert [d.source_id for d in docs] == ["index", "runbook"]
