"""What a section lays out, as the parser's tokens show it."""

from __future__ import annotations

import pytest

from core.markdown_facts import markdown_facts


@pytest.mark.parametrize(
    ("text", "steps", "numbered", "code"),
    [
        ("Restart it:\n\n```sh\nkubectl rollout restart deploy/api\n```\n", True, False, True),
        ("1. Drain the node.\n2. Reboot it.\n", True, True, False),
        ("- check the logs\n- check the disk\n", True, False, False),
        ("    kubectl get pods\n", True, False, True),
        ("$ kubectl get pods -n payments\n", True, False, True),
        ("The replicas lag when the disk is slow.\n", False, False, False),
        # a fence's marker inside inline code is no code block
        ("Wrap commands in ``` fences when you write them.\n", False, False, False),
        # an indented line inside a list item is the item's text, not code
        ("- step one\n\n    continued text\n", True, False, False),
    ],
)
def test_what_a_section_lays_out(text: str, steps: bool, numbered: bool, code: bool) -> None:
    facts = markdown_facts(text)
    assert (facts.lays_out_steps, facts.has_numbered, facts.has_code) == (steps, numbered, code)


def test_a_note_alone_and_a_lead_in() -> None:
    assert markdown_facts("> **Warning:** never delete the PVC.\n").only_quoted
    assert not markdown_facts("> a note\n\nThen restart it.\n").only_quoted
    assert markdown_facts("The following two approaches can be used:\n").ends_pointing_ahead
    # a colon before the commands it introduces is no lead-in: the commands follow
    assert not markdown_facts("Run:\n\n```\nmake\n```\n").ends_pointing_ahead
