"""What a question asks for, and what a heading offers."""

from __future__ import annotations

import pytest

from retrieval.reading.intent import (
    asks_about_past,
    asks_what_to_do,
    asks_where_to_start,
    heading_kinds,
    intent_match,
    question_intent,
)


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("KubePodCrashLooping", "unspecified"),
        ("checkout-api database connection refused", "unspecified"),
        ("what do I do?", "act"),
        ("pool is maxed out, what do we kill to free it", "act"),
        ("what should I restart first", "act"),
        ("KubeletTooManyPods on worker-7, can i just raise the cap", "act"),
        ("etcdBackendQuotaLowSpace critical. what buys me time until we can migrate", "act"),
        ("PrometheusRuleFailures: where do i even see which rule is erroring", "diagnose"),
        ("which metric do i graph for failed kubeconfig copies", "diagnose"),
        ("AlertmanagerMembersInconsistent - what am i supposed to compare", "diagnose"),
        ("InfoInhibitor firing for days, is this customer-facing?", "meaning"),
        ("does this affect customers", "meaning"),
        ("will a failover hurt any users", "meaning"),
        ("which tenants are hit", "meaning"),
        ("what's the blast radius", "meaning"),
        ("how do i stop it affecting customers", "procedure"),
        ("how serious is this", "meaning"),
        ("KubeAPIErrorBudgetBurn, do i wake ppl up or can it wait till morning", "meaning"),
        ("how do i restore one index from the snapshot", "procedure"),
        ("whats the command to get a psql prompt on the database", "procedure"),
        ("where do i bump the replica count", "procedure"),
        ("where can we tune the pool size", "procedure"),
        ("where do i see the deploy logs", "diagnose"),
        ("who do i escalate to when the search engine is broken", "escalate"),
        ("what actually caused the big checkout outage in september", "diagnose"),
        ("what was the cause of last week's outage", "diagnose"),
        ("logit itself looks down. who do i call", "escalate"),
        ("who owns the ledger sync runbook", "escalate"),
        ("which team is responsible for the dns resolvers", "escalate"),
        # an alert pasted as it arrived: its header and labels ask for nothing
        (
            "[FIRING:1] KubePodCrashLooping (namespace=payments pod=api-7f9 severity=warning)",
            "unspecified",
        ),
        ("alertname=NodeFilesystemSpaceFillingUp mountpoint=/var severity=critical", "unspecified"),
        ('KubeJobFailed job_name="backfill" severity=warning, how bad is it', "meaning"),
        ("severity=critical KubeQuotaExceeded, what do i do", "act"),
        # how on-call engineers ask for the action, and for what it means
        ("node drain hangs forever on 3 vms. options?", "act"),
        ("importer pod keeps getting recreated. what's the play", "act"),
        ("/var at 97% and the journal is huge. safe to clean what", "act"),
        ("operator panel says Degraded, what do i poke", "act"),
        ("audit log cannot be written. is that going to take the cluster down?", "meaning"),
        ("pool just passed 80% used. at what fill level does it stop taking writes", "meaning"),
        ("northd logging 'dropped 312 log messages'. what is that telling me", "meaning"),
        ("what does the spambot finding mean", "meaning"),
        ("what do i need before rotating the edge cert", "prepare"),
        ("rotating concourse secrets, what do i need to have rotated before i start?", "prepare"),
        ("what access do i need to run the restore", "prepare"),
        ("any prerequisites for the failover?", "prepare"),
        ("what does Backdoor:EC2/Spambot mean", "meaning"),
        ("how do i list which PDBs are sitting at their disruption limit", "diagnose"),
        ("how can we show which member is the raft leader", "diagnose"),
        # what makes it fire: the rule and its threshold, not what it costs
        ("KubeVirtVMIExcessiveMigrations. what counts as excessive, whats the threshold", "define"),
        ("spec sync controller 'stuck' - what exactly trips that", "define"),
        ("what error % does it trip at and over what window", "define"),
        ("how long does it have to be noncompliant before this goes off", "define"),
        ("SidekiqQueueTooLarge - what queue size does this actually fire at?", "define"),
        ("how long are two versions allowed to coexist before this is a real problem?", "define"),
        # "how many ... before" is a check when it asks how to tell
        ("how do i tell how many MB a defrag would give back before i bother", "diagnose"),
        ("cpu jumped for 3 min then went back down. do i still have to look at it?", "meaning"),
        (
            "distributor p99 on pushes is ~300ms since the deploy, is that outside normal?",
            "meaning",
        ),
        ("need a total of docs across the logs indices, is there a snippet for that", "procedure"),
        # why it is built so is explained, why it fails is diagnosed
        ("why does every iam user module carry two access keys?", "meaning"),
        ("why does cnv want at least two hypervisor-capable workers", "meaning"),
        ("why does the pod keep restarting", "diagnose"),
        ("why does it have high latency since the deploy", "diagnose"),
    ],
)
def test_question_intent(question: str, intent: str) -> None:
    assert question_intent(question) == intent


@pytest.mark.parametrize(
    ("question", "past"),
    [
        ("what actually caused the big checkout outage in september", True),
        ("what happened during the outage last week", True),
        ("link me the post-mortem for the checkout outage", True),
        ("the incident write-up for CHK-5023?", True),
        ("outage on 14 september, what was the root cause", True),
        ("refund webhook signature mismatch, refunds stuck PENDING", False),
        ("what causes CHK-5023 errors", False),
        ("checkout outage, what do i do", False),
    ],
)
def test_questions_about_what_happened(question: str, past: bool) -> None:
    assert asks_about_past(question) is past


def test_heading_kinds_read_the_whole_path() -> None:
    assert "act" in heading_kinds(("Mitigation", "Restart pgbouncer"))
    assert "act" in heading_kinds(("Orders DB", "Steps"))
    assert "diagnose" in heading_kinds(("Diagnosis",))
    assert "meaning" in heading_kinds(("Impact",))
    assert "escalate" in heading_kinds(("Escalation",))
    assert heading_kinds(("Symptoms",)) == {"symptoms"}
    # symptoms under a check or the background still only restate the alert
    assert heading_kinds(("Troubleshooting", "Snapshots not running", "Symptoms")) == {"symptoms"}
    assert heading_kinds(("Background Details", "Symptoms")) == {"symptoms"}
    assert "diagnose" in heading_kinds(("Root cause",))
    assert "diagnose" in heading_kinds(("Common causes",))
    assert "act" in heading_kinds(("Possible Resolutions",))
    assert "act" in heading_kinds(("Quick reference", "Remedies", "Kill git processes"))
    assert "act" in heading_kinds(("Common causes and remedies",))
    # "how to" names an action unless what it teaches is a check
    assert "act" in heading_kinds(("How to disable a worker",))
    assert heading_kinds(("How to diagnose this problem", "Dashboards")) == {"diagnose"}
    assert "act" not in heading_kinds(("How to identify the root cause?",))
    # steps of a check are a check; of a fix, or under one, a fix
    assert heading_kinds(("Investigation steps",)) == {"diagnose"}
    assert heading_kinds(("Troubleshooting procedure",)) == {"diagnose"}
    assert heading_kinds(("Resolution Steps",)) == {"act"}
    for heading in ("Before you begin", "Prerequisites", "Dependencies"):
        assert heading_kinds((heading,)) == {"prepare"}, heading
    # other words for a check
    for heading in ("Initial Assessment", "Analysis", "Inspect the Redis key", "Examine the pods"):
        assert heading_kinds((heading,)) == {"diagnose"}, heading
    assert "act" in heading_kinds(("Mitigation", "Step 3: Verify rollout"))
    # instructions for a check are the check's
    assert heading_kinds(("Troubleshooting instructions",)) == {"diagnose"}
    # tasks to tick off while responding are no fix, unless they name one
    assert "act" not in heading_kinds(("Quick Response Checklist",))
    assert "act" in heading_kinds(("Remediation checklist",))
    assert "act" in heading_kinds(("Response",))


@pytest.mark.parametrize(
    ("heading", "kind"),
    [
        # what the alert is for, in the words other runbook templates use
        ("What does this alert mean?", "meaning"),
        ("Why do we need this alert?", "meaning"),
        ("Why is this important?", "meaning"),
        ("Purpose", "meaning"),
        ("Definition", "meaning"),
        ("Alert Behavior", "meaning"),
        ("Alert behaviour", "meaning"),
        ("TL;DR", "meaning"),
        ("Severities", "impact"),
        # steps to take
        ("Clean up", "act"),
        ("Cleanup", "act"),
        ("Manual intervention", "act"),
        ("Instructions", "act"),
        ("Failover instructions", "act"),
        # a runbook's own "Runbook" section is its response
        ("Runbook", "act"),
        ("Playbook", "act"),
        # what is at stake, what must be in place first
        ("Blast radius", "impact"),
        ("Required permissions", "prepare"),
    ],
)
def test_headings_of_other_templates(heading: str, kind: str) -> None:
    assert kind in heading_kinds((heading,))


def test_resolving_an_address_is_a_lookup_not_a_fix() -> None:
    assert heading_kinds(("Troubleshooting", "Resolving pgbouncer port to client")) == {"diagnose"}
    assert "act" not in heading_kinds(("Resolving client address and port to process",))
    assert "act" in heading_kinds(("Resolving an issue",))
    assert "act" in heading_kinds(("Steps to resolve",))


def test_a_section_about_runbooks_is_no_response() -> None:
    assert "act" not in heading_kinds(("Related runbooks",))
    assert heading_kinds(("Runbook", "Example Queries for slow requests")) == {"diagnose"}


def test_a_word_inside_another_names_no_kind() -> None:
    # "slo" of "slow", "tldr" of nothing: whole words only
    assert "meaning" not in heading_kinds(("Example Queries for slow requests",))
    assert "meaning" not in heading_kinds(("Why it fails",))


def test_signing_in_is_not_reading_logs() -> None:
    for reading in ("Check the logs", "Logs in Kibana", "Read the log on the node"):
        assert "diagnose" in heading_kinds((reading,)), reading
    for signing in ("Log out one user everywhere", "Log in to the AWS console", "Log into Grafana"):
        assert "diagnose" not in heading_kinds((signing,)), signing


def test_intent_match_prefers_the_asked_kind() -> None:
    assert intent_match("act", ("Mitigation", "Defrag")) == 1.0
    assert intent_match("act", ("Symptoms",)) == 0.0
    # a bare alert wants the action first, then the diagnosis
    assert intent_match("unspecified", ("Mitigation",)) == 1.0
    assert intent_match("unspecified", ("Diagnosis",)) == 0.5
    assert intent_match("meaning", ("Impact",)) == 1.0
    assert intent_match("meaning", ("Mitigation",)) == 0.0


def test_the_rule_that_fires_is_asked_of_the_meaning_before_the_impact() -> None:
    assert heading_kinds(("Impact",)) == {"meaning", "impact"}
    assert "impact" not in heading_kinds(("Meaning",))
    assert intent_match("define", ("Meaning",)) == 1.0
    assert intent_match("define", ("Description",)) == 1.0
    assert intent_match("define", ("Impact",)) == 0.5
    # where the expression that fires it is spelled out
    assert intent_match("define", ("Metrics",)) == 1.0
    assert intent_match("define", ("Alerting Rules",)) == 1.0
    assert intent_match("define", ("Resolution", "Disabling a queue")) == 0.0
    # a check to run tells a false positive better than the rule that fires it
    assert intent_match("diagnose", ("Troubleshooting",)) == 1.0
    assert intent_match("diagnose", ("Metrics",)) == 0.5
    # "how bad is it" is answered by either
    assert intent_match("meaning", ("Impact",)) == intent_match("meaning", ("Meaning",)) == 1.0


def test_asks_what_to_do_only_for_the_open_question() -> None:
    for q in (
        "EtcdMembersDown firing, what do i do",
        "KubePodCrashLooping on checkout-api. next steps?",
        "disk full on db-3, what should we do",
    ):
        assert asks_what_to_do(q), q
    for q in (
        "can i just silence it if it flaps again?",
        "how do i restart pgbouncer",
        "what does EtcdMembersDown mean",
        "EtcdMembersDown",
    ):
        assert not asks_what_to_do(q), q


def test_where_to_start_asks_for_the_first_check() -> None:
    for q in (
        "sidekiq dashboard panels are flat lines. where do i start",
        "RolloutStuck since the deploy, where should we even begin?",
        "what should i check first",
    ):
        assert asks_where_to_start(q), q
        assert question_intent(q) == "diagnose", q
    for q in ("how do i start the worker again", "the job starts but never finishes"):
        assert not asks_where_to_start(q), q


def test_headings_that_say_what_the_alert_means_in_other_words() -> None:
    for heading in ("What it means", "Why it fires", "Alert condition"):
        assert heading_kinds((heading,)) == {"meaning"}, heading
