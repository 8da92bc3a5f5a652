"""The "Open in browser" link of an answer: the same question, redacted, fitting Slack; and
the runbook pages that link what has no source link."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.web import web_answer_url
from bot.web.links import MAX_LINK_CHARS, with_page_links
from core.models import Answer, Citation, Precondition

BASE = "https://runbooks.example.org"


def question_of(url: str) -> str:
    return parse_qs(urlsplit(url).query)["q"][0]


def test_the_link_asks_the_same_question_on_the_ask_page() -> None:
    url = web_answer_url(BASE + "/", "checkout-api  database\nconnection refused")
    assert url == BASE + "/ask?q=checkout-api%20database%20connection%20refused"
    assert question_of(url) == "checkout-api database connection refused"


def test_no_base_or_no_question_gives_no_link() -> None:
    assert web_answer_url(None, "disk full") is None
    assert web_answer_url("  ", "disk full") is None
    assert web_answer_url(BASE, "   ") is None


def test_secrets_never_travel_in_the_link() -> None:
    token = "xoxb-" + "1234567890-1234567890123-" + "a" * 24
    url = web_answer_url(BASE, f"why does {token} fail with password=hunter2hunter2")
    assert url is not None
    assert token not in url and "hunter2hunter2" not in url
    assert question_of(url).startswith("why does ")


def test_characters_that_mean_something_in_a_url_are_encoded() -> None:
    url = web_answer_url(BASE, "a&b=c #fragment /path?x")
    assert url is not None
    assert question_of(url) == "a&b=c #fragment /path?x"
    assert "#" not in url


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=2_500))
def test_the_link_always_fits_a_slack_button(question: str) -> None:
    url = web_answer_url(BASE, question)
    if url is None:
        assert not any(ch.isalnum() for ch in question)  # no word: nothing to ask
        return
    assert len(url) <= MAX_LINK_CHARS
    assert url.startswith(BASE + "/ask?q=")


def test_a_precondition_without_a_source_link_links_to_its_section_on_the_runbook_page() -> None:
    before = Precondition(
        heading="Prerequisites",
        section="Restore from backup > Prerequisites",
        url=None,
        line=15,
    )
    cited = Citation(
        source_id="runbooks:orders/restore",
        title="Orders DB: restore",
        section="Restore from backup > Steps",
        path="orders/restore.md",
        url=None,
        revision="r1",
        start=0,
        end=10,
        line=20,
        quote="1. `pgbackrest restore`",
        owner=None,
        updated=None,
        age_days=None,
        before=before,
    )
    linked = with_page_links(Answer(state="answer", text="", citations=(cited,)), BASE)
    page = f"{BASE}/runbooks/runbooks:orders/restore"
    (shown,) = linked.citations
    assert shown.url == f"{page}#restore-from-backup-steps"
    assert shown.before == before.model_copy(
        update={"url": f"{page}#restore-from-backup-prerequisites"}
    )
    # a source link is kept as it is
    sourced = before.model_copy(update={"url": "https://git.example.com/x.md#L15"})
    kept = with_page_links(
        Answer(state="answer", text="", citations=(cited.model_copy(update={"before": sourced}),)),
        BASE,
    )
    assert kept.citations[0].before == sourced
