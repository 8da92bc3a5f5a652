"""Reference links and their definitions, wherever in the document they are."""

from __future__ import annotations

from core.link_references import REFERENCE_LINK, inline_reference, link_definitions

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
