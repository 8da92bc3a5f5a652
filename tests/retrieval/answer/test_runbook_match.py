"""Which indexed runbook an alert names: by runbook_url, else by alert name."""

from __future__ import annotations

import pytest

from bot.runtime import Runtime
from retrieval.answer.runbook_match import (
    IndexedDocument,
    RunbookMatcher,
    linked_document,
    match_alert_name,
    match_url,
    path_segments,
    url_anchor,
)


def doc(
    path: str,
    title: str = "",
    *,
    alerts: tuple[str, ...] = (),
    url: str | None = None,
    doc_type: str = "runbook",
    status: str = "current",
) -> IndexedDocument:
    sid = path.rsplit(".", 1)[0]
    return IndexedDocument(sid, path, title or sid, url, alerts, doc_type, status)


DOCS = (
    doc(
        "checkout-api/database-connection-failures.md",
        "Checkout API: database connection failures",
        alerts=("CheckoutApiDbConnectionErrors",),
        url="https://github.com/acme/runbooks/blob/abc/checkout-api/database-connection-failures.md#L{line}",
    ),
    doc("kubernetes/KubePodCrashLooping.md", "KubePodCrashLooping"),
    doc("payments/README.md", "Payments"),
    doc("postgres/troubleshooting.md", "Postgres troubleshooting"),
    doc("disk-full.md", "Platform: node disk almost full"),
)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        # a forge link at another ref, with an anchor
        (
            "https://github.com/acme/runbooks/blob/main/checkout-api/"
            "database-connection-failures.md#mitigation",
            "checkout-api/database-connection-failures",
        ),
        # GitLab's /-/blob/<ref>/ and a query string
        (
            "https://gitlab.acme.io/sre/runbooks/-/blob/v2/checkout-api/"
            "database-connection-failures.md?plain=1",
            "checkout-api/database-connection-failures",
        ),
        # a rendered site: lowercased, no suffix, trailing slash
        (
            "https://runbooks.prometheus-operator.dev/runbooks/kubernetes/kubepodcrashlooping/",
            "kubernetes/KubePodCrashLooping",
        ),
        # a folder page is its README
        ("https://github.com/acme/runbooks/tree/main/payments", "payments/README"),
        ("https://runbooks.acme.io/payments/index.html", "payments/README"),
        # a root-level document: its whole path matches
        ("https://wiki.acme.io/ops/disk-full", "disk-full"),
        # the same file name under another folder is another page
        ("https://wiki.acme.io/kafka/troubleshooting", None),
        ("https://wiki.acme.io/spaces/OPS/pages/12345/Checkout+DB", None),
        ("", None),
    ],
)
def test_runbook_url_matches_the_document_it_shows(url: str, expected: str | None) -> None:
    assert match_url(url, DOCS) == expected


def test_a_tie_is_no_match() -> None:
    twins = (doc("a/x/runbook.md"), doc("b/x/runbook.md"))
    assert match_url("https://site/x/runbook", twins) is None
    assert match_url("https://site/a/x/runbook", twins) == "a/x/runbook"


def test_path_segments_ignore_case_punctuation_and_index_pages() -> None:
    assert path_segments("Checkout-API/DB_Conn.md") == ("checkoutapi", "dbconn")
    assert path_segments("payments/README.md") == ("payments",)
    assert path_segments("README.md") == ("readme",)
    # an AsciiDoc or reStructuredText runbook, and the page a docs site renders from it
    assert path_segments("ceph/mon-quorum.rst") == path_segments("ceph/mon-quorum.html")
    assert path_segments("ops/disk-full.adoc") == ("ops", "diskfull")


def test_alert_name_matches_front_matter_then_title_then_file_name() -> None:
    assert (
        match_alert_name("CheckoutApiDbConnectionErrors", DOCS)
        == "checkout-api/database-connection-failures"
    )
    assert match_alert_name("KubePodCrashLooping", DOCS) == "kubernetes/KubePodCrashLooping"
    assert match_alert_name("kube_pod_crash_looping", DOCS) == "kubernetes/KubePodCrashLooping"
    assert match_alert_name("NodeDiskAlmostFull", DOCS) is None
    titled = (doc("disk-full.md", "Node disk almost full"),)
    assert match_alert_name("NodeDiskAlmostFull", titled) == "disk-full"
    assert match_alert_name("", DOCS) is None


def test_several_documents_claiming_a_name_is_no_match_unless_one_is_current() -> None:
    both = (doc("a.md", alerts=("X1",)), doc("b.md", alerts=("X1",)))
    assert match_alert_name("X1", both) is None
    retired = (doc("a.md", alerts=("X1",), status="superseded"), doc("b.md", alerts=("X1",)))
    assert match_alert_name("X1", retired) == "b"
    postmortem = (doc("a.md", alerts=("X1",), doc_type="incident"), doc("b.md", alerts=("X1",)))
    assert match_alert_name("X1", postmortem) == "b"


def test_matcher_over_the_sample_index(sample_runtime: Runtime) -> None:
    matcher = RunbookMatcher(sample_runtime.searcher.snapshot)
    found = matcher.find(
        "https://github.com/acme/runbooks/blob/main/orders/queue-backlog.md", "Whatever"
    )
    assert (found.source_id, found.matched_by) == ("runbooks:orders/queue-backlog", "runbook_url")
    assert found.unindexed_url is None and found.anchor is None
    anchored = matcher.find(
        "https://github.com/acme/runbooks/blob/main/orders/queue-backlog.md#replay-the-dlq", None
    )
    assert (anchored.source_id, anchored.anchor) == (
        "runbooks:orders/queue-backlog",
        "replay-the-dlq",
    )
    # an unindexed runbook_url is reported, and the alert name still finds the runbook
    missing = "https://github.com/acme/runbooks/blob/main/orders/gone.md"
    found = matcher.find(missing, "OrderEventsDlqGrowing")
    assert (found.source_id, found.matched_by) == ("runbooks:orders/queue-backlog", "alert_name")
    assert found.unindexed_url == missing
    found = matcher.find(None, "NodeDiskAlmostFull")
    assert found.source_id is None and found.unindexed_url is None


@pytest.mark.parametrize(
    ("url", "anchor"),
    [
        ("https://git.example/r/blob/main/alerts.md#queue-disk-full", "queue-disk-full"),
        ("https://wiki.example/runbooks/#KubeProxyDown", "KubeProxyDown"),
        ("https://git.example/r/blob/main/alerts.md#disk%20full", "disk full"),
        ("https://git.example/r/blob/main/alerts.md#L42", None),  # a line, not a heading
        ("https://git.example/r/blob/main/alerts.md#L42-L50", None),
        ("https://git.example/r/blob/main/alerts.md#", None),
        ("https://git.example/r/blob/main/alerts.md", None),
    ],
)
def test_the_heading_a_runbook_url_points_at(url: str, anchor: str | None) -> None:
    assert url_anchor(url) == anchor


def test_a_link_in_a_question_names_the_runbook_it_shows() -> None:
    link = "https://github.com/acme/runbooks/blob/main/kubernetes/KubePodCrashLooping.md#mitigation"
    found = linked_document(f"what do i do per {link}, pods keep dying", DOCS)
    assert found.source_id == "kubernetes/KubePodCrashLooping"
    assert found.anchor == "mitigation"
    site = "https://runbooks.example.dev/runbooks/kubernetes/kubepodcrashlooping/"
    assert linked_document(f"{site} says what?", DOCS).source_id == (
        "kubernetes/KubePodCrashLooping"
    )
    assert linked_document("see postgres/troubleshooting.md.", DOCS).source_id == (
        "postgres/troubleshooting"
    )


def test_a_link_that_only_ends_like_a_runbook_names_none() -> None:
    for text in (
        "graph https://grafana.example.com/d/abc123/troubleshooting",  # a dashboard
        "checkout errors e.g. CHK-5023, v1.2",
        "nothing linked here",
    ):
        assert linked_document(text, DOCS).source_id is None, text
