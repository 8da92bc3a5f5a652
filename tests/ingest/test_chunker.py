from __future__ import annotations

from core.markdown import sections
from core.models import Document
from ingest.chunker import chunk_document, estimate_tokens
from tests.conftest import markdown_document

DOC = """---
title: Disk full
---

# NodeDiskAlmostFull

Intro paragraph before sections.

## Diagnosis

Run this:

```console
df -h
# not a heading
```

## Mitigation

1. Rotate logs:

   ```console
   logrotate -f /etc/logrotate.conf
   ```

2. Vacuum journald.

### Last resort

| step | command |
| ---- | ------- |
| a    | rm -rf /var/tmp/* |
"""


def make_doc(text: str, title: str = "Disk full") -> Document:
    return markdown_document(text, title, "platform/disk.md")


def body_start(text: str) -> int:
    return text.index("# NodeDisk") if "# NodeDisk" in text else 0


def test_sections_follow_headings_and_ignore_code_fences() -> None:
    secs = sections(DOC, body_start(DOC))
    paths = [s.heading_path for s in secs]
    assert paths == [
        ("NodeDiskAlmostFull",),
        ("NodeDiskAlmostFull", "Diagnosis"),
        ("NodeDiskAlmostFull", "Mitigation"),
        ("NodeDiskAlmostFull", "Mitigation", "Last resort"),
    ]


def test_offsets_point_at_the_exact_section_text() -> None:
    chunks = chunk_document(make_doc(DOC), body_start(DOC))
    assert chunks
    for c in chunks:
        section_text = DOC[c.start : c.end]
        assert c.text.endswith(section_text)
        assert c.text.startswith("Disk full\n")
        assert section_text == section_text.strip()
        assert c.line == DOC.count("\n", 0, c.start) + 1
    diag = next(c for c in chunks if c.heading_path[-1] == "Diagnosis")
    assert DOC[diag.start : diag.end].startswith("## Diagnosis")
    assert DOC[diag.start : diag.end].endswith("```")
    assert "NodeDiskAlmostFull > Diagnosis" in diag.text


def test_oversized_section_splits_at_paragraphs_without_cutting_code() -> None:
    steps = "\n\n".join(
        f"Paragraph {i} explains the checkout-api database pool in detail " * 3 for i in range(30)
    )
    code = "```bash\n" + "\n".join(f"echo step {i}" for i in range(40)) + "\n```"
    text = f"# Big\n\n## Procedure\n\n{steps}\n\nRun the following:\n\n{code}\n\n{steps}\n"
    chunks = chunk_document(make_doc(text, "Big"), 0, max_tokens=256)
    proc = [c for c in chunks if c.heading_path[-1:] == ("Procedure",)]
    assert len(proc) > 2
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    for c in proc:
        span = text[c.start : c.end]
        assert span.count("```") % 2 == 0, "a code block was cut"
    holder = next(c for c in proc if "echo step 0" in text[c.start : c.end])
    span = text[holder.start : holder.end]
    assert "Run the following:" in span and "echo step 39" in span


def test_numbered_procedure_kept_together() -> None:
    items = "\n\n".join(
        f"{i}. Do step number {i} carefully and verify it " * 2 for i in range(1, 9)
    )
    filler = "\n\n".join("Background text about queues and consumers. " * 6 for _ in range(12))
    text = f"# Q\n\n## Steps\n\n{filler}\n\n{items}\n"
    chunks = chunk_document(make_doc(text, "Q"), 0, max_tokens=200)
    holders = [c for c in chunks if "1. Do step" in text[c.start : c.end]]
    assert len(holders) == 1
    assert "8. Do step" in text[holders[0].start : holders[0].end]


def test_a_heading_inside_a_section_is_never_cut_from_its_text() -> None:
    """A long section splits between blocks, never right after a deeper heading or a bold
    label: ``###### Note`` at the end of one chunk and its text in the next would quote
    the note under the heading before it."""
    filler = "\n\n".join("Background about the finding and the botnet. " * 6 for _ in range(8))
    for heading in ("###### Note", "**Remediation recommendations:**"):
        text = f"# Finding\n\n## Details\n\n{filler}\n\n{heading}\n\nIsolate the instance.\n"
        for budget in range(120, 420, 20):
            chunks = chunk_document(make_doc(text, "Finding"), 0, max_tokens=budget)
            holder = [c for c in chunks if heading in text[c.start : c.end]]
            assert len(holder) == 1, (heading, budget)
            assert "Isolate the instance." in text[holder[0].start : holder[0].end], budget


def test_empty_heading_sections_produce_no_chunks() -> None:
    text = "# Title\n\n## Empty\n\n## Full\n\nSome text.\n"
    chunks = chunk_document(make_doc(text, "Title"), 0)
    assert [c.heading_path for c in chunks] == [("Title", "Full")]


def test_estimate_tokens_grows_with_text() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("kubectl get pods") < estimate_tokens("kubectl get pods " * 10)


def test_setext_headings_start_sections_with_exact_offsets() -> None:
    text = (
        "Disk full\n=========\n\nIntro.\n\nDiagnosis\n---------\n\nRun `df -h`.\n\n"
        "Mitigation\n----------\n\n1. Rotate logs.\n2. Vacuum journald.\n"
    )
    chunks = chunk_document(make_doc(text), 0)
    assert [c.heading_path for c in chunks] == [
        ("Disk full",),
        ("Disk full", "Diagnosis"),
        ("Disk full", "Mitigation"),
    ]
    mitigation = chunks[-1]
    assert text[mitigation.start : mitigation.end].startswith("Mitigation\n----------")
    assert "2. Vacuum journald." in text[mitigation.start : mitigation.end]


def test_a_bold_lead_in_is_never_cut_from_what_it_introduces() -> None:
    """``**Warning:**`` on a line of its own introduces the paragraph after it, as
    "Run the following:" does."""
    filler = "\n\n".join("Background about the replica and the primary. " * 6 for _ in range(8))
    text = f"# DB\n\n## Fail over\n\n{filler}\n\n**Warning:**\n\nNever promote a lagging replica.\n"
    for budget in range(120, 420, 20):
        chunks = chunk_document(make_doc(text, "DB"), 0, max_tokens=budget)
        holder = [c for c in chunks if "**Warning:**" in text[c.start : c.end]]
        assert len(holder) == 1 and "Never promote" in text[holder[0].start : holder[0].end]


def test_a_tab_line_is_never_cut_from_the_tab_it_opens() -> None:
    """Hugo's ``{{< tab name="RHEL" >}}`` labels the text after it: a long section split
    between two tabs starts its second piece with the tab's line, so the piece quoted
    says which distribution its commands are for."""
    filler = "\n\n".join("Background about the resolver and the daemon. " * 6 for _ in range(4))
    text = (
        f'# DNS\n\n## Turn off dnsmasq\n\n{{{{< tabs >}}}}\n\n{{{{< tab name="Ubuntu" >}}}}\n\n'
        f'{filler}\n\n{{{{< /tab >}}}}\n\n{{{{< tab name="RHEL" >}}}}\n\n'
        f"Stop the service on RHEL.\n\n{filler}\n\n{{{{< /tab >}}}}\n\n{{{{< /tabs >}}}}\n"
    )
    for budget in range(120, 420, 20):
        chunks = chunk_document(make_doc(text, "DNS"), 0, max_tokens=budget)
        holder = [c for c in chunks if "Stop the service on RHEL." in text[c.start : c.end]]
        assert len(holder) == 1
        assert '{{< tab name="RHEL" >}}' in text[holder[0].start : holder[0].end], budget
