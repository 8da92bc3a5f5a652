"""Every key of a deployment starts with its namespace; bad namespaces are refused."""

from __future__ import annotations

import pytest

from state.keys import DEFAULT_NAMESPACE, Keys, check_namespace


def test_keys_join_the_namespace_and_parts() -> None:
    keys = Keys("team-a")
    assert keys.key("answer", 7, "abc") == "team-a:answer:7:abc"
    assert keys.key("stats") == "team-a:stats"
    assert keys.prefix("answer") == "team-a:answer:"
    assert Keys().key("seen", "Ev1") == f"{DEFAULT_NAMESPACE}:seen:Ev1"


def test_scan_patterns_escape_glob_characters() -> None:
    assert Keys("a.b_c-1").pattern("answer") == "a.b_c-1:answer:*"
    assert Keys("x").pattern("ug", "a*b") == "x:ug:a\\*b:*"


@pytest.mark.parametrize("bad", ["a:b", "", "team*", "x" * 65, "a b", "a?"])
def test_invalid_namespaces_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="invalid Redis namespace"):
        check_namespace(bad)
    with pytest.raises(ValueError):
        Keys(bad)
