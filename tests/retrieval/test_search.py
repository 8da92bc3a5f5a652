"""Grouping fused hits by document: an index page is not an answer."""

from __future__ import annotations

from core.models import Chunk, DocumentMetadata, Hit
from retrieval.link_pages import LINK_LIST_SHARE, is_link_list, link_share
from retrieval.search import group_by_document


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


def test_grouping_keeps_fused_order() -> None:
    docs = group_by_document([hit("index", INDEX, 0.030), hit("runbook", PROSE, 0.025)])
    assert [d.source_id for d in docs] == ["index", "runbook"]
