"""Names of documents, and names typed in other case read as the runbooks write them."""

from __future__ import annotations

from core.models import Chunk, DocumentMetadata, normalize_name
from retrieval.reading.names import (
    as_titled,
    as_written,
    naming_terms,
    only_names,
    query_names,
    spells_title,
    written_names,
)
from retrieval.reading.tokenize import tokenize


def chunk(path: str, title: str, text: str, alerts: tuple[str, ...] = ()) -> Chunk:
    return Chunk(
        chunk_id=path + "#0",
        source_id=path.rsplit(".", 1)[0],
        path=path,
        title=title,
        heading_path=(title,),
        text=f"{title}\n\n{text}",
        start=0,
        end=len(text),
        content_hash="h",
        line=1,
        metadata=DocumentMetadata(alerts=alerts),
    )


CHUNKS = [
    chunk(
        "kubernetes/KubeletDown.md",
        "KubeletDown",
        "Kubelet is down. Check GitHub and the CLUSTER variable; run `kubectl get "
        "ManagedClusterAddons -A`.",
    ),
    chunk("etcd/no-leader.md", "etcd has no leader", "Members lost quorum.", ("etcdNoLeader",)),
]
DOC_FREQ = {t: 1 for c in CHUNKS for t in tokenize(c.text)}
DOCUMENTS = frozenset({"kubeletdown", "etcdnoleader", "nolead"})


def read(query: str) -> str:
    return as_written(query, DOC_FREQ, lambda: written_names(CHUNKS), DOCUMENTS)


def test_names_as_the_runbooks_write_them() -> None:
    names = written_names(CHUNKS)
    assert names["kubeletdown"] == "KubeletDown"
    assert names["etcdnoleader"] == "etcdNoLeader"  # from front matter alerts
    assert names["managedclusteraddons"] == "ManagedClusterAddons"
    assert "cluster" not in names  # a word in capitals is not a name


def test_a_name_typed_in_lower_case_is_read_as_the_runbooks_write_it() -> None:
    assert read("kubeletdown firing, what do i do") == "KubeletDown firing, what do i do"
    assert read("etcdnoleader on prod") == "etcdNoLeader on prod"  # named in front matter
    assert read("oc get managedclusteraddons -A") == "oc get ManagedClusterAddons -A"
    assert query_names(read("kubeletdown firing")) == frozenset({"kubeletdown"})


def test_ordinary_words_stay_as_typed() -> None:
    for question in ("github is down", "cluster variable unset", "kubelet restarted"):
        assert read(question) == question


def test_the_runbook_spellings_are_only_gathered_when_a_word_may_be_rewritten() -> None:
    asked = []

    def names() -> dict[str, str]:
        asked.append(1)
        return {}

    as_written("kubelet is down on two nodes", DOC_FREQ, names, DOCUMENTS)
    assert asked == []


def test_the_words_that_name_the_document_are_told_apart() -> None:
    names = {"componentsaturationslooutofboundspgbouncersinglecore", "pgbouncersinglecore"}
    got = naming_terms(
        "component_saturation_slo_out_of_bounds:pgbouncer_single_core firing, who do i escalate to",
        names,
    )
    assert {"pgbouncer", "singl", "core", "satur", "compon"} <= got  # the whole name, as one
    assert not {"fire", "escal"} & got
    # a word the question also uses on its own still counts for the parts
    assert naming_terms("KubePodCrashLooping: the pod keeps crashing", {"kubepodcrashlooping"}) == {
        "kubepodcrashlooping",
        "kube",
        "loop",
    }
    # a service name the title merely contains tells which document only with the rest
    title = normalize_name("Checkout API: database connection failures")
    assert naming_terms("checkout-api database connection refused", {title}) == frozenset()
    assert naming_terms("disk full on the primary", {"kubeletdown"}) == frozenset()


def test_a_name_many_runbooks_use_is_a_product_not_a_runbooks_name() -> None:
    question = "add another PgBouncer process; KubePodCrashLooping is firing too"
    both = {"pgbouncer", "kubepodcrashlooping"}
    assert query_names(question) == both  # without the index's counts
    doc_freq = {"pgbouncer": 15, "kubepodcrashlooping": 2}
    assert query_names(question, doc_freq, 63) == {"kubepodcrashlooping"}
    # in a small index a few documents naming it still leaves it a name
    assert query_names(question, {"pgbouncer": 3}, 10) == both


def test_a_camel_case_alert_name_is_read_as_the_title_that_spells_it() -> None:
    titles = [
        "Configuration Policy Controller Has a High Error Rate",
        "Policy Set Controller Has a High Error Rate",
        "Policy Set Controller",
    ]
    text, read_as = as_titled(
        "ConfigPolicyControllerHighErrorRate firing on the hub", lambda n: False, lambda: titles
    )
    assert text == "Configuration Policy Controller Has a High Error Rate firing on the hub"
    assert read_as == (("ConfigPolicyControllerHighErrorRate", titles[0]),)
    # a word the title has that the name leaves out must be filler, and every part of the
    # name must begin a title word, in order
    assert not spells_title(["policy", "controller"], ["policy", "set", "controller"])
    assert not spells_title(["set", "policy", "controller"], ["policy", "set", "controller"])
    assert spells_title(["policy", "set", "controller"], ["policy", "set", "controller"])


def test_a_name_the_index_knows_or_no_title_spells_stays_as_typed() -> None:
    titles = [
        "Policy Set Controller Has a High Error Rate",
        "Policy Set Controller High Error Rates",
    ]
    for question, known in (
        ("KubePodCrashLooping on payments", True),  # the runbooks write it
        ("LoyaltyPointsSyncFailed firing", False),  # no title spells it
        ("PolicySetControllerHighErrorRate firing", False),  # two titles could
        ("ErrorRate is high", False),  # two words are no alert name
    ):
        assert as_titled(question, lambda n, k=known: k, lambda: titles) == (question, ())


def test_a_query_of_nothing_but_names_is_a_bare_alert() -> None:
    names = frozenset({"checkoutapidbconnectionerrors", "kubeletdown"})
    assert only_names("CheckoutApiDbConnectionErrors", names)
    assert only_names("KubeletDown firing", names)
    assert only_names("KubeletDown, CheckoutApiDbConnectionErrors alert in prod", names)
    assert only_names("KubeletDown on node-3, 10.42.7.19", names)  # where, not what
    assert not only_names("KubeletDown 500 errors", names)
    assert not only_names("what does KubeletDown mean", names)
    # the words of the document's own name, as naming_terms gives them
    naming = naming_terms("pgbouncer_single_core firing", {"pgbouncersinglecore"})
    assert only_names("pgbouncer_single_core firing", names, naming)
    assert not only_names("pgbouncer_single_core firing", names)
