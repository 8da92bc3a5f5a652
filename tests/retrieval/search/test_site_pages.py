"""Links by site address (``/manual/purge-cache``, ``./restart``) read as the runbook they name."""

from __future__ import annotations

from retrieval.search.site_pages import SitePages

DOCS = [
    "runbooks:source/manual/purge-cache.html",  # purge-cache.html.md, served as a page
    "runbooks:source/manual/alerts/purge-cache.html",
    "runbooks:content/runbooks/node/NodeRAIDDegraded",
    "runbooks:docs/queues/common/consumer-restart",
    "runbooks:docs/queues/restart/index",
    "runbooks:docs/queues/alerts/stalled",
    "other:docs/queues/common/broker",
]
PAGES = SitePages(DOCS)
WITHIN = ("docs/queues/alerts/stalled.md", "runbooks:docs/queues/alerts/stalled")


def test_a_relative_address_names_the_file_beside_it_with_any_suffix() -> None:
    assert PAGES.find("../common/consumer-restart", *WITHIN) == DOCS[3]
    assert PAGES.find("../common/consumer-restart/#scale-down", *WITHIN) == DOCS[3]
    assert PAGES.find("../restart/", *WITHIN) == DOCS[4]  # a folder's index page
    assert PAGES.find("../common/missing", *WITHIN) is None
    assert PAGES.find("../../../../outside", *WITHIN) is None


def test_an_address_from_the_site_root_names_the_one_document_ending_with_it() -> None:
    assert PAGES.find("/queues/common/consumer-restart/", *WITHIN) == DOCS[3]
    assert PAGES.find("/runbooks/node/noderaiddegraded/", *WITHIN) == DOCS[2]  # Hugo's case
    assert PAGES.find("/alerts/purge-cache.html", *WITHIN) == DOCS[1]
    assert PAGES.find("/purge-cache", *WITHIN) is None  # two pages end with it
    assert PAGES.find("/queues/common/broker", *WITHIN) is None  # another source's page


def test_addresses_elsewhere_name_no_runbook() -> None:
    for target in ("https://example.com/x", "//cdn.example.com/x", "#anchor", "/", "mailto:a@b"):
        assert PAGES.find(target, *WITHIN) is None


def test_a_wiki_page_name_names_the_file_of_that_name_anywhere_in_its_source() -> None:
    pages = SitePages(
        [
            "wiki:Restart-the-pod",
            "wiki:ops/Disk_Full",
            "wiki:queues/Logs",
            "wiki:payments/Logs",
            "other:Broker",
        ]
    )
    within = ("queues/Consumer-stalled.md", "wiki:queues/Consumer-stalled")
    assert pages.find_page("Restart the pod", *within) == "wiki:Restart-the-pod"
    assert pages.find_page("disk full", *within) == "wiki:ops/Disk_Full"
    assert pages.find_page("ops/Disk Full", *within) == "wiki:ops/Disk_Full"
    assert pages.find_page("Logs", *within) == "wiki:queues/Logs"  # the one beside it
    assert pages.find_page("Logs", "Home.md", "wiki:Home") is None  # two, neither beside
    assert pages.find_page("Broker", *within) is None  # another source's page
    assert pages.find_page("Nowhere", *within) is None
