"""The runbook page and what leads to it, in Debian's Chromium: a title whose source has
no link (a folder outside git) opens the whole runbook at its section; long quotes fold;
feedback from the web lands where Slack's does; search snippets, phones, the stale report
and the example question read well. Pages served in-process over the runbooks of
``tests/fixtures/unlinked`` (local mode), or the sample runbooks signed in with Slack."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, expect

from retrieval.search.embeddings import FastEmbedder
from tests.conftest import RedisServer, free_port
from tests.fakes.slack_openid import FakeSlackOpenID
from tests.unlinked_index import (
    INVOICE_EXPORT,
    REPLAY_QUESTION,
    ROTATION_DOCS,
    ROTATION_QUESTION,
    unlinked_data_dir,  # noqa: F401
    unlinked_index_template,  # noqa: F401
)
from tests.web.conftest import ALICE, SAM, Site, site_settings, start_site

TODAY = date(2026, 12, 1)
REPLAY_ANCHOR = "mitigation-replay-the-failed-export-batches"
BREAK_GLASS_ID = "runbooks:sre/break-glass-access"
PHONE = {"width": 390, "height": 844}


@pytest.fixture()
def unlinked_site(
    unlinked_data_dir: Path,  # noqa: F811
    redis_server: RedisServer,
    fake: FakeSlackOpenID,
    embedder: FastEmbedder,
) -> Iterator[Site]:
    port = free_port()
    settings = site_settings(unlinked_data_dir, redis_server.url, fake, port, web_local_mode=True)
    running = start_site(settings, fake, embedder, port, today=TODAY)
    yield running
    running.server.stop()
    running.runtime.close()


@pytest.fixture()
def page(browser: Browser) -> Iterator[Page]:
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    yield ctx.new_page()
    ctx.close()


@pytest.fixture()
def phone(browser: Browser) -> Iterator[Page]:
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    yield ctx.new_page()
    ctx.close()


def ask_url(site: Site, question: str) -> str:
    return f"{site.base}/ask?q={quote(question)}"


def test_a_title_without_a_source_link_opens_the_whole_runbook_at_its_section(
    page: Page, unlinked_site: Site
) -> None:
    page.goto(ask_url(unlinked_site, REPLAY_QUESTION))
    title = page.locator("article.citation h3 a").first
    href = title.get_attribute("href")
    assert href == f"{unlinked_site.base}/runbooks/{INVOICE_EXPORT}#{REPLAY_ANCHOR}"
    # every section title of the answer is a link
    for heading in page.locator("article.citation h3, article.citation h4").all():
        expect(heading.locator("a")).to_have_count(1)
    expect(page.locator("p.source a").first).to_have_text("the whole runbook")

    title.click()
    page.wait_for_url(f"**/runbooks/{INVOICE_EXPORT}#{REPLAY_ANCHOR}")
    expect(page.get_by_role("heading", level=1)).to_have_text("Billing: invoice export stuck")
    meta = page.locator(".runbook-head .meta")
    expect(meta).to_contain_text("owner @billing-oncall")
    expect(meta).to_contain_text("updated 11 days ago")
    target = page.locator(f"#{REPLAY_ANCHOR}")
    expect(target).to_have_text("Replay the failed export batches")
    expect(target).to_be_in_viewport()
    # the whole text, each heading with its anchor, commands byte for byte
    for anchor in ("symptoms", "diagnosis", "mitigation", "escalation"):
        expect(page.locator(f".runbook-text #{anchor}")).to_have_count(1)
    command = page.locator(".runbook-text pre code").first.text_content()
    assert command == "kubectl -n billing logs deploy/invoice-export --since=2h | grep batch\n"
    expect(page.locator(".runbook-text")).to_contain_text("Tell finance in #finance-ops")


def test_a_long_lead_folds_behind_show_more_and_sample_output_behind_show_example(
    page: Page, unlinked_site: Site
) -> None:
    page.goto(ask_url(unlinked_site, REPLAY_QUESTION))
    lead = page.locator("article.citation .quote").first
    expect(lead).to_contain_text("Pause the scheduler so no new batch starts")
    more = lead.locator("details.more")
    expect(more.locator("summary")).to_contain_text("Show more")
    last_step = lead.get_by_text("Tell finance in")
    expect(last_step).not_to_be_visible()
    more.locator("summary").click()
    expect(last_step).to_be_visible()
    # the steps keep their numbers across the fold, their commands as written
    expect(more.locator("ol").first).to_have_attribute("start", "8")
    expect(more.get_by_text("billingctl export list --state=error --since=24h")).to_be_visible()

    example = page.locator("details.example")
    expect(example.locator("summary")).to_contain_text("Show example (8 lines)")
    log_line = example.locator("pre code")
    expect(log_line).not_to_be_visible()
    example.locator("summary").click()
    expect(log_line).to_contain_text('batch=8813 state=error reason="ledger bucket: 403')


def test_web_feedback_lands_in_the_feedback_store_and_answers_show_no_request_id(
    page: Page, unlinked_site: Site
) -> None:
    page.goto(ask_url(unlinked_site, REPLAY_QUESTION))
    answer = page.locator("section.answer")
    expect(answer).not_to_contain_text("request r-")
    expect(answer).not_to_contain_text("confidence")
    expect(answer).not_to_contain_text("From the runbook")  # the heading says it once
    page.get_by_role("button", name="👎 Not helpful").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Thanks for the feedback")
    (fb,) = unlinked_site.runtime.query_log.recent_feedback(1)
    assert fb.value == "not_helpful"
    assert fb.question == REPLAY_QUESTION
    assert INVOICE_EXPORT in fb.cited
    assert fb.cited_access[INVOICE_EXPORT] == ("everyone",)
    page.get_by_role("link", name="Back to the answer").click()
    expect(page.locator("section.answer")).to_be_visible()


def test_a_runbook_that_points_elsewhere_for_the_steps_is_quoted_with_its_link(
    page: Page, unlinked_site: Site
) -> None:
    page.goto(ask_url(unlinked_site, ROTATION_QUESTION))
    expect(page.locator(f'section.answer a[href="{ROTATION_DOCS}"]')).to_have_text(
        "key rotation docs"
    )


def test_on_a_phone_the_first_command_is_above_the_fold_and_nothing_overflows(
    phone: Page, unlinked_site: Site
) -> None:
    phone.goto(ask_url(unlinked_site, "InvoiceExportStuck"))
    command = phone.locator("article.citation .quote code").first
    expect(command).to_be_visible()
    box = command.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"], box
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    phone.goto(f"{unlinked_site.base}/runbooks/{INVOICE_EXPORT}")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_search_snippets_show_no_markdown_marks(page: Page, unlinked_site: Site) -> None:
    page.goto(f"{unlinked_site.base}/search?q=renew+ledger+credentials")
    excerpts = page.locator(".hit .excerpt")
    expect(excerpts.first).to_be_visible()
    for text in excerpts.all_text_contents():
        assert "`" not in text and "**" not in text, text
    expect(excerpts.locator("code").first).to_be_visible()
    # a hit without a source link opens its runbook page
    href = page.locator(".hit h3 a").first.get_attribute("href") or ""
    assert href.startswith(f"{unlinked_site.base}/runbooks/runbooks:billing/"), href


def test_the_stale_report_fits_a_desktop_and_says_a_shared_explanation_once(
    page: Page, unlinked_site: Site
) -> None:
    page.goto(f"{unlinked_site.base}/reports/stale")
    rows = page.locator("table.report tbody tr.kind-ownerless")
    expect(rows).to_have_count(2)
    legend = page.locator("ul.legend li.kind-ownerless")
    expect(legend).to_contain_text("no owner in front matter")
    for row in rows.all():
        expect(row.locator('td[data-label="Problem"]')).to_have_text("ownerless")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1200, width
    table = page.locator(".table-wrap")
    assert table.evaluate("e => e.scrollWidth <= e.clientWidth")


def test_the_example_question_comes_from_the_index(page: Page, unlinked_site: Site) -> None:
    page.goto(unlinked_site.base + "/")
    box = page.get_by_label("Ask the runbooks")
    expect(box).to_have_attribute("placeholder", "InvoiceExportStuck")
    expect(page.locator("#q-hint")).to_contain_text("InvoiceExportStuck")
    expect(page.locator("body")).not_to_contain_text("checkout-api")


def test_a_restricted_runbook_page_is_only_for_its_readers(site: Site) -> None:
    path = f"/runbooks/{BREAK_GLASS_ID}"
    with site.client() as alice:
        site.sign_in(alice, ALICE)
        refused = alice.get(path)
        assert refused.status_code == 404
        assert "break-glass" not in refused.text.lower()
        assert alice.get("/runbooks/runbooks:no/such-runbook").status_code == 404
    with site.client() as sam:
        site.sign_in(sam, SAM)
        shown = sam.get(path)
        assert shown.status_code == 200, shown.text[:300]
        assert "SRE: break-glass access to production databases" in shown.text
        assert 'id="procedure"' in shown.text
    with site.client() as nobody:  # not signed in: to Slack first, never the page
        assert nobody.get(path).status_code == 303
