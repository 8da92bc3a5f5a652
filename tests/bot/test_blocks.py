from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from bot.blocks import (
    ACTION_FEEDBACK_HELPFUL,
    ACTION_FEEDBACK_NOT_HELPFUL,
    ACTION_OPEN_SEARCH,
    ACTION_POST_TO_CHANNEL,
    MAX_MESSAGE_CHARS,
    SEE_SOURCE,
    Message,
    escape,
    render_abstain,
    render_answer,
    render_error,
    render_private_restricted,
    render_searching,
    render_usage,
)
from retrieval.types import Answer, AnswerWarning, Citation, Suggestion
from tests.bot.block_checks import assert_valid_blocks, block_violations

TODAY = date(2026, 11, 29)
RID = "r-abc123"


def cite(n: int = 1, **overrides: Any) -> Citation:
    fields: dict[str, Any] = {
        "source_id": f"src-{n}",
        "title": f"Checkout DB failover {n}",
        "section": "Relieve an exhausted pgbouncer pool",
        "path": f"checkout-api/db-{n}.md",
        "url": f"https://git.example.com/runbooks/blob/0123456789abcdef/checkout-api/db-{n}.md#L{n}",
        "revision": "0123456789abcdef",
        "start": 0,
        "end": 40,
        "line": 12,
        "quote": "Run SHOW POOLS;\nKill idle clients.",
        "owner": "@checkout-oncall",
        "updated": date(2026, 11, 17),
        "age_days": 12,
    }
    fields.update(overrides)
    return Citation(**fields)


def answer(**overrides: Any) -> Answer:
    fields: dict[str, Any] = {
        "state": "answer",
        "text": "Relieve the pgbouncer pool, then restart the consumers.",
        "question": "checkout-api database connection refused",
        "citations": (cite(),),
    }
    fields.update(overrides)
    return Answer(**fields)


def render(a: Answer, **kwargs: Any) -> Message:
    message = render_answer(a, request_id=RID, today=TODAY, **kwargs)
    assert_valid_blocks(message)
    return message


def mrkdwn_texts(message: Message) -> list[str]:
    """Every text string in the blocks, in order."""
    out: list[str] = []
    for block in message.blocks:
        if isinstance(block.get("text"), dict):
            out.append(block["text"]["text"])
        for element in block.get("elements", []):
            if "text" in element and isinstance(element["text"], str):
                out.append(element["text"])
            elif isinstance(element.get("text"), dict):
                out.append(element["text"]["text"])
    return out


def all_text(message: Message) -> str:
    return "\n".join(mrkdwn_texts(message))


def index_of(message: Message, needle: str) -> int:
    for i, block in enumerate(message.blocks):
        if needle in json.dumps(block, ensure_ascii=False):
            return i
    raise AssertionError(f"{needle!r} not in any block")


def actions(message: Message) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for block in message.blocks:
        if block["type"] == "actions":
            for element in block["elements"]:
                found[element["action_id"]] = element
    return found


def quote_sections(message: Message) -> list[str]:
    return [
        b["text"]["text"]
        for b in message.blocks
        if b["type"] == "section" and ":page_facing_up:" in b["text"]["text"]
    ]


# --------------------------------------------------------------------------- escape


def test_escape_only_the_three_control_characters() -> None:
    assert escape("a & b < c > d") == "a &amp; b &lt; c &gt; d"
    assert escape("&amp;") == "&amp;amp;"
    assert escape("*bold* _it_ `code` \"q\" 'q' @here #chan") == (
        "*bold* _it_ `code` \"q\" 'q' @here #chan"
    )


# --------------------------------------------------------------------------- answer structure


def test_answer_structure_and_fallback_text() -> None:
    message = render(answer())
    types = [b["type"] for b in message.blocks]
    assert types == ["section", "section", "context", "context", "actions"]
    assert message.text.strip()
    assert "Relieve the pgbouncer pool" in message.text
    assert "Checkout DB failover 1" in message.text
    # every mrkdwn object is verbatim: Slack must not auto-parse runbook text
    for block in message.blocks:
        text = block.get("text")
        if isinstance(text, dict) and text["type"] == "mrkdwn":
            assert text["verbatim"] is True


def test_citation_quote_link_and_context() -> None:
    message = render(answer())
    (section,) = quote_sections(message)
    assert section.startswith("> Run SHOW POOLS;\n> Kill idle clients.\n")
    assert (
        "<https://git.example.com/runbooks/blob/0123456789abcdef/checkout-api/db-1.md#L1"
        "|Checkout DB failover 1 - Relieve an exhausted pgbouncer pool>"
    ) in section
    context = message.blocks[index_of(message, "updated 12 days ago")]
    texts = [e["text"] for e in context["elements"]]
    assert texts == ["owner @checkout-oncall", "updated 12 days ago", "runbook", "rev `01234567`"]


def test_context_shows_none_owner_doc_type_status_and_computes_age_from_today() -> None:
    c = cite(
        owner=None, age_days=None, updated=date(2026, 11, 28), doc_type="adr", status="superseded"
    )
    message = render(answer(citations=(c,)))
    context = message.blocks[index_of(message, "owner none")]
    texts = [e["text"] for e in context["elements"]]
    assert texts[:3] == ["owner none", "updated 1 day ago", "adr"]
    assert "*superseded*" in texts


def test_citation_without_url_shows_the_path() -> None:
    message = render(answer(citations=(cite(url=None),)))
    (section,) = quote_sections(message)
    assert "checkout-api/db-1.md:12" in section
    assert "<http" not in section


def test_non_web_url_is_not_linked() -> None:
    message = render(answer(citations=(cite(url="javascript:alert(1)"),)))
    (section,) = quote_sections(message)
    assert "javascript" not in section
    assert "checkout-api/db-1.md:12" in section


def test_empty_answer_text_still_has_fallback() -> None:
    message = render(answer(text=""))
    assert message.text.strip()
    assert "Checkout DB failover 1" in message.text


def test_citation_order_is_kept() -> None:
    message = render(answer(citations=(cite(1), cite(2), cite(3))))
    sections = quote_sections(message)
    assert [s.count("Checkout DB failover 2") for s in sections] == [0, 1, 0]


# --------------------------------------------------------------------------- warnings


def test_warnings_come_first_and_are_bold_with_warning_emoji() -> None:
    a = answer(
        warnings=(
            AnswerWarning(kind="ownerless", message="No owner on record", source_id="src-1"),
            AnswerWarning(kind="unverified-llm-fallback", message="Generated answer, not verified"),
        )
    )
    message = render(a)
    first = message.blocks[0]["text"]["text"]
    assert first.splitlines() == [
        ":warning: *No owner on record*",
        ":warning: *Generated answer, not verified*",
    ]
    assert index_of(message, "No owner on record") < index_of(message, "Relieve the pgbouncer")
    assert index_of(message, "Relieve the pgbouncer") < index_of(message, "SHOW POOLS")
    assert "No owner on record" in message.text


def test_stale_warning_shows_age_and_owner() -> None:
    c = cite(owner="@search-team", age_days=545, updated=date(2025, 6, 2))
    a = answer(
        citations=(c,),
        warnings=(AnswerWarning(kind="stale", message="Runbook is stale", source_id="src-1"),),
    )
    message = render(a)
    warning = message.blocks[0]["text"]["text"]
    assert ":warning:" in warning
    assert "545 days ago" in warning
    assert "@search-team" in warning


def test_stale_warning_with_empty_message_uses_the_standard_wording() -> None:
    c = cite(owner="@search-team", age_days=545)
    a = answer(citations=(c,), warnings=(AnswerWarning(kind="stale", message=""),))
    warning = render(a).blocks[0]["text"]["text"]
    assert warning == (
        ":warning: *Last updated 545 days ago (owner @search-team) - verify before acting*"
    )


def test_stale_warning_already_complete_is_not_repeated() -> None:
    message_text = "Last updated 545 days ago (owner @search-team) - verify before acting"
    c = cite(owner="@search-team", age_days=545)
    a = answer(
        citations=(c,),
        warnings=(AnswerWarning(kind="stale", message=message_text, source_id="src-1"),),
    )
    assert render(a).blocks[0]["text"]["text"] == f":warning: *{message_text}*"


def test_stale_warning_age_is_matched_as_a_whole_number() -> None:
    c = cite(owner="@search-team", age_days=5)
    w = AnswerWarning(kind="stale", message="Review was due 15 days ago (owner @search-team)")
    warning = render(answer(citations=(c,), warnings=(w,))).blocks[0]["text"]["text"]
    assert "last updated 5 days ago" in warning


def test_stale_warning_names_the_runbook_when_several_are_cited() -> None:
    old = cite(2, owner=None, age_days=700)
    a = answer(
        citations=(cite(1), old),
        warnings=(AnswerWarning(kind="stale", message="Verify before acting", source_id="src-2"),),
    )
    warning = render(a).blocks[0]["text"]["text"]
    assert "Checkout DB failover 2" in warning
    assert "700 days" in warning
    assert "owner none" in warning


def test_superseded_warning_names_the_replacement() -> None:
    c = cite(status="superseded", doc_type="adr", title="ADR-0007: Sessions in Memcached")
    w = AnswerWarning(
        kind="superseded",
        message="Superseded by ADR-0012: Sessions in Redis (adr/0012-session-store-redis.md)",
        source_id="src-1",
    )
    message = render(answer(citations=(c,), warnings=(w,)))
    warning = message.blocks[0]["text"]["text"]
    assert "ADR-0012: Sessions in Redis" in warning
    assert "adr/0012-session-store-redis.md" in warning
    assert index_of(message, "Superseded by") == 0


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("ownerless", "No owner on record"),
        ("restricted-omitted", "Restricted runbooks omitted from this channel"),
        ("deprecated", "deprecated"),
        ("scope-incomplete", "incomplete"),
        ("unverified-llm-fallback", "not verified"),
    ],
)
def test_warnings_with_empty_messages_get_plain_defaults(kind: str, expected: str) -> None:
    a = answer(warnings=(AnswerWarning(kind=kind, message=""),))
    warning = render(a).blocks[0]["text"]["text"]
    assert warning.startswith(":warning: *")
    assert expected in warning


def test_restricted_omitted_message_and_private_note() -> None:
    w = AnswerWarning(
        kind="restricted-omitted", message="1 restricted runbook omitted from this channel"
    )
    message = render(
        answer(warnings=(w,)), private_note="1 restricted runbook sent to you privately"
    )
    assert message.blocks[0]["text"]["text"] == (
        ":warning: *1 restricted runbook omitted from this channel*"
    )
    note = message.blocks[1]
    assert note["type"] == "context"
    assert "1 restricted runbook sent to you privately" in note["elements"][0]["text"]
    assert index_of(message, "sent to you privately") < index_of(message, "Relieve the pgbouncer")


def test_duplicate_warnings_are_shown_once() -> None:
    w = AnswerWarning(kind="ownerless", message="No owner on record")
    message = render(answer(warnings=(w, w)))
    assert message.blocks[0]["text"]["text"].count("No owner on record") == 1


def test_asterisks_in_warning_cannot_break_the_bold() -> None:
    w = AnswerWarning(kind="scope-incomplete", message="search *partial* <!here>")
    text = render(answer(warnings=(w,))).blocks[0]["text"]["text"]
    assert text.startswith(":warning: *") and text.endswith("*")
    assert text.count("*") == 2
    assert "&lt;!here&gt;" in text


# --------------------------------------------------------------------------- escaping


def test_untrusted_text_is_escaped_everywhere() -> None:
    c = cite(
        title="R&D <runbook>",
        section="Step <1> & 2",
        owner="@ops <team>",
        quote="if a < b && c > d then <!channel> and <@U12345> and <!everyone>\n<!here> now",
    )
    a = answer(
        text="Use a & b <!here>",
        question="why <!channel> & stuff",
        citations=(c,),
    )
    message = render(a)
    blob = all_text(message)
    for raw in ("<!channel>", "<!here>", "<!everyone>", "<@U12345>", "<runbook>", "<team>"):
        assert raw not in blob
        assert raw not in message.text
    (section,) = quote_sections(message)
    assert "> if a &lt; b &amp;&amp; c &gt; d then &lt;!channel&gt; and &lt;@U12345&gt;" in section
    assert "> &lt;!here&gt; now" in section
    assert "|R&amp;D &lt;runbook&gt; - Step &lt;1&gt; &amp; 2>" in section
    assert "owner @ops &lt;team&gt;" in blob
    assert "Use a &amp; b &lt;!here&gt;" in blob
    assert "why &lt;!channel&gt; &amp; stuff" in blob
    assert "Use a &amp; b &lt;!here&gt;" in message.text


def test_urls_in_constructed_links_escape_ampersand_and_pipe() -> None:
    url = "https://git.example.com/blob?ref=abc&path=a|b.md"
    message = render(answer(citations=(cite(url=url),)))
    (section,) = quote_sections(message)
    assert "<https://git.example.com/blob?ref=abc&amp;path=a%7Cb.md|Checkout DB failover 1" in (
        section
    )


def test_block_checker_flags_unescaped_mentions() -> None:
    bad = Message(
        text="x", blocks=[{"type": "section", "text": {"type": "mrkdwn", "text": "hi <!channel>"}}]
    )
    assert any("special mention" in p for p in block_violations(bad))


# --------------------------------------------------------------------------- code and truncation


def test_fenced_code_quote_keeps_the_fence_and_drops_the_language_tag() -> None:
    quote = "Relieve the pool:\n\n```console\npsql -c 'SHOW POOLS;' <db>\n```\nThen wait."
    message = render(answer(citations=(cite(quote=quote),)))
    (section,) = quote_sections(message)
    assert section.startswith("Relieve the pool:\n\n```\npsql -c 'SHOW POOLS;' &lt;db&gt;\n```\n")
    assert "> " not in section.split(":page_facing_up:")[0]
    assert section.count("```") == 2


def test_quote_with_unbalanced_fence_is_closed() -> None:
    message = render(answer(citations=(cite(quote="```bash\nkubectl get pods"),)))
    (section,) = quote_sections(message)
    assert section.count("```") % 2 == 0
    assert "kubectl get pods\n```" in section


def test_long_code_quote_is_truncated_with_balanced_fences() -> None:
    code = "\n".join(
        f"kubectl -n checkout rollout restart deploy/api-{i:04d} && sleep 1" for i in range(200)
    )
    quote = "Restart everything:\n```bash\n" + code + "\n```\nDone."
    assert len(quote) > 10_000
    message = render(answer(citations=(cite(quote=quote),)))
    (section,) = quote_sections(message)
    assert len(section) <= 3000
    assert SEE_SOURCE in section
    before_source = section.split(SEE_SOURCE)[0]
    assert before_source.count("```") % 2 == 0
    assert before_source.rstrip().endswith("```")
    # cut at a line boundary: the last code line is complete
    last_code_line = before_source.rstrip().removesuffix("```").rstrip().splitlines()[-1]
    assert last_code_line.endswith("&amp;&amp; sleep 1")
    assert "Done." not in section
    assert section.rstrip().endswith(">")  # the source link still follows


def test_long_quote_without_newlines_is_cut_without_breaking_entities() -> None:
    quote = "a&b<c>" * 2000
    message = render(answer(citations=(cite(quote=quote),)))
    (section,) = quote_sections(message)
    assert len(section) <= 3000
    body = section.split("\n" + SEE_SOURCE)[0]
    assert body.endswith((";", "a", "b", "c"))
    assert "&am\n" not in section and "&l\n" not in section


def test_long_answer_text_is_truncated() -> None:
    message = render(answer(text="word " * 2000))
    assert all(len(t) <= 3000 for t in mrkdwn_texts(message))
    assert len(message.text) <= 3000


# --------------------------------------------------------------------------- limits


def test_eighty_citations_fit_in_fifty_blocks_with_a_more_note() -> None:
    citations = tuple(cite(i, quote=f"step {i}") for i in range(80))
    message = render(answer(citations=citations))
    assert len(message.blocks) <= 50
    shown = len(quote_sections(message))
    assert shown > 10
    more = message.blocks[index_of(message, "more sources")]
    assert more["type"] == "context"
    assert more["elements"][0]["text"] == f"…and {80 - shown} more sources"
    assert message.blocks[-1]["type"] == "actions"


def test_many_long_quotes_stay_within_the_message_text_budget() -> None:
    citations = tuple(cite(i, quote="x" * 2500 + f"\nline {i}") for i in range(30))
    message = render(answer(citations=citations, text="answer " * 300))
    total = sum(len(t) for t in mrkdwn_texts(message))
    assert total <= MAX_MESSAGE_CHARS
    shown = len(quote_sections(message))
    assert 1 <= shown < 30
    assert f"…and {30 - shown} more sources" in all_text(message)


def test_one_extra_citation_gets_singular_note() -> None:
    citations = tuple(cite(i, quote="x" * 2800) for i in range(5))
    message = render(answer(citations=citations))
    hidden = 5 - len(quote_sections(message))
    assert hidden >= 1
    noun = "source" if hidden == 1 else "sources"
    assert f"…and {hidden} more {noun}" in all_text(message)


def test_huge_titles_and_owners_stay_within_limits() -> None:
    c = cite(title="T" * 5000, section="S" * 5000, owner="@" + "o" * 5000, revision="r" * 100)
    w = AnswerWarning(kind="ownerless", message="m" * 5000)
    message = render(
        answer(citations=(c,), warnings=(w,), question="q" * 5000, related=(c,) * 20),
        incident=True,
        offer_post=True,
    )
    assert len(message.text) <= 3000


# --------------------------------------------------------------------------- actions


def test_feedback_buttons_carry_the_request_id() -> None:
    found = actions(render(answer()))
    assert set(found) == {ACTION_FEEDBACK_HELPFUL, ACTION_FEEDBACK_NOT_HELPFUL}
    assert found[ACTION_FEEDBACK_HELPFUL]["value"] == RID
    assert found[ACTION_FEEDBACK_NOT_HELPFUL]["value"] == RID


def test_offer_post_toggles_the_post_to_channel_button() -> None:
    assert ACTION_POST_TO_CHANNEL not in actions(render(answer()))
    button = actions(render(answer(), offer_post=True))[ACTION_POST_TO_CHANNEL]
    assert button["value"] == RID
    assert button["text"]["text"] == "Post to channel"


def test_footer_names_question_and_request_id() -> None:
    message = render(answer())
    footer = message.blocks[-2]
    assert footer["type"] == "context"
    texts = " ".join(e["text"] for e in footer["elements"])
    assert "checkout-api database connection refused" in texts
    assert RID in texts


# --------------------------------------------------------------------------- incident mode


def test_incident_mode_names_the_runbook_first_and_lists_related_incidents() -> None:
    related = (
        cite(
            10,
            title="2026-03-02 checkout outage",
            doc_type="incident",
            url="https://git.example.com/incidents/2026-03-02.md",
            age_days=272,
        ),
        cite(11, title="2025-12-01 pgbouncer saturation", url=None, age_days=363),
    )
    w = AnswerWarning(kind="ownerless", message="No owner on record")
    message = render(answer(related=related, warnings=(w,)), incident=True)
    first = message.blocks[0]["text"]["text"]
    assert first == (
        "*Runbook:* <https://git.example.com/runbooks/blob/0123456789abcdef/checkout-api/"
        "db-1.md#L1|Checkout DB failover 1>"
    )
    assert index_of(message, "No owner on record") == 1
    related_index = index_of(message, "Related incidents")
    assert related_index > max(index_of(message, "SHOW POOLS"), index_of(message, "rev `"))
    related_text = message.blocks[related_index]["text"]["text"]
    assert "<https://git.example.com/incidents/2026-03-02.md|2026-03-02 checkout outage>" in (
        related_text
    )
    assert "272 days ago" in related_text
    assert "2025-12-01 pgbouncer saturation" in related_text
    assert message.text.startswith("Runbook: Checkout DB failover 1")


def test_related_incidents_only_in_incident_mode() -> None:
    a = answer(related=(cite(10, title="2026-03-02 checkout outage"),))
    assert "Related incidents" not in all_text(render(a))


# --------------------------------------------------------------------------- abstention


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("no-match", "Nothing in the indexed runbooks matches"),
        ("low-confidence", "closely enough"),
        ("access-denied", "restricted"),
        ("only-superseded-sources", "superseded or deprecated"),
        ("error", "search failed"),
        (None, "Nothing in the indexed runbooks matches"),
    ],
)
def test_abstain_reasons_in_plain_words(reason: str | None, words: str) -> None:
    a = Answer(state="abstain", text="", reason=reason)
    message = render(a)
    assert message.blocks[0] == {
        "type": "header",
        "text": {"type": "plain_text", "text": "No runbook covers this", "emoji": True},
    }
    assert words in all_text(message)
    assert message.text.startswith("No runbook covers this")


def suggestion(**over: object) -> Suggestion:
    fields: dict[str, object] = dict(
        source_id="ledger/ops",
        title="Ledger operations",
        section="Scaling",
        path="ledger/ops.md",
        url="https://git.example/ledger/ops.md#L40",
        line=40,
        owner="@ledger-oncall",
    )
    fields.update(over)
    return Suggestion.model_validate(fields)


def test_not_sure_names_the_closest_runbooks_with_links_and_owners() -> None:
    link = "https://runbooks.example.com/search?q=checkout&service=checkout-api"
    a = Answer(
        state="unsure",
        text="",
        question="how do I reshard the ledger",
        reason="low-confidence",
        search_link=link,
        suggestions=(suggestion(),),
    )
    message = render(a)
    blob = all_text(message)
    assert message.blocks[0]["text"]["text"] == "Not sure these answer it"
    assert "<https://git.example/ledger/ops.md#L40|Ledger operations - Scaling>" in blob
    assert "owner @ledger-oncall" in blob
    assert "Closest: Ledger operations" in message.text
    assert "Closest service owner" not in blob
    assert "<https://runbooks.example.com/search?q=checkout&amp;service=checkout-api|" in blob
    button = actions(message)[ACTION_OPEN_SEARCH]
    assert button["url"] == link
    assert button["value"] == RID
    assert ACTION_FEEDBACK_HELPFUL in actions(message)
    assert "how do I reshard the ledger" in blob


def test_abstain_via_render_answer_and_render_abstain_agree() -> None:
    a = Answer(state="abstain", text="", reason="no-match")
    via_answer = render_answer(a, request_id=RID, today=TODAY)
    direct = render_abstain(a, request_id=RID, today=TODAY)
    assert via_answer == direct


def test_abstain_without_link_or_owner_and_with_warning() -> None:
    a = Answer(
        state="abstain",
        text="",
        reason="access-denied",
        warnings=(
            AnswerWarning(kind="restricted-omitted", message="2 restricted runbooks omitted"),
        ),
    )
    message = render(a, offer_post=True)
    assert ACTION_OPEN_SEARCH not in actions(message)
    assert "Closest service owner" not in all_text(message)
    assert index_of(message, "2 restricted runbooks omitted") == 1


def test_abstain_escapes_owner_and_ignores_non_web_search_link() -> None:
    a = Answer(
        state="abstain",
        text="",
        reason="low-confidence",
        search_link="javascript:alert(1)",
        suggestions=(suggestion(title="X <!here>", url="javascript:alert(2)", owner="<!channel>"),),
    )
    message = render(a)
    assert ACTION_OPEN_SEARCH not in actions(message)
    assert "javascript" not in json.dumps(message.blocks)
    assert "&lt;!channel&gt;" in all_text(message) and "&lt;!here&gt;" in all_text(message)


# --------------------------------------------------------------------------- small messages


def test_render_searching() -> None:
    message = render_searching("db <!here> down & out")
    assert_valid_blocks(message)
    assert message.text == "Searching runbooks for “db &lt;!here&gt; down &amp; out”…"
    assert message.blocks[0]["type"] == "context"
    assert_valid_blocks(render_searching(""))
    assert_valid_blocks(render_searching("x" * 10_000))


def test_render_usage() -> None:
    message = render_usage()
    assert_valid_blocks(message)
    blob = all_text(message)
    assert "/runbook checkout-api database connection refused" in blob
    assert "/runbook help" in blob
    assert "[service] question" in message.text


def test_render_error_names_the_request_id() -> None:
    message = render_error("r-abc123")
    assert_valid_blocks(message)
    assert message.text == (
        "Something went wrong (request r-abc123). The on-call team can find it in the logs."
    )
    assert "r-abc123" in all_text(message)
    assert len(message.blocks) == 1


def test_render_error_with_detail_is_escaped() -> None:
    message = render_error("r-1", detail="qdrant <timeout> & " + "x" * 5000)
    assert_valid_blocks(message)
    assert "qdrant &lt;timeout&gt; &amp;" in all_text(message)


def test_render_private_restricted() -> None:
    restricted = (
        cite(1, access=("payments-oncall",), quote="Rotate the key: <!here>"),
        cite(2, access=("payments-oncall",)),
    )
    message = render_private_restricted(restricted, RID, TODAY)
    assert_valid_blocks(message)
    assert "2 restricted runbooks sent to you privately" in message.text
    assert "Checkout DB failover 1" in message.text
    blob = all_text(message)
    assert "2 restricted runbooks sent to you privately" in blob
    assert "&lt;!here&gt;" in blob
    assert len(quote_sections(message)) == 2
    assert RID in blob

    single = render_private_restricted(restricted[:1], RID, TODAY)
    assert "1 restricted runbook sent to you privately" in single.text
    assert_valid_blocks(render_private_restricted((), RID, TODAY))


def test_render_private_restricted_respects_limits() -> None:
    message = render_private_restricted([cite(i, quote="y" * 3000) for i in range(60)], RID, TODAY)
    assert_valid_blocks(message)
    assert "more restricted sources" in all_text(message)


# --------------------------------------------------------------------------- every message


def _all_messages() -> list[Message]:
    long = "\n".join(["```sh", *(f"echo {i} <&>" for i in range(2000)), "```"])
    big = tuple(cite(i, quote=long, owner=None, url=None) for i in range(80))
    warnings = tuple(
        AnswerWarning(kind=k, message=f"{k} " * 200, source_id=f"src-{i}")
        for i, k in enumerate(
            [
                "stale",
                "superseded",
                "deprecated",
                "ownerless",
                "restricted-omitted",
                "unverified-llm-fallback",
                "scope-incomplete",
            ]
        )
    )
    full = answer(citations=big, warnings=warnings, related=big[:15], text=long)
    return [
        render_answer(
            full,
            request_id=RID,
            today=TODAY,
            incident=True,
            offer_post=True,
            private_note="n" * 4000,
        ),
        render_answer(full, request_id=RID, today=TODAY),
        render_answer(answer(citations=()), request_id=RID, today=TODAY, incident=True),
        render_answer(
            Answer(
                state="abstain",
                text=long,
                reason="error",
                warnings=warnings,
                search_link="https://x.example/?q=" + "a" * 4000,
                closest_owner="o" * 500,
                related=big[:3],
            ),
            request_id="r" * 500,
            today=TODAY,
            incident=True,
            offer_post=True,
        ),
        render_private_restricted(big, RID, TODAY),
        render_searching(long),
        render_usage(),
        render_error("r" * 300, long),
    ]


@pytest.mark.parametrize("index", range(8))
def test_every_message_respects_slack_limits(index: int) -> None:
    message = _all_messages()[index]
    assert_valid_blocks(message)
    for block in message.blocks:
        if block["type"] == "section":
            assert len(block["text"]["text"]) <= 3000
        if block["type"] == "context":
            assert len(block["elements"]) <= 10
    assert 0 < len(message.text) <= 3000
