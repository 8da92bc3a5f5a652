"""What a question sets aside is no evidence for a part."""

from __future__ import annotations

from retrieval.answer.part_ranking import SectionWeights, rank_parts
from retrieval.reading.contrast import opens_on_state, says_state, seen_fine, set_aside
from retrieval.reading.evidence import TermStats
from retrieval.reading.tokenize import tokenize
from tests.retrieval.answer.test_composer import parts_of


def test_what_is_set_aside() -> None:
    assert set_aside("the bosh director's db, not a tenant's, where is its id?") == {"tenant"}
    assert set_aside("move the vmi without shutting it down") == {"shut"}
    assert set_aside("use the replica rather than the primary") == {"primari"}
    # "not just my login": the login is not what the question is about
    assert set_aside("logit itself looks down, not just my login. who do i call") == {"login"}
    assert set_aside("the whole cluster, not only the one node") == {"node"}
    # "not" describing a state sets nothing aside
    assert set_aside("pod is not running and not ready") == frozenset()
    # a word also asked for outside the contrast stays asked for
    assert set_aside("restart the pod without restarting the node") == {"node"}


RESTORES = """# Restoring RDS

## Tenant Databases

### Identify the database

Find the tenant's service instance, then its database identifier in the broker.

## Platform Databases

Platform databases are named in the deployment's Terraform outputs: look up the
database identifier there.
"""


def test_a_section_headed_by_what_the_question_sets_aside_does_not_lead() -> None:
    question = (
        "restoring a platform db (the director's, not a tenant's), where's its database identifier"
    )
    terms = list(dict.fromkeys(tokenize(question)))
    stats = TermStats.from_doc_terms({"r": tokenize(RESTORES), "o": ["unrelated"]})

    def first(ruled_out: frozenset[str]) -> str:
        got = rank_parts(
            parts_of(RESTORES),
            terms,
            stats,
            lambda p: 0.5,
            "diagnose",
            SectionWeights(),
            ruled_out=ruled_out,
        )
        return got[0].part.heading

    assert first(frozenset()) == "Identify the database"
    assert first(set_aside(question)) == "Platform Databases"


def test_a_healthy_state_the_question_reports() -> None:
    assert seen_fine("cvo pod is Running and logs look clean?? wtf") == {"running"}
    assert seen_fine("every replica is all ready, pods themselves still running") == {
        "ready",
        "running",
    }
    # the failure itself is the case the runbook covers
    assert seen_fine("logging collector pods all Running but no metrics") == {"running"}
    assert seen_fine("pod is not running and not ready") == frozenset()
    assert seen_fine("is it ready yet") == frozenset()
    # running out, running slow: trouble, not a healthy state
    assert seen_fine("the disk is running out of inodes and the job is still running slow") == (
        frozenset()
    )
    assert says_state("1. Verify the cluster-version-operator is running", {"running"})
    assert says_state("Pod is not running", {"running"})
    # a word, not a stem: running a command is no state
    assert not says_state("Run the following command", {"running"})


OPERATOR = """# OperatorDown

## Diagnosis

### 1. Verify the operator is running

Check that the operator pod is running and inspect its log.

### 2. Prometheus issues

The operator pod can be healthy while Prometheus fails to scrape it: check its targets.
"""


def test_a_check_of_what_the_asker_has_seen_does_not_lead() -> None:
    question = "OperatorDown firing but the operator pod is running. what else"
    terms = list(dict.fromkeys(tokenize(question)))
    stats = TermStats.from_doc_terms({"r": tokenize(OPERATOR), "o": ["unrelated"]})

    def first(seen: frozenset[str]) -> str:
        got = rank_parts(
            parts_of(OPERATOR), terms, stats, lambda p: 0.5, "diagnose", SectionWeights(), seen=seen
        )
        return got[0].part.heading

    assert first(frozenset()) == "1. Verify the operator is running"
    assert first(seen_fine(question)) == "2. Prometheus issues"


def test_a_section_that_opens_on_a_state_is_the_branch_for_it() -> None:
    running = frozenset({"running"})
    assert opens_on_state("If the `cluster-version-operator` pod is running, the problem", running)
    assert opens_on_state("If the pod is running but Prometheus cannot reach it:", running)
    assert opens_on_state("When the hosted cluster is healthy and the API errors", {"healthy"})
    # the other branch, a statement, an unconditioned use of the word, another state
    assert not opens_on_state("If the pod is not running, restart it.", running)
    assert not opens_on_state("The pod is running. Check its log.", running)
    assert not opens_on_state("If you are running AWS EKS, update the config map.", running)
    assert not opens_on_state("If the pod is running, check it.", frozenset({"ready"}))
    assert not opens_on_state("If the pod is running, check it.", frozenset())


BRANCHES = """# OperatorDown

## Diagnosis

### 1. Node failures

Check whether the node the operator pod runs on was drained or evicted pods.

### 2. Scraping

If the operator pod is running, Prometheus may not reach it. Check the following:

#### Certificates

Look for certificate errors in the Prometheus log.

#### Network policies

Look for a network policy that blocks the monitoring namespace.
"""


def test_the_branch_for_what_the_asker_has_seen_leads_with_its_checks() -> None:
    question = "OperatorDown firing but the operator pod is running and logs are clean"
    terms = list(dict.fromkeys(tokenize(question)))
    stats = TermStats.from_doc_terms({"r": tokenize(BRANCHES), "o": ["unrelated"]})

    def first(seen: frozenset[str]) -> tuple[str, ...]:
        got = rank_parts(
            parts_of(BRANCHES), terms, stats, lambda p: 0.5, "diagnose", SectionWeights(), seen=seen
        )
        return got[0].part.heading_path

    assert first(frozenset())[-1] == "1. Node failures"
    assert first(seen_fine(question))[:3] == ("OperatorDown", "Diagnosis", "2. Scraping")
