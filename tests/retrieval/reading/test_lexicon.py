from collections.abc import Callable

from retrieval.answer.confidence import everyday_terms, gather_evidence
from retrieval.reading.evidence import TermStats, unknown_entities
from retrieval.reading.lexicon import Lexicon, with_long_forms, written_in
from retrieval.reading.tokenize import tokenize


def test_dictionary_words_and_their_inflections_are_ordinary() -> None:
    lexicon = Lexicon()
    for word in ("culprit", "hogging", "tallies", "swears", "handshakes", "Pegged", "router"):
        assert word in lexicon, word


def test_superlatives_and_comparatives_are_ordinary() -> None:
    lexicon = Lexicon(["quick", "fast", "safe", "big", "easy", "early"], dictionary=False)
    for word in ("quickest", "fastest", "safest", "biggest", "easiest", "earlier"):
        assert word in lexicon, word
    assert "inbox" in Lexicon([], dictionary=False)  # a word of computing
    assert "veleroest" not in lexicon


def test_product_names_are_not_ordinary_words() -> None:
    lexicon = Lexicon()
    for word in ("istio", "velero", "argocd", "thanos", "coredns", "grafana", "pagerduty"):
        assert word not in lexicon, word


def test_shorthand_and_contractions_without_apostrophe() -> None:
    lexicon = Lexicon(dictionary=False)
    for word in ("ppl", "creds", "doesnt", "cant", "hasn", "didnt", "mgmt"):
        assert word in lexicon, word
    assert "velero" not in lexicon


def test_words_of_computing_that_name_no_product_are_ordinary() -> None:
    lexicon = Lexicon(dictionary=False)
    for word in ("backend", "hotfix", "datastore", "cert", "certs", "plugin", "timeout"):
        assert word in lexicon, word
    assert unknown_entities("backend timing out after the hotfix", {}, Lexicon()) == []
    assert unknown_entities("coredns timing out after the hotfix", {}, Lexicon()) == ["coredns"]


def test_a_product_the_dictionary_also_knows_is_still_a_name() -> None:
    lexicon = Lexicon(["kafka", "jenkins", "broker"])
    for word in ("kafka", "Jenkins", "consul"):
        assert word not in lexicon, word
    assert "broker" in lexicon
    assert unknown_entities("kafka consumer lag keeps climbing", {}, lexicon) == ["kafka"]
    assert unknown_entities("kafka consumer lag keeps climbing", {"kafka": 2}, lexicon) == []
    # a chat product, a brain's layer, a fabric: in an on-call question, the product
    for word in ("slack", "cortex", "flannel"):
        assert word not in Lexicon([word]), word
    asked = "how do i set up a slack receiver for a tenant's alertmanager"
    assert unknown_entities(asked, {"alertmanag": 3}, Lexicon(["slack", "receiver"])) == ["slack"]


def test_model_words_count_without_the_dictionary() -> None:
    lexicon = Lexicon(["kubelet"], dictionary=False)
    assert "kubelet" in lexicon and "kubelets" in lexicon
    assert "culprit" not in lexicon


def test_informal_question_names_nothing_unknown() -> None:
    corpus = {"prometheusduplicatetimestamps": 1, "servicemonitor": 1}
    question = "PrometheusDuplicateTimestamps, which servicemonitor is the culprit? ppl doesnt know"
    assert unknown_entities(question, corpus, Lexicon()) == []


def test_unknown_system_still_named() -> None:
    corpus = {"backup": 3, "nightly": 1}
    assert unknown_entities("velero nightly backup PartiallyFailed", corpus, Lexicon()) == [
        "velero",
        "PartiallyFailed",
    ]


def test_a_file_name_pasted_in_names_no_system() -> None:
    corpus = {"project": 3, "path": 2}
    question = "got a path like @hashed/00/11/0011...eff.git, which project is it? see values.yaml"
    assert unknown_entities(question, corpus, Lexicon()) == []
    # a dotted name that is no file is still a name
    assert unknown_entities("thanos.io rules broke", corpus, Lexicon()) == ["thanos.io"]


def test_an_acronym_in_the_plural_is_known_when_the_runbooks_use_it() -> None:
    corpus = {"pdb": 2, "list": 3}
    assert unknown_entities("how do i list which PDBs are at their limit", corpus, Lexicon()) == []
    assert unknown_entities("which CRDs are stuck", corpus, Lexicon()) == ["CRDs"]


def test_hyphenated_phrase_of_words_is_not_a_name() -> None:
    assert unknown_entities("is there a break-glass procedure", {}, Lexicon()) == []
    assert unknown_entities("search-api keeps restarting", {}, Lexicon()) == ["search-api"]


def test_a_snake_case_identifier_is_a_name_even_of_plain_words() -> None:
    """``number_of_replicas`` is a setting: when no runbook has it, the runbooks do not
    cover it, though "number", "of" and "replicas" are words."""
    question = "how do i drop number_of_replicas so it goes green"
    assert unknown_entities(question, {"replica": 2}, Lexicon()) == ["number_of_replicas"]
    assert unknown_entities(question, {"number_of_replicas": 1}, Lexicon()) == []


def test_everyday_words_and_instance_names_are_not_missing_terms() -> None:
    stats = TermStats(doc_freq={"disk": 3, "full": 2, "node": 4}, n_docs=10)
    question = "node disk full on ip-10-0-4-17 since 2am, culprit?"
    everyday = everyday_terms(question, stats.doc_freq, Lexicon())
    ev = gather_evidence(
        dense=0.6,
        terms=["node", "disk", "full", "ip-10-0-4-17", "2am", "culprit"],
        doc_terms=frozenset({"node", "disk", "full"}),
        stats=stats,
        everyday=everyday,
        unknown=(),
    )
    assert ev.absent == 0.0
    assert ev.coverage == 1.0


def test_a_word_in_capitals_is_a_plain_word_not_a_name() -> None:
    assert unknown_entities("shows AVAILABLE False on two clusters", {}, Lexicon()) == []
    assert unknown_entities("KubePodCrashLooping again", {}, Lexicon()) == ["KubePodCrashLooping"]


def test_a_verb_and_its_particle_are_read_as_the_one_word_runbooks_write() -> None:
    def written(*words: str) -> Callable[[str], bool]:
        return lambda w: w in words

    used = written("rollback", "failover", "setup")
    assert with_long_forms("how do i roll back the deploy", used) == (
        "how do i roll back rollback the deploy"
    )
    assert with_long_forms("we failed over to eu", used) == "we failed over failover to eu"
    assert with_long_forms("setting up a node", used) == "setting up setup a node"
    # only when the runbooks write the compound
    assert with_long_forms("shut down the vm", used) == "shut down the vm"
    # nor where the words mean something else
    assert with_long_forms("errors in the logs in grafana") == "errors in the logs in grafana"
    assert with_long_forms("the orders queue is backed up") == "the orders queue is backed up"
    assert with_long_forms("set the rollout back up") == "set the rollout back up"


def test_shorthand_is_read_with_its_long_form() -> None:
    assert with_long_forms("restart it on prod") == "restart it on prod production"
    assert with_long_forms("DB creds leaked") == "DB database creds credentials leaked"
    # part of a name, a path or a flag is left as written
    for text in ("prod-db is down", "kubectl get deploy/svc", "cert-manager failing", "gprd"):
        assert with_long_forms(text) == text
    # on-call slang, read as runbooks write it
    assert with_long_forms("bounce the pods") == "bounce restart the pods"
    # a pod's state as on-call speech says it
    assert with_long_forms("pgbouncer is crashlooping") == (
        "pgbouncer is crashlooping crashloopbackoff"
    )
    # Kubernetes kinds by their short names
    assert (
        with_long_forms("the collector SA isnt bound")
        == "the collector SA serviceaccount isnt bound"
    )


def test_shorthand_is_read_as_the_runbooks_write_it() -> None:
    stats = TermStats.from_doc_terms(
        {"a": tokenize("Production deploys; rotate the certificate"), "b": tokenize("prod")}
    )
    used = written_in(stats.doc_freq)
    # both written: both count; only the long form written: it replaces the shorthand
    assert with_long_forms("on prod", used) == "on prod production"
    assert with_long_forms("the cert expired", used) == "the certificate expired"
    # no long form written: the question keeps its word (and its absence counts)
    assert with_long_forms("grow the disk", used) == "grow the disk"


def test_kicking_a_thing_restarts_it_but_kicking_someone_off_does_not() -> None:
    assert with_long_forms("kick the pod") == "kick restart the pod"
    for text in (
        "how do i kick them off all their devices",
        "kick the user out of every session",
        "kick off the nightly backup by hand",
        "we kicked off a reindex",
    ):
        assert with_long_forms(text) == text
    # the particle of another clause is not the verb's
    assert with_long_forms("kick it, then tick off the list") == (
        "kick restart it, then tick off the list"
    )
