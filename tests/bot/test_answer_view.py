"""bot.slack.answer_view, notices and the alert card: what an on-call engineer reads,
within Slack's limits."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from bot.slack import actions as ids
from bot.slack.alert_card import render_alert_card
from bot.slack.answer_view import CLOSEST_OTHER_SERVICE, contact_text, render_answer
from bot.slack.blockkit import MAX_MESSAGE_CHARS, Message, block_chars
from bot.slack.notices import (
    render_error,
    render_escalation,
    render_minimal,
    render_restricted_notice,
    render_searching,
    render_usage,
    restricted_private_note,
    withheld_note,
)
from bot.slack.presentation import Contact, DocFacts, Link, View
from bot.text import BEST_GUESS_ADVICE, BEST_GUESS_LABEL
from core.models import Answer, AnswerWarning, Citation, Precondition, Suggestion
from retrieval.answer.detail_note import unshown_detail_note
from tests.bot.block_checks import assert_valid_blocks, block_violations, markdown_leaks
from tests.bot.corpus_quotes import OVN_NODE, POD_FAILURE, section

TODAY = date(2026, 11, 29)
RID = "r-abc123"
URL = "https://git.example.com/runbooks/blob/0123456789abcdef/checkout-api/db.md"
STEPS = (
    "1. Find transactions open longer than 60 seconds:\n"
    "   ```bash\n"
    "   kubectl -n checkout-db exec -it checkout-db-0 -- psql -c 'SELECT 1;'\n"
    "   ```\n"
    "2. If pgbouncer itself is unhealthy, **restart it**:\n"
    "   ```bash\n"
    "   kubectl -n checkout rollout restart deploy/checkout-pgbouncer\n"
    "   ```\n"
    "\n"
    "> **WARNING:** never raise `default_pool_size` above 60."
)


def cite(n: int = 1, **overrides: Any) -> Citation:
    fields: dict[str, Any] = {
        "source_id": f"src-{n}",
        "title": f"Checkout DB connection failures {n}",
        "section": "Mitigation > Relieve an exhausted pgbouncer pool",
        "path": f"checkout-api/db-{n}.md",
        "url": f"{URL}#L{n}",
        "revision": "0123456789abcdef",
        "start": 0,
        "end": 40,
        "line": 12,
        "quote": STEPS,
        "owner": "@checkout-oncall",
        "updated": date(2026, 11, 17),
        "age_days": 12,
        "service": "checkout-api",
    }
    fields.update(overrides)
    return Citation(**fields)


def answer(**overrides: Any) -> Answer:
    fields: dict[str, Any] = {
        "state": "answer",
        "text": "From the runbook *Checkout DB*, section *Mitigation*:",
        "question": "checkout-api database connection refused",
        "citations": (cite(),),
    }
    fields.update(overrides)
    return Answer(**fields)


def render(a: Answer, **kwargs: Any) -> Message:
    message = render_answer(a, request_id=RID, today=TODAY, **kwargs)
    assert_valid_blocks(message)
    assert not markdown_leaks(message), markdown_leaks(message)
    return message


def texts(message: Message) -> list[str]:
    out: list[str] = []
    for block in message.blocks:
        if isinstance(block.get("text"), dict):
            out.append(block["text"]["text"])
        for element in block.get("elements", []):
            if isinstance(element.get("text"), dict):
                out.append(element["text"]["text"])
            elif isinstance(element.get("text"), str):
                out.append(element["text"])
    return out


def shown(message: Message) -> str:
    return "\n".join(texts(message))


def buttons(message: Message) -> dict[str, dict[str, Any]]:
    return {
        e["action_id"]: e for b in message.blocks if b["type"] == "actions" for e in b["elements"]
    }


def meta_lines(message: Message) -> list[str]:
    """The "owner · updated N days ago" lines."""
    return [t for t in texts(message) if " · updated " in t]


# --------------------------------------------------------------------------- lead and order


def test_the_first_block_names_section_and_runbook_as_one_link() -> None:
    message = render(answer())
    lead = message.blocks[0]["text"]["text"]
    assert lead == (
        f":arrow_forward: *<{URL}#L1|Mitigation &gt; Relieve an exhausted pgbouncer pool · "
        "Checkout DB connection failures 1>*"
    )
    # then straight to the steps: the first command is on the first screen
    assert "kubectl -n checkout-db exec" in message.blocks[1]["text"]["text"]


def test_a_long_heading_above_the_cited_section_is_shortened_in_the_link() -> None:
    """A finding's one-sentence subtitle over its remediation: the link names the
    remediation whole and the subtitle's first words."""
    subtitle = "An EC2 instance is querying a domain of a known command and control server."
    message = render(answer(citations=(cite(section=f"{subtitle} > Remediation recommendations"),)))
    lead = message.blocks[0]["text"]["text"]
    assert "An EC2 instance is querying a domain… &gt; Remediation recommendations · " in lead
    assert subtitle not in shown(message)


def test_the_notification_text_is_the_section_and_its_first_command() -> None:
    message = render(answer())
    assert message.text == (
        "Checkout DB connection failures 1 &gt; Mitigation &gt; Relieve an exhausted pgbouncer "
        "pool: `kubectl -n checkout-db exec -it checkout-db-0 -- psql -c 'SELECT 1;'`"
    )
    prose = render(answer(citations=(cite(quote="Page the **DBA**; do not restart."),)))
    assert prose.text.endswith(": Page the DBA; do not restart.")
    # a phone shows words: a link as its text, no Markdown around it
    linked = render(
        answer(citations=(cite(quote="See the [pool dashboard](../dash.md) and [runbook][r]."),))
    )
    assert linked.text.endswith(": See the pool dashboard and runbook.")
    # a quote that opens with a warning: the warning's words, marked as one
    for quote in (
        "> [!WARNING]\n> Failover drops every open connection.\n\nFail over.",
        "> **WARNING:** Failover drops every open connection.\n\nFail over.",
    ):
        warned = render(answer(citations=(cite(quote=quote),)))
        assert warned.text.endswith(": WARNING: Failover drops every open connection."), quote
    mkdocs = render(
        answer(citations=(cite(quote='!!! danger "Data loss"\n    Never on a replica.'),))
    )
    assert mkdocs.text.endswith(": DANGER: Data loss")


def test_markdown_is_shown_as_slack_shows_it_and_commands_stay_verbatim() -> None:
    body = shown(render(answer()))
    assert "```\nkubectl -n checkout rollout restart deploy/checkout-pgbouncer\n```" in body
    assert "2. If pgbouncer itself is unhealthy, *restart it*:" in body
    assert ":warning: *WARNING:* never raise `default_pool_size` above 60." in body


def test_indented_commands_and_sample_output_read_as_code() -> None:
    """OpenShift runbooks indent their commands, Kubernetes task pages their commands and
    sample output under "1." steps (CommonMark's indented code): the first command is
    one of them, and the output folds as a fenced sample output does."""
    ovn = cite(1, path=OVN_NODE, section="Diagnosis", quote=section(OVN_NODE, "Diagnosis"))
    heading = "Writing and reading a termination message"
    pods = cite(2, path=POD_FAILURE, section=heading, quote=section(POD_FAILURE, heading))
    message = render(answer(citations=(ovn, pods)))
    assert message.text.endswith(": `oc get node -l kubernetes.io/os!=windows`")
    body = shown(message)
    assert "```\noc get node -l kubernetes.io/os!=windows\n```" in body
    assert 'The output includes the "Sleep expired" message:\n\n' in body
    assert "    _Example folded (11 lines): Show more to see it._" in body
    assert "apiVersion: v1" not in body and "Sleep expired\n" not in body
    # still in the step: the steps after it keep their numbers
    assert "4. Use a Go template to filter the output" in body
    # the step's text indent and four make it code; a space past them is kept
    assert "```\n kubectl get pod termination-demo --output=yaml\n```" in body
    whole = shown(render(answer(citations=(ovn, pods)), view=View(expanded=True)))
    assert "```\n apiVersion: v1\n kind: Pod\n" in whole

    minimal = render_minimal(answer(citations=(ovn,)), RID)
    assert minimal.blocks[0]["text"]["text"].endswith(
        "```\noc get node -l kubernetes.io/os!=windows\n```"
    )
    card = render_alert_card(answer(citations=(pods,)), request_id=RID, today=TODAY, view=View())
    lead = next(b for b in card.blocks if b.get("block_id") == "lead")["text"]["text"]
    assert lead.endswith(
        "```\n kubectl apply -f https://k8s.io/examples/debug/termination.yaml\n```"
    )


RST_STEPS = """Restart the monitor
-------------------

:owner: @storage-oncall

.. warning:: Never remove the last monitor.

Check the quorum first::

    ceph quorum_status --format json-pretty

#. Fix the clock: ``chronyc makestep``.
#. Restart: ``systemctl restart ceph-mon@a``."""

ADOC_STEPS = """=== Vacuum the journal
:owner: @platform-oncall

WARNING: never delete files under /var/lib/etcd.

[source,bash]
----
journalctl --vacuum-size=500M
----

. Check again with `df -h /var`.
. Prune images."""


def test_asciidoc_and_restructuredtext_quotes_are_shown_in_slack_form() -> None:
    rst = render(answer(citations=(cite(path="storage/mon.rst", quote=RST_STEPS),)))
    body = shown(rst)
    assert "*Restart the monitor*" in body and "-----" not in body
    assert "• *owner:* @storage-oncall" in body  # a field list item
    assert ":warning: *WARNING:* Never remove the last monitor." in body
    assert "Check the quorum first:\n\n```\nceph quorum_status --format json-pretty\n```" in body
    assert "1. Fix the clock: `chronyc makestep`." in body
    assert "2. Restart: `systemctl restart ceph-mon@a`." in body
    assert rst.text.endswith(": `ceph quorum_status --format json-pretty`")
    adoc = render(answer(citations=(cite(path="platform/disk.adoc", quote=ADOC_STEPS),)))
    body = shown(adoc)
    assert "*Vacuum the journal*" in body and "[source,bash]" not in body
    assert ":owner:" not in body  # an attribute entry defines, it shows nothing
    assert ":warning: *WARNING:* never delete files under /var/lib/etcd." in body
    assert "```\njournalctl --vacuum-size=500M\n```" in body and "----" not in body
    assert "1. Check again with `df -h /var`.\n2. Prune images." in body
    minimal = render_minimal(
        answer(citations=(cite(path="platform/disk.adoc", quote=ADOC_STEPS),)), RID
    )
    assert "journalctl --vacuum-size=500M" in minimal.blocks[0]["text"]["text"]
    # the same text in a Markdown runbook is shown as Markdown reads it
    assert "[source,bash]" in shown(render(answer(citations=(cite(quote=ADOC_STEPS),))))


def test_one_header_and_one_owner_line_per_document() -> None:
    a = answer(
        citations=(
            cite(1),
            cite(1, section="Diagnosis > Check pgbouncer", quote="Run `SHOW POOLS;`."),
            cite(2, owner=None),
        )
    )
    message = render(a)
    body = shown(message)
    assert body.count("Checkout DB connection failures 1") == 1  # the title once
    assert body.count("Checkout DB connection failures 2") == 1
    assert meta_lines(message) == [
        "owner *@checkout-oncall* · updated 12 days ago",
        "no owner on record · updated 12 days ago",  # the second document's line
    ]
    assert f"*<{URL}#L1|Diagnosis &gt; Check pgbouncer>*" in body  # its own linked heading
    assert "rev `" not in body and "0123456789abcdef" in body  # the revision is in the links
    assert "request `" not in body and RID not in body.replace(f"value={RID}", "")
    assert "Asked" not in body


def test_a_section_quoted_in_pieces_has_one_heading() -> None:
    failover = "Mitigation > Fail over to the standby"
    a = answer(
        citations=(
            cite(1),
            cite(1, section=failover, quote="1. Confirm a healthy replica."),
            cite(1, section=failover, quote="4. Restart pgbouncer."),
        )
    )
    body = shown(render(a))
    assert body.count("Fail over to the standby") == 1
    assert "1. Confirm a healthy replica." in body and "4. Restart pgbouncer." in body


def test_asked_only_where_the_question_is_not_visible() -> None:
    assert "Asked: “why &lt;b&gt;?”" in shown(render(answer(), view=View(asked="why <b>?")))
    assert "Asked" not in shown(render(answer(), view=View(audience="public")))


def test_the_typos_the_search_corrected_are_said_below_the_answer() -> None:
    read = (("conection", "connection"),)
    message = render(answer(read_as=read))
    assert texts(message)[0].startswith(":arrow_forward: ")  # the lead stays first
    assert "Read “conection” as “connection”" in texts(message)  # the footer line
    unsure = render(answer(state="unsure", citations=(), read_as=read))
    assert "Read “conection” as “connection”" in shown(unsure)
    assert "Read “" not in shown(render(answer()))


def test_show_more_counts_the_lines_the_folded_example_says() -> None:
    rows = "\n".join(f"pod-{i}   1/1   Running   0   {i}d" for i in range(12))
    sample = f"Check the pods:\n\n```\nkubectl get pods\n```\n\nThe output:\n\n```text\n{rows}\n```"
    message = render(answer(citations=(cite(1, quote="Restart it."), cite(2, quote=sample))))
    assert "_Example folded (12 lines): Show more to see it._" in shown(message)
    more = next(b for b in message.blocks if b.get("block_id") == "show_more")
    assert more["elements"][0]["text"]["text"] == "Show more (12 lines)"  # not the fences


def test_a_cut_procedure_says_so_and_links_the_rest() -> None:
    body = shown(render(answer(citations=(cite(note="steps 1-2 of 7"),))))
    assert f"Steps 1-2 of 7 · <{URL}#L1|the rest in the runbook>" in body


def test_a_section_quoted_in_two_pieces_says_which_part_once_above_the_first() -> None:
    # the note rides on the last piece quoted; it is shown above the section's text,
    # not between its pieces
    first = cite(quote="Git takes a lock.", end=17)
    second = cite(
        quote="An OOM kill leaves it.", start=19, end=41, line=14, note="part of this section"
    )
    body = texts(render(answer(citations=(first, second))))
    note = next(i for i, t in enumerate(body) if t.startswith("Part of this section"))
    assert note < next(i for i, t in enumerate(body) if "Git takes a lock." in t)
    assert sum(t.startswith("Part of this section") for t in body) == 1


PREREQUISITES = Precondition(
    heading="Prerequisites <admin>", section="Prerequisites <admin>", url=f"{URL}#L5", line=5
)


def test_the_prerequisites_are_named_above_the_steps_on_every_slack_message() -> None:
    before = f"Before you start: <{URL}#L5|Prerequisites &lt;admin&gt;>"
    message = render(answer(citations=(cite(before=PREREQUISITES, note="steps 1-2 of 7"),)))
    body = texts(message)
    # a context line of its own, under the lead and above the cut note and the steps
    assert message.blocks[1] == {
        "type": "context",
        "block_id": "before0",
        "elements": [{"type": "mrkdwn", "text": before, "verbatim": True}],
    }
    assert body.index(before) < next(i for i, t in enumerate(body) if t.startswith("Steps 1-2"))
    # a further runbook's quote: above its quote, under its heading
    two = render(answer(citations=(cite(), cite(2, before=PREREQUISITES))))
    lines = texts(two)
    heading = next(i for i, t in enumerate(lines) if "Checkout DB connection failures 2" in t)
    assert heading < lines.index(before) < heading + 2
    assert shown(render(answer())).count("Before you start") == 0
    # the alert card and the minimal answer: between the runbook's link and its command
    card = render_alert_card(
        answer(citations=(cite(before=PREREQUISITES),)), request_id=RID, today=TODAY, view=View()
    )
    lead = next(b for b in card.blocks if b.get("block_id") == "lead")["text"]["text"]
    assert f"\n{before}\n```\n" in lead
    minimal = render_minimal(answer(citations=(cite(before=PREREQUISITES),)), RID)
    assert f"\n{before}\n```\n" in minimal.blocks[0]["text"]["text"]
    # without a link (no source link, no web pages): the heading as it is
    unlinked = PREREQUISITES.model_copy(update={"url": None})
    plain = render(answer(citations=(cite(before=unlinked),)))
    assert "Before you start: Prerequisites &lt;admin&gt;" in texts(plain)


def test_a_quoted_table_row_is_shown_under_its_header_and_says_which_row() -> None:
    action = "`kubectl rollout restart deploy/db` on the standby"
    row = f"| `ReplicaLag` | the replica is behind | {action} |"
    a = answer(
        citations=(
            cite(
                quote=row,
                header="| Alert | Meaning | Action |\n| --- | --- | --- |",
                note="row 3 of 20",
            ),
        )
    )
    message = render(a)
    body = shown(message)
    assert f"• *`ReplicaLag`* · Meaning: the replica is behind · Action: {action}" in body
    assert f"Row 3 of 20 · <{URL}#L1|the rest in the runbook>" in body
    assert "Alert | Meaning" not in body
    assert message.text.endswith(": `kubectl rollout restart deploy/db`")  # its command
    plain = render(answer(citations=(cite(quote="| `ReplicaLag` | behind | promote |"),)))
    assert plain.text.endswith(": ReplicaLag · behind · promote")  # a row without one
    assert "• *`ReplicaLag`* · behind · promote" in shown(plain)  # no header: the cells


def test_a_link_to_another_runbook_by_site_address_links_that_runbook() -> None:
    quote = "Purge it: see [purging the cache](/manual/purge-cache) and [the CDN][cdn]."
    target = "https://github.com/acme/runbooks/blob/0123/source/manual/purge-cache.html.md#L1"
    linked = cite(quote=quote, links=(("/manual/purge-cache", target), ("[cdn]", f"{target}9")))
    body = shown(render(answer(citations=(linked,))))
    assert f"<{target}|purging the cache>" in body and f"<{target}9|the CDN>" in body
    plain = shown(render(answer(citations=(cite(quote=quote),))))
    assert "github.com/manual" not in plain and "purging the cache" in plain  # text only


def test_a_gap_between_two_quotes_of_one_section_is_shown() -> None:
    adjacent = (cite(start=0, end=40), cite(start=42, end=80, quote="and then"))
    apart = (cite(start=0, end=40), cite(start=400, end=440, quote="How to fix:"))
    assert "…" not in texts(render(answer(citations=adjacent)))
    assert "…" in texts(render(answer(citations=apart)))


def test_other_fixes_of_the_runbook_are_linked() -> None:
    facts = {
        "src-1": DocFacts(
            source_id="src-1",
            more_actions=(Link(label="Mitigation > Fail over", url=f"{URL}#L99"),),
        )
    }
    body = shown(render(answer(), facts=facts))
    assert f"Other fixes in this runbook: <{URL}#L99|Mitigation &gt; Fail over>" in body


# --------------------------------------------------------------------------- warnings, weak


def test_stale_warning_is_loud_and_short() -> None:
    stale = AnswerWarning(
        kind="stale",
        message="'Checkout DB connection failures 1' was last updated 300 days ago (...).",
        source_id="src-1",
    )
    message = render(answer(citations=(cite(age_days=300),), warnings=(stale,)))
    assert message.blocks[1]["text"]["text"] == (
        ":warning: *May be out of date: last updated 300 days ago. Verify before acting.*"
    )
    assert message.text.endswith("(may be out of date)")


def test_an_answer_without_the_command_asked_for_says_so_above_its_quotes() -> None:
    note = unshown_detail_note("no-command")
    assert note is not None
    two = (cite(), cite(source_id="src-2", title="Another runbook", start=500, end=540))
    message = render(answer(citations=two, warnings=(note,)))
    warned = [b for b in message.blocks if b.get("block_id") == "warnings"]
    assert warned and warned[0]["text"]["text"] == f":warning: *{note.message}*"
    assert unshown_detail_note("low-confidence") is None


def test_ownerless_and_restricted_omitted_are_not_warnings() -> None:
    a = answer(
        citations=(cite(owner=None),),
        warnings=(
            AnswerWarning(kind="ownerless", message="no owner", source_id="src-1"),
            AnswerWarning(kind="restricted-omitted", message="1 restricted runbook sent"),
        ),
    )
    message = render(a)
    assert not [b for b in message.blocks if b.get("block_id") == "warnings"]
    assert ":lock: 1 restricted runbook sent" in shown(message)


def test_a_runbook_for_another_service_is_labelled_and_not_offered_for_posting() -> None:
    facts = {"src-1": DocFacts(source_id="src-1", other_service="cart")}
    message = render(answer(), view=View(offer_post=True), facts=facts)
    assert message.blocks[0]["text"]["text"].startswith(
        f":grey_question: _{CLOSEST_OTHER_SERVICE}_ · *<"
    )
    assert message.text.startswith(f"{CLOSEST_OTHER_SERVICE}: ")
    assert ids.POST_TO_CHANNEL not in buttons(message)
    assert ids.POST_TO_CHANNEL in buttons(render(answer(), view=View(offer_post=True)))


def test_a_best_guess_is_labelled_first_and_not_offered_for_posting() -> None:
    facts = {
        "src-1": DocFacts(source_id="src-1", contact=Contact(kind="usergroup", label="@c", id="S1"))
    }
    view = View(offer_post=True, offer_escalate=True)
    message = render(answer(sure=False), view=view, facts=facts)
    first = message.blocks[0]
    assert first["block_id"] == "best_guess" and first["type"] == "context"
    assert first["elements"][0]["text"] == f"*{BEST_GUESS_LABEL}:* {BEST_GUESS_ADVICE}"
    assert message.blocks[1]["text"]["text"].startswith(":arrow_forward: *<")
    assert message.text.startswith(f"{BEST_GUESS_LABEL}: Checkout DB")
    assert ids.POST_TO_CHANNEL not in buttons(message)
    assert {ids.FEEDBACK_HELPFUL, ids.ESCALATE} <= set(buttons(message))
    assert "kubectl -n checkout rollout restart" in shown(message)
    sure = render(answer(), view=view, facts=facts)
    assert BEST_GUESS_LABEL not in shown(sure) and ids.POST_TO_CHANNEL in buttons(sure)
    # the minimal copy, when Slack refuses the full answer, says so too
    minimal = render_minimal(answer(sure=False), RID)
    assert minimal.blocks[0]["block_id"] == "best_guess"
    # "sure" speaks only of a quoted answer: the other tiers have their own headlines
    assert BEST_GUESS_LABEL not in shown(render(answer(state="unsure", citations=(), sure=False)))


# --------------------------------------------------------------------------- escalation


def test_the_escalation_section_is_shown() -> None:
    facts = {
        "src-1": DocFacts(
            source_id="src-1",
            escalation="- Not resolved in 15 minutes: page `@dba-oncall`.",
            escalation_section="Escalation",
            escalation_url=f"{URL}#L130",
        )
    }
    body = shown(render(answer(), facts=facts))
    assert f":telephone_receiver: *<{URL}#L130|Escalation>*\n• Not resolved in 15 minutes" in body


def test_owner_mentions_ping_nobody() -> None:
    group = Contact(kind="usergroup", label="@checkout-oncall", id="S0CHECKOUT")
    assert contact_text(group, "private") == "<!subteam^S0CHECKOUT|@checkout-oncall>"
    assert contact_text(group, "public") == "*@checkout-oncall*"
    channel = Contact(kind="channel", label="#notifications", id="C0NOTIFY1", source="fallback")
    assert contact_text(channel, "public") == "<#C0NOTIFY1>"
    assert contact_text(None, "public") == "no owner on record"
    facts = {"src-1": DocFacts(source_id="src-1", contact=group)}
    private = render(answer(), view=View(audience="private"), facts=facts)
    assert "owner <!subteam^S0CHECKOUT|@checkout-oncall>" in shown(private)
    assert any(str(b.get("block_id", "")).startswith("mention") for b in private.blocks)
    public = render(answer(), view=View(audience="public"), facts=facts)
    assert "<!subteam^" not in json.dumps(public.blocks)


def test_an_ownerless_runbook_names_its_fallback_contact() -> None:
    contact = Contact(
        kind="channel", label="#notifications", id="C0NOTIFY1", source="service-channel"
    )
    facts = {"src-1": DocFacts(source_id="src-1", contact=contact)}
    body = shown(render(answer(citations=(cite(owner=None),)), facts=facts))
    assert "no owner on record · ask <#C0NOTIFY1>" in body
    assert ":telephone_receiver: *Escalation:* no owner on record; ask <#C0NOTIFY1>" in body


def test_escalate_button_then_escalated() -> None:
    group = Contact(kind="usergroup", label="@checkout-oncall", id="S0CHECKOUT")
    facts = {"src-1": DocFacts(source_id="src-1", contact=group)}
    offered = render(answer(), view=View(offer_escalate=True), facts=facts)
    button = buttons(offered)[ids.ESCALATE]
    assert button["text"]["text"] == ":rotating_light: Escalate to @checkout-oncall"
    assert button["value"] == RID
    done = render(answer(), view=View(offer_escalate=True, escalated_by="U0ALICE01"), facts=facts)
    assert ids.ESCALATE not in buttons(done)
    assert "Escalated to @checkout-oncall by <@U0ALICE01>." in shown(done)
    # no Slack id: nothing to notify, no button
    plain = {"src-1": DocFacts(source_id="src-1", contact=Contact(kind="text", label="@x"))}
    assert ids.ESCALATE not in buttons(
        render(answer(), view=View(offer_escalate=True), facts=plain)
    )


def test_the_escalation_post_mentions_the_owner_once_and_says_who() -> None:
    group = Contact(kind="usergroup", label="@checkout-oncall", id="S0CHECKOUT")
    message = render_escalation("U0ALICE01", group, cite())
    assert_valid_blocks(message)
    (text,) = texts(message)
    assert text.startswith(":rotating_light: <@U0ALICE01> is escalating to ")
    assert text.count("<!subteam^S0CHECKOUT|@checkout-oncall>") == 1
    assert "Checkout DB connection failures 1" in text
    anonymous = render_escalation("U0ALICE01", group, None)
    assert "Checkout DB" not in shown(anonymous)


# --------------------------------------------------------------------------- button states


def test_feedback_post_and_their_states() -> None:
    offered = render(answer(), view=View(offer_post=True))
    assert set(buttons(offered)) == {
        ids.FEEDBACK_HELPFUL,
        ids.FEEDBACK_NOT_HELPFUL,
        ids.POST_TO_CHANNEL,
    }
    assert all(b["value"] == RID for b in buttons(offered).values())
    after = render(
        answer(),
        view=View(offer_post=True, feedback="helpful", posted_by="U1", posted_note="Left out 1."),
    )
    assert buttons(after) == {}
    assert "Feedback recorded (helpful)" in shown(after)
    assert "Posted to the channel. Left out 1." in shown(after)


def test_restricted_private_answer_says_do_not_paste_first() -> None:
    note = restricted_private_note(2)
    message = render(answer(), view=View(restricted=True, withheld_note=note))
    assert message.blocks[0]["type"] == "context"
    assert message.blocks[0]["elements"][0]["text"] == (
        ":lock: 2 restricted runbooks sent to you privately: not everyone in the channel may "
        "read them. *Do not paste it in public channels.*"
    )
    assert ids.POST_TO_CHANNEL not in buttons(message)


def test_shared_copy_is_attributed() -> None:
    message = render(answer(), view=View(audience="public", shared_by="U0ALICE01", asked="q?"))
    footer = next(b for b in message.blocks if "Shared by" in json.dumps(b))
    assert footer["elements"][0]["text"] == "Shared by <@U0ALICE01> · Asked: “q?”"
    assert footer["block_id"].startswith("mention")


# --------------------------------------------------------------------------- not sure, none


def suggestion(n: int, owner: str | None = "@payments-oncall") -> Suggestion:
    return Suggestion(
        source_id=f"s-{n}",
        title=f"Payments runbook {n}",
        section="Mitigation > Switch provider",
        path=f"payments/{n}.md",
        url=f"https://git.example.com/payments/{n}.md#L66",
        line=66,
        owner=owner,
    )


def test_not_sure_names_each_closest_runbook_with_link_and_owner() -> None:
    a = Answer(
        state="unsure",
        text="Not sure these answer it: the closest runbooks.",
        reason="low-confidence",
        suggestions=(suggestion(1), suggestion(2, owner=None)),
        search_link="https://github.com/search?type=code&q=repo%3Aacme%2Frunbooks+grafana",
        closest_owner="@someone-else",
    )
    message = render(a, view=View(asked="grafana admin password"))
    body = shown(message)
    assert body.startswith(
        ":grey_question: *Not sure any runbook answers this.* The closest runbooks:"
    )
    assert (
        "• *<https://git.example.com/payments/1.md#L66|Payments runbook 1>* "
        "(Mitigation &gt; Switch provider) · owner *@payments-oncall*" in body
    )
    assert "Payments runbook 2>* (Mitigation &gt; Switch provider) · no owner on record" in body
    assert "related" not in body.lower()
    assert "@someone-else" not in body  # no owner that has no bearing on the question
    (search,) = [b for b in buttons(message).values() if b.get("url")]
    assert "repo%3Aacme%2Frunbooks" in search["url"]
    assert body.count("github.com/search") == 0  # one search link: the button
    assert message.text == (
        "Not sure any runbook answers this. Closest: Payments runbook 1, Payments runbook 2"
    )


@pytest.mark.parametrize(
    ("state", "reason", "headline"),
    [
        (
            "unsure",
            "no-command",
            ":grey_question: *No runbook shows a command for this.* The closest runbooks:",
        ),
        (
            "unsure",
            "no-value",
            ":grey_question: *No runbook gives the value or setting asked for.* The closest "
            "runbooks:",
        ),
        (
            "unsure",
            "no-steps",
            ":grey_question: *No runbook says how to do this.* The closest runbooks:",
        ),
        (
            "abstain",
            "unwritten",
            ":memo: *The runbook for this is not written yet.* Ask its owners, or write it:",
        ),
    ],
)
def test_a_reply_without_a_quote_says_why_and_links_the_runbooks(
    state: str, reason: str, headline: str
) -> None:
    """No command shown: the closest runbooks; the runbook asked about is a TODO: that
    runbook, never called "closest"."""
    a = Answer.model_validate(
        {"state": state, "text": "x", "reason": reason, "suggestions": (suggestion(1),)}
    )
    message = render(a)
    assert shown(message).startswith(headline)
    assert "Payments runbook 1" in shown(message)
    said = headline.split("*")[1]
    assert message.text.startswith(said)
    assert ("closest" in shown(message).lower()) is (reason != "unwritten")


def test_no_runbook_says_so_once() -> None:
    a = Answer(state="abstain", text="No runbook covers this.", reason="no-match")
    message = render(a)
    assert shown(message).count("No runbook covers this") == 1
    assert message.text == "No runbook covers this."


def test_access_denied_names_the_owner_to_ask() -> None:
    a = Answer(state="abstain", text="x", reason="access-denied")
    body = shown(render(a, view=View(access_owner="@sre-oncall")))
    assert "A runbook you cannot read may cover this.* Ask *@sre-oncall* for access." in body


# --------------------------------------------------------------------------- notices


def test_error_leads_with_the_next_step_and_offers_retry() -> None:
    message = render_error(
        RID,
        "The runbook index is unavailable right now.",
        next_step="Try again in a minute.",
        search_link="https://github.com/search?q=repo%3Aacme%2Frunbooks+x",
    )
    assert_valid_blocks(message)
    assert message.blocks[0]["text"]["text"] == (
        ":warning: *I couldn't search the runbooks just now.* Try again in a minute."
    )
    assert buttons(message)[ids.RETRY]["value"] == RID
    assert "url" in buttons(message)[ids.OPEN_SEARCH]
    assert message.blocks[-1]["elements"][0]["text"] == (
        f"The runbook index is unavailable right now. · request `{RID}`"
    )


def test_minimal_answer_is_the_link_and_the_first_command() -> None:
    message = render_minimal(answer(), RID)
    assert_valid_blocks(message)
    lead = message.blocks[0]["text"]["text"]
    assert lead.startswith(f":arrow_forward: *<{URL}#L1|")
    assert lead.endswith(
        "```\nkubectl -n checkout-db exec -it checkout-db-0 -- psql -c 'SELECT 1;'\n```"
    )
    assert sum(block_chars(b) for b in message.blocks) < 1000


def test_restricted_notice_names_no_title_but_the_owner_and_counts_documents() -> None:
    owner = Contact(kind="usergroup", label="@sre-oncall", id="S0SRE")
    message = render_restricted_notice("U0SRE0001", 1, owner)
    assert_valid_blocks(message)
    (text,) = texts(message)
    assert text == (
        ":lock: *A restricted runbook matched this question.* I sent it to <@U0SRE0001> "
        "privately: not everyone here may read it. Owner: *@sre-oncall*."
    )
    assert "2 restricted runbooks matched" in texts(render_restricted_notice("U1", 2, None))[0]
    assert withheld_note("U0SRE0001", 1) == (
        "1 more runbook matched that not everyone here may read: sent to <@U0SRE0001> privately."
    )


def test_block_checker_allows_the_bots_own_mentions_only_where_marked() -> None:
    def message(text: str, block_id: str | None) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "section", "text": {"type": "mrkdwn", "text": text}}
        if block_id:
            block["block_id"] = block_id
        return {"text": "x", "blocks": [block]}

    assert block_violations(message("hi <@U0ALICE01>", "mention_x")) == []
    assert any("special mention" in p for p in block_violations(message("hi <@U0ALICE01>", None)))
    assert any("whole channel" in p for p in block_violations(message("<!here>", "mention_x")))


# --------------------------------------------------------------------------- untrusted, limits


def test_untrusted_text_is_escaped_everywhere() -> None:
    c = cite(
        title="R&D <runbook>",
        section="Step <1> & 2",
        owner="@ops <team>",
        quote="if a < b && c > d then <!channel> and <@U12345>\n<!here> now",
    )
    message = render(answer(citations=(c,)), view=View(asked="why <!channel> & stuff"))
    body = shown(message)
    for raw in ("<!channel>", "<!here>", "<@U12345>", "<runbook>", "<team>"):
        assert raw not in body and raw not in message.text
    assert "if a &lt; b &amp;&amp; c &gt; d then &lt;!channel&gt;" in body
    assert "|Step &lt;1&gt; &amp; 2 · R&amp;D &lt;runbook&gt;>" in body
    assert "owner *@ops &lt;team&gt;*" in body


def test_eighty_citations_fit_with_a_more_note_and_the_buttons_last() -> None:
    citations = tuple(cite(i, quote=f"step {i} `kubectl get pods`") for i in range(80))
    message = render(answer(citations=citations), view=View(offer_post=True))
    assert len(message.blocks) <= 50
    assert message.blocks[-1]["type"] == "actions"
    assert "more quoted sections in the runbooks" in shown(message)


def test_long_quotes_stay_within_the_message_budget_with_balanced_fences() -> None:
    code = "\n".join(f"kubectl rollout restart deploy/api-{i:04d} && sleep 1" for i in range(400))
    citations = tuple(cite(i, quote=f"Restart:\n```bash\n{code}\n```") for i in range(6))
    message = render(answer(citations=citations))
    assert sum(block_chars(b) for b in message.blocks) <= MAX_MESSAGE_CHARS
    # a long quote is split over sections, each with balanced fences (checked above)
    assert sum("deploy/api-0000" in t for t in texts(message)) >= 1


def test_huge_titles_owners_and_questions_stay_within_limits() -> None:
    c = cite(title="T" * 5000, section="S" * 5000, owner="@" + "o" * 5000)
    w = AnswerWarning(kind="superseded", message="m" * 5000)
    message = render(
        answer(citations=(c,), warnings=(w,), related=(c,) * 20),
        view=View(incident=True, offer_post=True, asked="q" * 5000),
        facts={"src-1": DocFacts(source_id="src-1", escalation="e " * 3000)},
    )
    assert len(message.text) <= 3000


@pytest.mark.parametrize(
    "message",
    [
        render_searching("q" * 5000),
        render_usage(),
        render_error("r" * 300, "d" * 5000, next_step="n" * 5000),
        render_minimal(
            answer(citations=(cite(title="t" * 4000, quote="```\n" + "x" * 9000),)), RID
        ),
        render_restricted_notice("U1", 3, Contact(kind="text", label="o" * 5000)),
    ],
    ids=["searching", "usage", "error", "minimal", "restricted"],
)
def test_every_notice_respects_slack_limits(message: Message) -> None:
    assert_valid_blocks(message)


def test_the_part_of_section_note_comes_above_the_quote() -> None:
    message = render(answer(citations=(cite(note="steps 1-2 of 9"),)))
    shown = texts(message)
    note = next(i for i, t in enumerate(shown) if t.startswith("Steps 1-2 of 9"))
    quote = next(i for i, t in enumerate(shown) if "Find transactions open longer" in t)
    assert note < quote


def test_a_suggestion_that_points_elsewhere_quotes_the_pointer_with_its_link() -> None:
    pointer = "Rotation is done in the console; see the [rotation docs](https://wiki.acme.io/rot)."
    suggestion = Suggestion(
        source_id="keys",
        title="Billing: provider key",
        section="Rotation",
        path="billing/keys.md",
        url=None,
        line=9,
        owner="@billing",
        pointer=pointer,
    )
    message = render(
        Answer(state="unsure", text="x", reason="low-confidence", suggestions=(suggestion,))
    )
    closest = next(t for t in texts(message) if "Billing: provider key" in t)
    assert (
        "\n>Rotation is done in the console; see the <https://wiki.acme.io/rot|rotation docs>."
        in closest
    )
