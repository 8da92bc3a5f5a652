"""The web pages in a real browser: Debian's Chromium, driven by Playwright, against
``runbook-bot serve`` running as a subprocess with Sign in with Slack pointed at a fake
Slack (authorize page, ``openid.connect.token``, ``openid.connect.userInfo``, user groups).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from bot.text import ALTERNATIVES, BEST_GUESS
from retrieval.answer.answer_config import CALIBRATED_MODEL, AnswerConfig
from retrieval.search.embeddings import FastEmbedder
from tests.conftest import RedisServer, free_port
from tests.fakes.slack_openid import AUTHORIZE_METHOD, FakeSlackOpenID
from tests.preconditions_index import (
    FIRST_STEP,
    PREREQUISITES_LINE,
    RESTORE_PATH,
    RESTORE_QUESTION,
    ROTATE_QUESTION,
    PreconditionsIndex,
    preconditions_data_dir,  # noqa: F401
    preconditions_index,  # noqa: F401
)
from tests.web.conftest import (
    ALICE,
    BREAK_GLASS,
    BREAK_GLASS_QUESTION,
    CLIENT_ID,
    SAM,
    STALE_PATH,
    STALE_QUESTION,
    Served,
    Site,
    browser_sign_in,
    site_settings,
    start_site,
)


@pytest.fixture()
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context(viewport={"width": 1100, "height": 900})
    yield ctx
    ctx.close()


@pytest.fixture()
def page(context: BrowserContext) -> Page:
    return context.new_page()


def ask(page: Page, question: str) -> None:
    box = page.get_by_label("Ask the runbooks")
    box.fill(question)
    box.press("Enter")
    page.wait_for_url("**/ask?q=*")
    expect(page.locator("section.answer")).to_be_visible()


def test_sign_in_with_slack(page: Page, context: BrowserContext, served: Served) -> None:
    page.goto(served.base + "/")
    expect(page.get_by_label("Ask the runbooks")).to_have_count(0)  # nothing before sign-in

    served.fake.sign_in_as(*ALICE)
    page.get_by_role("link", name="Sign in with Slack").click()
    page.wait_for_url(served.fake.authorize_url + "**")
    expect(page.get_by_role("heading")).to_have_text(f"Sign in to Fake Slack as {ALICE[1]}")
    authorize = served.fake.calls_to(AUTHORIZE_METHOD)[-1].params
    assert authorize["client_id"] == CLIENT_ID
    assert authorize["redirect_uri"] == served.base + "/auth/slack/callback"
    assert "openid" in authorize["scope"].split(",")
    assert authorize["state"]

    allow = page.locator("#allow").get_attribute("href")
    assert allow is not None
    page.locator("#allow").click()
    page.wait_for_url(served.base + "/")
    expect(page.locator(".who")).to_contain_text(f"Signed in as {ALICE[1]}")
    expect(page.get_by_label("Ask the runbooks")).to_be_visible()

    token = served.fake.calls_to("openid.connect.token")[-1]
    assert token.params["code"] == parse_qs(urlsplit(allow).query)["code"][0]
    assert token.params["redirect_uri"] == served.base + "/auth/slack/callback"
    assert served.fake.calls_to("openid.connect.userInfo")
    (cookie,) = [c for c in context.cookies() if c["name"] == "runbook_session"]
    assert cookie["httpOnly"] is True
    assert cookie["sameSite"] == "Lax"

    # the same answer from Slack cannot be used twice
    page.goto(allow)
    expect(page.get_by_role("heading", level=1)).to_have_text("Not signed in")

    # signing out ends the session: the ask page sends the browser to Slack again
    page.goto(served.base + "/")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("link", name="Sign in with Slack")).to_be_visible()
    page.goto(served.base + "/ask?q=disk+full")
    page.wait_for_url(served.fake.authorize_url + "**")


def test_ask_shows_the_citation_link_and_the_stale_warning(page: Page, served: Served) -> None:
    browser_sign_in(page, served, ALICE)
    ask(page, STALE_QUESTION)

    answer = page.locator("section.answer")
    expect(answer).to_have_class("answer state-answer")
    warning = page.locator(".warnings .warning-stale")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("days")
    expect(warning).to_contain_text("@search-team")

    link = page.locator("article.citation h3 a").first
    href = link.get_attribute("href") or ""
    assert href.startswith("https://github.com/acme/runbooks/blob/")
    assert f"/{STALE_PATH}#L" in href
    meta = page.locator("article.citation .meta").first
    expect(meta).to_contain_text("owner @search-team")
    expect(meta).to_contain_text("days ago")
    expect(page.locator("article.citation .quote").first).not_to_be_empty()
    # the quoted steps read as a list, their commands as code blocks
    expect(page.locator("article.citation .quote ol > li").first).to_be_visible()
    expect(page.locator("article.citation .quote pre code").first).to_contain_text("curl -s")

    # the page's address asks the same question again: an "Open in browser" link
    page.goto(page.url)
    expect(page.locator("article.citation h3 a").first).to_have_attribute("href", href)


def test_a_user_outside_the_group_never_sees_the_restricted_runbook(
    browser: Browser, served: Served
) -> None:
    outsider = browser.new_context()
    insider = browser.new_context()
    try:
        alice = outsider.new_page()
        browser_sign_in(alice, served, ALICE)
        ask(alice, BREAK_GLASS_QUESTION)
        expect(alice.locator("section.answer")).not_to_have_class("answer state-answer")
        assert BREAK_GLASS not in alice.content()
        assert "break-glass" not in alice.content().lower()

        alice.goto(served.base + "/search?q=break+glass+production+database")
        expect(alice.locator("section.results")).to_be_visible()
        assert BREAK_GLASS not in alice.content()
        alice.goto(served.base + "/search?q=break+glass&service=platform")
        assert BREAK_GLASS not in alice.content()
        alice.goto(served.base + "/reports/stale")
        expect(alice.get_by_role("heading", level=1)).to_have_text("Stale and ownerless runbooks")
        assert BREAK_GLASS not in alice.content()

        # Sam is in @sre-oncall: the same question shows him the runbook, as in Slack
        sam = insider.new_page()
        browser_sign_in(sam, served, SAM)
        ask(sam, BREAK_GLASS_QUESTION)
        link = sam.locator("article.citation h3 a").first
        assert f"/{BREAK_GLASS}#L" in (link.get_attribute("href") or "")
        assert served.fake.calls_to("usergroups.users.list")
    finally:
        outsider.close()
        insider.close()


def test_keyboard_and_phone(browser: Browser, served: Served) -> None:
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page = phone.new_page()
        browser_sign_in(page, served, ALICE)
        ask(page, STALE_QUESTION)
        # nothing wider than the phone's screen: no sideways scrolling
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, overflow

        # every visible form field has a label
        unlabeled = page.evaluate(
            """[...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
               .filter(el => !el.labels || el.labels.length === 0).length"""
        )
        assert unlabeled == 0

        # "/" brings the keyboard back to the question box; Enter asks
        page.locator("section.answer .meta").first.click()
        page.keyboard.press("/")
        expect(page.get_by_label("Ask the runbooks")).to_be_focused()
        page.keyboard.type("disk full on a node")
        page.keyboard.press("Enter")
        page.wait_for_url("**/ask?q=disk+full+on+a+node")
        expect(page.locator("section.answer")).to_be_visible()

        # the skip link is the first stop of the Tab key and leads to the content
        page.keyboard.press("Tab")
        expect(page.locator("a.skip")).to_be_focused()
    finally:
        phone.close()


@pytest.fixture()
def guessing(
    sample_data_dir: Path, redis_server: RedisServer, fake: FakeSlackOpenID, embedder: FastEmbedder
) -> Iterator[Site]:
    """The pages in local mode (no sign-in) with every answer below the "sure" bar."""
    port = free_port()
    settings = site_settings(
        sample_data_dir, redis_server.url, fake, port, web_local_mode=True, public_url=None
    )
    config = AnswerConfig(model=replace(CALIBRATED_MODEL, sure_at=1.0))
    running = start_site(settings, fake, embedder, port, answer_config=config)
    yield running
    running.server.stop()
    running.runtime.close()


def test_a_best_guess_is_labelled_above_the_answer(page: Page, guessing: Site) -> None:
    page.goto(guessing.base + "/")
    ask(page, "checkout-api database connection refused")
    label = page.locator("section.answer .best-guess")
    expect(label).to_be_visible()
    expect(label).to_have_text(BEST_GUESS)
    expect(label).to_have_attribute("role", "note")
    lead = page.locator("article.citation h3").first  # the runbook and section that lead
    expect(lead).to_be_visible()
    above = label.bounding_box()
    below = lead.bounding_box()
    assert above is not None and below is not None
    assert above["y"] + above["height"] <= below["y"]
    expect(page.locator("article.citation .quote").first).not_to_be_empty()


def test_a_best_guess_names_the_next_closest_runbooks_below_its_quotes(
    page: Page, guessing: Site
) -> None:
    page.goto(guessing.base + "/")
    ask(page, "disk full on node")
    named = page.locator("section.alternatives")
    expect(named.locator("h3")).to_have_text(ALTERNATIVES)
    other = named.locator("li a").first
    expect(other).to_be_visible()
    expect(other).to_have_text("Search: Elasticsearch cluster status red")
    assert "search/elasticsearch-cluster-red.md" in str(other.get_attribute("href"))
    quotes = page.locator("article.citation").last.bounding_box()
    box = named.bounding_box()
    assert quotes is not None and box is not None
    assert quotes["y"] + quotes["height"] <= box["y"]  # below the quotes


@pytest.fixture()
def restores(
    preconditions_data_dir: Path,  # noqa: F811
    redis_server: RedisServer,
    fake: FakeSlackOpenID,
    embedder: FastEmbedder,
) -> Iterator[Site]:
    """The pages in local mode over runbooks whose procedures need something first."""
    port = free_port()
    settings = site_settings(
        preconditions_data_dir, redis_server.url, fake, port, web_local_mode=True, public_url=None
    )
    running = start_site(settings, fake, embedder, port)
    yield running
    running.server.stop()
    running.runtime.close()


def test_the_prerequisites_are_linked_above_the_steps(
    page: Page,
    restores: Site,
    preconditions_index: PreconditionsIndex,  # noqa: F811
) -> None:
    page.goto(restores.base + "/")
    ask(page, RESTORE_QUESTION)
    citation = page.locator("article.citation").first
    before = citation.locator(".before")
    expect(before).to_have_count(1)
    expect(before).to_have_text("Before you start: Prerequisites")
    link = before.get_by_role("link", name="Prerequisites")
    href = preconditions_index.link(RESTORE_PATH, PREREQUISITES_LINE)
    expect(link).to_have_attribute("href", href)
    steps = citation.locator(".quote ol > li").first  # the first step, a list item
    expect(steps).to_contain_text(FIRST_STEP.removeprefix("1. ").rstrip(":"))
    above, below = before.bounding_box(), steps.bounding_box()
    assert above is not None and below is not None
    assert above["y"] + above["height"] <= below["y"]  # read before the first step

    # another procedure's steps in a file whose first procedure has "Before you begin"
    ask(page, ROTATE_QUESTION)
    expect(page.locator("article.citation .quote").first).to_contain_text("ledgerctl keys rotate")
    expect(page.locator(".before")).to_have_count(0)
