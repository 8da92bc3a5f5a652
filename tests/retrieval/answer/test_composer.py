"""Which parts to quote and how much: intent, section evidence, procedures kept whole."""

from __future__ import annotations

from ingest.chunker import DEFAULT_MAX_TOKENS, chunk_document
from retrieval.answer.composer import (
    action_elsewhere,
    choose_parts,
    from_the_first_step,
    names_the_procedure,
    procedure_step,
    step_note,
    steps_below,
)
from retrieval.answer.outline import Part, document_parts
from retrieval.answer.part_ranking import (
    ScoredPart,
    SectionWeights,
    anchored_heading,
    lead_in,
    lead_with,
    quotable,
    rank_parts,
)
from retrieval.answer.stubs import stub
from retrieval.reading.asked_detail import DURATION, Detail, asked_detail
from retrieval.reading.evidence import TermStats
from retrieval.reading.names import naming_terms
from retrieval.reading.tokenize import tokenize
from tests.conftest import markdown_document

TEXT = """# Orders DB connection failures

## Symptoms

Alert `OrdersDbConnectionErrors` fires; the API returns 503.

## Diagnosis

Check the pgbouncer pool with `SHOW POOLS;` and look at cl_waiting.

## Mitigation

### Restart pgbouncer

1. Drain traffic from the orders API.
2. `kubectl -n orders rollout restart deploy/pgbouncer`
3. Watch cl_waiting fall.

### Fail over to the replica

Promote the replica when the primary is down.
"""


def parts_of(text: str, max_tokens: int = DEFAULT_MAX_TOKENS) -> list[Part]:
    d = markdown_document(text, "Orders DB connection failures", "orders/db.md")
    return document_parts(chunk_document(d, 0, max_tokens))


STATS = TermStats.from_doc_terms({"orders": tokenize(TEXT), "other": tokenize("unrelated words")})


def ranked_parts(
    question: str, intent: str, parts: list[Part] | None = None, *, what_to_do: bool = False
) -> list[ScoredPart]:
    """The parts ranked for the question, every chunk as dense as the next."""
    return rank_parts(
        parts or parts_of(TEXT),
        tokenize(question),
        STATS,
        lambda p: 0.5,
        intent,  # type: ignore[arg-type]
        SectionWeights(),
        what_to_do=what_to_do,
    )


def ranked(question: str, intent: str, parts: list[Part] | None = None) -> list[Part]:
    return [s.part for s in ranked_parts(question, intent, parts)]


def test_a_bare_alert_leads_with_the_action_not_the_symptoms() -> None:
    lead = ranked("OrdersDbConnectionErrors", "unspecified")[0]
    assert lead.heading_path[1] == "Mitigation"


def test_a_symptom_quoted_back_does_not_lead_with_the_symptoms_section() -> None:
    # the question repeats the Symptoms text word for word; the answer is what to do
    lead = ranked("the API returns 503", "unspecified")[0]
    assert lead.heading != "Symptoms"


def test_a_check_question_does_not_lead_with_the_symptoms_it_repeats() -> None:
    # the question quotes the alert the Symptoms section quotes; the check is what it asks
    lead = ranked(
        "Alert OrdersDbConnectionErrors fires, the API returns 503. what do i check", "diagnose"
    )[0]
    assert lead.heading == "Diagnosis"


def test_setext_headings_give_the_same_parts_as_atx_ones() -> None:
    setext = (
        TEXT.replace("## Symptoms", "Symptoms\n--------")
        .replace("## Diagnosis", "Diagnosis\n---------")
        .replace("## Mitigation", "Mitigation\n----------")
    )
    lead = ranked("OrdersDbConnectionErrors", "unspecified", parts_of(setext))[0]
    assert lead.heading_path[1:] == ("Mitigation", "Restart pgbouncer")
    assert lead.body.startswith("1. Drain traffic")


def test_a_diagnosis_question_leads_with_the_diagnosis() -> None:
    lead = ranked("how do I tell if the pool is exhausted", "diagnose")[0]
    assert lead.heading == "Diagnosis"


def test_section_words_pick_the_subsection() -> None:
    lead = ranked("primary is down, how do we promote the replica", "act")[0]
    assert lead.heading == "Fail over to the replica"


def test_second_part_only_when_it_stands_on_its_own() -> None:
    parts = parts_of(TEXT)
    scored = rank_parts(
        parts,
        tokenize("pgbouncer pool cl_waiting"),
        STATS,
        lambda p: 0.5,
        "unspecified",
        SectionWeights(),
    )
    chosen = choose_parts(scored, "unspecified", SectionWeights())
    kinds = [c.part.heading_path[1] for c in chosen]
    assert kinds[0] == "Mitigation" and "Diagnosis" in kinds  # the check before acting
    # a part scoring far below the lead is not added as filler
    weak = rank_parts(
        parts,
        tokenize("drain traffic"),
        STATS,
        lambda p: 0.0,
        "procedure",
        SectionWeights(second_ratio=0.99, complement_ratio=0.99),
    )
    assert len(choose_parts(weak, "procedure", SectionWeights(second_ratio=0.99))) == 1


RAID = """# NodeRAIDDegraded

## Meaning

RAID array is degraded.

## Diagnosis

Open a shell on the node and run `cat /proc/mdstat` to see which disks dropped out.

## Mitigation

Cordon and drain the node, then proceed to RAID recovery.
"""


def test_a_symptom_that_matches_the_check_still_gets_the_action_beside_it() -> None:
    # the engineer pasted what the diagnosis command printed: the check's words match,
    # the action's do not, yet a bare symptom gets both halves of the runbook's layout
    parts = parts_of(RAID)
    question = "cat /proc/mdstat on db-03 shows [U_]"
    stats = TermStats.from_doc_terms({"raid": tokenize(RAID), "other": tokenize("unrelated")})

    def dense(p: Part) -> float:  # the pasted output reads like the check
        return 0.6 if p.heading == "Diagnosis" else 0.1

    scored = rank_parts(parts, tokenize(question), stats, dense, "unspecified", SectionWeights())
    assert scored[1].score < SectionWeights().complement_ratio * scored[0].score
    chosen = [
        c.part.heading_path[-1] for c in choose_parts(scored, "unspecified", SectionWeights())
    ]
    assert chosen == ["Diagnosis", "Mitigation"]
    # asked only how to check, the action is not added as filler
    diagnose = rank_parts(parts, tokenize(question), stats, dense, "diagnose", SectionWeights())
    assert [
        c.part.heading_path[-1] for c in choose_parts(diagnose, "diagnose", SectionWeights())
    ] == ["Diagnosis"]


REGISTRY = """# ImageRegistryStorageFull

## Meaning

This alert is triggered when the image registry pvc storage is full.

## Impact

Builds and direct pushes to the image registry will fail.

## Mitigation

Review the image pruner parameters. If it suits your needs, expand the volume.
"""


def test_asked_what_to_do_the_action_leads_though_the_impact_has_the_words() -> None:
    parts = parts_of(REGISTRY)
    question = "builds failing on push to the registry, pvc is full. what do i do"
    stats = TermStats.from_doc_terms({"r": tokenize(REGISTRY), "other": tokenize("unrelated")})
    scored = rank_parts(parts, tokenize(question), stats, lambda p: 0.3, "act", SectionWeights())
    assert scored[0].part.heading == "Impact"  # the symptoms' words are there
    chosen = choose_parts(scored, "act", SectionWeights())
    assert [c.part.heading for c in chosen] == ["Mitigation", "Impact"]
    # a symptom described with no question: the action first as well
    symptom = "builds failing on push to the registry, pvc is full"
    scored = rank_parts(
        parts, tokenize(symptom), stats, lambda p: 0.3, "unspecified", SectionWeights()
    )
    chosen = choose_parts(scored, "unspecified", SectionWeights())
    assert [c.part.heading for c in chosen] == ["Mitigation", "Impact"]


PLAYBOOKS = """# Alerts

## IngesterHasNotShippedBlocks

### Ingester hit the disk capacity

The ingester volume is full and appends fail with no space left on device. Resize the
volume, then restart the ingester.

# Recovering from a data loss incident

## Freeze the ingester disk

Snapshot the ingester volume before anything else touches it.
"""


def test_in_a_file_of_playbooks_another_playbooks_action_does_not_jump_ahead() -> None:
    parts = parts_of(PLAYBOOKS)
    stats = TermStats.from_doc_terms({"p": tokenize(PLAYBOOKS), "other": tokenize("unrelated")})
    question = "ingester volume full, appends fail with no space left on device. what now"
    scored = rank_parts(parts, tokenize(question), stats, lambda p: 0.5, "act", SectionWeights())
    chosen = choose_parts(scored, "act", SectionWeights(second_ratio=0.5))
    assert chosen[0].part.heading == "Ingester hit the disk capacity"


RESTART_RUBY = """# Gracefully restart the ruby workers

If you need to restart the ruby workers by hand you can do so without downtime, one
worker at a time, on every storage node of an environment:

## Staging

```bash
knife ssh 'roles:staging-storage' 'pkill -f ruby-worker; sleep 5'
```

## Production

```bash
knife ssh 'roles:production-storage' 'pkill -f ruby-worker; sleep 5'
```
"""


def test_asked_how_the_runbook_answers_from_a_section_not_its_introduction() -> None:
    parts = parts_of(RESTART_RUBY)
    stats = TermStats.from_doc_terms({"r": tokenize(RESTART_RUBY), "other": tokenize("other")})
    question = (
        "how do i restart the ruby workers on all the production storage nodes without downtime"
    )
    scored = rank_parts(
        parts, tokenize(question), stats, lambda p: 0.5, "procedure", SectionWeights()
    )
    chosen = choose_parts(scored, "procedure", SectionWeights())
    # the introduction restates what the runbook is for; of two environments, the one asked
    assert [c.part.heading for c in chosen] == ["Production"]


CASES = """# ManagedClusterConditionUnknown

## Checks

Get the ManagedCluster and look for the `ManagedClusterJoined` condition.

### a. If the condition `ManagedClusterJoined` does not exist

The managed cluster was not imported: check the klusterlet conditions.

### b. If the condition `ManagedClusterJoined` exists

Check the klusterlet's HubConnectionDegraded condition.
"""


def test_the_case_that_did_not_match_is_not_quoted_beside_the_one_that_did() -> None:
    question = "no ManagedClusterJoined condition on the managed cluster, what do i check"
    scored = rank_parts(
        parts_of(CASES), tokenize(question), STATS, lambda p: 0.5, "diagnose", SectionWeights()
    )
    assert scored[0].part.heading.startswith("a. If")
    assert scored[1].part.heading.startswith("b. If")  # as strong: it would be quoted too
    chosen = choose_parts(scored, "diagnose", SectionWeights())
    assert not any(c.part.heading.startswith("b. If") for c in chosen)
    # two sections that are not cases of one split may still go together
    plain = CASES.replace("a. If the condition", "Missing:").replace("b. If the", "Present:")
    scored = rank_parts(
        parts_of(plain), tokenize(question), STATS, lambda p: 0.5, "diagnose", SectionWeights()
    )
    assert len(choose_parts(scored, "diagnose", SectionWeights())) == 2


def chosen_headings(text: str, scored: list[tuple[str, float, float]], intent: str) -> list[str]:
    """``choose_parts`` over the named parts of ``text``, scored as given."""
    parts = {p.heading: p for p in parts_of(text)}
    ranked = [ScoredPart(parts[h], score, lexical) for h, score, lexical in scored]
    return [c.part.heading for c in choose_parts(ranked, intent, SectionWeights())]  # type: ignore[arg-type]


def test_a_bare_alert_gets_the_runbooks_own_diagnosis_beside_the_action() -> None:
    # the Diagnosis section shares no word with the question: it still goes with the action
    scored = [("Restart pgbouncer", 1.0, 0.6), ("Diagnosis", 0.7, 0.0)]
    assert chosen_headings(TEXT, scored, "unspecified") == ["Restart pgbouncer", "Diagnosis"]
    # a nested check section with none of the question's words is filler, not the companion
    nested = TEXT.replace("## Diagnosis", "## Dashboards\n\n### Pool queries")
    scored = [("Restart pgbouncer", 1.0, 0.6), ("Pool queries", 0.7, 0.0)]
    assert chosen_headings(nested, scored, "unspecified") == ["Restart pgbouncer"]


def test_the_check_before_acting_beats_a_section_that_only_restates_the_alert() -> None:
    """A bare alert or "what do I do": the action, then the runbook's own Diagnosis, even
    when the section that restates the alert scores closer to the lead."""
    explained = TEXT.replace("## Symptoms", "## Meaning")
    scored = [("Restart pgbouncer", 1.0, 0.6), ("Meaning", 0.95, 0.5), ("Diagnosis", 0.7, 0.1)]
    for intent in ("unspecified", "act"):
        assert chosen_headings(explained, scored, intent) == ["Restart pgbouncer", "Diagnosis"]
    # with no check of its own in the runbook, the close part is still quoted
    assert chosen_headings(explained, scored[:2], "unspecified") == ["Restart pgbouncer", "Meaning"]
    # asked what it means, the close part stays (no check is wanted), and goes first
    assert chosen_headings(explained, scored, "meaning") == ["Meaning", "Restart pgbouncer"]


def test_the_companion_is_found_below_a_heading_every_part_shares() -> None:
    """One wrapping section over the whole runbook (or the runbook's own heading in a file
    of runbooks): its Diagnosis is still the runbook's top-level Diagnosis."""
    demoted = TEXT.replace("\n### ", "\n#### ").replace("\n## ", "\n### ")
    head, rest = demoted.split("\n", 1)
    wrapped = f"{head}\n\n## Orders DB runbook\n{rest}"
    scored = [("Restart pgbouncer", 1.0, 0.6), ("Diagnosis", 0.7, 0.0)]
    assert chosen_headings(wrapped, scored, "unspecified") == ["Restart pgbouncer", "Diagnosis"]


def test_what_do_i_do_leads_with_the_action_even_when_the_check_scores_higher() -> None:
    scored = [("Diagnosis", 1.0, 0.8), ("Restart pgbouncer", 0.95, 0.5)]
    assert chosen_headings(TEXT, scored, "act") == ["Restart pgbouncer", "Diagnosis"]
    # a diagnosis question keeps the diagnosis first
    assert chosen_headings(TEXT, scored, "diagnose")[0] == "Diagnosis"


FLAT = """# EtcdMembersDown

## Meaning

This alert fires when an etcd member is down.

## Impact

The cluster keeps quorum while only one member is down.

## Diagnosis

Check which member is down with `etcdctl endpoint health`.

## Mitigation

Reboot the node of the member that is down.
"""


def test_asked_what_to_do_what_the_alert_means_restates_it() -> None:
    """ "… firing, what do i do": Meaning and Impact restate the alert the engineer is
    looking at, as Symptoms do; the action and the check come first."""

    def order(what_to_do: bool) -> list[str]:
        got = rank_parts(
            parts_of(FLAT),
            tokenize("EtcdMembersDown firing what do i do"),
            STATS,
            lambda p: 0.5 if p.heading in ("Meaning", "Impact") else 0.4,
            "act",
            SectionWeights(),
            what_to_do=what_to_do,
        )
        return [s.part.heading for s in got]

    asked = order(True)
    assert asked.index("Mitigation") < asked.index("Meaning")
    assert asked.index("Diagnosis") < asked.index("Impact")
    # any other question about acting ("can i just silence it") may still be answered
    # from what the alert means: nothing is set back
    assert order(False)[0] in ("Meaning", "Impact")


def test_asked_what_to_do_with_the_check_leading_the_action_beside_it_comes_first() -> None:
    """The runbook's Diagnosis leads on its words, its own Mitigation sits beside it with
    none: both are quoted, and for "what do i do" the action first."""
    scored = [("Diagnosis", 1.0, 0.9), ("Mitigation", 0.3, 0.0), ("Meaning", 0.2, 0.5)]
    parts = {p.heading: p for p in parts_of(FLAT)}
    ranked = [ScoredPart(parts[h], score, lexical) for h, score, lexical in scored]
    headings = [c.part.heading for c in choose_parts(ranked, "act", SectionWeights(), None, True)]
    assert headings == ["Mitigation", "Diagnosis"]
    # a question that names a cause the check confirms: the check, then the action
    assert chosen_headings(FLAT, scored, "act") == ["Diagnosis", "Mitigation"]
    # a question about the check only: no action is added
    assert chosen_headings(FLAT, scored, "diagnose") == ["Diagnosis"]


def test_how_do_i_leads_with_the_steps_before_the_section_that_explains_the_alert() -> None:
    explained = TEXT.replace("## Symptoms", "## Meaning")
    scored = [("Meaning", 1.0, 0.8), ("Restart pgbouncer", 0.95, 0.5)]
    assert chosen_headings(explained, scored, "procedure") == ["Restart pgbouncer", "Meaning"]
    # a check that is itself the procedure asked for stays first
    scored = [("Diagnosis", 1.0, 0.8), ("Restart pgbouncer", 0.95, 0.5)]
    assert chosen_headings(TEXT, scored, "procedure")[0] == "Diagnosis"


def test_does_it_matter_leads_with_what_it_means_before_the_steps() -> None:
    """The action leads on the question's words, the Impact beside it is nearly as
    strong: asked whether it matters, what it means goes first."""
    scored = [("Mitigation", 1.0, 0.7), ("Impact", 0.9, 0.4)]
    assert chosen_headings(FLAT, scored, "meaning") == ["Impact", "Mitigation"]
    # asked what to do, the same two keep the action first
    assert chosen_headings(FLAT, scored, "act") == ["Mitigation", "Impact"]


LEAD_IN = """# Etcd low space

## Diagnosis

The following two approaches can be used for the diagnosis.

### CLI checks

Run `etcdctl endpoint status -w table` on an etcd pod.

### PromQL queries

Compare etcd_mvcc_db_total_size_in_bytes with the quota.

## Impact

Writes fail.

## Background

Etcd keeps every revision until it is compacted.

### History

Written in 2019.
"""


def test_a_lead_in_is_never_quoted_alone_its_subsections_are() -> None:
    parts = parts_of(LEAD_IN)
    got = ranked("which diagnosis shows the etcd low space", "diagnose", parts)
    headings = [p.heading for p in got]
    assert "Diagnosis" not in headings  # "the following two approaches" shows nothing
    assert got[0].heading in ("CLI checks", "PromQL queries")
    # a short section that stands on its own stays: it points nowhere ahead
    assert "Background" in headings and "Impact" in headings


INDEXED = """# Pgbouncer Service

## Troubleshooting Pointers

* [Pgbouncer connection management](pgbouncer-connections.md)
* [Removing a pgbouncer instance](pgbouncer-remove-instance.md)
* [Pgbouncer saturation](pgbouncer-saturation.md)

## Pooling mode

Pgbouncer runs in transaction pooling mode: a server connection goes back to the pool
when the transaction ends.
"""


def test_a_list_of_links_is_never_quoted_as_the_answer() -> None:
    got = ranked(
        "pgbouncer troubleshooting connection saturation", "unspecified", parts_of(INDEXED)
    )
    assert [p.heading for p in got] == ["Pooling mode"]
    # a document of nothing but links keeps them: it is an index page (ranked elsewhere)
    only_links = INDEXED.split("## Pooling mode")[0]
    assert [p.heading for p in ranked("pgbouncer", "unspecified", parts_of(only_links))] == [
        "Troubleshooting Pointers"
    ]


STUBBED = TEXT.replace(
    "### Restart pgbouncer\n\n1. Drain traffic from the orders API.\n"
    "2. `kubectl -n orders rollout restart deploy/pgbouncer`\n3. Watch cl_waiting fall.\n",
    "### Restart pgbouncer\n\nTODO: command needed\n",
)


def test_a_section_not_written_yet_is_never_quoted() -> None:
    assert "TODO" in STUBBED
    got = ranked("orders pgbouncer what do i do", "act", parts_of(STUBBED))
    assert "Restart pgbouncer" not in [p.heading for p in got]
    for body, is_stub in (
        ("TODO", True),
        ("TODO: Command needed", True),
        ("<!-- fill in -->\n", True),
        ("N/A", True),
        ("_TODO: this playbook has not been written yet._", True),
        ("**Table of Contents**\n\n[TOC]\n", True),
        ("[[_TOC_]]", True),
        ("**Table of Contents**\n\n- [Overview](#overview)", False),
        ("**TBD**", True),
        ("_Note_: restart the pod first.", False),
        ("Restart the pod.", False),
        ("TODO list:\n1. drain\n2. restart", False),
        ("- > Basic troubleshooting order\n- > Useful scripts or commands\n", True),
        ("- Check the logs.\n- > Useful scripts or commands\n", False),
        ("> **WARNING:** never restart the primary.", False),
    ):
        assert stub(body) is is_stub, body


def test_what_counts_as_a_lead_in() -> None:
    parts = parts_of(LEAD_IN)
    by = {p.heading: p for p in parts}
    following = {
        p.heading: parts[i + 1] if i + 1 < len(parts) else None for i, p in enumerate(parts)
    }
    assert lead_in(by["Diagnosis"], following["Diagnosis"])
    assert not lead_in(by["Background"], following["Background"])  # says something itself
    assert not lead_in(by["Impact"], following["Impact"])  # no subsections
    assert not lead_in(by["CLI checks"], following["CLI checks"])  # a sibling follows
    colon = parts_of("# T\n\n## Fix\n\nPick one:\n\n### Restart\n\nRestart it.\n")
    assert lead_in(colon[0], colon[1])
    steps = parts_of("# T\n\n## Fix\n\n1. Do the following.\n\n### Restart\n\nRestart it.\n")
    assert not lead_in(steps[0], steps[1])  # a list is content


RUNBOOK_WITH_REPEATS = """# etcdNoLeader

## Diagnosis

The following two checks can be used:

### Member status

Run `etcdctl endpoint status --cluster -w table`.

### Commands & logs

Read the etcd pod's logs.

## Mitigation

### Commands & logs

Restart the member: `kubectl -n kube-system delete pod etcd-<node>`.
"""


def etcd_parts() -> list[Part]:
    d = markdown_document(RUNBOOK_WITH_REPEATS, "etcdNoLeader", "etcd/etcdNoLeader.md")
    return document_parts(chunk_document(d, 0))


def test_a_link_anchor_names_a_heading_as_github_writes_it() -> None:
    parts = etcd_parts()
    assert anchored_heading(parts, "mitigation") == ("etcdNoLeader", "Mitigation")
    assert anchored_heading(parts, "Mitigation") == ("etcdNoLeader", "Mitigation")
    # punctuation dropped, spaces as hyphens; a repeated heading numbered in file order
    first = ("etcdNoLeader", "Diagnosis", "Commands & logs")
    second = ("etcdNoLeader", "Mitigation", "Commands & logs")
    assert anchored_heading(parts, "commands--logs") == first
    assert anchored_heading(parts, "commands--logs-1") == second
    assert anchored_heading(parts, "rollback") is None
    assert anchored_heading(parts, "---") is None


def test_the_anchored_section_leads_with_its_best_part() -> None:
    parts = etcd_parts()
    # as a question about logs would score them: the Mitigation's logs part first
    scores = {"Mitigation > Commands & logs": 1.0, "Diagnosis > Commands & logs": 0.8}
    ranked = sorted(
        (ScoredPart(p, scores.get(p.section, 0.2), 0.0) for p in quotable(parts)),
        key=lambda s: -s.score,
    )
    assert "Diagnosis" not in {s.part.section for s in ranked}  # it only introduces
    # Diagnosis only introduces its checks: the best of them leads, scored as the best
    led = lead_with(ranked, ("etcdNoLeader", "Diagnosis"))
    assert led[0].part.section == "Diagnosis > Commands & logs" and led[0].anchored
    assert led[0].score == 1.0
    assert [s.part for s in led[1:]] == [s.part for s in ranked if s.part is not led[0].part]
    # the runbook itself (every part lies under it), or no heading: unchanged
    assert lead_with(ranked, ("etcdNoLeader",)) == ranked
    assert lead_with(ranked, ("Rollback",)) == ranked
    assert lead_with(ranked, None) == ranked


def test_an_anchored_check_stays_first_for_what_do_i_do() -> None:
    parts = {p.heading: p for p in parts_of(TEXT)}
    ranked = [
        ScoredPart(parts["Diagnosis"], 1.0, 0.8, anchored=True),
        ScoredPart(parts["Restart pgbouncer"], 0.95, 0.5),
    ]
    chosen = choose_parts(ranked, "act", SectionWeights())
    assert [c.part.heading for c in chosen] == ["Diagnosis", "Restart pgbouncer"]


PLAYBOOK = """# pgbouncer_single_core

## Overview

The pgbouncer_single_core alert fires when the CPU used by the PgBouncer process
saturates its single core: every query through pgbouncer slows down.

## Verification

When it fires, check that the pgbouncer single core saturation is close to 1 on more
than one pgbouncer node before adding nodes.

# Escalation

For escalation, ask in #database.
"""


def test_the_alert_name_tells_which_runbook_not_which_section() -> None:
    parts = parts_of(PLAYBOOK)
    question = "pgbouncer_single_core firing, which slack channel do i escalate to"
    terms = list(dict.fromkeys(tokenize(question)))
    stats = TermStats.from_doc_terms({"playbook": tokenize(PLAYBOOK), "other": ["unrelated"]})

    def first(naming: frozenset[str]) -> str:
        got = rank_parts(
            parts,
            terms,
            stats,
            lambda p: 0.5,
            "escalate",
            SectionWeights(),
            frozenset({"pgbouncersinglecore"}),
            naming,
        )
        return got[0].part.heading

    # (the playbook template puts Escalation under a top heading of its own, away from
    # the alert's name) the name's words fill Overview and Verification: as evidence,
    # they win
    assert first(frozenset()) != "Escalation"
    assert first(naming_terms(question, {"pgbouncersinglecore"})) == "Escalation"


VALUE_TEXT = """# Orders consumer lag

## Symptoms

- `OrdersConsumerLag` fires when the lag stays above 50000 for 10 minutes.

## Mitigation

Scale the orders consumers and watch the orders lag fall.
"""


def test_a_value_asked_for_leads_from_the_part_that_gives_it() -> None:
    parts = parts_of(VALUE_TEXT)
    question = "orders lag: how long before it fires"
    terms = list(tokenize(question))

    def heads(detail: Detail | None) -> list[str]:
        scored = rank_parts(
            parts, terms, STATS, lambda p: 0.5, "unspecified", SectionWeights(), detail=detail
        )
        chosen = choose_parts(scored, "unspecified", SectionWeights(), detail)
        return [s.part.own_path[-1] for s in chosen]

    # asked nothing in particular, a bare question gets the action
    assert heads(None)[0] == "Mitigation"
    # asked how long, the Symptoms that give "10 minutes" lead: a value asked for sets
    # back no kind of section
    assert asked_detail(question) == DURATION
    assert heads(DURATION)[0] == "Symptoms"


STATS_STEPS = """# Sidekiq stats no longer showing

## Symptoms

The Total Running Jobs panel is a flat line.

## 1. Identify the Redis master

Run `redis-cli -p 26379 sentinel get-master-addr-by-name mymaster`.

## 2. Verify gitlab-monitor is running

Run `sv status gitlab-monitor` on the master; the running jobs stats come from it.

## 3. Verify Prometheus scrapes it

Check the target page for gitlab-monitor.
"""


def test_asked_where_to_start_the_first_numbered_step_leads() -> None:
    parts = parts_of(STATS_STEPS)
    by = {p.heading: p for p in parts}
    scored = {h: ScoredPart(p, 0.0, 0.0) for h, p in by.items()}
    second, third = (
        scored["2. Verify gitlab-monitor is running"],
        scored["3. Verify Prometheus scrapes it"],
    )
    ranked = [second, third, scored["Symptoms"], scored["1. Identify the Redis master"]]
    got = from_the_first_step([second, third], ranked)
    assert [s.part.heading for s in got] == [
        "1. Identify the Redis master",
        "2. Verify gitlab-monitor is running",
    ]
    # the first step, or a part that is no step, leads already: nothing changes
    assert from_the_first_step([scored["Symptoms"]], ranked) == [scored["Symptoms"]]
    first = scored["1. Identify the Redis master"]
    assert from_the_first_step([first, second], ranked) == [first, second]


WAL_ALERT = """# PatroniWALGenerationSaturation

## Overview

Write-ahead log generation on the primary is above its saturation threshold.

## Alert Behavior

The alert clears once WAL generation falls below 150 MB/s. It should not be silenced:
even when it resolves by itself, find out what wrote so much.

## Possible Resolutions

Look at the largest writers in pg_stat_statements and throttle the batch job.
"""


def test_asked_whether_to_act_the_part_that_speaks_of_it_stays_before_silent_steps() -> None:
    """ "can i just silence it if it flaps": the part that says (Alert Behavior: "should
    not be silenced") leads; the steps that share none of the question's words follow.
    Asked what to do, the steps still lead."""
    parts = parts_of(WAL_ALERT)
    stats = TermStats.from_doc_terms({"w": tokenize(WAL_ALERT), "other": tokenize("unrelated")})
    question = "it fired and cleared itself after 10 min. can i just silence it if it flaps again?"
    scored = rank_parts(parts, tokenize(question), stats, lambda p: 0.4, "act", SectionWeights())
    assert scored[0].part.heading == "Alert Behavior"
    chosen = choose_parts(scored, "act", SectionWeights(second_ratio=0.3))
    assert [c.part.heading for c in chosen] == ["Alert Behavior", "Possible Resolutions"]
    asked = choose_parts(scored, "act", SectionWeights(second_ratio=0.3), what_to_do=True)
    assert [c.part.heading for c in asked] == ["Possible Resolutions", "Alert Behavior"]


ROTATE_TOKEN = """# API token expires soon

One or more API tokens are about to expire.

## Rotate an API token

> This procedure is manual for now.

The overnight sync overwrites staging, so only production and integration need it.

### Special cases

If the token is for the tariff service, see the wiki.

### 1. Issue a new token

1. Open the APIs page.
2. Choose **Add application token**.

### 2. Update the secret

1. Run the sync job:

   ```sh
   kubectl create job --from=cronjob/token-sync token-sync-now
   ```

### 3. Revoke the old token

1. Choose **Revoke** next to the old token.
"""


def test_a_section_that_only_introduces_its_steps_is_followed_by_the_first_step() -> None:
    parts = parts_of(ROTATE_TOKEN)
    scored = ranked_parts("how do i rotate an api token", "procedure", parts)
    by = {s.part.heading: s for s in scored}
    intro = by["Rotate an API token"]
    assert not intro.part.shows_steps  # a note and a paragraph: nothing to do
    below = steps_below(intro, scored)
    # the numbered steps begin at 1, whichever step matched the words best
    assert below is not None and below.part.heading == "1. Issue a new token"
    assert step_note(below.part, parts) == "step 1 of 3"
    # a part that shows steps itself needs none below it
    assert steps_below(by["2. Update the secret"], scored) is None


def test_unnumbered_subsections_give_the_best_matching_one_with_steps() -> None:
    text = (
        ROTATE_TOKEN.replace("### 1. Issue", "### Issue")
        .replace("### 2. Update", "### Update")
        .replace("### 3. Revoke", "### Revoke")
    )
    parts = parts_of(text)
    scored = ranked_parts("how do i update the secret for an api token", "procedure", parts)
    intro = next(s for s in scored if s.part.heading == "Rotate an API token")
    below = steps_below(intro, scored)
    assert below is not None and below.part.heading == "Update the secret"
    assert step_note(below.part, parts) is None  # no numbered steps to count
    # "Special cases" is prose: a section of prose and no steps below has none to add
    prose = next(s for s in scored if s.part.heading == "Special cases")
    assert steps_below(prose, scored) is None


def test_what_shows_steps() -> None:
    def part(body: str) -> Part:
        return parts_of(f"# T\n\n## S\n\n{body}\n")[-1]

    assert part("1. Open the page.").shows_steps
    assert part("- restart the pod").shows_steps
    assert part("```sh\nkubectl get pods\n```").shows_steps
    assert part("Run this:\n\n    kubectl get pods").shows_steps
    assert part("$ kubectl get pods").shows_steps
    # prose, a warning, a code span in a sentence: no steps
    assert not part("> Be careful: this deletes data.").shows_steps
    assert not part("The `api_user` field names the user. Rotate it before it expires.").shows_steps


QUORUM_LOST = """# MonQuorumLost

## Meaning

Only one monitor pod of three is running: the storage cluster has lost quorum.

## Diagnosis

Turn on logging to files, then read the monitor logs:

```sh
ceph config set global log_to_file true
```

## Mitigation

[Restore mon quorum](https://docs.example.com/restore-mon-quorum)
[Troubleshooting monitors](https://docs.example.com/troubleshooting-mon)
"""


def test_an_action_section_of_links_is_shown_after_the_check() -> None:
    parts = parts_of(QUORUM_LOST)
    scored = ranked_parts("MonQuorumLost what do i do", "act", parts, what_to_do=True)
    # a list of links holds no answer by its words: it is never ranked ...
    assert "Mitigation" not in [s.part.heading for s in scored]
    chosen = choose_parts(scored, "act", SectionWeights(), what_to_do=True)
    assert chosen[0].part.heading == "Diagnosis"
    # ... but asked what to do, the engineer is shown where the steps are
    elsewhere = action_elsewhere(chosen, parts)
    assert elsewhere is not None and elsewhere.heading == "Mitigation"
    # an action quoted already, or a placeholder ("TODO"), adds nothing
    acting = ranked_parts("restart pgbouncer", "act")
    assert action_elsewhere(acting[:1], parts_of(TEXT)) is None
    todo = QUORUM_LOST.split("## Mitigation")[0] + "## Mitigation\n\nTODO\n"
    assert action_elsewhere(chosen, parts_of(todo)) is None


def test_a_close_second_part_with_none_of_the_questions_words_is_filler() -> None:
    """In a short runbook every part scores alike on the title they share: a part nearly
    as strong as the lead is quoted beside it only when it holds some of the question's
    words itself, or is the kind of section asked for."""
    parts = {p.heading: p for p in parts_of(TEXT)}

    def chosen(second: str, own: float, intent: str = "diagnose") -> list[str]:
        scored = [
            ScoredPart(parts["Diagnosis"], 1.0, 0.6, own_lexical=0.5),
            ScoredPart(parts[second], 0.95, 0.5, own_lexical=own),
        ]
        return [c.part.heading for c in choose_parts(scored, intent, SectionWeights())]  # type: ignore[arg-type]

    assert chosen("Symptoms", 0.0) == ["Diagnosis"]  # only the title's words: filler
    assert chosen("Symptoms", 0.2) == ["Diagnosis", "Symptoms"]  # words of its own
    # asked what to do, the action section is the kind asked for, words or not
    both = chosen("Fail over to the replica", 0.0, "act")
    assert sorted(both) == ["Diagnosis", "Fail over to the replica"], both


DRAIN = """# Draining a Kubernetes node

Use this procedure before hardware maintenance or when a node is unhealthy.

## Before you begin

- You need `cluster-admin` on the target cluster.
- Confirm no PodDisruptionBudget blocks eviction: `kubectl get pdb -A`.

## Procedure

### Step 1: Cordon the node

```
kubectl cordon <node>
```

### Step 2: Drain the node

```
kubectl drain <node> --ignore-daemonsets --delete-emptydir-data --timeout=10m
```

### Step 3: Verify

```
kubectl get pods -A -o wide --field-selector spec.nodeName=<node>
```

Only DaemonSet pods should remain.

## Rollback

Run `kubectl uncordon <node>` to allow scheduling again.
"""


def drain_parts() -> list[Part]:
    d = markdown_document(DRAIN, "Draining a Kubernetes node", "platform/node-drain.md")
    return document_parts(chunk_document(d, 0, DEFAULT_MAX_TOKENS))


def test_a_heading_that_repeats_the_title_is_no_evidence_for_its_part() -> None:
    parts = drain_parts()
    stats = TermStats.from_doc_terms({"drain": tokenize(DRAIN), "other": tokenize("unrelated")})

    def lead(question: str, intent: str, titled: frozenset[str]) -> str:
        scored = rank_parts(
            parts,
            tokenize(question),
            stats,
            lambda p: 0.5,
            intent,  # type: ignore[arg-type]
            SectionWeights(),
            titled=titled,
        )
        return scored[0].part.heading

    question = "what do i need before draining a node"
    title = frozenset(tokenize("Draining a Kubernetes node"))
    # "drain" and "node" say which runbook: what is asked of it picks the part
    assert lead(question, "prepare", title) == "Before you begin"
    # (read as evidence, the step's heading "Drain the node" outscored the prerequisites)
    assert lead(question, "prepare", frozenset()) == "Step 2: Drain the node"
    # words of its own still pick a step
    assert lead("how do i cordon the node", "procedure", title) == "Step 1: Cordon the node"


def test_a_question_names_the_procedure_when_the_step_heading_adds_none_of_its_words() -> None:
    parts = drain_parts()
    drain = next(p for p in parts if p.heading.startswith("Step 2"))
    title = "Draining a Kubernetes node"
    # "drain" and "node" of "Step 2: Drain the node" are the title's words
    assert names_the_procedure(tokenize("how do i drain a node"), drain, title)
    cordon = next(p for p in parts if p.heading.startswith("Step 1"))
    assert not names_the_procedure(tokenize("how do i cordon the node"), cordon, title)
    # a heading that is no procedure step names nothing
    before = next(p for p in parts if p.heading == "Before you begin")
    assert not names_the_procedure(tokenize("how do i drain a node"), before, title)


def test_numbered_steps_shown_together_are_counted_once_on_the_last() -> None:
    parts = drain_parts()
    step = {p.heading[:6]: p for p in parts if p.heading.startswith("Step")}
    one, two, three = step["Step 1"], step["Step 2"], step["Step 3"]
    assert step_note(two, parts) == "step 2 of 3"
    assert step_note(two, parts, [one, two]) == "steps 1-2 of 3"
    assert step_note(one, parts, [one, two]) is None  # said on the last one
    assert step_note(three, parts, [one, three]) == "steps 1, 3 of 3"
    assert step_note(three, parts, [one, two, three]) is None  # every step is shown


def test_a_documents_numbered_sections_are_no_procedure_steps() -> None:
    text = (
        "# 1. Overview\n\nNightly.\n\n# 2. Restoring\n\n1. Create it.\n\n# 3. Escalation\n\nDBA.\n"
    )
    d = markdown_document(text, "Backup restore", "data/backup-restore.md")
    sections = document_parts(chunk_document(d, 0, DEFAULT_MAX_TOKENS))
    assert [p.heading for p in sections] == ["1. Overview", "2. Restoring", "3. Escalation"]
    assert not any(procedure_step(p) for p in sections)
    steps = [p for p in drain_parts() if procedure_step(p)]
    assert [p.heading[:6] for p in steps] == ["Step 1", "Step 2", "Step 3"]
    under = markdown_document(
        "# Rotate\n\n## Procedure\n\n### 1. Issue\n\nx\n\n### 2. Revoke\n\ny\n", "Rotate", "r.md"
    )
    numbered = document_parts(chunk_document(under, 0, DEFAULT_MAX_TOKENS))
    assert [p.heading for p in numbered if procedure_step(p)] == ["1. Issue", "2. Revoke"]
