"""Runbooks written in AsciiDoc or reStructuredText are indexed and answered like
Markdown ones: their sections, titles and owners are read from their own markup, and
quotes are verbatim spans of the original file."""

from __future__ import annotations

from pathlib import Path

from retrieval.search.embeddings import FastEmbedder
from tests.conftest import runtime_over

CEPH_MON = """.. _mon-troubleshooting:

==========================
 Troubleshooting Monitors
==========================

:owner: @storage-oncall

A monitor that drops out of quorum stops serving maps to clients.

Diagnosis
=========

Ask the monitor for its own view of the quorum::

    ceph daemon mon.a mon_status

Clock skew
----------

Monitors refuse to form a quorum when their clocks drift more than 0.05s apart.
Check ``chronyc tracking`` on every monitor host.

Mitigation
==========

1. Fix the clock on the skewed host: ``chronyc makestep``.
2. Restart the monitor: ``systemctl restart ceph-mon@a``.
3. Confirm the quorum with ``ceph quorum_status``.
"""

DISK_FULL = """= Node disk almost full
:owner: @platform-oncall

A node's root filesystem is above 90%.

== Diagnosis

Find what grew:

[source,bash]
----
du -xh --max-depth=2 /var | sort -h | tail

journalctl --disk-usage
----

== Mitigation

Vacuum the journal to 500M first, it is always safe:

[source,bash]
----
journalctl --vacuum-size=500M
----

Then remove images no pod uses: `crictl rmi --prune`.
"""

FILES = {"storage/mon-quorum.rst": CEPH_MON, "platform/disk-full.adoc": DISK_FULL}


def test_asciidoc_and_restructuredtext_runbooks_are_answered_from_their_sections(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    with runtime_over(FILES, tmp_path, embedder) as rt:
        docs = {d.path: d for d in rt.searcher.search("monitor quorum clock disk", 5)}
        assert set(docs) == set(FILES)
        mon = rt.extractive.answer("ceph monitor out of quorum clock skew, what do i do?")
        disk = rt.extractive.answer("node disk almost full, how do i free space?")

    for answer, path, owner, title in (
        (mon, "storage/mon-quorum.rst", "@storage-oncall", "Troubleshooting Monitors"),
        (disk, "platform/disk-full.adoc", "@platform-oncall", "Node disk almost full"),
    ):
        assert answer.state == "answer", (path, answer.reason, answer.confidence)
        first = answer.citations[0]
        assert first.path == path and first.owner == owner and first.title == title
        assert first.section == "Mitigation", [c.section for c in answer.citations]
        for c in answer.citations:
            assert FILES[c.path][c.start : c.end] == c.quote  # verbatim, in its own markup
    # the numbered steps are quoted whole; the adornment lines are never the quote
    assert "3. Confirm the quorum" in mon.citations[0].quote
    assert "==========" not in mon.citations[0].quote
    assert "journalctl --vacuum-size=500M" in disk.citations[0].quote


def test_subsections_below_the_split_level_are_quoted_on_their_own(
    tmp_path: Path, embedder: FastEmbedder
) -> None:
    with runtime_over(FILES, tmp_path, embedder) as rt:
        skew = rt.extractive.answer("how do i check the clock drift between monitors")
        grew = rt.extractive.answer("how do i see what filled up the node's disk")
    assert skew.citations and skew.citations[0].section == "Diagnosis > Clock skew"
    assert grew.citations and grew.citations[0].section == "Diagnosis"
    assert "journalctl --disk-usage" in grew.citations[0].quote
