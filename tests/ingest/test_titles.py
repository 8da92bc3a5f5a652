"""Document titles: front matter, the first real H1, never a TOC or a generic heading."""

from __future__ import annotations

import pytest

from ingest.titles import choose_title, first_h1, humanize


@pytest.mark.parametrize(
    ("title", "body", "rel", "expected"),
    [
        # front matter wins over the H1
        ("DB conn", "# H1\n", "db/conn.md", "DB conn"),
        # a table of contents before the H1
        (
            None,
            "## Contents\n\n- [A](#a)\n\n# Checkout API failover\n",
            "x.md",
            "Checkout API failover",
        ),
        (None, "# Table of Contents\n- [a](#a)\n# Payments outage\n", "p.md", "Payments outage"),
        # a heading inside a code fence is not a heading
        (None, "```sh\n# restart it\n```\n# Real title\n", "x.md", "Real title"),
        (None, "~~~\n# not\n~~~\n\nReal\n====\n", "x.md", "Real"),
        # generic headings give way to a specific one, or the file name
        (None, "# README\n\n# Payments gateway\n", "payments/README.md", "Payments gateway"),
        (None, "# README\n\ntext\n", "payments-gateway/README.md", "Payments gateway"),
        (None, "# Quick start\n\ntext\n", "payments/quick-start.md", "Payments: Quick start"),
        (None, "# Overview\n\ntext\n", "checkout/db-failover.md", "Db failover"),
        # numbered H1s are the document's sections, not its title
        (
            None,
            "# 1. Overview\n\nBackups run nightly.\n\n# 2. Restoring\n\n1. Create it.\n",
            "data/backup-restore.md",
            "Backup restore",
        ),
        (None, "# Step 1: Stop writes\n\nx\n# Step 2: Copy\n", "db/move.md", "Move"),
        (None, "# 2.1 Checking the backup\n\nx\n", "data/backups.md", "Backups"),
        # a number that is not a section's
        (None, "# 404 errors on checkout\n\nx\n", "x.md", "404 errors on checkout"),
        (None, "# 2FA reset\n\nx\n", "x.md", "2FA reset"),
        ("Overview", "# Redis cache eviction\n", "x.md", "Redis cache eviction"),
        # Markdown decoration is not part of the title
        (
            None,
            "# [`KubePodCrashLooping`](https://x) **alert**\n",
            "k.md",
            "KubePodCrashLooping alert",
        ),
        # no H1: a humanized file name
        (None, "## Service clusters\n\ntext\n", "docs/troubleshooting.md", "Troubleshooting"),
        (None, "text\n", "manual/add-a-best-bet.html.md", "Add a best bet"),
        # no H1, but the document opens with its title one level down
        (
            None,
            "## ManagedClusterClientCertRotationFailed\n\ntext\n",
            "alerts/managedcluster_client_cert_rotation_failed.md",
            "ManagedClusterClientCertRotationFailed",
        ),
        (
            None,
            "## KlusterletDown\n\ntext\n\n### Check the agent\n\nx\n",
            "alerts/klusterlet_agent.md",
            "KlusterletDown",
        ),
        # ... but not when a later heading stands level with it
        (None, "## Symptoms\n\nx\n\n## Mitigation\n\ny\n", "alerts/disk_full.md", "disk_full"),
        (None, "text\n", "alerts/KubeProxyDown.md", "KubeProxyDown"),
        # a template's placeholder left as the H1 is no title
        (
            None,
            "# (Title: Name of alert)\n\n## Overview\n\n# Definitions\n\n# Related Links\n",
            "alerts/PatroniWALGenerationSaturation.md",
            "PatroniWALGenerationSaturation",
        ),
        (None, "# <Alert name>\n\ntext\n", "alerts/DiskFull.md", "DiskFull"),
        (None, "# TODO\n\ntext\n", "ops/rotate-keys.md", "Rotate keys"),
        (None, "# Title: SidekiqQueueTooLarge\n\ntext\n", "a/x.md", "SidekiqQueueTooLarge"),
        # nothing better exists: keep the generic heading
        (None, "# Introduction\n\ntext\n", "README.md", "Introduction"),
    ],
)
def test_choose_title(title: str | None, body: str, rel: str, expected: str) -> None:
    assert choose_title(title, body, rel) == expected


def test_first_h1_skips_toc_and_fences() -> None:
    assert first_h1("# Contents\n```\n# no\n```\n# Real\n") == "Real"
    assert first_h1("no heading\n") is None


def test_humanize_keeps_identifiers() -> None:
    assert humanize("etcdNoLeader") == "etcdNoLeader"
    assert humanize("cert_rotation_failed") == "cert_rotation_failed"
    assert humanize("disk-full") == "Disk full"
