"""Quotes taken from the public runbook corpora the repository carries
(tests/fixtures/corpora), as an answer cites them: one section of a document."""

from __future__ import annotations

import re

from tests.conftest import ROOT

CORPORA = ROOT / "tests" / "fixtures" / "corpora"

# OpenShift alert runbooks: commands as indented code at the margin
OVN_NODE = "openshift-runbooks/alerts/cluster-network-operator/NodeWithoutOVNKubeNodePodRunning.md"
CEPH_NODE_DOWN = "openshift-runbooks/alerts/openshift-container-storage-operator/CephNodeDown.md"
# Kubernetes task pages: commands and their output indented eight spaces under "1." steps
POD_FAILURE = (
    "kubernetes-debug-tasks/content/en/docs/tasks/debug/debug-application/"
    "determine-reason-pod-failure.md"
)

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*$")


def document(path: str) -> str:
    """The document at ``path`` under the corpora, as written."""
    return (CORPORA / path).read_text(encoding="utf-8")


def section(path: str, heading: str) -> str:
    """The text of ``path`` under the heading ``heading``, as a quote of that section
    holds it: up to the next heading of its level or above, without the heading line
    and the blank lines around the text."""
    lines = document(path).split("\n")
    headings = [(i, m) for i, ln in enumerate(lines) if (m := _HEADING.match(ln))]
    start, level = next((i, len(m[1])) for i, m in headings if m[2] == heading)
    end = next((i for i, m in headings if i > start and len(m[1]) <= level), len(lines))
    return "\n".join(lines[start + 1 : end]).strip("\n")
