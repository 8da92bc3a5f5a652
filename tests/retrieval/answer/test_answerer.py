"""Extractive answers over the sample runbooks: spans, warnings, abstention."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from bot.runtime import Runtime
from core.models import Answer, SearchFilter
from retrieval.answer.answer_config import CALIBRATED_MODEL, AnswerConfig
from retrieval.answer.answerer import ExtractiveAnswerer
from retrieval.answer.confidence import Evidence
from retrieval.search.embeddings import FastEmbedder
from tests.conftest import ROOT, SAMPLE_RUNBOOKS, runtime_over
from tests.retrieval.answer.test_composer import DRAIN

EVERYONE = SearchFilter(groups=("everyone",))


def assert_verbatim(answer: Answer) -> None:
    for c in (*answer.citations, *answer.related):
        original = (SAMPLE_RUNBOOKS / c.path).read_text(encoding="utf-8")
        assert original[c.start : c.end] == c.quote, c.path
        assert original.count("\n", 0, c.start) + 1 == c.line
        assert c.quote.strip()


QUESTIONS = [
    "checkout-api database connection refused",
    "CHK-5023 errors on checkout",
    "payment provider p99 latency over 2s, how do we fail over",
    "users getting 403 access denied from identity service",
    "order events consumer lag keeps growing",
    "tls cert expires in 3 days",
    "node disk almost full what can i delete",
    "elasticsearch cluster status red unassigned shards",
    "email bounce rate high",
    "inventory cache stampede after deploy",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_every_quote_is_a_verbatim_span(sample_runtime: Runtime, question: str) -> None:
    answer = sample_runtime.extractive.answer(question, EVERYONE)
    assert answer.state == "answer", (question, answer.reason, answer.confidence)
    assert answer.citations
    assert_verbatim(answer)
    c = answer.citations[0]
    assert c.revision
    assert c.url is not None and c.url.endswith(f"#L{c.line}")
    assert c.updated is not None and c.age_days is not None
    assert answer.generation >= 1


def test_best_section_for_checkout_question(sample_runtime: Runtime) -> None:
    answer = sample_runtime.extractive.answer("checkout-api database connection refused")
    c = answer.citations[0]
    assert c.path == "checkout-api/database-connection-failures.md"
    assert c.owner == "@checkout-oncall"
    assert any(r.doc_type == "incident" for r in answer.related)
    assert answer.search_link and "checkout-api" in answer.search_link


def test_a_question_about_what_happened_is_answered_from_the_incident_write_up(
    sample_runtime: Runtime,
) -> None:
    asked = sample_runtime.extractive.answer(
        "what actually caused the big checkout outage in september", EVERYONE
    )
    assert asked.state == "answer"
    first = asked.citations[0]
    assert first.path == "incidents/2026-09-14-checkout-outage.md"
    assert first.section == "Root cause"
    assert asked.text.startswith("From the incident write-up")
    assert_verbatim(asked)
    # the runbook still answers a question about the failure itself; the write-up is related
    runbook = sample_runtime.extractive.answer("CHK-5023 errors on checkout", EVERYONE)
    assert runbook.citations[0].path == "checkout-api/database-connection-failures.md"
    assert [r.path for r in runbook.related] == ["incidents/2026-09-14-checkout-outage.md"]


def test_a_typo_is_read_as_the_word_the_runbooks_use(sample_runtime: Runtime) -> None:
    typed = sample_runtime.extractive.answer(
        "checkout api db conection refused, what do i do", EVERYONE
    )
    spelled = sample_runtime.extractive.answer(
        "checkout api db connection refused, what do i do", EVERYONE
    )
    assert typed.state == spelled.state == "answer"
    assert [(c.path, c.section) for c in typed.citations] == [
        (c.path, c.section) for c in spelled.citations
    ]
    assert_verbatim(typed)
    assert typed.read_as == (("conection", "connection"),)
    assert typed.question == "checkout api db conection refused, what do i do"
    # a product no runbook mentions is still a name the runbooks do not know
    found = sample_runtime.extractive.retrieve("coredns timing out inside the cluster")
    assert found.question.unknown == ("coredns",)


def test_an_alert_name_typed_in_lower_case_is_answered_as_the_alert(
    sample_runtime: Runtime,
) -> None:
    typed = sample_runtime.extractive.answer("checkoutapidbconnectionerrors what do i do")
    written = sample_runtime.extractive.answer("CheckoutApiDbConnectionErrors what do i do")
    assert typed.state == written.state == "answer"
    assert [(c.path, c.section) for c in typed.citations] == [
        (c.path, c.section) for c in written.citations
    ]
    assert typed.question == "checkoutapidbconnectionerrors what do i do"


STRIPE_KEY = """# Payments: Stripe secret key rotation

Owner: @payments-oncall

## Meaning

payments-api signs every charge with the Stripe secret key. The key is rotated every
90 days, and at once when it leaks into a log, a ticket or a chat.

## Mitigation

When the Stripe secret key leaks, roll it in the Stripe dashboard under Developers,
API keys, with an expiry of one hour for the old key. Store the new key in Vault where
payments-api reads it, restart payments-api so it picks the key up, and confirm that
charges succeed before the old key expires.
"""


def with_samples(extra: dict[str, str]) -> dict[str, str]:
    """The sample runbooks (path -> text) with ``extra`` files beside them."""
    files = {
        str(p.relative_to(SAMPLE_RUNBOOKS)): p.read_text() for p in SAMPLE_RUNBOOKS.rglob("*.md")
    }
    return files | extra


def test_a_question_for_one_detail_is_not_answered_without_it(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    files = with_samples({"payments/stripe-key-rotation.md": STRIPE_KEY})
    with runtime_over(files, tmp_path, embedder) as rt:
        how = rt.extractive.answer("the stripe secret key leaked into a log, how do i rotate it")
        assert how.state == "answer"
        assert how.citations[0].path == "payments/stripe-key-rotation.md"
        # the runbook gives the rotation period and the old key's expiry: quoted
        often = rt.extractive.answer("how often is the stripe secret key rotated?")
        assert often.state == "answer"
        assert often.citations[0].path == "payments/stripe-key-rotation.md"
        assert any("90 days" in c.quote for c in often.citations)
        # it shows no command, no key length and no setting: the runbook is offered, not
        # quoted as if it answered
        for question, reason, what in (
            ("give me the cli command for rotating the stripe secret key", "no-command", "command"),
            ("what key size is the stripe secret key, how many bits?", "no-value", "value"),
            ("which env var holds the stripe secret key for payments-api", "no-value", "value"),
        ):
            missing = rt.extractive.answer(question)
            assert missing.state == "unsure" and missing.reason == reason, question
            assert not missing.citations
            # the confidence it reports is the one after the check, below the answer bar
            assert missing.confidence < CALIBRATED_MODEL.answer_at, question
            assert missing.suggestions[0].path == "payments/stripe-key-rotation.md"
            # asked in the thread of an alert whose runbook it is, the runbook is the
            # answer however sure: quoted, saying that what was asked for is not in it
            sid = next(
                s.source_id for s in missing.suggestions if s.path.startswith("payments/stripe")
            )
            pinned = rt.extractive.answer(question, EVERYONE.model_copy(update={"sources": (sid,)}))
            assert pinned.state == "answer" and pinned.citations, question
            said = [w.message for w in pinned.warnings if w.kind == "detail-not-shown"]
            assert len(said) == 1 and what in said[0], question
        assert not [w for w in often.warnings if w.kind == "detail-not-shown"]
        # a runbook that shows the command answers the same kind of question
        shown = rt.extractive.answer("whats the cmd to flip traffic to the secondary provider")
        assert shown.state == "answer" and shown.citations
        assert not [w for w in shown.warnings if w.kind == "detail-not-shown"]


ONE_OFF_JOBS = """# One-off jobs

Some work runs once, beside the app rather than in it: a schema change, a data fix, a
console session.

## Run a job in a fresh container

`appctl run` starts a fresh container from the image the app is deployed with and runs
the job in it. The container stays after the job ends unless `--rm` is given, which
removes it when the job exits:

```shell
appctl --rm run orders-api bundle exec rake db:migrate
```

## List the jobs that ran

```shell
appctl ps:jobs orders-api
```
"""


def test_an_ordinary_word_before_command_names_no_tool(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """ "a migration command" asks for a command, not for a tool called migration: no
    runbook's code writes the word, so any command shown answers it. A tool's name that
    no code writes is still not answered by another tool's command."""
    files = with_samples({"platform/one-off-jobs.md": ONE_OFF_JOBS})
    with runtime_over(files, tmp_path, embedder) as rt:
        for asked in (
            "whats the migration command for a one-off job",
            "give me the schema change command for a one-off job",
        ):
            answer = rt.extractive.answer(asked)
            assert answer.state == "answer", (asked, answer.state, answer.reason)
            assert answer.citations[0].path == "platform/one-off-jobs.md"
            assert any("appctl --rm run" in c.quote for c in answer.citations)
        missing = rt.extractive.answer("whats the jobctl command to run a one-off migration")
        assert missing.state != "answer" and not missing.citations


CPU_THROTTLING = """---
title: CPU Throttling High
---

# CPU Throttling High

## Meaning

Processes in a container are throttled: they use their whole CPU limit.

## Mitigation

Raise the container's CPU limit, or remove it and keep the request, when the
application is slow because of the throttling.
"""


def test_an_alert_named_only_by_its_file_name_is_no_missing_term(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """The alert's name is the file's name; the text spells it in words. A question that
    gives the name is not missing a term the runbooks lack."""
    files = with_samples({"kubernetes/CPUThrottlingHigh.md": CPU_THROTTLING})
    with runtime_over(files, tmp_path, embedder) as rt:
        r = rt.extractive.retrieve("CPUThrottlingHigh on payments, should i raise the cpu limit?")
        lead = rt.extractive.lead(r)
        assert lead is not None and lead.doc.path == "kubernetes/CPUThrottlingHigh.md"
        assert lead.evidence is not None
        assert lead.named
        assert lead.evidence.absent == 0.0  # no term of the question is unknown to the index
        assert lead.evidence.coverage > 0.85  # the name counts as the document's own


RESTART_WORKERS = """# Gracefully restart the render workers

Restart render workers one at a time so the pool never empties.

## Staging

```bash
knife ssh 'roles:stg-render' 'sudo systemctl restart render-worker; sleep 5'
```

## Production

```bash
knife ssh 'roles:prd-render' 'sudo systemctl restart render-worker; sleep 5'
```
"""


def test_shorthand_in_the_question_matches_the_long_form_the_runbook_writes(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    files = {"render/restart-workers.md": RESTART_WORKERS}
    files["render/other.md"] = "# Render cache\n\nThe render cache holds pages for an hour.\n"
    with runtime_over(files, tmp_path, embedder) as rt:
        got = rt.extractive.answer("how do i restart the render workers on prod")
        assert got.state == "answer"
        assert got.citations[0].section.endswith("Production")
        # the index finds the long form from the shorthand alone
        hits = rt.searcher.search_chunks("prod")
        assert hits and hits[0].keyword_score is not None
        assert "Production" in hits[0].chunk.heading_path


KSM_LIST_ERRORS = """# KubeStateMetricsListErrors

## Meaning

kube-state-metrics is experiencing errors in list operations.

## Diagnosis

Check the kube-state-metrics container logs and its service account token.

## Mitigation

TODO
"""


def test_an_action_section_not_written_yet_is_said_not_quoted(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    with runtime_over({"ksm/ListErrors.md": KSM_LIST_ERRORS}, tmp_path, embedder) as rt:
        (sid,) = rt.searcher.snapshot(rt.searcher.generation()).chunks_by_source
        pinned = EVERYONE.model_copy(update={"sources": (sid,)})
        act = rt.extractive.answer("KubeStateMetricsListErrors firing, what do i do", pinned)
        assert act.state == "answer"
        assert all("TODO" not in c.quote for c in act.citations)
        assert act.citations[0].section == "Diagnosis"
        (unwritten,) = [w for w in act.warnings if w.kind == "unwritten-section"]
        assert unwritten.message == "This runbook's Mitigation section is not written yet."
        meaning = rt.extractive.answer("KubeStateMetricsListErrors what does it mean", pinned)
        assert all(w.kind != "unwritten-section" for w in meaning.warnings)


def test_an_action_heading_with_nothing_under_it_is_said_not_written(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """``## Mitigation`` followed by the next heading (or the end of the file) holds no
    text, so no part is quoted from it; the answer still says the fix is not written."""
    at_the_end = KSM_LIST_ERRORS.replace("## Mitigation\n\nTODO\n", "## Mitigation\n")
    before_more = at_the_end + "\n## Escalation\n\nPage the observability team.\n"
    empty_impact = KSM_LIST_ERRORS.replace("## Diagnosis", "## Impact\n\n## Diagnosis").replace(
        "TODO", "Restart kube-state-metrics: `kubectl -n monitoring rollout restart deploy/ksm`."
    )
    files = {"ksm/a.md": at_the_end, "ksm/b.md": before_more, "ksm/c.md": empty_impact}
    with runtime_over(files, tmp_path, embedder) as rt:
        chunks = rt.searcher.snapshot(rt.searcher.generation()).chunks_by_source
        for sid, doc_chunks in chunks.items():
            pinned = EVERYONE.model_copy(update={"sources": (sid,)})
            got = rt.extractive.answer("KubeStateMetricsListErrors firing, what do i do", pinned)
            assert got.state == "answer" and got.citations, got
            notes = [w.message for w in got.warnings if w.kind == "unwritten-section"]
            if doc_chunks[0].path == "ksm/c.md":  # an empty Impact is no missing fix
                assert notes == [], notes
                assert "rollout restart" in got.citations[0].quote
            else:
                assert notes == ["This runbook's Mitigation section is not written yet."]
                assert got.citations[0].section in ("Diagnosis", "Escalation")


PLAYBOOKS = "# Playbooks\n\n## Alerts\n\n" + "".join(
    f"### {name}\n\n{body}\n\n"
    for name, body in [
        ("StoreRulerMissedEvaluations", "_TODO: this playbook has not been written yet._"),
        ("StoreRulerFailedPushes", "Rulers cannot push samples. How to **fix**: scale the rulers."),
        ("StoreRulerFailedQueries", "Rulers cannot query. How to **fix**: check the queriers."),
        ("StoreIngesterRestarts", "An ingester restarted. Check `kubectl get events`."),
        ("StoreCompactorFailing", "Compactions fail. Read the compactor logs."),
    ]
)


def test_the_runbook_asked_about_not_written_yet_is_said_never_replaced(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """Its neighbours' fixes are not its fix: the engineer is told the playbook for the
    alert is a TODO, with its link, rather than shown another alert's playbook."""
    empty_runbook = "# KubeStateMetricsListErrors\n\n## Meaning\n\nTODO\n\n## Mitigation\n\nTBD\n"
    files = {"playbooks.md": PLAYBOOKS, "ksm/ListErrors.md": empty_runbook}
    with runtime_over(files, tmp_path, embedder) as rt:
        missed = rt.extractive.answer("StoreRulerMissedEvaluations firing, what do i do", EVERYONE)
        pushes = rt.extractive.answer("StoreRulerFailedPushes firing, what do i do", EVERYONE)
        empty = rt.extractive.answer("KubeStateMetricsListErrors firing, what do i do", EVERYONE)
    assert missed.state == "abstain" and missed.reason == "unwritten"
    assert missed.text == "The runbook for this is not written yet."
    assert not missed.citations
    (runbook,) = missed.suggestions
    assert runbook.path == "playbooks.md" and "StoreRulerMissedEvaluations" in runbook.section
    assert pushes.state == "answer" and "scale the rulers" in pushes.citations[0].quote
    assert empty.reason == "unwritten"  # a runbook whose every section is a TODO


def test_stale_runbook_carries_age_and_owner(sample_runtime: Runtime) -> None:
    answer = sample_runtime.extractive.answer("elasticsearch cluster red unassigned shards")
    stale = [w for w in answer.warnings if w.kind == "stale"]
    assert stale, answer.warnings
    age = (date.today() - date(2025, 6, 2)).days
    assert f"{age} days" in stale[0].message
    assert "@search-team" in stale[0].message


def test_superseded_adr_answers_from_current(sample_runtime: Runtime) -> None:
    answer = sample_runtime.extractive.answer(
        "how do i flush all user sessions from the memcached session store"
    )
    assert answer.state == "answer"
    assert answer.citations[0].path == "adr/0012-session-store-redis.md"
    kinds = {w.kind: w for w in answer.warnings}
    assert "superseded" in kinds
    assert kinds["superseded"].source_id == "runbooks:adr/0007-session-store-memcached"
    assert_verbatim(answer)


def test_ownerless_warning(sample_runtime: Runtime) -> None:
    answer = sample_runtime.extractive.answer("EmailBounceRateHigh firing, SES bounces")
    assert answer.citations[0].path == "notifications/email-delivery-failures.md"
    assert any(w.kind == "ownerless" for w in answer.warnings)


@pytest.mark.parametrize(
    "question",
    [
        "how do i reset the grafana admin password",
        "LoyaltyPointsSyncFailed alert firing, what do i do",
        "velero nightly backup ended PartiallyFailed",
    ],
)
def test_abstains_on_unanswerable(sample_runtime: Runtime, question: str) -> None:
    answer = sample_runtime.extractive.answer(question, EVERYONE)
    assert answer.state in ("abstain", "unsure"), answer
    assert answer.reason in ("no-match", "low-confidence")
    assert answer.citations == ()
    assert answer.search_link and "repo%3Aacme%2Frunbooks" in answer.search_link
    # the closest runbooks only in the "not sure" tier: below it they are unrelated ones
    assert bool(answer.suggestions) is (answer.state == "unsure")


def test_restricted_runbook_never_cited_for_everyone(sample_runtime: Runtime) -> None:
    q = "break glass emergency production database access vault"
    public = sample_runtime.extractive.answer(q, EVERYONE)
    assert all(c.path != "sre/break-glass-access.md" for c in public.citations)
    if public.state == "abstain":
        assert public.reason in ("access-denied", "low-confidence", "no-match")
    sre = sample_runtime.extractive.answer(q, SearchFilter(groups=("everyone", "sre")))
    assert sre.citations[0].path == "sre/break-glass-access.md"
    assert sre.citations[0].access == ("sre",)


def evidence(**over: float) -> Evidence:
    base = dict(dense=0.5, coverage=0.5, absent=0.0, unknown=0.0)
    base.update(over)
    return Evidence(**base)


def test_confidence_falls_with_unknown_names_and_undone_tasks() -> None:
    model = AnswerConfig().model
    p = model.probability
    assert p(evidence(unknown=1.0)) < p(evidence())
    assert p(evidence(absent=1.0)) < p(evidence())
    assert p(evidence(detail_missing=1.0)) < p(evidence())
    assert p(evidence(task_missing=1.0)) < p(evidence())
    assert 0.0 < model.suggest_at <= model.answer_at <= model.sure_at <= 1.0


def test_no_match_on_empty_index(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    from bot.settings import load_settings

    rt = Runtime(load_settings(data_dir=tmp_path / "empty"), embedder=embedder)
    try:
        rt.vector_index.ensure(embedder.model_name, embedder.dimension)
        answer = ExtractiveAnswerer(rt.searcher).answer("anything at all")
        assert answer.state == "abstain" and answer.reason == "no-match"
    finally:
        rt.close()


@pytest.mark.parametrize(
    "question",
    ["how do i reset the grafana admin password", "velero nightly backup ended PartiallyFailed"],
)
def test_declining_is_not_reported_as_an_access_problem_when_all_is_readable(
    sample_runtime: Runtime, question: str
) -> None:
    groups = {g for c in sample_runtime.searcher.snapshot().chunks for g in c.metadata.access}
    answer = sample_runtime.extractive.answer(question, SearchFilter(groups=tuple(groups)))
    assert answer.state != "answer"
    assert answer.reason != "access-denied"


def test_access_denied_only_when_an_unreadable_runbook_answers(sample_runtime: Runtime) -> None:
    q = "break glass emergency production database access vault"
    public = sample_runtime.extractive.answer(q, EVERYONE)
    assert public.state != "answer" and public.reason == "access-denied"
    assert all(s.access != ("sre",) for s in public.suggestions)


def test_a_bare_alert_leads_with_what_to_do(sample_runtime: Runtime) -> None:
    """The name's words ("connection", "db") match "Fail over to the standby" best, but
    say nothing of which fix applies: the runbook's first fix leads, as its author
    ordered them, with its first check."""
    for question in (
        "CheckoutApiDbConnectionErrors",
        "CheckoutApiDbConnectionErrors firing",
        "CheckoutApiDbConnectionErrors firing, what do i do",
    ):
        answer = sample_runtime.extractive.answer(question, EVERYONE)
        assert answer.state == "answer"
        assert [c.section for c in answer.citations] == [
            "Mitigation > Roll back a bad deploy",
            "Diagnosis > Check whether pgbouncer is up",
        ], question
        assert_verbatim(answer)
    # a question with words of its own is answered by them
    asked = sample_runtime.extractive.answer(
        "CheckoutApiDbConnectionErrors, the primary is down, how do i fail over", EVERYONE
    )
    assert asked.citations[0].section == "Mitigation > Fail over to the standby"


ROLLOUT_STUCK = """# RolloutGenerationBehind

## Meaning

Rollout generation behind, possibly after a roll-back.

## Impact

Service degradation or unavailability.

## Diagnosis

See the upstream documentation on failed rollouts.

- Look at the rollout history: `kubectl -n $NS rollout history deployment $NAME`.
- Describe the deployment and check how many replicas it declares.
- Check whether new pods crash or cannot be scheduled (priority, resources, affinity).
- Check if the cluster autoscaler can add nodes.

## Mitigation

Adding nodes usually clears it.

Otherwise fix the deployment or its autoscaler, or roll back to the previous revision.
In rare cases scale the oldest replica sets to 0 and delete them.
"""


def test_a_bare_alert_name_is_not_answered_by_what_it_means(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """Nothing but the alert's name (or that it fires): one-line Meaning and Impact sit
    closest to a name alone, yet they restate what the engineer is looking at; the
    check and the action are the answer."""
    with runtime_over(
        {"alerts/RolloutGenerationBehind.md": ROLLOUT_STUCK}, tmp_path, embedder
    ) as rt:
        for question in (
            "RolloutGenerationBehind",
            "RolloutGenerationBehind firing",
            "RolloutGenerationBehind firing in prod on node-3",
        ):
            got = rt.extractive.answer(question, EVERYONE)
            assert got.state == "answer" and got.citations, (question, got)
            sections = [c.section for c in got.citations]
            assert sections[0] in ("Mitigation", "Diagnosis"), (question, sections)
            assert not {"Meaning", "Impact"} & set(sections), (question, sections)
            for c in got.citations:
                assert ROLLOUT_STUCK[c.start : c.end] == c.quote
        # asked what it means, the Meaning still leads
        meant = rt.extractive.answer("what does RolloutGenerationBehind mean", EVERYONE)
        assert meant.citations[0].section == "Meaning", meant.citations


SPAMBOT = """Backdoor:EC2/Spambot
--------------------

### An EC2 instance is talking to a remote host on port 25.

**Default severity: Medium**

This finding informs you that the listed EC2 instance is communicating with a remote
host on port 25, which it has never done before. Port 25 is used by mail servers: the
instance may have been compromised to send spam.

**Remediation recommendations:**

If this activity is unexpected, your instance may be compromised. Isolate it, snapshot
its volumes for forensics and replace it from a known good image.
"""


def test_a_runbook_sectioned_by_bold_labels_leads_with_its_remediation(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """Finding runbooks written with bold labels for sections instead of headings: the
    finding's name alone gets the remediation first; asked what it means, the
    description under the title leads."""
    with runtime_over({"findings/backdoor-ec2-spambot.md": SPAMBOT}, tmp_path, embedder) as rt:
        for question in ("Backdoor:EC2/Spambot", "Backdoor:EC2/Spambot firing, what do i do"):
            got = rt.extractive.answer(question, EVERYONE)
            assert got.state == "answer" and got.citations, (question, got)
            lead = got.citations[0]
            assert lead.section.endswith("Remediation recommendations"), (question, lead)
            assert lead.quote.startswith("If this activity is unexpected"), lead.quote
            assert SPAMBOT[lead.start : lead.end] == lead.quote
        meant = rt.extractive.answer("what does the spambot finding mean", EVERYONE)
        assert meant.citations, meant
        assert "Remediation" not in meant.citations[0].section, meant.citations
        assert "This finding informs you" in meant.citations[0].quote


ORDERS_ERRORS = """# OrdersHighErrorRate

## Overview

**What triggers this alert:**
- More than 5% of requests to `orders-api` fail with a 5xx status for 10 minutes

**Business impact:**
- Customers cannot place orders; checkout shows an error page

## Investigation Steps

### Step 1: Initial assessment

```bash
kubectl -n orders get pods -l app=orders-api
```

### Step 2: Check dependencies

```bash
kubectl -n orders logs deploy/orders-api --since=15m | grep -i "connection refused"
```

## Resolution Steps

### Option A: Bad deploy

If the errors started right after a deploy, roll back:

```bash
kubectl -n orders rollout undo deploy/orders-api
```
"""


def test_investigation_steps_are_a_check_and_resolution_steps_the_fix(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """A template's "Investigation Steps" come before its "Resolution Steps": the alert
    alone leads with the fix, the first check after it; the impact is under a bold label."""
    with runtime_over(
        {"alerts/orders-high-error-rate.md": ORDERS_ERRORS}, tmp_path, embedder
    ) as rt:
        got = rt.extractive.answer("OrdersHighErrorRate", EVERYONE)
        sections = [c.section for c in got.citations]
        assert sections[0].startswith("Resolution Steps"), sections
        assert any(s.startswith("Investigation Steps") for s in sections[1:]), sections
        impact = rt.extractive.answer("is OrdersHighErrorRate customer facing", EVERYONE)
        assert impact.citations[0].section == "Overview > Business impact", impact.citations


EDGE_CERT = """# Rotate the ingress TLS certificate

The public ingress serves `*.shop.example.com` from the `edge-tls` secret.

## Before you begin

- You need `cluster-admin` on the `edge` cluster.
- Have the new certificate and key from the vault path `pki/edge/2026`.

## Procedure

1. Back up the current secret:

   ```bash
   kubectl -n edge get secret edge-tls -o yaml > edge-tls.bak.yaml
   ```

2. Replace it and restart the ingress controller:

   ```bash
   kubectl -n edge rollout restart deploy/ingress-nginx-controller
   ```

## Rollback

```bash
kubectl apply -f edge-tls.bak.yaml
```
"""


def test_asked_what_is_needed_first_the_prerequisites_lead(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """ "What do i need before rotating …" repeats the procedure's words; the section
    that says what must be in place answers it. Asked how, the procedure leads."""
    with runtime_over({"edge/rotate-ingress-cert.md": EDGE_CERT}, tmp_path, embedder) as rt:
        for question in (
            "what do i need before rotating the edge cert",
            "what access do i need to rotate the edge cert",
        ):
            got = rt.extractive.answer(question, EVERYONE)
            assert got.citations and got.citations[0].section == "Before you begin", (
                question,
                [c.section for c in got.citations],
            )
        how = rt.extractive.answer("how do i rotate the ingress cert", EVERYONE)
        assert how.citations[0].section == "Procedure", [c.section for c in how.citations]


def test_a_pinned_document_is_the_answer_however_the_words_match(
    sample_runtime: Runtime,
) -> None:
    # the alert's runbook_url names the runbook: its words need not match the question
    pinned = EVERYONE.model_copy(update={"sources": ("runbooks:orders/queue-backlog",)})
    answer = sample_runtime.extractive.answer("SomethingVague fired on prod", pinned)
    assert answer.state == "answer"
    assert {c.source_id for c in answer.citations} == {"runbooks:orders/queue-backlog"}
    assert not answer.related  # nothing from other documents
    assert_verbatim(answer)
    unpinned = sample_runtime.extractive.answer("SomethingVague fired on prod", EVERYONE)
    assert unpinned.state != "answer"


def test_a_value_asked_for_leads_from_where_the_runbook_gives_it(
    sample_runtime: Runtime,
) -> None:
    # the thresholds are in the Symptoms, which restate the alert for other questions
    lag = sample_runtime.extractive.answer(
        "at what lag does OrderEventsConsumerLag go critical, and for how long"
    )
    assert lag.state == "answer"
    assert "Symptoms" in [c.section for c in lag.citations]
    assert any("200000" in c.quote for c in lag.citations)


def test_a_pinned_document_the_scope_may_not_read_is_not_shown(sample_runtime: Runtime) -> None:
    pinned = EVERYONE.model_copy(update={"sources": ("runbooks:sre/break-glass-access",)})
    answer = sample_runtime.extractive.answer("what do i do", pinned)
    assert answer.state != "answer"
    assert answer.reason == "access-denied"
    assert not answer.citations and not answer.suggestions


ETCD_NO_LEADER = """# etcdNoLeader

## Meaning

The etcd cluster has no leader: writes to the Kubernetes API fail.

## Diagnosis

Check which members see a leader with `etcdctl endpoint status --cluster -w table`.

## Mitigation

Restart the member that lost quorum: `kubectl -n kube-system delete pod etcd-<node>`.

## Escalation

Page the platform on-call.
"""


def test_a_runbook_url_anchor_chooses_the_section_the_answer_leads_with(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """The same bare alert name, pinned to its runbook: the link's #anchor names the
    section to lead with; an anchor naming the runbook itself, or none of its headings,
    changes nothing."""
    with runtime_over({"etcd/etcdNoLeader.md": ETCD_NO_LEADER}, tmp_path, embedder) as rt:
        (sid,) = rt.searcher.snapshot(rt.searcher.generation()).chunks_by_source

        def answer(anchor: str | None) -> Answer:
            pinned = EVERYONE.model_copy(update={"sources": (sid,), "anchor": anchor})
            got = rt.extractive.answer("etcdNoLeader", pinned)
            assert got.state == "answer" and got.citations, got
            for c in got.citations:
                assert ETCD_NO_LEADER[c.start : c.end] == c.quote
            return got

        plain = answer(None)
        # a bare alert: its runbook's first action, then the check that goes with it
        assert [c.section for c in plain.citations] == ["Mitigation", "Diagnosis"]
        for anchor, lead in [
            ("mitigation", "Mitigation"),
            ("diagnosis", "Diagnosis"),
            ("Diagnosis", "Diagnosis"),  # a link written by hand
            ("escalation", "Escalation"),
        ]:
            anchored = answer(anchor)
            assert anchored.citations[0].section == lead, (anchor, anchored.citations)
            assert f"section *{lead}*" in anchored.text
        # the usual second part still follows: the check that goes with the action
        assert [c.section for c in answer("mitigation").citations] == ["Mitigation", "Diagnosis"]
        for anchor in ("etcdnoleader", "rollback"):  # the runbook itself; no such heading
            assert answer(anchor).citations == plain.citations, anchor


LEDGER_ALERT = """# Ledger Consumer Stalled

## Meaning

The ledger consumer has committed no offset for ten minutes; payments are not booked.

## Mitigation

### 1. Restart the consumer

Restarting the ledger consumer makes it re-read its committed offsets. See
[Restarting a queue consumer](../common/consumer-restart.md).

### 2. Rotate the broker credentials

When the consumer logs authentication failures from the broker, see
[Rotating broker credentials](../common/broker-credentials.md).
"""

CONSUMER_RESTART = """# Restarting a queue consumer

1. Scale the consumer down: `kubectl -n queues scale deploy/ledger-consumer --replicas=0`.
2. Wait until its pods are gone: `kubectl -n queues get pods -l app=ledger-consumer`.
3. Scale it up again: `kubectl -n queues scale deploy/ledger-consumer --replicas=2`.
"""

BROKER_CREDENTIALS = """---
access: [sre]
---

# Rotating broker credentials

1. Issue a new broker password: `vault write queues/creds/ledger ttl=720h`.
2. Restart the consumer so it reads the new password.
"""


def test_a_step_that_points_at_a_shared_procedure_is_followed(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """An alert's step that only says "see [the shared procedure]" is quoted with the
    procedure's own steps, from the procedure's file; never one the asker may not read."""
    files = with_samples(
        {
            "queues/alerts/ledger-consumer-stalled.md": LEDGER_ALERT,
            "queues/common/consumer-restart.md": CONSUMER_RESTART,
            "queues/common/broker-credentials.md": BROKER_CREDENTIALS,
        }
    )
    with runtime_over(files, tmp_path, embedder) as rt:
        answer = rt.extractive.answer("ledger consumer stalled, how do i restart it", EVERYONE)
        assert answer.state == "answer"
        paths = [c.path for c in answer.citations]
        assert paths[0] == "queues/alerts/ledger-consumer-stalled.md"
        assert answer.citations[0].section == "Mitigation > 1. Restart the consumer"
        steps = paths.index("queues/common/consumer-restart.md")
        assert steps == 1  # right after the step that points at it
        assert "--replicas=0" in answer.citations[steps].quote
        assert "3. Scale it up again" in answer.citations[steps].quote
        assert all(p != "queues/common/broker-credentials.md" for p in paths)
        # the procedure of the second step only for a scope that may read it
        q = "ledger consumer stalled with broker authentication failures, rotate the credentials"
        public = rt.extractive.answer(q, EVERYONE)
        assert all(c.path != "queues/common/broker-credentials.md" for c in public.citations)
        sre = rt.extractive.answer(q, SearchFilter(groups=("everyone", "sre")))
        assert "queues/common/broker-credentials.md" in [c.path for c in sre.citations]
        for a in (answer, public, sre):
            for c in a.citations:
                text = (tmp_path / "runbooks" / c.path).read_text(encoding="utf-8")
                assert text[c.start : c.end] == c.quote


LINKED = "https://git.example/ops/runbooks/blob/main/{path}#L{line}"


def ledger_runbooks(alert: str, alert_path: str, restart: str, credentials: str) -> dict[str, str]:
    """The ledger alert, the shared restart procedure and the broker credentials one
    (readable by sre only), at the paths given, beside the sample runbooks."""
    return with_samples(
        {alert_path: alert, restart: CONSUMER_RESTART, credentials: BROKER_CREDENTIALS}
    )


def assert_restart_followed(rt: Runtime, alert: str, procedure: str, link: str) -> None:
    """Asked to restart, the alert's step is quoted, then the restart procedure it points
    at, with its steps; the step's link, as written, goes to the procedure's own URL."""
    answer = rt.extractive.answer("ledger consumer stalled, how do i restart it", EVERYONE)
    assert [c.path for c in answer.citations][:2] == [alert, procedure]
    assert "3. Scale it up again" in answer.citations[1].quote
    url = f"https://git.example/ops/runbooks/blob/main/{procedure}#L1"
    assert dict(answer.citations[0].links) == {link: url}


def test_a_step_that_links_a_procedure_by_its_site_address_is_followed(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """Runbook sites link pages by address ("/queues/common/consumer-restart/" for
    docs/queues/common/consumer-restart.md): such a pointer is followed as a file link is."""
    alert = LEDGER_ALERT.replace(
        "../common/consumer-restart.md", "/queues/common/consumer-restart/"
    ).replace("../common/broker-credentials.md", "/queues/common/broker-credentials/")
    files = ledger_runbooks(
        alert,
        "docs/queues/alerts/ledger-consumer-stalled.md",
        "docs/queues/common/consumer-restart.md",
        "docs/queues/common/broker-credentials.md",
    )
    with runtime_over(files, tmp_path, embedder, source_url_template=LINKED) as rt:
        # the step's site address, as written, with the procedure's own URL
        assert_restart_followed(
            rt,
            "docs/queues/alerts/ledger-consumer-stalled.md",
            "docs/queues/common/consumer-restart.md",
            "/queues/common/consumer-restart/",
        )
        # a runbook that not everyone who reads the alert may read gets no address
        q = "ledger consumer stalled with broker authentication failures, rotate the credentials"
        rotate = rt.extractive.answer(q, EVERYONE)
        step = next(c for c in rotate.citations if "broker-credentials" in c.quote)
        assert step.links == ()


def test_a_wiki_link_to_a_procedure_is_followed_and_linked(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """A wiki's runbooks link pages by name, the text first in a GitHub wiki
    ("[[Restarting a queue consumer|Consumer-restart]]") and the page first elsewhere
    ("[[Broker-credentials|rotating the credentials]]"): the page the link names is
    followed like a file link, and the link goes to it at its indexed revision."""
    alert = LEDGER_ALERT.replace(
        "[Restarting a queue consumer](../common/consumer-restart.md)",
        "[[Restarting a queue consumer|Consumer-restart]]",
    ).replace(
        "[Rotating broker credentials](../common/broker-credentials.md)",
        "[[Broker credentials|rotating the broker credentials]]",
    )
    files = ledger_runbooks(
        alert,
        "wiki/Ledger-consumer-stalled.md",
        "wiki/Consumer-restart.md",
        "wiki/Broker-credentials.md",
    )
    with runtime_over(files, tmp_path, embedder, source_url_template=LINKED) as rt:
        assert_restart_followed(
            rt,
            "wiki/Ledger-consumer-stalled.md",
            "wiki/Consumer-restart.md",
            "[[Restarting a queue consumer|Consumer-restart]]",
        )
        q = "ledger consumer stalled with broker authentication failures, rotate the credentials"
        sre = rt.extractive.answer(q, SearchFilter(groups=("everyone", "sre")))
        assert "wiki/Broker-credentials.md" in [c.path for c in sre.citations]
        public = rt.extractive.answer(q, EVERYONE)
        assert all(c.path != "wiki/Broker-credentials.md" for c in public.citations)
        step = next(c for c in public.citations if "Broker credentials" in c.quote)
        assert step.links == ()  # not everyone who reads the alert may read it


LEDGER_DISK = """# Ledger Disk Filling Up

## Meaning

The ledger database volume is over 85% full.

## Mitigation

### Plan for capacity

Order a larger volume for the ledger database. Until it is attached,
[compact the ledger tables](#compact-the-ledger-tables) to buy time.

### Compact the ledger tables

1. Stop the ledger writer: `kubectl -n ledger scale deploy/ledger-writer --replicas=0`.
2. Run the compaction: `kubectl -n ledger exec ledger-db-0 -- ledgerctl compact --all`.
3. Start the writer again: `kubectl -n ledger scale deploy/ledger-writer --replicas=2`.
"""


@pytest.mark.parametrize(
    "step",
    [
        "[compact the ledger tables](#compact-the-ledger-tables)",
        "compact the ledger tables",  # named in words, no link
    ],
)
def test_a_step_that_points_at_a_section_of_its_own_runbook_is_followed(
    step: str, tmp_path: Path, embedder: FastEmbedder
) -> None:
    """ "Until then, [compact the tables](#compact-the-tables)", or the same words without
    the link: the answer quotes the section the step points at, with its steps, right
    after the step; not twice."""
    text = LEDGER_DISK.replace("[compact the ledger tables](#compact-the-ledger-tables)", step)
    files = with_samples({"ledger/alerts/ledger-disk.md": text})
    with runtime_over(files, tmp_path, embedder) as rt:
        answer = rt.extractive.answer(
            "ledger disk almost full, how do we plan capacity for the ledger database", EVERYONE
        )
        assert answer.state == "answer", (answer.reason, answer.confidence)
        sections = [c.section for c in answer.citations]
        assert sections[0] == "Mitigation > Plan for capacity"
        assert sections[1] == "Mitigation > Compact the ledger tables"
        assert sections.count("Mitigation > Compact the ledger tables") == 1
        assert "3. Start the writer again" in answer.citations[1].quote
        for c in answer.citations:
            source = (tmp_path / "runbooks" / c.path).read_text(encoding="utf-8")
            assert source[c.start : c.end] == c.quote


LEDGER_EXPORTER = """# LedgerExporterDown

## Meaning

Prometheus has not scraped the ledger exporter for ten minutes.

## Diagnosis

### 1. Verify the exporter is running

Check the exporter pod: `kubectl -n ledger get pods -l app=ledger-exporter`.

### 2. Scraping problems

If the ledger exporter pod is running, Prometheus may not reach it. Check the following:

#### Certificates

Look for certificate errors in the Prometheus log:
`kubectl -n monitoring logs statefulset/prometheus-k8s | grep -i x509`.

#### Network policies

Look for a network policy in the ledger namespace that blocks the monitoring namespace.
"""


def test_a_checks_lead_in_is_quoted_before_its_first_check(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """Prometheus cannot reach the exporter: the section of scraping problems leads, its
    one-line lead-in ("If the pod is running, Prometheus may not reach it") quoted
    before its first check, which alone would not say why it is the check to make."""
    files = with_samples({"ledger/alerts/ledger-exporter-down.md": LEDGER_EXPORTER})
    with runtime_over(files, tmp_path, embedder) as rt:
        answer = rt.extractive.answer(
            "LedgerExporterDown firing, prometheus cannot reach the exporter. what do i check",
            EVERYONE,
        )
        assert answer.state == "answer", (answer.reason, answer.confidence)
        sections = [c.section for c in answer.citations]
        assert sections[0] == "Diagnosis > 2. Scraping problems", sections
        assert answer.citations[0].quote.startswith("If the ledger exporter pod is running")
        assert sections[1].startswith("Diagnosis > 2. Scraping problems > "), sections
        for c in answer.citations:
            text = (tmp_path / "runbooks" / c.path).read_text(encoding="utf-8")
            assert text[c.start : c.end] == c.quote


LEDGER_LAG = """# Ledger Consumer Has a High Lag

## Meaning

The ledger consumer is more than ten thousand messages behind the payments topic.

## Mitigation

Scale the ledger consumer out: `kubectl -n queues scale deploy/ledger-consumer --replicas=6`.
"""


def test_an_alert_name_that_only_a_prose_title_spells_is_read_as_that_title(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """Alerts arrive by name (``LedgerConsumerHighLag``); the runbook is titled in words.
    The name is read as the title it spells, and the answer says so."""
    files = with_samples(
        {
            "queues/alerts/ledger-lag.md": LEDGER_LAG,
            # a sibling that the title's words match as well as the question's own
            "queues/alerts/ledger-producer-lag.md": LEDGER_LAG.replace(
                "Ledger Consumer Has", "Ledger Producer Has"
            ).replace(
                "The ledger consumer is",
                "Fires on the hub when the ledger producer, which feeds the ledger consumer, is",
            ),
        }
    )
    with runtime_over(files, tmp_path, embedder) as rt:
        answer = rt.extractive.answer(
            "LedgerConsumerHighLag firing on the hub, what do i do", EVERYONE
        )
        assert answer.state == "answer", (answer.reason, answer.confidence)
        assert answer.citations[0].path == "queues/alerts/ledger-lag.md"
        assert answer.citations[0].section == "Mitigation"
        assert answer.read_as == (("LedgerConsumerHighLag", "Ledger Consumer Has a High Lag"),)
        # a name no title spells is still a name the runbooks do not know
        other = rt.extractive.answer("LedgerAuditorHighLag firing, what do i do", EVERYONE)
        assert other.state != "answer"
        assert not other.read_as


PARTNER_TOKEN = """---
owner: "@identity-oncall"
---

# Partner API token expires soon

One or more partner API tokens are about to expire. Rotate them before they do.

## Rotate a partner API token

> This procedure is manual for now and should be automated away.

The overnight sync overwrites staging from production, so only production and
integration need it. Alerts about staging can be ignored.

### 1. Issue a new partner token

1. Open the partner APIs page in the admin console.
2. Choose **Add application token** for the partner.

### 2. Update the partner secret

1. Run the sync job:

   ```sh
   kubectl -n identity create job --from=cronjob/partner-token-sync partner-token-sync-now
   ```

### 3. Revoke the old partner token

1. Choose **Revoke** next to the old token.
"""


MON_QUORUM = """# StorageMonQuorumLost

## Meaning

Only one storage monitor pod of three is running: the storage cluster lost quorum.

## Diagnosis

Turn on logging to files, then read the monitor logs under /var/log/storage:

```sh
storagectl config set global log_to_file true
```

## Mitigation

[Restore storage monitor quorum](https://docs.example.com/restore-mon-quorum)
[Troubleshooting storage monitors](https://docs.example.com/troubleshooting-mon)
"""


def test_how_do_i_shows_the_steps_or_where_they_are(tmp_path: Path, embedder: FastEmbedder) -> None:
    files = with_samples(
        {
            "identity/partner-token-expiry.md": PARTNER_TOKEN,
            "storage/StorageMonQuorumLost.md": MON_QUORUM,
        }
    )
    with runtime_over(files, tmp_path, embedder) as rt:
        got = rt.extractive.answer("how do i rotate a partner api token")
        assert got.state == "answer", (got.reason, got.confidence)
        first, second = got.citations[0], got.citations[1]
        assert first.section == "Rotate a partner API token"
        assert "Open the partner APIs page" not in first.quote  # the note alone ...
        # ... is followed by the procedure it introduces, from its first step
        assert second.section == "Rotate a partner API token > 1. Issue a new partner token"
        assert "1. Open the partner APIs page" in second.quote
        assert second.note == "step 1 of 3"
        text = files["identity/partner-token-expiry.md"]
        for c in got.citations:
            assert text[c.start : c.end] == c.quote
        # asked what it means, the section that explains is quoted without the steps
        meaning = rt.extractive.answer("what does partner api token expires soon mean")
        assert meaning.citations and all(c.note is None for c in meaning.citations)
        assert "Issue a new" not in meaning.citations[0].section
        # an action section that only links to the procedure: the links, after the check
        quorum = rt.extractive.answer("StorageMonQuorumLost what do i do")
        assert quorum.state == "answer", (quorum.reason, quorum.confidence)
        assert [c.section for c in quorum.citations] == ["Diagnosis", "Mitigation"]
        assert "https://docs.example.com/restore-mon-quorum" in quorum.citations[1].quote


def test_a_procedure_asked_for_by_its_title_starts_at_its_first_step(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    files = with_samples({"platform/node-drain.md": DRAIN})
    with runtime_over(files, tmp_path, embedder) as rt:
        got = rt.extractive.answer("how do i drain a node")
        # the title said alone (and where) asks for the procedure too: its steps in
        # order, never the first step and then "Step 3: Verify" as a check before it
        for asked in (got, *map(rt.extractive.answer, ("drain a node", "drain node worker-3"))):
            assert asked.state == "answer", (asked.reason, asked.confidence)
            sections = [c.section for c in asked.citations]
            # never "Step 2: Drain the node" alone, whose heading merely repeats the title
            assert sections[:2] == [
                "Procedure > Step 1: Cordon the node",
                "Procedure > Step 2: Drain the node",
            ], asked.question
            assert asked.citations[0].note is None
            assert asked.citations[1].note == "steps 1-2 of 3"
        # "roll back" is the runbook's "Rollback", not the first step
        back = rt.extractive.answer("how do i roll back a node drain")
        assert back.citations and back.citations[0].section == "Rollback"
        for c in [*got.citations, *back.citations]:
            assert DRAIN[c.start : c.end] == c.quote


HIGH_ERROR_RATE = """# HighErrorRate

**Owner:** api-team

## Quick Response Checklist

- [ ] Acknowledge the page
- [ ] Check the error dashboard
- [ ] Post in #incidents

## Investigation Steps

1. Open the API dashboard and find which endpoint returns 5xx.
2. Check recent deploys: `kubectl -n api rollout history deploy/api`.

## Resolution Steps

1. If a deploy started the errors, roll it back: `kubectl -n api rollout undo deploy/api`.
2. If the database is slow, fail over the read replica.
"""


def test_a_bare_alert_leads_with_the_fix_not_the_response_checklist(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    files = with_samples({"api/HighErrorRate.md": HIGH_ERROR_RATE})
    with runtime_over(files, tmp_path, embedder) as rt:
        got = rt.extractive.answer("HighErrorRate")
        assert got.state == "answer", (got.reason, got.confidence)
        assert [c.section for c in got.citations][:2] == ["Resolution Steps", "Investigation Steps"]


def test_an_alert_pasted_with_its_labels_is_answered_as_the_alert(
    sample_runtime: Runtime,
) -> None:
    """A label's name and value (``consumer_group=fulfilment-blue``) name one instance,
    not a system the runbooks never mention; the alert's name is still evidence."""
    pasted = sample_runtime.extractive.answer(
        "[FIRING:1] OrderEventsConsumerLag (consumer_group=fulfilment-blue "
        "cluster=kafka-prod-eu severity=critical)",
        EVERYONE,
    )
    assert pasted.state == "answer", pasted
    assert pasted.citations[0].path == "orders/queue-backlog.md"
    unknown = sample_runtime.extractive.answer(
        "alertname=LoyaltyPointsSyncFailed severity=critical namespace=loyalty", EVERYONE
    )
    assert unknown.state != "answer"


KAFKA_BROKER_DOWN = """# Kafka broker down

## Meaning

A Kafka broker in the events cluster stopped responding.

## Mitigation

### Restart the broker

1. Delete the pod; the StatefulSet recreates it: `kubectl -n events delete pod events-kafka-2`
2. Wait until under-replicated partitions reach zero.

### Replace a failed volume of the kafka broker

> **WARNING:** This loses the broker's local data.

1. Delete the PVC: `kubectl -n events delete pvc data-events-kafka-2`
2. Delete the pod.
"""


@pytest.mark.parametrize(
    "question", ["kafka broker down, what do i do", "Kafka broker down", "kafka-broker-down"]
)
def test_the_runbooks_name_in_words_gets_its_first_fix(
    tmp_path: Path, embedder: FastEmbedder, question: str
) -> None:
    """Naming the runbook in words asks nothing else of it, as its alert name would: the
    first fix as its author ordered them leads, not the one that repeats the most words
    of the name."""
    with runtime_over(
        with_samples({"kafka/kafka-broker-down.md": KAFKA_BROKER_DOWN}), tmp_path, embedder
    ) as rt:
        got = rt.extractive.answer(question)
    assert got.state == "answer", got
    assert got.citations[0].path == "kafka/kafka-broker-down.md"
    assert got.citations[0].section == "Mitigation > Restart the broker"


def test_an_alert_the_front_matter_lists_names_the_runbook_not_a_part(
    sample_runtime: Runtime,
) -> None:
    """``alerts: [CheckoutApiDbConnectionErrors]``: the alert's words (checkout, db,
    connection, errors) say which runbook; the Symptoms that restate the alert are no
    better an answer to "is it customer facing" for holding them."""
    got = sample_runtime.extractive.answer(
        "is CheckoutApiDbConnectionErrors customer facing", EVERYONE
    )
    assert got.state == "answer"
    assert got.citations[0].section == "Impact"
    assert "Customers cannot place orders" in got.citations[0].quote


def test_an_error_code_the_front_matter_tags_names_the_runbook_not_a_part(
    sample_runtime: Runtime,
) -> None:
    """``tags: [..., CHK-5023]``: the error code says which runbook, as its alert name
    would; the failover step that says to watch CHK-5023 drop is no better an answer for
    repeating it. "It started after a deploy" picks the fix."""
    got = sample_runtime.extractive.answer(
        "CHK-5023 on checkout, it started after a deploy", EVERYONE
    )
    assert got.state == "answer"
    assert got.citations[0].section == "Mitigation > Roll back a bad deploy"


def test_an_operation_no_runbook_speaks_of_is_not_answered(sample_runtime: Runtime) -> None:
    """No sample runbook speaks of upgrading anything: the pgbouncer runbook shares the
    system's name, not the task."""
    got = sample_runtime.extractive.answer("how do i upgrade pgbouncer to a newer version")
    assert got.state != "answer", (got.state, got.confidence)


def test_a_pod_state_in_on_call_speech_is_the_state_the_runbook_names(
    sample_runtime: Runtime,
) -> None:
    """ "crashlooping" is how an engineer says CrashLoopBackOff: the check that names that
    state answers, and the word names nothing unknown."""
    got = sample_runtime.extractive.answer("pgbouncer is crashlooping", EVERYONE)
    assert got.state == "answer", (got.state, got.confidence)
    assert got.citations[0].section == "Diagnosis > Check whether pgbouncer is up"
    assert sample_runtime.extractive.retrieve("pgbouncer is crashlooping").question.unknown == ()


def test_status_codes_in_the_plural_find_the_runbook_that_names_the_code(
    sample_runtime: Runtime,
) -> None:
    """ "403s" is how on-call speech counts 403 responses: the runbook titled "spike in
    access denied / 403 responses" answers, not a session store decision."""
    got = sample_runtime.extractive.answer("403s everywhere on login", EVERYONE)
    assert got.state == "answer", (got.state, got.confidence)
    assert got.citations[0].path == "identity/access-denied.md"


GITALY_VERSION_MISMATCH = """# GitalyVersionMismatch

## Overview

Two or more versions of Gitaly have been running in one stage for longer than 60 minutes.

## Services

- [Service overview](https://gitlab.example.com/runbooks/gitaly)
- Team that owns the service: [Gitaly Team](https://handbook.example.com/gitaly)

## Metrics

- [This expression](https://gitlab.example.com/rules/gitaly.yml#L97) counts the distinct
  Gitaly versions deployed per stage.

## Troubleshooting

- Check recent deployments or rollbacks in the `gprd` environment.
- Identify the nodes running a different Gitaly version on the version dashboard.
- Verify that chef-client runs normally on those nodes.

## Possible Resolutions

- [Previous GitalyVersionMismatch incidents](https://gitlab.example.com/issues?label=gitaly)
"""


def test_a_bare_alert_with_no_fix_written_leads_with_its_first_check(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """Nothing to do is written (Possible Resolutions only links past incidents): the
    first check leads, not the list of services, nor the Metrics section that spells
    out what fires the alert."""
    files = with_samples({"gitaly/alerts/GitalyVersionMismatch.md": GITALY_VERSION_MISMATCH})
    with runtime_over(files, tmp_path, embedder) as rt:
        got = rt.extractive.answer("GitalyVersionMismatch")
    assert got.state == "answer", (got.reason, got.confidence)
    assert got.citations[0].section == "Troubleshooting"
    # the alert's name is in every section: the team's links are no second quote
    assert "Services" not in [c.section for c in got.citations]


# prometheus-operator's runbook: a "Runbook" section of steps, then long example queries
BUDGET_BURN = (ROOT / "tests/fixtures/runbooks/KubeAPIErrorBudgetBurn.md").read_text()


def test_a_bare_alert_leads_with_the_section_headed_runbook(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """A runbook's own "Runbook" section is its response: asked the alert alone, its
    steps lead, before the queries below it; no section is quoted twice."""
    files = with_samples({"kubernetes/KubeAPIErrorBudgetBurn.md": BUDGET_BURN})
    with runtime_over(files, tmp_path, embedder) as rt:
        got = rt.extractive.answer("KubeAPIErrorBudgetBurn")
    assert got.state == "answer", (got.reason, got.confidence)
    assert got.citations[0].section == "Runbook"
    assert "1. Take a look at the APIServer Grafana dashboard" in got.citations[0].quote


def test_a_section_indexed_in_pieces_is_quoted_once(tmp_path: Path, embedder: FastEmbedder) -> None:
    """The queries lead, and the long section of queries below them (indexed in
    pieces) follows once, not once per piece."""
    notes = BUDGET_BURN.replace("## Runbook", "## Notes")
    files = with_samples({"kubernetes/KubeAPIErrorBudgetBurn.md": notes})
    with runtime_over(files, tmp_path, embedder) as rt:
        got = rt.extractive.answer("KubeAPIErrorBudgetBurn")
    assert got.state == "answer", (got.reason, got.confidence)
    spans = [(c.source_id, c.start, c.end) for c in got.citations]
    assert len(spans) > 1
    assert len(spans) == len(set(spans))


# an alert playbook whose template is left mostly unfilled ("- > Basic troubleshooting order")
UNFILLED_PLAYBOOK = (
    ROOT / "tests/fixtures/corpora/gitlab-runbooks/docs/patroni/alerts/PostgresSplitBrain.md"
)


def test_a_bare_alert_gets_no_filler_second_quote(tmp_path: Path, embedder: FastEmbedder) -> None:
    """The playbook says what fires the alert (Metrics) and leaves its resolutions
    unwritten: the answer shows that and says so, without the template's prompts and
    edit links of Definitions as a second quote."""
    files = with_samples({"patroni/alerts/PostgresSplitBrain.md": UNFILLED_PLAYBOOK.read_text()})
    with runtime_over(files, tmp_path, embedder) as rt:
        got = rt.extractive.answer("PostgresSplitBrain")
    assert got.state == "answer", (got.reason, got.confidence)
    assert [c.section for c in got.citations] == ["Metrics"]
    assert "unwritten-section" in [w.kind for w in got.warnings]
    # the Services list says whose it is
    assert "ownerless" not in [w.kind for w in got.warnings]


NAMING_SCHEMA = """# Naming schemas

This document identifies the schema the logging operator uses to name the collector's
outputs.

## Outputs

The naming schema is `output_<OUTPUT_NAME>`, with all punctuation replaced by underscores.
"""

OUTPUT_ERROR_RATE = """# ClusterLogForwarderOutputErrorRate

## Meaning

A log forwarder output is failing to deliver logs to its destination.

## Diagnosis

Find the failing output's name in the collector metrics: see the
[non-Lokistack](./ClusterLogForwarderConfigNamingSchema.md#outputs) and
[Lokistack](./ClusterLogForwarderConfigNamingSchema.md#outputs) naming schemas.

## Mitigation

Fix the destination's credentials or endpoint, then watch the error rate fall.

- [Naming schemas](./ClusterLogForwarderConfigNamingSchema.md)
"""

CONDITION_UNKNOWN = """# Managed cluster condition unknown

## Meaning

The hub has not heard from a managed cluster's agent for five minutes.

## Mitigation

Restart the klusterlet agent on the managed cluster:
`oc -n open-cluster-management-agent rollout restart deploy/klusterlet`
"""


def test_the_runbook_a_question_names_answers_not_one_that_links_to_it(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """A runbook's file name is its name, though its title says something else; another
    runbook that links to it by that name ranks first on the name's words, but the
    question is about the one it names. So are the words of a file name no text spells
    ("managedclulster", as the file is named): the question is answered, not declined."""
    files = with_samples(
        {
            "logging/ClusterLogForwarderConfigNamingSchema.md": NAMING_SCHEMA,
            "logging/ClusterLogForwarderOutputErrorRate.md": OUTPUT_ERROR_RATE,
            "hub/managedclulster_condition_unknown.md": CONDITION_UNKNOWN,
        }
    )
    with runtime_over(files, tmp_path, embedder) as rt:
        named = rt.extractive.answer("ClusterLogForwarderConfigNamingSchema")
        typo = rt.extractive.answer("managedclulster_condition_unknown")
    assert named.state == "answer", (named.reason, named.confidence)
    assert named.citations[0].path == "logging/ClusterLogForwarderConfigNamingSchema.md"
    assert typo.state == "answer", (typo.reason, typo.confidence)
    assert typo.citations[0].path == "hub/managedclulster_condition_unknown.md"


RESTART_PROCEDURE = """# Restarting the Configuration Policy Controller

1. Find the controller's pod: `oc -n open-cluster-management-agent-addon get pods`
2. Delete it; its deployment starts a new one: `oc delete pod <pod>`
"""


def _alert_linking_the_procedure(name: str) -> str:
    return f"""# {name}

## Description

The configuration policy controller for a hosted cluster is unhealthy ({name}).

## Troubleshooting

### Restart the Pod

See [Restarting the Configuration Policy Controller](../common/restart.md).
"""


def test_a_question_that_is_a_runbooks_title_is_answered_by_that_runbook(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """Alerts that link to a shared procedure by its title rank above it on the title's
    words; asked the title, the procedure answers."""
    alerts = {
        f"alerts/{name}.md": _alert_linking_the_procedure(name)
        for name in ("ControllerRestarting", "ControllerNoActivity", "ControllerErrors")
    }
    files = with_samples({"common/restart.md": RESTART_PROCEDURE, **alerts})
    with runtime_over(files, tmp_path, embedder) as rt:
        got = rt.extractive.answer("Restarting the Configuration Policy Controller")
    assert got.state == "answer", (got.reason, got.confidence)
    assert got.citations[0].path == "common/restart.md"


def pinned_to(rt: Runtime, path: str) -> SearchFilter:
    """Everyone's filter pinned to the runbook at ``path``, as a follow-up in its thread."""
    snap = rt.searcher.snapshot()
    (sid,) = [s for s, chunks in snap.chunks_by_source.items() if chunks[0].path == path]
    return EVERYONE.model_copy(update={"sources": (sid,)})


@pytest.mark.parametrize(
    "question",
    ["how bad is it", "how serious is this", "CheckoutApiDbConnectionErrors how bad is it"],
)
def test_how_bad_is_it_is_answered_by_the_impact(sample_runtime: Runtime, question: str) -> None:
    """ "bad" only asks how much it matters: "Roll back a bad deploy" is no answer for
    holding the word, nor are the Symptoms that restate the alert's name."""
    pinned = pinned_to(sample_runtime, "checkout-api/database-connection-failures.md")
    got = sample_runtime.extractive.answer(question, pinned)
    assert got.state == "answer"
    assert got.citations[0].section == "Impact", [c.section for c in got.citations]


def test_what_to_check_first_is_the_runbooks_first_check(sample_runtime: Runtime) -> None:
    """ "first" only asks where to begin: not "roll back first and debug later", nor the
    check that matched best, but the first of the runbook's checks."""
    pinned = pinned_to(sample_runtime, "checkout-api/database-connection-failures.md")
    got = sample_runtime.extractive.answer("what do i check first", pinned)
    assert got.state == "answer"
    assert got.citations[0].section == "Diagnosis > Check whether pgbouncer is up"
    spans = [(c.path, c.start) for c in got.citations]
    assert len(spans) == len(set(spans))  # no span quoted twice


def sureness(answer: Answer) -> float:
    """How sure an answer is: its confidence when it quotes, none when it does not."""
    return answer.confidence or 0.0 if answer.state == "answer" else 0.0


def undone(answer: Answer, than: Answer) -> bool:
    """Is ``answer`` less sure than ``than``, and when it falls below the bar, offered
    with the reason that the task is not done?"""
    if answer.state != "answer":
        return answer.reason == "no-steps" and not answer.citations
    return sureness(answer) < sureness(than)


def test_a_question_for_an_operation_no_runbook_speaks_of_is_less_sure(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    files = with_samples({"payments/stripe-key-rotation.md": STRIPE_KEY})
    with runtime_over(files, tmp_path, embedder) as rt:
        # the runbook is about rotating the key: it answers how to rotate it
        rotate = rt.extractive.answer("the stripe secret key leaked into a log, how do i rotate it")
        assert rotate.state == "answer"
        assert rotate.citations[0].path == "payments/stripe-key-rotation.md"
        # it never speaks of revoking or deleting it: weighed against the answer, so it is
        # less sure, and offered with "no runbook says how" when that takes it below the bar
        for question in (
            "the stripe secret key leaked into a log, how do i revoke it",
            "how do i delete the leaked stripe secret key",
        ):
            near = rt.extractive.answer(question)
            assert undone(near, rotate), question


ASSET_BACKUPS = """# Backups of the assets bucket

Owner: @platform-oncall

## Data in S3 buckets

The assets bucket holds the attachments that publishers upload. It has:

- a replica in a different AWS region
- versioning, so that we can restore previous or deleted object versions
"""


def test_a_question_for_steps_is_not_answered_with_a_description(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    files = with_samples({"platform/asset-backups.md": ASSET_BACKUPS})
    with runtime_over(files, tmp_path, embedder) as rt:
        # what exists is answered from the description
        kept = rt.extractive.answer("does the assets bucket keep previous object versions?")
        assert kept.state == "answer"
        assert kept.citations[0].path == "platform/asset-backups.md"
        # the steps to restore one are not in it: offered, not quoted as if they were
        how = rt.extractive.answer(
            "how do i restore the previous version of an attachment in the assets bucket"
        )
        assert undone(how, kept)


def test_a_request_for_steps_that_names_a_way_is_answered_only_by_that_way(
    sample_runtime: Runtime,
) -> None:
    vault = sample_runtime.extractive.answer("how do i renew the payments-gateway cert using vault")
    assert vault.state == "answer"
    assert vault.citations[0].path == "platform/certificate-expiry.md"
    assert "vault" in vault.citations[0].quote
    # the runbook renews it with vault, never in a cloud console: offered, not quoted
    console = sample_runtime.extractive.answer(
        "how do i renew the payments-gateway certificate via the aws certificate manager console"
    )
    assert undone(console, vault)


# a team's FAQ template: each page opens with the problem, then why, then what to do
FAQ_PAGES = {
    "faq/grpc-logs.md": (
        "### Problem\n\nThe application console is flooded with `io.grpc.netty` DEBUG log "
        "lines from the agent.\n\n### Reason\n\nThe agent's gRPC client logs through the "
        "application's logger at its level.\n\n### Resolve\n\nSet `logging.level=INFO` "
        "for the `io.grpc` package in the agent's `agent.config`, then restart the app.\n"
    ),
    "faq/cast-exception.md": (
        "### Problem\n\nThe agent logs `ClassCastException: EnhanceCache cannot be cast "
        "to EnhanceCache` after a redeploy.\n\n### Reason\n\nTwo class loaders loaded the "
        "plugin.\n\n### Resolve\n\nThe `ClassCastException` goes when one class loader "
        "loads the plugin: remove the second copy of the plugin jar from the application's "
        "`lib` folder, then restart the application.\n"
    ),
    "faq/timezone.md": (
        "### Problem\n\nThe UI shows no traces for the last hour although agents report.\n\n"
        "### Reason\n\nThe backend and the UI run in different time zones.\n\n### Resolve"
        "\n\nRun the backend and the UI with the same `TZ` setting.\n"
    ),
    "faq/memory.md": (
        "### Problem\n\nThe worker thread's heap keeps growing until the JVM runs out of "
        "memory.\n\n### Reason\n\nAn enhanced thread pool keeps its context.\n\n### Resolve"
        "\n\nUpgrade the agent to 8.1 or newer, which clears the context.\n"
    ),
}


def test_a_pasted_error_leads_with_the_fix_where_the_template_opens_with_the_problem(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """The index's own template opens each page with "Problem", which restates the
    error: pasted, the error leads with what to do ("Resolve"), as it would under
    "Symptoms". No word list says "Problem" restates: the index's template does."""
    question = (
        "agent log says ClassCastException: EnhanceCache cannot be cast to EnhanceCache, "
        "how do i fix it"
    )
    with runtime_over(FAQ_PAGES, tmp_path, embedder) as rt:
        answer = rt.extractive.answer(question)
        assert answer.citations and answer.citations[0].path == "faq/cast-exception.md"
        assert answer.citations[0].section.endswith("Resolve"), answer.citations[0].section
        config = AnswerConfig(off=frozenset({"openers"}))
        unread = rt.extractive.with_config(config).answer(question)
        assert unread.citations and unread.citations[0].section.endswith("Problem")


def _alarm(name: str, severity: str) -> str:
    return (
        f"# Run Book: {name}\n\nAlarm for the production API.\n\n"
        "## Historical false positives\n\nNothing registered to date.\n\n"
        f"## Severity guide\n\n{severity}\n\n"
        "## Related incident reports\n\n- None yet.\n"
    )


# a team's alarm template: the sections left as the template wrote them say the same in
# every runbook
ALARM_PAGES = {
    "alarms/api-request-count.md": _alarm(
        "API Production Request Count anomalously high",
        "1. Check the request rate by ASN in Cloudflare.\n2. If one ASN sends over 20% of "
        "requests, block it in the firewall.\n3. Otherwise scale the API service to 6 tasks.",
    ),
    "alarms/api-response-time.md": _alarm(
        "API Production Average Response Time above threshold",
        "1. Open the ECS dashboard.\n2. If database CPU is above 90%, restart the slowest "
        "query's task.",
    ),
    "alarms/nuxt-5xx.md": _alarm(
        "Nuxt Production 5XX responses above threshold",
        "1. Look up the failing route in the logs.\n2. Roll back the last frontend release.",
    ),
    "alarms/nuxt-request-count.md": _alarm(
        "Nuxt Production request count above threshold",
        "1. Check whether the traffic is a crawler.\n2. Rate limit it in Cloudflare.",
    ),
}
FILLERS = ("Nothing registered to date.", "- None yet.", "Alarm for the production API.")


def test_an_alarm_is_never_answered_with_the_text_its_template_repeats_in_every_runbook(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    """ "Nothing registered to date." and "None yet." stand under the same headings in
    every alarm runbook: they tell the engineer nothing of this alarm. Asked by the
    alarm's name, the runbook is quoted where it says something of its own. No word list
    names the filler: the index's runbooks repeat it."""
    question = "API Production Request Count anomalously high"
    with runtime_over(ALARM_PAGES, tmp_path, embedder) as rt:
        answer = rt.extractive.answer(question)
        assert answer.citations and answer.citations[0].path == "alarms/api-request-count.md"
        assert answer.citations[0].section.endswith("Severity guide"), answer.citations[0]
        assert "block it in the firewall" in answer.citations[0].quote
        assert not any(c.quote.strip() in FILLERS for c in answer.citations)
        config = AnswerConfig(off=frozenset({"fillers"}))
        unread = rt.extractive.with_config(config).answer(question)
        assert unread.citations and unread.citations[0].quote.strip() in FILLERS
