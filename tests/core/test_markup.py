"""Headings and blocks of AsciiDoc and reStructuredText runbooks, and which syntax a
file is written in."""

from __future__ import annotations

from core.asciidoc import ASCIIDOC
from core.markdown import MARKDOWN, heading_extents, sections, split_blocks
from core.markup import DOCUMENT_SUFFIXES, syntax_for
from core.mdx import MDX
from core.restructuredtext import RESTRUCTUREDTEXT

RST = """.. _mon-troubleshooting:

==========================
 Troubleshooting Monitors
==========================

When a monitor drops out of quorum, start here.

Diagnosis
=========

Ask the monitor directly::

    ceph daemon mon.a mon_status
    Not a title
    -----------

Admin socket
------------

The socket lives in ``/var/run/ceph``.

----------

Mitigation
==========

1. Restart the monitor.
2. Check quorum again.

=====  ======
flag   effect
=====  ======
"""

ADOC = """= Disk full
:owner: @platform

== Diagnosis

[source,bash]
----
df -h /var

== not a heading inside a listing
----

=== Inodes ===

Check `df -i` as well.

== Mitigation

. Delete old journals.
. Re-check.
"""


def titles(found: list[tuple[int, int, int, str]]) -> list[tuple[int, str]]:
    return [(level, title) for _s, _e, level, title in found]


def test_restructuredtext_levels_follow_the_order_styles_appear_in() -> None:
    assert titles(RESTRUCTUREDTEXT.headings(RST, 0)) == [
        (1, "Troubleshooting Monitors"),
        (2, "Diagnosis"),
        (3, "Admin socket"),
        (2, "Mitigation"),
    ]
    # the overline starts the heading, the underline ends it
    first = RESTRUCTUREDTEXT.headings(RST, 0)[0]
    assert RST[first[0] : first[1]].startswith("====") and RST[first[0] : first[1]].endswith("=")


def test_restructuredtext_needs_a_title_at_the_margin_after_a_blank_line() -> None:
    # a literal block's indented lines, a transition and a table border are no titles
    found = [t for _l, t in titles(RESTRUCTUREDTEXT.headings(RST, 0))]
    assert "Not a title" not in found and "flag   effect" not in found
    assert titles(RESTRUCTUREDTEXT.headings("one\ntwo\n-----\n", 0)) == []
    # a short underline still counts once it is four characters long, as docutils reads it
    assert titles(RESTRUCTUREDTEXT.headings("Restart the pods\n----\n", 0)) == [
        (1, "Restart the pods")
    ]
    assert titles(RESTRUCTUREDTEXT.headings("Restart the pods\n--\n", 0)) == []


def test_asciidoc_titles_outside_delimited_blocks() -> None:
    assert titles(ASCIIDOC.headings(ADOC, 0)) == [
        (1, "Disk full"),
        (2, "Diagnosis"),
        (3, "Inodes"),
        (2, "Mitigation"),
    ]


MODULAR = """= Rotating the etcd serving certificates

You rotate them when `EtcdCertExpiringSoon` fires.

.Prerequisites
* You have the `cluster-admin` role.

.Procedure
. Delete the secret:
+
[source,terminal]
----
$ oc -n openshift-etcd delete secret etcd-serving-master-0
----
+
.Example output
----
secret deleted
----

....
.not a title inside a literal block
....

.Verification
* Check the new certificate.
"""


def test_asciidoc_block_titles_are_the_lowest_headings() -> None:
    """Modular docs write a procedure's parts as block titles (``.Procedure``): each is
    a part of the section, not a list item (``. step``), a literal block's delimiter or
    a listing's caption inside a step (after ``+``, not a blank line)."""
    assert titles(ASCIIDOC.headings(MODULAR, 0)) == [
        (1, "Rotating the etcd serving certificates"),
        (6, "Prerequisites"),
        (6, "Procedure"),
        (6, "Verification"),
    ]
    assert [s.heading_path for s in sections(MODULAR, 0, ASCIIDOC)] == [
        ("Rotating the etcd serving certificates",)
    ]
    shown = ASCIIDOC.as_markdown(MODULAR)
    assert "**Procedure**" in shown and "1. Delete the secret:" in shown


def test_sections_and_blocks_follow_the_syntax() -> None:
    paths = [s.heading_path for s in sections(ADOC, 0, ASCIIDOC)]
    assert paths == [
        ("Disk full",),
        ("Disk full", "Diagnosis"),
        ("Disk full", "Diagnosis", "Inodes"),
        ("Disk full", "Mitigation"),
    ]
    diagnosis = next(s for s in sections(ADOC, 0, ASCIIDOC) if s.heading_path[-1] == "Diagnosis")
    kinds = [b.kind for b in split_blocks(ADOC, diagnosis.body_start, diagnosis.end, ASCIIDOC)]
    assert kinds == ["text", "code"]  # the listing is one block, its blank line included
    # read as Markdown, the same text has none of these sections
    assert not set(paths) & {s.heading_path for s in sections(ADOC, 0, MARKDOWN)}
    (extent,) = [e for e in heading_extents(RST, 0, RESTRUCTUREDTEXT) if e[0] == "Diagnosis"]
    assert "Admin socket" in RST[extent[1] : extent[2]]
    assert "Mitigation" not in RST[extent[1] : extent[2]]


def test_the_syntax_is_told_by_the_file_name() -> None:
    assert syntax_for("ceph/troubleshooting-mon.rst") is RESTRUCTUREDTEXT
    assert syntax_for("ops/disk-full.ADOC") is ASCIIDOC
    assert syntax_for("ops/disk-full.asciidoc") is ASCIIDOC
    assert syntax_for("source/manual/dns.html.md") is MARKDOWN
    assert syntax_for("docs/page.mdx") is MDX
    assert {".md", ".mdx", ".rst", ".adoc"} <= set(DOCUMENT_SUFFIXES)


def test_asciidoc_links_and_cross_references_read_as_markdown_links() -> None:
    text = (
        "Until then, <<_compact_the_store,compact the store>> or see\n"
        "xref:../common/restart.adoc#on-the-hub[Restarting the pod], <<defrag>>,\n"
        "https://example.com/docs[the vendor docs] and link:runbook.pdf[the PDF].\n"
        "Not in code: `<<a,b>>`\n"
        "----\n"
        "echo <<EOF,x>>\n"
        "----\n"
    )
    shown = ASCIIDOC.as_markdown(text)
    assert "[compact the store](#_compact_the_store)" in shown
    assert "[Restarting the pod](../common/restart.adoc#on-the-hub)" in shown
    assert "[defrag](#defrag)" in shown
    assert "[the vendor docs](https://example.com/docs)" in shown
    assert "[the PDF](runbook.pdf)" in shown
    assert "`<<a,b>>`" in shown  # code spans and listings are shown as written
    assert "echo <<EOF,x>>" in shown


def test_restructuredtext_section_references_read_as_links_to_the_section() -> None:
    shown = RESTRUCTUREDTEXT.as_markdown(
        "Until then, `Compact the store`_ to gain time; see `the docs <https://x.io/d>`_.\n"
    )
    assert "[Compact the store](#compact-the-store)" in shown
    assert "[the docs](https://x.io/d)" in shown


def test_an_asciidoc_block_attached_to_a_step_stays_in_the_numbered_list() -> None:
    text = (
        ". Check which broker is down:\n"
        "+\n"
        "[source,bash]\n"
        "----\n"
        "kafka-broker-api-versions --bootstrap-server events-kafka:9092\n"
        "----\n"
        ". Read its logs.\n"
        "+\n"
        "Use the previous container's logs after a restart.\n"
        ". Restart it.\n"
        "\n"
        "Then watch the partitions.\n"
        "\n"
        ". A new list.\n"
    )
    assert ASCIIDOC.as_markdown(text).splitlines() == [
        "1. Check which broker is down:",
        "   ```",
        "   kafka-broker-api-versions --bootstrap-server events-kafka:9092",
        "   ```",
        "2. Read its logs.",
        "   Use the previous container's logs after a restart.",
        "3. Restart it.",
        "",
        "Then watch the partitions.",
        "",
        "1. A new list.",
    ]
