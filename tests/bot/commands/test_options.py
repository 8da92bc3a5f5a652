"""Options shared by the commands."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from bot.commands.options import add_common, csv_list, positive_int, search_filter


def test_csv_list_drops_blanks_and_spaces() -> None:
    assert csv_list("sre, everyone,,  ") == ("sre", "everyone")
    assert csv_list("") == ()


@pytest.mark.parametrize(("raw", "expected"), [("1", 1), ("30", 30)])
def test_positive_int(raw: str, expected: int) -> None:
    assert positive_int(raw) == expected


@pytest.mark.parametrize(("raw", "message"), [("0", "at least 1"), ("x", "not a whole number")])
def test_positive_int_rejects(raw: str, message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        positive_int(raw)


def test_common_options_are_unset_unless_given() -> None:
    parser = argparse.ArgumentParser()
    add_common(parser)
    assert vars(parser.parse_args([])) == {}
    args = parser.parse_args(["--data-dir", "d", "--redis-url", "redis://h:1/0"])
    assert args.data_dir == Path("d") and args.redis_url == "redis://h:1/0"


def test_search_filter_of_unset_options_limits_nothing() -> None:
    flt = search_filter(None, (), None)
    assert (flt.groups, flt.doc_types, flt.services) == (None, None, None)
    flt = search_filter(("sre",), ("runbook",), ("checkout-api",))
    assert (flt.groups, flt.doc_types, flt.services) == (("sre",), ("runbook",), ("checkout-api",))
