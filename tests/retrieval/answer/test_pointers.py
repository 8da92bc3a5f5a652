"""Which sections only point at a shared procedure, and where."""

from __future__ import annotations

from core.link_references import link_definitions
from ingest.chunker import chunk_document
from retrieval.answer.outline import Part, document_parts
from retrieval.answer.pointers import named_within, pointed_to, pointed_within
from retrieval.search.site_pages import SitePages
from tests.conftest import markdown_document

ALERT = """# Policy Propagator Has a High Error Rate

## Troubleshooting

### 1. Check the Logs

See [Checking the Policy Propagator Logs](../../common/propagator-logs.md) and filter for
logs with `policy-set` in them.

### 2. Restart the Pod

Restarting the pod reconciles every policy again. See
[Restarting the Propagator](../../common/propagator-restart.md#restart-on-the-hub).

### 3. Escalate

If nothing helps, see [the escalation policy](https://example.com/escalation.md).

### 4. Compare the two

Compare [the logs](../../common/propagator-logs.md) with
[the restart notes](../../common/propagator-restart.md).

### 5. Look above

The errors are explained in [the description](#description).

### 6. Outside

See [the deploy notes](../../../../deploy/notes.md).

### 7. Steps of its own

Before restarting, read [the restart notes](../../common/propagator-restart.md):

1. Scale the deployment down.
2. Scale it up again.
"""


ALERT_PATH = "policy/alerts/propagator/high-errors.md"


def parts() -> dict[str, Part]:
    d = markdown_document(ALERT, "Policy Propagator Has a High Error Rate", ALERT_PATH)
    return {p.heading: p for p in document_parts(chunk_document(d, 0))}


def test_a_short_step_that_links_one_runbook_points_at_it() -> None:
    by_heading = parts()
    assert pointed_to(by_heading["1. Check the Logs"]) == ("policy/common/propagator-logs", "")
    assert pointed_to(by_heading["2. Restart the Pod"]) == (
        "policy/common/propagator-restart",
        "restart-on-the-hub",
    )


def test_no_pointer_to_an_address_two_runbooks_its_own_page_or_outside_the_source() -> None:
    by_heading = parts()
    for heading in ("3. Escalate", "4. Compare the two", "5. Look above", "6. Outside"):
        assert pointed_to(by_heading[heading]) is None, heading


def test_a_step_with_steps_of_its_own_is_no_pointer() -> None:
    assert pointed_to(parts()["7. Steps of its own"]) is None


def test_a_short_step_that_links_a_section_of_its_own_runbook_points_within_it() -> None:
    by_heading = parts()
    assert pointed_within(by_heading["5. Look above"]) == "description"
    # a link to another runbook, two links, an address, steps of its own: not within
    for heading in (
        "1. Check the Logs",
        "2. Restart the Pod",
        "3. Escalate",
        "7. Steps of its own",
    ):
        assert pointed_within(by_heading[heading]) is None, heading


def test_a_link_to_its_own_file_by_path_is_a_pointer_within_and_no_other_runbook() -> None:
    text = """# Disk Filling Up

## Mitigation

### Capacity planning

Plan a bigger volume; until then [compact the store](filling-up.md#compact) to gain time.

### Compact

1. Run `store compact --all`.
"""
    d = markdown_document(text, "Disk Filling Up", "storage/alerts/filling-up.md")
    by_heading = {p.heading: p for p in document_parts(chunk_document(d, 0))}
    assert pointed_within(by_heading["Capacity planning"]) == "compact"
    assert pointed_to(by_heading["Capacity planning"]) is None


NAMED = """# Disk Filling Up

## Diagnosis

Check the volume: `df -h /var/lib/store`.

## Mitigation

### Capacity planning

Plan a bigger volume. In the meantime, you can use defrag to gain some time.

### Rollback

Follow the execution steps, but set the old size instead of the new one.

### Impact

Writes stop once the disk is full; the impact grows with every hour.

### Execution

1. Resize the volume: `store resize --size 200G`.

### Defrag

```shell
$ store defrag
```

### Compact and defrag

Compacting and defragmenting together, with the run log as the guide:

1. Run `store compact --all && store defrag`.
"""


def test_a_short_step_that_names_a_section_with_steps_points_at_it() -> None:
    d = markdown_document(NAMED, "Disk Filling Up", "storage/alerts/filling-up.md")
    parts = document_parts(chunk_document(d, 0))
    by_heading = {p.heading: p for p in parts}
    assert named_within(by_heading["Capacity planning"], parts) == (
        "Disk Filling Up",
        "Mitigation",
        "Defrag",
    )
    assert named_within(by_heading["Rollback"], parts) == (
        "Disk Filling Up",
        "Mitigation",
        "Execution",
    )
    # "impact" names a section without steps; a section with steps names no other
    assert named_within(by_heading["Impact"], parts) is None
    assert named_within(by_heading["Compact and defrag"], parts) is None
    assert named_within(by_heading["Diagnosis"], parts) is None


def test_a_step_naming_two_sections_with_steps_or_linking_one_names_none() -> None:
    text = NAMED.replace("you can use defrag", "you can use defrag or follow the execution")
    d = markdown_document(text, "Disk Filling Up", "storage/alerts/filling-up.md")
    parts = document_parts(chunk_document(d, 0))
    assert named_within(next(p for p in parts if p.heading == "Capacity planning"), parts) is None
    linked = NAMED.replace("use defrag", "use [defrag](https://store.example/defrag)")
    d = markdown_document(linked, "Disk Filling Up", "storage/alerts/filling-up.md")
    parts = document_parts(chunk_document(d, 0))
    assert named_within(next(p for p in parts if p.heading == "Capacity planning"), parts) is None


ADOC_ALERT = """= Disk Filling Up

== Mitigation

=== Capacity planning

Order a bigger volume; until then <<_compact_the_store,compact the store>> to gain time.

=== Restart

See xref:../common/store-restart.adoc#on-the-hub[Restarting the store].

=== Compact the store

. Run `store compact --all`.
"""


def test_asciidoc_cross_references_are_pointers_too() -> None:
    d = markdown_document(ADOC_ALERT, "Disk Filling Up", "storage/alerts/filling-up.adoc")
    by_heading = {p.heading: p for p in document_parts(chunk_document(d, 0))}
    assert pointed_within(by_heading["Capacity planning"]) == "_compact_the_store"
    assert pointed_to(by_heading["Restart"]) == ("storage/common/store-restart", "on-the-hub")


RST_ALERT = """Disk Filling Up
===============

Capacity planning
-----------------

Order a bigger volume; until then `Compact the store`_ to gain time.

Compact the store
-----------------

#. Run ``store compact --all``.
"""


def test_a_restructuredtext_section_reference_points_within_its_page() -> None:
    d = markdown_document(RST_ALERT, "Disk Filling Up", "storage/alerts/filling-up.rst")
    by_heading = {p.heading: p for p in document_parts(chunk_document(d, 0))}
    assert pointed_within(by_heading["Capacity planning"]) == "compact-the-store"


HUGO_ALERT = """# Node RAID Disk Failure

## Mitigation

See [Node RAID Degraded]({{< ref "./NodeRAIDDegraded.md" >}})

## Capacity planning

Order more disks; until then [compact the store]({{% relref "#compact-the-store" %}}).

## Compact the store

1. Run `store compact --all`.
"""


def test_a_hugo_ref_shortcode_as_a_link_target_is_a_pointer() -> None:
    d = markdown_document(
        HUGO_ALERT, "Node RAID Disk Failure", "content/node/NodeRAIDDiskFailure.md"
    )
    by_heading = {p.heading: p for p in document_parts(chunk_document(d, 0))}
    assert pointed_to(by_heading["Mitigation"]) == ("content/node/NodeRAIDDegraded", "")
    assert pointed_within(by_heading["Capacity planning"]) == "compact-the-store"


def test_a_link_by_site_address_points_at_the_runbook_it_names() -> None:
    text = ALERT.replace("../../common/propagator-logs.md", "/policy/common/propagator-logs/")
    d = markdown_document(text, "Policy Propagator Has a High Error Rate", ALERT_PATH)
    by_heading = {p.heading: p for p in document_parts(chunk_document(d, 0))}
    step = by_heading["1. Check the Logs"]
    assert pointed_to(step) is None  # without the index's pages: no file named
    pages = SitePages([d.source_id, "site/policy/common/propagator-logs"])
    assert pointed_to(step, pages) == ("site/policy/common/propagator-logs", "")


def test_a_reference_link_points_by_the_documents_own_definition() -> None:
    text = (
        ALERT.replace(
            "[Checking the Policy Propagator Logs](../../common/propagator-logs.md)",
            "[Checking the Policy Propagator Logs][logs]",
        )
        + "\n[logs]: ../../common/propagator-logs.md\n"
    )
    d = markdown_document(text, "Policy Propagator Has a High Error Rate", ALERT_PATH)
    parts = document_parts(chunk_document(d, 0))
    step = next(p for p in parts if p.heading == "1. Check the Logs")
    assert pointed_to(step) is None  # the definition is not in the step
    refs = link_definitions("\n\n".join(p.body for p in parts))
    assert pointed_to(step, refs=refs) == ("policy/common/propagator-logs", "")


def test_a_wiki_link_points_at_the_page_it_names_in_either_order() -> None:
    text = ALERT.replace(
        "[Checking the Policy Propagator Logs](../../common/propagator-logs.md)",
        "[[Checking the logs|Propagator-logs]]",
    ).replace(
        "[Restarting the Propagator](../../common/propagator-restart.md#restart-on-the-hub)",
        "[[Propagator restart#Restart on the hub|restarting the propagator]]",
    )
    text = text.replace("[the description](#description)", "[[#Description]]")
    d = markdown_document(text, "Policy Propagator Has a High Error Rate", ALERT_PATH)
    by_heading = {p.heading: p for p in document_parts(chunk_document(d, 0))}
    pages = SitePages([d.source_id, "wiki/Propagator-logs", "wiki/Propagator-restart"])
    assert pointed_to(by_heading["1. Check the Logs"]) is None  # without the index's pages
    assert pointed_to(by_heading["1. Check the Logs"], pages) == ("wiki/Propagator-logs", "")
    assert pointed_to(by_heading["2. Restart the Pod"], pages) == (
        "wiki/Propagator-restart",
        "Restart on the hub",
    )
    assert pointed_within(by_heading["5. Look above"], pages) == "Description"
