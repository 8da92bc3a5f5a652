"""The web side of runbook drafts: the gaps report shows each question's draft, and a
draft handed over as a file is offered to signed-in people at /drafts/<id>."""

from __future__ import annotations

from bot.drafts import DraftLedger, Published, new_record
from state.querylog import build_record
from tests.web.conftest import ALICE, Site

QUESTION = "zookeeper ensemble lost quorum what now"
DRAFT_ID = "0123456789abcdef"
MARKDOWN = "---\ntitle: Zookeeper quorum\n---\n\n# Zookeeper quorum\n"


def test_the_gaps_report_and_the_draft_file(site: Site) -> None:
    settings = site.runtime.settings
    site.runtime.query_log.record(
        build_record(
            request_id="r-zk",
            user_hash="h1",
            channel="C1",
            scope_id="s",
            question=QUESTION,
            state="abstain",
            reason="no-match",
        )
    )
    settings.drafts_dir.mkdir(parents=True, exist_ok=True)
    (settings.drafts_dir / f"{DRAFT_ID}.md").write_text(MARKDOWN, encoding="utf-8")
    url = f"{site.base}/drafts/{DRAFT_ID}"
    published = Published("file", "kafka/zookeeper.md", url, "sent", branch=DRAFT_ID)
    DraftLedger(settings.data_dir).add(
        new_record(QUESTION, "Zookeeper quorum", "kafka", published, None, "h1")
    )
    with site.client() as anonymous:
        assert anonymous.get(f"/drafts/{DRAFT_ID}").status_code == 303  # sign in first
    with site.client() as alice:
        site.sign_in(alice, ALICE)
        report = alice.get("/reports/gaps", params={"days": "7"})
        assert report.status_code == 200
        assert QUESTION in report.text
        assert "draft kafka/zookeeper.md sent as a file" in report.text
        assert f'href="{url}"' in report.text
        draft = alice.get(f"/drafts/{DRAFT_ID}")
        assert draft.status_code == 200 and draft.text == MARKDOWN
        assert draft.headers["content-type"].startswith("text/markdown")
        assert alice.get("/drafts/0000000000000000").status_code == 404
        assert alice.get("/drafts/..%2Fdrafts").status_code == 404
