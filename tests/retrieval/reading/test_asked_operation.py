"""The operation a question asks how to do, and whether an answer speaks of it."""

from __future__ import annotations

import pytest

from retrieval.reading.asked_operation import (
    asked_method,
    asked_operations,
    asks_how,
    does_task,
    gives_steps,
    requested_operations,
    shows_method,
    speaks_of_operations,
)


def test_an_operation_is_asked_for_unless_spoken_of_as_an_event() -> None:
    assert asked_operations("upgrading checkout-db this weekend, what's the procedure") == {
        "upgrading"
    }
    assert asked_operations("before tonight's node upgrade, what do i check") == frozenset()
    # turning a value up or down is said too many ways to count as missing coverage
    assert asked_operations("how do i raise the limit") == frozenset()


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("terraform run stuck pending for an hour, how do i cancel it", {"cancel"}),
        ("which node do i demote and how do i fence the old primary?", {"demote", "fence"}),
        ("which vault token do i need to renew and how", {"renew"}),
        ("what are the steps to actually provision a new hosting cluster", {"provision"}),
        ("how do i safely drain the node", {"drain"}),
        ("can we just delete the stale lock", {"delete"}),
        ("how do i raise the 60 hosted cluster threshold", {"raise"}),
        ("how do i bump the memory quota for an org", {"bump"}),
        ("how do i reset the grafana admin password", {"reset"}),
        ("consul lost quorum after an az outage, how do we recover it?", {"recover"}),
        # an operation named as the task of a request or of a procedure
        ("how do i manually force a redis sentinel failover", {"failover"}),
        ("how do i take a snapshot of the disk", {"snapshot"}),
        ("whats the failover procedure for the registry db", {"failover"}),
        ("whats the runbook for a postgres major version upgrade", {"upgrade"}),
        ("we need to run a backup before the upgrade", {"backup"}),
        ("what are the steps for the app before the upgrade", set()),
        # an event, a noun, what was done, an alert's name: no task asked for
        ("pods crashlooping after the upgrade, what do i check", set()),
        ("upgrade stalled on the worker pool", set()),
        ("we scaled up an hour ago but lag still climbs", set()),
        ("i rotated the rds creds but old connections stay", set()),
        ("KubeDeploymentRolloutStuck firing, what now", set()),
    ],
)
def test_the_operation_asked_for_is_the_verb_of_the_request(
    question: str, expected: set[str]
) -> None:
    assert requested_operations(question) == expected


def test_an_operation_is_spoken_of_in_any_form() -> None:
    assert speaks_of_operations({"rotate"}, ["Stripe secret key rotation"])
    assert speaks_of_operations({"rebalance"}, ["Rebalancing partitions", "1. Run it"])
    assert speaks_of_operations({"snapshot"}, ["To take a disk snapshot:"])
    # every operation asked for, not one of them
    assert not speaks_of_operations({"demote", "fence"}, ["Demote the old primary"])
    # another word that starts alike is not the operation ("cancel" is not "can")
    assert not speaks_of_operations({"cancel"}, ["You can fail over to CloudFront"])
    assert not speaks_of_operations({"renew"}, ["The KMS server is unreachable"])


def test_an_operation_is_spoken_of_in_the_words_runbooks_do_it_in() -> None:
    assert speaks_of_operations({"failover"}, ["Switch traffic to the secondary provider"])
    assert speaks_of_operations({"restart"}, ["Bounce the pod once the key is stored"])
    assert speaks_of_operations({"rollback"}, ["Roll back a bad deploy"])
    assert speaks_of_operations({"enable"}, ["Turn on the feature flag"])
    # a phrase is matched whole: "turn" alone turns nothing on
    assert not speaks_of_operations({"enable"}, ["Turn the dial", "on the next page"])
    assert not speaks_of_operations({"failover"}, ["Restart the consumers"])


def test_a_value_turned_up_or_down_is_spoken_of_in_any_word_for_that_direction() -> None:
    assert speaks_of_operations({"bump"}, ["Increase the container's CPU limit"])
    assert speaks_of_operations({"raise"}, ["Set a higher `max_series`"])
    assert speaks_of_operations({"reduce"}, ["Lower the scrape interval"])
    # the other direction, or the value only named, says nothing of turning it up
    assert not speaks_of_operations({"raise"}, ["Lower the limit if the node is small"])
    assert not speaks_of_operations({"bump"}, ["The quota is 100 GB per org"])


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("how do i restore the previous object version from the replica bucket", True),
        ("what are the steps to provision a new hosting cluster", True),
        ("whats the procedure for a postgres major version upgrade", True),
        # whether to do it, not how: a sentence answers
        ("can i just delete the stale lock or will that break something", False),
        ("do i have to rotate that one by hand", False),
        ("how do i tell if it's a false positive", False),  # no operation asked for
    ],
)
def test_a_request_for_the_steps_of_an_operation(question: str, expected: bool) -> None:
    assert asks_how(question) is expected


@pytest.mark.parametrize(
    "markdown",
    [
        "```bash\nkubectl -n identity delete pod x\n```",
        "1. Log into the console.\n2. Choose the service.",
        "- Delete the `postfix_ca` section.",
        "If there is no job attached to the lock, delete the lock using the UI.",
        "To take a GCP persistent disk snapshot: identify the volume first.",
        "You need to purge the page from the cache after publishing.",
        "    gcloud compute disks snapshot disk-1",
        "For restore playbooks, see [Restore a database in Amazon RDS](restore.html).",
    ],
)
def test_steps_are_code_a_numbered_step_or_an_instruction(markdown: str) -> None:
    assert gives_steps(markdown)


@pytest.mark.parametrize(
    "markdown",
    [
        "These buckets have:\n\n- a replica in a different AWS region\n"
        "- versioning, so that we can restore previous or deleted object versions",
        "In some cases, GOV.UK stores original data directly in S3: `govuk-assets`.",
        "The key is rotated every 90 days by the cert-renewer.",
    ],
)
def test_a_description_of_what_exists_gives_no_steps(markdown: str) -> None:
    assert not gives_steps(markdown)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("need to purge every page in one go, how do i purge by surrogate key", ("surrog", "key")),
        ("how do i renew the payments-gateway cert using vault", ("vault",)),
        ("how do i restart it via helm so the values stick", ("helm",)),
        # who did it, how or why: no way asked for
        ("how do i delete every post_receive job queued by one user", ()),
        ("how do i rotate the key by hand", ()),
        # no steps asked for, or no operation
        ("can i just restart it using helm", ()),
        ("how do i tell it apart using the logs", ()),
    ],
)
def test_the_way_a_request_for_steps_names(question: str, expected: tuple[str, ...]) -> None:
    assert asked_method(question) == expected


def test_the_way_asked_for_is_named_in_the_quotes_or_not() -> None:
    assert shows_method(("vault",), ["1. Log in to Vault with your own identity"])
    assert not shows_method(("surrog", "key"), ["Purge a page from the Fastly CDN", "API key"])
    assert shows_method((), ["anything"])  # no way asked for


def test_a_task_is_done_by_quotes_that_speak_of_it_name_its_way_and_give_its_steps() -> None:
    steps = "1. Log in to Vault.\n2. Issue a new certificate."
    placed = [f"Renew a certificate manually\n{steps}"]
    assert does_task("how do i renew the cert using vault", [steps], placed)
    assert not does_task("how do i revoke the cert", [steps], placed)  # another operation
    assert not does_task("how do i renew the cert via the aws console", [steps], placed)
    described = "The certificate is renewed by the cert-renewer every 60 days."
    assert not does_task("how do i renew the cert", [described], [described])
    # whether to, not how: a sentence answers
    assert does_task("can i just renew the cert early", [described], [described])
    assert does_task("what does this alert mean", [described], [described])  # no task
