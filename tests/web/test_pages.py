"""The web pages over HTTP, in-process: sign-in edge cases, CSRF, redaction, scopes, reports.

A real BotServer (uvicorn) serves the pages with a real Runtime (embedded index, model,
redis-server); Slack is the fake with Sign in with Slack. ``httpx`` plays the browser and
follows no redirect on its own, so every hop is checked.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import httpx
import pytest

from bot.text import ALTERNATIVES, BEST_GUESS_ADVICE, BEST_GUESS_LABEL
from bot.web import web_answer_url
from retrieval.answer.answer_config import CALIBRATED_MODEL, AnswerConfig
from retrieval.search.embeddings import FastEmbedder
from state.querylog import build_feedback, build_record
from state.sign_in_states import RedisOAuthStateStore
from tests.conftest import RedisServer, free_port
from tests.fakes.slack_openid import FakeSlackOpenID
from tests.web.conftest import (
    ALICE,
    BREAK_GLASS,
    BREAK_GLASS_QUESTION,
    SAM,
    STALE_PATH,
    STALE_QUESTION,
    Site,
    site_settings,
    start_site,
)

SECRET_VALUE = "hunter2-Sup3rS3cret-value"
SECRET_QUESTION = f"disk full on node, db password={SECRET_VALUE}"


@pytest.fixture()
def custom_site(
    sample_data_dir: Path,
    redis_server: RedisServer,
    fake: FakeSlackOpenID,
    embedder: FastEmbedder,
) -> Iterator[object]:
    """``custom_site(**settings)``: a site with some settings changed (and, with
    ``answer_config``, its answer settings)."""
    started: list[Site] = []

    def make(
        *, today: date | None = None, answer_config: AnswerConfig | None = None, **extra: object
    ) -> Site:
        port = free_port()
        settings = site_settings(sample_data_dir, redis_server.url, fake, port, **extra)
        running = start_site(
            settings, fake, embedder, port, today=today, answer_config=answer_config
        )
        started.append(running)
        return running

    yield make
    for running in started:
        running.server.stop()
        running.runtime.close()


def location(response: httpx.Response) -> str:
    assert response.status_code == 303, (response.status_code, response.text[:500])
    return str(response.headers["location"])


# --------------------------------------------------------------------------- sign-in


def test_a_page_asks_for_sign_in_then_comes_back_to_the_question(site: Site) -> None:
    with site.client() as browser:
        first = browser.get("/ask", params={"q": STALE_QUESTION})
        login = location(first)
        assert login.startswith("/auth/slack/login?next=")
        next_path = parse_qs(urlsplit(login).query)["next"][0]
        assert next_path == "/ask?q=elasticsearch+cluster+red"
        assert site.sign_in(browser, ALICE, next_path) == next_path
        page = browser.get(next_path)
        assert page.status_code == 200
        assert STALE_PATH in page.text
        assert "Signed in as" in page.text and ALICE[1] in page.text


def test_sign_in_started_in_another_browser_is_refused(site: Site) -> None:
    site.fake.sign_in_as(*ALICE)
    with site.client() as victim, site.client() as attacker:
        start = location(attacker.get("/auth/slack/login"))
        consent = httpx.get(start, timeout=30).text
        allow = re.search(r'id="allow" href="([^"]+)"', consent)[1].replace("&amp;", "&")  # type: ignore[index]
        # the attacker's approved sign-in link, opened in the victim's browser
        refused = victim.get(allow.removeprefix(site.base))
        assert refused.status_code == 400
        assert "another browser" in refused.text
        assert location(victim.get("/ask?q=x")).startswith("/auth/slack/login")
        assert not site.fake.calls_to("openid.connect.token")


def test_a_state_is_accepted_once(site: Site) -> None:
    site.fake.sign_in_as(*ALICE)
    with site.client() as browser:
        start = location(browser.get("/auth/slack/login"))
        state = parse_qs(urlsplit(start).query)["state"][0]
        # consumed elsewhere first (another replica finishing the same sign-in)
        replica = RedisOAuthStateStore(site.runtime.redis, namespace="rbb")
        assert replica.consume(state) is True
        consent = httpx.get(start, timeout=30).text
        allow = re.search(r'id="allow" href="([^"]+)"', consent)[1].replace("&amp;", "&")  # type: ignore[index]
        again = browser.get(allow.removeprefix(site.base))
        assert again.status_code == 403
        assert "expired or was already used" in again.text


def test_a_person_of_another_workspace_is_refused(site: Site) -> None:
    with site.client() as browser:
        site.fake.sign_in_as("U0STRANGER", "Stranger", team_id="T0OTHER")
        start = location(browser.get("/auth/slack/login"))
        consent = httpx.get(start, timeout=30).text
        allow = re.search(r'id="allow" href="([^"]+)"', consent)[1].replace("&amp;", "&")  # type: ignore[index]
        refused = browser.get(allow.removeprefix(site.base))
        assert refused.status_code == 403
        assert "different Slack workspace" in refused.text
        assert location(browser.get("/search")).startswith("/auth/slack/login")


def test_cancelled_sign_in_says_so(site: Site) -> None:
    site.fake.sign_in_as(*ALICE)
    with site.client() as browser:
        start = location(browser.get("/auth/slack/login"))
        consent = httpx.get(start, timeout=30).text
        cancel = re.search(r'id="cancel" href="([^"]+)"', consent)[1].replace("&amp;", "&")  # type: ignore[index]
        page = browser.get(cancel.removeprefix(site.base))
        assert page.status_code == 400
        assert "cancelled" in page.text


@pytest.mark.parametrize(
    "target",
    [
        "//evil.example/x",
        "https://evil.example/",
        "/\\evil.example",
        "evil",
        "/ok\r\nSet-Cookie: x",
    ],
)
def test_sign_in_never_sends_the_browser_elsewhere(site: Site, target: str) -> None:
    with site.client() as browser:
        assert site.sign_in(browser, ALICE, target) == "/"


def test_a_tampered_session_cookie_signs_nobody_in(site: Site) -> None:
    with site.client() as browser:
        site.sign_in(browser, ALICE)
        cookie = browser.cookies["runbook_session"]
        payload, _, signature = cookie.partition(".")
        data = json.loads(base64.b64decode(payload))
        data["uid"] = SAM[0]
        forged = base64.b64encode(json.dumps(data).encode()).decode() + "." + signature
        browser.cookies.clear()
        browser.cookies.set("runbook_session", forged, domain="127.0.0.1")
        assert location(browser.get("/ask?q=disk")).startswith("/auth/slack/login")


def copied_cookie(site: Site, browser: httpx.Client) -> httpx.Client:
    """Another client holding a copy of ``browser``'s session cookie."""
    thief = site.client()
    thief.cookies.set("runbook_session", browser.cookies["runbook_session"], domain="127.0.0.1")
    return thief


def test_a_cookie_copied_before_sign_out_reads_nothing_after_it(site: Site) -> None:
    search = {"q": BREAK_GLASS_QUESTION}
    with site.client() as sam:
        site.sign_in(sam, SAM)
        assert BREAK_GLASS in sam.get("/search", params=search).text
        with copied_cookie(site, sam) as thief:
            assert BREAK_GLASS in thief.get("/search", params=search).text
            assert location(sam.post("/auth/logout", data={"csrf": site.csrf(sam)})) == "/"
            after = thief.get("/search", params=search)
            assert location(after).startswith("/auth/slack/login")
            assert BREAK_GLASS not in after.text
            assert "Signed in as" not in thief.get("/").text


def test_a_change_of_access_ends_the_sessions_it_changes(site: Site) -> None:
    search = {"q": BREAK_GLASS_QUESTION}
    with site.client() as sam, site.client() as alice:
        site.sign_in(sam, SAM)
        site.sign_in(alice, ALICE)
        with copied_cookie(site, sam) as copy:
            assert BREAK_GLASS in copy.get("/search", params=search).text
            # Sam leaves @sre-oncall; Slack says so (subteam_members_changed)
            site.fake.set_usergroups({"sre-oncall": ("S0SREONCALL", [])})
            site.pages._service.resolver.invalidate_usergroup("sre-oncall")
            assert location(copy.get("/search", params=search)).startswith("/auth/slack/login")
            assert location(sam.get("/search", params=search)).startswith("/auth/slack/login")
        assert alice.get("/search", params=search).status_code == 200  # hers did not change
        site.sign_in(sam, SAM)
        again = sam.get("/search", params=search)
        assert again.status_code == 200 and BREAK_GLASS not in again.text


def test_while_redis_is_down_a_session_reads_only_public_runbooks(
    site: Site, redis_server: RedisServer
) -> None:
    with site.client() as sam:
        site.sign_in(sam, SAM)
        assert BREAK_GLASS in sam.get("/search", params={"q": BREAK_GLASS_QUESTION}).text
        redis_server.stop()
        restricted = sam.get("/search", params={"q": BREAK_GLASS_QUESTION})
        assert restricted.status_code == 200
        assert BREAK_GLASS not in restricted.text
        public = sam.get("/search", params={"q": STALE_QUESTION})
        assert public.status_code == 200 and STALE_PATH in public.text


# --------------------------------------------------------------------------- forms


def test_forms_need_the_sessions_csrf_token(site: Site) -> None:
    with site.client() as browser:
        site.sign_in(browser, ALICE)
        form = {"q": "disk full"}
        assert browser.post("/ask", data=form).status_code == 403
        assert browser.post("/ask", data={**form, "csrf": "forged"}).status_code == 403
        with site.client() as other:
            site.sign_in(other, SAM)
            theirs = site.csrf(other)
        assert browser.post("/ask", data={**form, "csrf": theirs}).status_code == 403
        assert browser.post("/auth/logout", data={"csrf": theirs}).status_code == 403
        assert browser.get("/").text.count("Signed in as") == 1  # still signed in

        token = site.csrf(browser)
        assert location(browser.post("/ask", data={**form, "csrf": token})) == "/ask?q=disk+full"
        search = browser.post("/search", data={"q": "disk", "doc_type": "runbook", "csrf": token})
        assert location(search) == "/search?q=disk&doc_type=runbook"
        assert location(browser.post("/auth/logout", data={"csrf": token})) == "/"
        assert location(browser.get("/ask?q=disk")).startswith("/auth/slack/login")


def test_oversized_and_non_form_bodies_are_refused(site: Site) -> None:
    with site.client() as browser:
        site.sign_in(browser, ALICE)
        token = site.csrf(browser)
        big = browser.post("/ask", data={"q": "x" * 20_000, "csrf": token})
        assert big.status_code == 413
        wrong = browser.post("/ask", json={"q": "disk", "csrf": token})
        assert wrong.status_code == 415


def test_a_secret_in_a_question_never_reaches_an_address_or_the_log(site: Site) -> None:
    with site.client() as browser:
        # before sign-in: the page to come back to is redacted too
        login = location(browser.get("/ask", params={"q": SECRET_QUESTION}))
        assert SECRET_VALUE not in login
        assert parse_qs(urlsplit(login).query)["next"][0].startswith("/ask?q=disk+full+on+node")
        site.sign_in(browser, ALICE)
        token = site.csrf(browser)
        posted = location(browser.post("/ask", data={"q": SECRET_QUESTION, "csrf": token}))
        assert SECRET_VALUE not in posted
        assert posted.startswith("/ask?q=disk+full+on+node")
        # typed into the address bar: sent to the redacted address before any answer
        typed = location(browser.get("/ask", params={"q": SECRET_QUESTION}))
        assert typed == posted
        page = browser.get(posted)
        assert page.status_code == 200
        assert SECRET_VALUE not in page.text
    records = site.runtime.query_log.recent(1)
    assert records, "the question was not logged"
    assert all(SECRET_VALUE not in r.question for r in records)
    link = web_answer_url(site.base, SECRET_QUESTION)
    assert link is not None and SECRET_VALUE not in link


def test_a_question_without_words_goes_back_to_the_ask_page(site: Site) -> None:
    with site.client() as browser:
        site.sign_in(browser, ALICE)
        token = site.csrf(browser)
        for blank in ("?", " ... ", "!!"):
            assert location(browser.get("/ask", params={"q": blank})) == "/"
            assert location(browser.post("/ask", data={"q": blank, "csrf": token})) == "/"
        assert browser.get("/ask", params={"q": "disk full"}).status_code == 200
    asked = [r.question for r in site.runtime.query_log.recent(5)]
    assert asked == ["disk full"]  # nothing was answered for the blanks


# --------------------------------------------------------------------------- scopes


def test_search_and_answers_follow_the_slack_user_groups(site: Site) -> None:
    with site.client() as alice, site.client() as sam:
        site.sign_in(alice, ALICE)
        site.sign_in(sam, SAM)
        for browser, sees in ((alice, False), (sam, True)):
            answer = browser.get("/ask", params={"q": BREAK_GLASS_QUESTION})
            assert answer.status_code == 200
            assert (BREAK_GLASS in answer.text) is sees
            found = browser.get("/search", params={"q": "break glass production database"})
            assert found.status_code == 200
            assert (BREAK_GLASS in found.text) is sees
            services = browser.get("/search", params={"q": "vault", "service": "platform"})
            assert (BREAK_GLASS in services.text) is sees
    asked = [c.params["usergroup"] for c in site.fake.calls_to("usergroups.users.list")]
    assert asked == ["S0SREONCALL"]  # one directory look-up, then the membership cache


@pytest.mark.parametrize(
    ("path", "question"),
    [("/ask", "checkout api db conection refused"), ("/search", "pgbouncer conection pool")],
)
def test_answers_and_search_say_which_typos_they_read_as_which_words(
    site: Site, path: str, question: str
) -> None:
    with site.client() as alice:
        site.sign_in(alice, ALICE)
        page = alice.get(path, params={"q": question})
        assert page.status_code == 200
        _, said, rest = page.text.partition("Read “conection” as “connection”")
        assert said, "the correction is not said"
        assert "database-connection-failures.md" in rest
        plain = alice.get(path, params={"q": question.replace("conection", "connection")})
        assert "Read “" not in plain.text


def test_the_stale_report_lists_only_what_the_viewer_may_read(custom_site) -> None:  # type: ignore[no-untyped-def]
    # in half a year the restricted break-glass runbook (review every 90 days) is stale too
    site = custom_site(today=date(2027, 6, 1))
    with site.client() as alice, site.client() as sam:
        site.sign_in(alice, ALICE)
        site.sign_in(sam, SAM)
        seen_by_alice = alice.get("/reports/stale").text
        seen_by_sam = sam.get("/reports/stale").text
    assert STALE_PATH in seen_by_alice and STALE_PATH in seen_by_sam
    assert BREAK_GLASS in seen_by_sam
    assert BREAK_GLASS not in seen_by_alice


def test_the_gaps_report_shows_unanswered_questions_to_the_report_groups(custom_site) -> None:  # type: ignore[no-untyped-def]
    site = custom_site(web_report_groups=("sre",))
    unanswerable = "frobnicate the quantum llama zxqv"
    with site.client() as alice, site.client() as sam:
        site.sign_in(alice, ALICE)
        site.sign_in(sam, SAM)
        asked = alice.get("/ask", params={"q": unanswerable})
        assert "No runbook covers this" in asked.text
        refused = alice.get("/reports/gaps")
        assert refused.status_code == 403
        assert unanswerable not in refused.text
        report = sam.get("/reports/gaps", params={"days": "7"})
        assert report.status_code == 200
    assert unanswerable in report.text
    assert f'href="/ask?q={quote(unanswerable)}"' in report.text


def test_the_gaps_report_shows_rows_of_restricted_answers_only_to_their_readers(
    site: Site,
) -> None:
    restricted = next(
        c.source_id for c in site.runtime.searcher.snapshot().chunks if c.path == BREAK_GLASS
    )
    private = "who approves vault break glass for prod-db-7"
    public = "how do i rotate the grafana admin password"
    log = site.runtime.query_log
    # a private answer from the restricted runbook, marked not helpful in Slack
    log.record(
        build_record(
            request_id="r-private",
            user_hash="h1",
            channel="C1",
            scope_id="s",
            question=private,
            state="answer",
            cited=(restricted,),
            service="platform",
        )
    )
    log.record_feedback(
        build_feedback(
            request_id="r-private",
            user_hash="h1",
            value="not_helpful",
            question=private,
            service="platform",
            cited=(restricted,),
        )
    )
    # an abstention whose closest runbook was one only its asker's groups read
    log.record(
        build_record(
            request_id="r-closest",
            user_hash="h1",
            channel=None,
            scope_id="s",
            question="vault-internal seal keys",
            state="abstain",
            reason="low-confidence",
            service="vault-internal",
        )
    )
    log.record(
        build_record(
            request_id="r-public",
            user_hash="h2",
            channel=None,
            scope_id="s",
            question=public,
            state="abstain",
            reason="no-match",
            service="platform",
        )
    )
    with site.client() as alice, site.client() as sam:
        site.sign_in(alice, ALICE)
        site.sign_in(sam, SAM)
        seen_by_alice = alice.get("/reports/gaps").text
        seen_by_sam = sam.get("/reports/gaps").text
    assert public in seen_by_alice and public in seen_by_sam
    assert private in seen_by_sam
    assert private not in seen_by_alice
    assert "vault-internal" not in seen_by_alice


# --------------------------------------------------------------------------- the pages


def test_pages_send_security_headers_and_the_assets_load(site: Site) -> None:
    with site.client() as browser:
        site.sign_in(browser, ALICE)
        page = browser.get("/")
        assert page.status_code == 200
        csp = page.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp
        assert page.headers["x-frame-options"] == "DENY"
        assert page.headers["referrer-policy"] == "same-origin"
        assert page.headers["cache-control"] == "no-store"
        with site.client() as fresh:
            cookie = fresh.get("/auth/slack/login").headers.get("set-cookie", "")
        assert "httponly" in cookie.lower() and "samesite=lax" in cookie.lower()
        assert "secure" not in cookie.lower()  # http://127.0.0.1: a Secure cookie would vanish
        css = browser.get("/static/app.css")
        assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
        assert browser.get("/static/app.js").status_code == 200
        assert browser.get("/static/../pages.py").status_code == 404
        assert browser.get("/nope").status_code == 404
        assert browser.get("/healthz").status_code == 200


def test_https_public_address_makes_the_cookie_secure(custom_site) -> None:  # type: ignore[no-untyped-def]
    site = custom_site(
        public_url="https://runbooks.example.org",
        web_redirect_uri=None,
    )
    with site.client() as browser:
        start = browser.get("/auth/slack/login", headers={"Host": "runbooks.example.org"})
        assert "secure" in start.headers["set-cookie"].lower()
        redirect = parse_qs(urlsplit(location(start)).query)["redirect_uri"][0]
        assert redirect == "https://runbooks.example.org/auth/slack/callback"


def test_without_sign_in_settings_the_pages_show_no_runbook(custom_site) -> None:  # type: ignore[no-untyped-def]
    site = custom_site(slack_client_id=None, slack_client_secret=None)
    with site.client() as browser:
        for path in ("/", f"/ask?q={STALE_QUESTION}", "/search?q=disk", "/reports/stale"):
            page = browser.get(path)
            assert page.status_code == 503, path
            assert "not set up" in page.text
            assert STALE_PATH not in page.text
        assert browser.get("/auth/slack/login").status_code == 404


def test_local_mode_answers_without_sign_in_within_the_local_groups(custom_site) -> None:  # type: ignore[no-untyped-def]
    everyone = custom_site(web_local_mode=True)
    with everyone.client() as browser:
        page = browser.get("/ask", params={"q": BREAK_GLASS_QUESTION})
        assert page.status_code == 200 and "Local mode" in page.text
        assert BREAK_GLASS not in page.text
        assert browser.get("/auth/slack/login").status_code == 404
    everyone.server.stop()
    everyone.runtime.close()  # one process per embedded index
    sre = custom_site(web_local_mode=True, web_local_groups=("sre",))
    with sre.client() as browser:
        assert BREAK_GLASS in browser.get("/ask", params={"q": BREAK_GLASS_QUESTION}).text


def test_local_mode_answers_only_requests_for_a_loopback_name(custom_site) -> None:  # type: ignore[no-untyped-def]
    # a page of another site whose name now points at 127.0.0.1 (DNS rebinding) reads nothing
    site = custom_site(web_local_mode=True, web_local_groups=("sre",), public_url=None)
    port = site.server.port
    search = {"q": BREAK_GLASS_QUESTION}
    with site.client() as browser:
        for host in ("rebind.attacker.example", f"rebind.attacker.example:{port}", "127.0.0.2"):
            page = browser.get("/search", params=search, headers={"Host": host})
            assert page.status_code == 400, host
            assert BREAK_GLASS not in page.text
            assert browser.get("/reports/gaps", headers={"Host": host}).status_code == 400
        for host in ("localhost", f"localhost:{port}", "127.0.0.1", f"[::1]:{port}", "[::1]"):
            page = browser.get("/search", params=search, headers={"Host": host})
            assert page.status_code == 200, host
            assert BREAK_GLASS in page.text
        assert browser.get("/healthz", headers={"Host": "10.0.0.7:3000"}).status_code == 200


def test_signed_in_pages_answer_only_requests_for_the_public_address(custom_site) -> None:  # type: ignore[no-untyped-def]
    site = custom_site(public_url="https://runbooks.example.org", web_redirect_uri=None)
    with site.client() as browser:
        assert browser.get("/", headers={"Host": "runbooks.example.org"}).status_code == 200
        assert browser.get("/", headers={"Host": "RUNBOOKS.example.org:443"}).status_code == 200
        refused = browser.get("/auth/slack/login", headers={"Host": "rebind.attacker.example"})
        assert refused.status_code == 400
        assert "set-cookie" not in refused.headers


def test_an_answer_shows_each_runbook_once_and_a_section_in_pieces_under_one_heading(
    site: Site,
) -> None:
    question = "elasticsearch cluster red"
    cited = site.runtime.extractive.answer(question).citations
    sections = [c.section for c in cited]
    # the runbook's Diagnosis is a numbered list after a lead-in: quoted in two pieces
    assert len(set(sections)) < len(sections), sections
    assert len({c.source_id for c in cited}) == 1
    with site.client() as alice:
        site.sign_in(alice, ALICE)
        page = alice.get("/ask", params={"q": question})
    assert page.status_code == 200
    assert page.text.count('<article class="citation">') == len({c.source_id for c in cited})
    assert page.text.count('<ul class="meta"') == len({c.source_id for c in cited})
    assert page.text.count('<blockquote class="quote">') == len(cited)
    # the pieces follow each other: one source line under each section
    assert page.text.count('<p class="source">') == len(set(sections))
    # one heading per section: the lead's in the title line, each further one once
    headings = re.findall(r"<h4>(?:<a [^>]*>)?([^<]+)<", page.text)
    assert len(headings) == len(set(sections)) - 1
    assert sorted(headings) == sorted(set(sections) - {sections[0]})


def sure_at(bar: float) -> AnswerConfig:
    """Answer settings with the confidence model's "sure" bar at ``bar``."""
    return AnswerConfig(model=replace(CALIBRATED_MODEL, sure_at=bar))


def answer_pages(custom_site, question: str) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """The answer page of ``question`` with every answer a best guess, then with none
    (one site at a time: one process per embedded index)."""
    pages = []
    for bar in (1.0, 0.0):
        site = custom_site(web_local_mode=True, answer_config=sure_at(bar))
        with site.client() as browser:
            pages.append(browser.get("/ask", params={"q": question}).text)
        site.server.stop()
        site.runtime.close()
    return pages[0], pages[1]


def test_an_answer_below_the_sure_bar_is_labelled_a_best_guess_above_it(custom_site) -> None:  # type: ignore[no-untyped-def]
    page, sure = answer_pages(custom_site, "checkout-api database connection refused")
    label = (
        f'<p class="best-guess" role="note"><strong>{BEST_GUESS_LABEL}:</strong> '
        f"{BEST_GUESS_ADVICE}</p>"
    )
    assert page.count(label) == 1
    assert 'class="answer state-answer guess"' in page
    # above the answer, which is all there
    assert (
        page.index(label) < page.index('<article class="citation">') < page.index('class="quote"')
    )
    assert 'class="quote"' in sure
    assert "best-guess" not in sure and BEST_GUESS_LABEL not in sure


def test_a_best_guess_page_names_the_next_closest_runbooks_a_sure_one_none(custom_site) -> None:  # type: ignore[no-untyped-def]
    page, sure = answer_pages(custom_site, "disk full on node")
    named = re.search(r'<section class="alternatives"[^>]*>(.*?)</section>', page, re.S)
    assert named is not None
    assert f'<h3 id="alternatives-h">{ALTERNATIVES}</h3>' in named.group(1)
    assert "search/elasticsearch-cluster-red.md" in named.group(1)
    assert "platform/disk-full.md" not in named.group(1)  # quoted above, not named again
    assert page.index('class="quote"') < page.index('<section class="alternatives"')
    assert 'class="quote"' in sure
    assert "alternatives" not in sure and "elasticsearch-cluster-red" not in sure


def test_a_pasted_alert_leads_with_the_fix_on_the_answer_page(custom_site) -> None:  # type: ignore[no-untyped-def]
    # the rule Slack and the command line follow (tests/scenarios/test_same_lead_everywhere)
    pasted = (
        "[FIRING:1] CheckoutApiDbConnectionErrors (checkout-api prod critical) what does it mean"
    )
    site = custom_site(web_local_mode=True)
    with site.client() as browser:
        page = browser.get("/ask", params={"q": pasted}).text
    lead = re.search(r'<article class="citation">\s*<h3>(.*?)</h3>', page, re.S)
    assert lead is not None and "Mitigation &gt; Roll back a bad deploy" in lead.group(1)
