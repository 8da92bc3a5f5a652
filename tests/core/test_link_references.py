"""Reference links and their definitions, wherever in the document they are."""

from __future__ import annotations

from core.link_references import (
    REFERENCE_LINK,
    inline_reference,
    link_definitions,
    sub_references,
    with_links,
)

TEXT = """See [restoring a backup][Restore] and [the dashboard].

```
[not]: ./inside-code.md
```

[restore]: ../common/restore.md
[The  Dashboard]: https://grafana.example/d/x "Jobs"
[restore]: ./second-definition-loses.md
"""


def test_definitions_outside_code_by_label_first_one_wins() -> None:
    assert link_definitions(TEXT) == {
        "restore": "../common/restore.md",
        "the dashboard": "https://grafana.example/d/x",
    }


def test_references_read_as_inline_links_when_defined() -> None:
    refs = link_definitions(TEXT)
    line = TEXT.split("\n")[0] + " Disk [U_] and [gone][nowhere]."
    got = REFERENCE_LINK.sub(lambda m: inline_reference(m, refs), line)
    assert got == (
        "See [restoring a backup](../common/restore.md) and "
        "[the dashboard](https://grafana.example/d/x). Disk [U_] and gone."
    )


def test_brackets_inside_inline_code_are_no_reference() -> None:
    refs = {"restore": "../common/restore.md", "gitaly": "G"}
    line = "Set `node['gitaly'][restore]` then ``[restore][gitaly]`` and [restore][gitaly]."
    got = sub_references(line, lambda m: inline_reference(m, refs))
    assert got == "Set `node['gitaly'][restore]` then ``[restore][gitaly]`` and [restore](G)."
    assert with_links(line, [("[gitaly]", "U")]) == (
        "Set `node['gitaly'][restore]` then ``[restore][gitaly]`` and [restore](U)."
    )


def test_links_are_pointed_at_the_addresses_given_and_others_left() -> None:
    text = (
        "See [purge](/manual/purge-cache), [restore][r] and [docs](https://x.example/d).\n"
        "And [gone][nowhere]."
    )
    links = [("/manual/purge-cache", "https://git.example/blob/v1/purge.md#L1"), ("[r]", "U")]
    assert with_links(text, links) == (
        "See [purge](https://git.example/blob/v1/purge.md#L1), [restore](U) and "
        "[docs](https://x.example/d).\nAnd [gone][nowhere]."
    )
    assert with_links(text, []) == text


def test_a_wiki_link_becomes_a_link_with_the_text_a_reader_sees() -> None:
    url = "https://git.example/wiki/blob/abc/Restart-the-pod.md#L1"
    text = "First [[restart it|Restart-the-pod]], then [[Restart the pod|again]]; [[Other]]."
    links = [("[[restart it|Restart-the-pod]]", url), ("[[Restart the pod|again]]", url)]
    assert with_links(text, links) == (
        f"First [restart it]({url}), then [again]({url}); [[Other]]."
    )
