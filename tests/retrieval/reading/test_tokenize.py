from __future__ import annotations

import pytest

from retrieval.reading.tokenize import STOPWORDS, tokenize


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("KubePodCrashLooping", ["kubepodcrashlooping", "kube", "pod", "crash", "loop"]),
        ("checkout-api", ["checkout-api", "checkout", "api"]),
        (
            "node_filesystem_avail_bytes",
            ["node_filesystem_avail_bytes", "node", "filesystem", "avail", "byte"],
        ),
        (
            "etcdBackendQuotaLowSpace",
            ["etcdbackendquotalowspace", "etcd", "backend", "quota", "low", "space"],
        ),
        ("HTTPServerError", ["httpservererror", "http", "server", "error"]),
        (
            "kube-state-metrics.io",
            ["kube-state-metrics.io", "kube-state-metrics", "kube", "state", "metric", "io"],
        ),
        ("foo.bar", ["foo.bar", "foo", "bar"]),
        ("5023", ["5023"]),
        ("CHK-5023", ["chk-5023", "chk", "5023"]),
        ("/proc/mdstat", ["proc", "mdstat"]),
        ("--dry-run", ["--dry-run", "dry-run", "dri", "run"]),
    ],
)
def test_identifier_examples(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_flag_kept_verbatim_and_as_word() -> None:
    toks = tokenize("--force")
    assert toks[0] == "--force"
    # the bare name is tokenized like the plain word, so `force` in a query matches
    assert toks[1:] == tokenize("force") == ["forc"]


def test_whole_identifier_is_not_stemmed_but_parts_are() -> None:
    toks = tokenize("KubePodCrashLooping restarting")
    assert "kubepodcrashlooping" in toks  # whole: exact, unstemmed
    assert "loop" in toks and "looping" not in toks  # part: stemmed
    assert "restart" in toks  # plain word: stemmed


def test_lowercases_and_stems_plain_words() -> None:
    assert tokenize("Pods Restarting") == ["pod", "restart"]


def test_stopwords_dropped_negations_and_technical_words_kept() -> None:
    toks = tokenize("how do I restart the node when it is not up or is down and all out of disk")
    assert toks == ["restart", "node", "not", "up", "down", "all", "out", "disk"]
    for word in ("no", "not", "up", "down", "off", "all", "out", "us"):
        assert word not in STOPWORDS


def test_single_letters_dropped_digits_kept() -> None:
    assert tokenize("a b x 7 0") == ["7", "0"]
    assert tokenize("-n kube-system") == ["-n", "kube-system", "kube", "system"]


def test_punctuation_and_trailing_dots() -> None:
    assert tokenize("Restart checkout-api. Then (see /var/log/syslog), done!") == [
        "restart",
        "checkout-api",
        "checkout",
        "api",
        "see",
        "var",
        "log",
        "syslog",
    ]
    assert tokenize("") == []
    assert tokenize("  ... --- !!! ") == []


def test_dotted_hostname_keeps_inner_identifier() -> None:
    toks = tokenize("checkout-api.prod.svc.cluster.local:8080")
    assert toks[:4] == ["checkout-api.prod.svc.cluster.local", "checkout-api", "checkout", "api"]
    assert "8080" in toks


def test_acronyms_and_digits_in_identifiers() -> None:
    assert tokenize("k8s EC2 S3Bucket IPv6") == [
        "k8s",
        "ec2",
        "s3bucket",
        "s3",
        "bucket",
        "ipv6",
        "ip",
        "v6",
    ]


def test_an_acronym_in_the_plural_is_the_acronym() -> None:
    assert tokenize("PVCs CRDs VMIs S3s") == ["pvc", "crd", "vmi", "s3"]
    assert tokenize("PDBs") == tokenize("PDB")
    assert tokenize("AWS Pods") == tokenize("aws pods")  # capitals or a capital: words


def test_a_number_in_the_plural_is_the_number_too() -> None:
    assert tokenize("403s 500s") == ["403s", "403", "500s", "500"]
    assert set(tokenize("403")) <= set(tokenize("getting 403s"))
    assert tokenize("timeout 30s") == ["timeout", "30s", "30"]


def test_non_ascii_words() -> None:
    assert tokenize("Ünïcode café") == ["ünïcode", "café"]


def test_query_and_document_agree() -> None:
    doc = set(tokenize("Alert KubePodCrashLooping fires for checkout-api with CHK-5023."))
    for query in ("KubePodCrashLooping", "pod crash looping", "checkout api", "chk-5023", "5023"):
        assert set(tokenize(query)) <= doc, query


def test_word_by_word_equals_whole_text() -> None:
    # The keyword index relies on this to tokenize per whitespace-delimited word.
    text = (
        "Run `kubectl -n kube-system get pods --selector=app=checkout-api` (KubePodCrashLooping)."
    )
    assert tokenize(text) == [t for w in text.split() for t in tokenize(w)]
