"""core.markdown: headings in both CommonMark forms, and the sections they start."""

from __future__ import annotations

from core.markdown import (
    empty_sections,
    group_blocks,
    heading_extents,
    headings,
    sections,
    split_blocks,
)

SETEXT = """Disk full
=========

Intro paragraph.

Diagnosis
---------

Run `df -h`.

Mitigation
---

1. Rotate logs.
2. Vacuum journald.
"""


def titles(text: str) -> list[tuple[int, str]]:
    return [(level, title) for _s, _e, level, title in headings(text)]


def test_setext_headings_are_headings() -> None:
    assert titles(SETEXT) == [(1, "Disk full"), (2, "Diagnosis"), (2, "Mitigation")]
    # a heading runs from its text line through its underline
    s, e, _level, _title = headings(SETEXT)[1]
    assert SETEXT[s:e] == "Diagnosis\n---------"


def test_setext_sections_hold_their_bodies() -> None:
    secs = sections(SETEXT, 0)
    assert [s.heading_path for s in secs] == [
        ("Disk full",),
        ("Disk full", "Diagnosis"),
        ("Disk full", "Mitigation"),
    ]
    mitigation = secs[-1]
    assert SETEXT[mitigation.body_start : mitigation.end].strip().startswith("1. Rotate logs.")
    extents = {title: SETEXT[s:e] for title, s, e in heading_extents(SETEXT)}
    assert extents["Diagnosis"] == "Diagnosis\n---------\n\nRun `df -h`."


def test_what_is_not_a_setext_heading() -> None:
    text = "\n".join(
        [
            "---",
            "title: Front matter",  # closed by --- but preceded by the opening line
            "---",
            "",
            "- a list item",  # a rule under a list
            "---",
            "",
            "two lines of",
            "one paragraph",  # only a one-line paragraph is taken as a heading
            "---",
            "",
            "```",
            "Inside code",
            "---",
            "```",
            "",
            "---",  # a rule after a blank line
            "",
            "    indented code",
            "    ---",
            "",
            "# Real heading",
        ]
    )
    assert titles(text) == [(1, "Real heading")]


NESTED_FENCES = """# Writing a runbook

````markdown
```bash
kubectl get pods
```

## Not a heading: shown inside the outer block
````

~~~
```
## Not a heading either: a backtick line does not close a tilde block
~~~

## Mitigation

Restart it.
"""


def test_a_fence_closes_only_on_its_own_marker() -> None:
    assert titles(NESTED_FENCES) == [(1, "Writing a runbook"), (2, "Mitigation")]
    blocks = split_blocks(NESTED_FENCES, 0, len(NESTED_FENCES))
    code = [NESTED_FENCES[b.start : b.end] for b in blocks if b.kind == "code"]
    assert len(code) == 2
    assert code[0].startswith("````markdown") and code[0].endswith("````")
    assert "## Not a heading: shown" in code[0]
    assert code[1].startswith("~~~\n```") and code[1].endswith("~~~")


OUTLINE = """# Backups

<!-- TODO: once vtctl is gone
## Create backups with vtctl
-->

  ## Create a backup

> ## Quoted, from another page

1. Stop writes.

   ## Not the page's own heading either

## C# clients ##

####

Done.
"""


def test_the_outline_is_the_parsers() -> None:
    # a commented-out heading is no section, a heading indented up to three spaces is,
    # a heading inside a quote or a list step belongs to neither outline; closing #s
    # go, a # that ends a word stays; a bare #### names nothing
    assert titles(OUTLINE) == [(1, "Backups"), (2, "Create a backup"), (2, "C# clients")]
    s, e, _level, _title = headings(OUTLINE)[1]
    assert OUTLINE[s:e] == "  ## Create a backup"
    # offsets hold from where the text begins, and with Windows line endings
    body = OUTLINE.index("  ## Create")
    assert headings(OUTLINE, body)[0][:2] == (s, e)
    crlf = OUTLINE.replace("\n", "\r\n")
    s, e, _level, title = headings(crlf)[2]
    assert (crlf[s:e], title) == ("## C# clients ##\r", "C# clients")


def test_an_inline_code_span_of_backticks_does_not_open_a_block() -> None:
    text = "# Title\n\n```run `this` now``` says the doc\n\n## Next\n\nBody.\n"
    assert titles(text) == [(1, "Title"), (2, "Next")]


def test_empty_sections_are_headings_with_nothing_under_them() -> None:
    text = (
        "# Alert\n\n## Meaning\n\nIt fires.\n\n## Impact\n\n## Diagnosis\n\n"
        "### Logs\n\nRead them.\n\n#### Deep\n\n## Mitigation\n   \n"
    )
    # a heading over subsections is not empty; a level-4 heading is part of its section
    empty = empty_sections(text, 0)
    assert [s.heading_path for s in empty] == [("Alert", "Impact"), ("Alert", "Mitigation")]
    assert [text[s.start : s.start + 9] for s in empty] == ["## Impact", "## Mitiga"]
    assert [s.heading_path for s in sections(text, 0)] == [
        ("Alert", "Meaning"),
        ("Alert", "Diagnosis", "Logs"),
    ]
    assert empty_sections("No headings at all.\n", 0) == []


def test_bare_headings_around_a_link_are_navigation_not_empty_sections() -> None:
    nav = (
        "# Cluster panels\n\n## [Fleet panels](./fleet.md)\n## **Cluster panels**\n"
        "## [Common panels](./common.md)\n  * Gauges\n\n## Impact\n\n## Mitigation\n\nFix it.\n"
    )
    assert [s.heading_path[-1] for s in empty_sections(nav, 0)] == ["Impact"]


LABELLED = """Backdoor:EC2/Spambot
--------------------

### An EC2 instance is talking to a remote host on port 25.

**Default severity: Medium**

This finding informs you that the instance may be sending spam.

**Remediation recommendations:**

If this activity is unexpected, isolate the instance.

**Steps**:

1. Snapshot the volume.

**Note:** the snapshot keeps the evidence.

**Not a label** because the sentence goes on
after it on the next line.
"""


def test_a_bold_label_on_its_own_line_is_a_heading_below_the_last() -> None:
    assert titles(LABELLED) == [
        (2, "Backdoor:EC2/Spambot"),
        (3, "An EC2 instance is talking to a remote host on port 25."),
        # the lowest level: a part of its section, not a section of its own
        (6, "Remediation recommendations"),
        (6, "Steps"),  # the colon after the bold
    ]
    s, e, _level, _title = headings(LABELLED)[2]
    assert LABELLED[s:e] == "**Remediation recommendations:**"


def test_labels_split_parts_not_sections_and_never_make_a_title() -> None:
    text = (
        "# Disk full\n\nIntro.\n\n**Diagnosis:**\n\nRun `df -h`.\n\n"
        "**Mitigation:**\n\nRotate logs.\n"
    )
    assert [s.heading_path for s in sections(text, 0)] == [("Disk full",)]
    assert titles(text) == [(1, "Disk full"), (6, "Diagnosis"), (6, "Mitigation")]
    # the same level in any piece of the text: a chunk reads as the whole document does
    piece = text[text.index("**Mitigation:**") :]
    assert titles(piece) == [(6, "Mitigation")]
    assert titles("**Symptoms:**\n\nSlow pages.\n") == [(6, "Symptoms")]


def test_bold_lines_that_are_not_labels() -> None:
    for line in (
        "**Warning:**",  # calls out what follows
        "**Table of Contents**",
        "**Default severity: Medium**",  # a value, not a section
        "**Check the logs:** then restart",  # the line goes on
        "**Do not restart the primary**",  # emphasis: no colon
        "- **Steps:**",  # a list item
    ):
        assert titles(f"# T\n\n{line}\n\ntext\n") == [(1, "T")], line
    # a label over a rule is one heading
    assert titles("**Mitigation:**\n---\n\ntext\n") == [(6, "Mitigation")]


def test_bold_that_names_a_runbook_section_is_a_label_without_its_colon() -> None:
    # a wiki export's headings: "**What it means**", "**Resolution**"
    text = (
        "## Alert: SearchClusterRed\n\n**Severity**: critical\n\n**What it means**\n\n"
        "A primary shard is unassigned.\n\n**Resolution**\n\n1. Retry allocation.\n"
    )
    assert titles(text) == [
        (2, "Alert: SearchClusterRed"),
        (6, "What it means"),
        (6, "Resolution"),
    ]
    for line in ("**Possible causes**", "**Steps to fix**", "**Customer impact**"):
        assert titles(f"# T\n\n{line}\n\ntext\n") == [(1, "T"), (6, line.strip("*"))], line


SECTION = """Before you start:

1. Connect to the bastion.

   | table | query |
   | --- | --- |
   | files | DELETE ... |

<!-- kept for the old cluster:

kubectl drain node-1
-->

    an indented code block

    with a blank line inside

See [the guide][guide].

[guide]: https://example.com/guide
"""


def test_a_sections_blocks_are_the_parsers() -> None:
    blocks = split_blocks(SECTION, 0, len(SECTION))
    pieces = [(b.kind, SECTION[b.start : b.end].split("\n")[0]) for b in blocks]
    assert pieces == [
        ("lead", "Before you start:"),
        ("list", "1. Connect to the bastion."),  # the step's table is the step's
        ("text", "<!-- kept for the old cluster:"),  # a comment is one block
        ("code", "    an indented code block"),  # blank lines and all
        ("text", "See [the guide][guide]."),
        ("text", "[guide]: https://example.com/guide"),  # no line is left out
    ]
    units = [SECTION[s:e] for s, e in group_blocks(blocks)]
    assert units[0].startswith("Before you start:") and units[0].endswith("| DELETE ... |")
    assert units[2].endswith("with a blank line inside")
