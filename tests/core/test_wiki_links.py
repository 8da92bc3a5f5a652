"""Wiki links: ``[[Page]]``, ``[[Page#Heading]]``, ``[[a|b]]`` in either order."""

from __future__ import annotations

from core.wiki_links import WIKI_LINK, as_words, page_half, page_key, resolve, shown_text


def test_links_are_found_but_not_shell_tests_or_other_brackets() -> None:
    text = (
        "See [[Restart the pod]], [[logs|Checking-the-logs#Errors]] and ![[graph.png]]. "
        'In code: [[ -f /etc/hosts ]] && [[ "$x" == y ]]; a list [[1, 2], [3]].'
    )
    assert [m[0] for m in WIKI_LINK.finditer(text)] == [
        "[[Restart the pod]]",
        "[[logs|Checking-the-logs#Errors]]",
        "![[graph.png]]",
    ]


def test_page_names_match_files_whatever_the_case_and_joiners() -> None:
    assert page_key("Restart the pod") == "restart-the-pod"
    assert page_key("Restart-the-Pod.md") == page_key("restart_the  pod") == "restart-the-pod"
    assert page_key("Ops/Disk Full") == "ops/disk-full"


def test_what_a_reader_sees() -> None:
    assert as_words("See [[Restart-the-pod]] or [[Disk full#Logs]].") == (
        "See Restart the pod or Disk full > Logs."
    )
    assert as_words("[[#Rollback]] and ![[diagram.png]]") == "Rollback and diagram.png"
    assert as_words("[[_TOC_]]\n\nIntro [[TOC]]") == "\n\nIntro "  # a contents marker
    # the half that is not the page when the index tells which is; else the first
    assert shown_text("restart it first|Restart-the-pod", page=1) == "restart it first"
    assert shown_text("Restart the pod|restart it first", page=0) == "restart it first"
    assert shown_text("restart it first|Restart-the-pod") == "restart it first"


def test_the_half_that_names_a_page() -> None:
    pages = {"restart-the-pod": "wiki:Restart-the-pod"}

    def find(name: str) -> str | None:
        return pages.get(page_key(name))

    assert resolve("restart it first|Restart-the-pod#Logs", find) == (
        "wiki:Restart-the-pod",
        1,
        "Logs",
    )
    assert resolve("Restart the pod|restart it", find) == ("wiki:Restart-the-pod", 0, "")
    assert resolve("Disk full", find) is None
    assert resolve("_TOC_", lambda name: "wiki:toc") is None
    url = "https://git.example/wiki/blob/abc/ops/Restart-the-pod.md#L4"
    assert page_half("restart it first|Restart the pod", url) == 1
    assert page_half("Restart-the-pod|restart it first", url) == 0
    assert page_half("one|two", url) is None
    wiki = "https://github.example/acme/ops/wiki/Restart-the-pod/0a1b2c3"  # at a revision
    assert page_half("restart it first|Restart the pod", wiki) == 1
