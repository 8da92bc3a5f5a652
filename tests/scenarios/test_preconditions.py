"""A runbook's "Prerequisites" above the steps it governs, through the public entry points:
the answer a `/runbook` or a mention gets in Slack (signed HTTP, a fake Web API), and
``runbook-bot ask`` in text and as JSON. It names the section and links it at the indexed
commit, above the first step; never for another procedure's steps, when the answer quotes
the precondition itself, or when the answer holds no steps."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.runtime import Runtime
from retrieval.search.embeddings import FastEmbedder
from tests.bot.slack_harness import SlackHarness, make_runtime, text_of
from tests.conftest import RedisServer
from tests.fakes.slack_api import FakeSlackAPI
from tests.preconditions_index import (
    FIRST_STEP,
    IMPACT_QUESTION,
    PREREQUISITES_LINE,
    REBUILD_QUESTION,
    RESTORE,
    RESTORE_PATH,
    RESTORE_QUESTION,
    ROTATE_QUESTION,
    PreconditionsIndex,
    preconditions_data_dir,  # noqa: F401
    preconditions_index,  # noqa: F401
)

BEFORE_YOU_START = "Before you start"


@pytest.fixture()
def fake() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as api:
        yield api


@pytest.fixture()
def runtime(
    preconditions_data_dir: Path,  # noqa: F811
    redis_server: RedisServer,
    fake: FakeSlackAPI,
    embedder: FastEmbedder,
) -> Iterator[Runtime]:
    rt = make_runtime(preconditions_data_dir, redis_server.url, fake, embedder)
    yield rt
    rt.close()


def ask_json(data_dir: Path, redis_url: str, question: str, capsys: Any) -> dict[str, Any]:
    """``runbook-bot ask --json``: the answer contract."""
    capsys.readouterr()
    args = ["--data-dir", str(data_dir), "--redis-url", redis_url, "ask", question, "--json"]
    assert main(args) == 0
    answer: dict[str, Any] = json.loads(capsys.readouterr().out)["answer"]
    return answer


def block_text(block: dict[str, Any]) -> str:
    if isinstance(block.get("text"), dict):
        return str(block["text"]["text"])
    return "\n".join(str(e.get("text", "")) for e in block.get("elements", []))


def test_slack_shows_the_prerequisites_linked_above_the_steps(
    slack: SlackHarness,
    preconditions_index: PreconditionsIndex,  # noqa: F811
) -> None:
    _, response_id = slack.slash(RESTORE_QUESTION)
    (reply,) = slack.responses(response_id)
    texts = [block_text(b) for b in reply.blocks]
    link = preconditions_index.link(RESTORE_PATH, PREREQUISITES_LINE)
    line = f"{BEFORE_YOU_START}: <{link}|Prerequisites>"
    assert line in texts  # a small context line of its own
    before = texts.index(line)
    context = reply.blocks[before]
    assert context["type"] == "context"
    lead = next(i for i, b in enumerate(reply.blocks) if b.get("block_id") == "lead")
    steps = next(i for i, t in enumerate(texts) if t.startswith(FIRST_STEP))
    assert lead < before < steps  # under the runbook's name, above its first step
    assert text_of(reply).count(BEFORE_YOU_START) == 1


def test_a_mention_in_a_thread_shows_it_too(slack: SlackHarness) -> None:
    _, event = slack.mention(RESTORE_QUESTION)
    (reply,) = slack.thread_posts("C0GENERAL1", event["ts"])
    shown = text_of(reply)
    assert f"{BEFORE_YOU_START}: <" in shown
    assert shown.index(BEFORE_YOU_START) < shown.index(FIRST_STEP)


def test_the_command_line_shows_it_above_the_steps_and_json_carries_it(
    preconditions_data_dir: Path,  # noqa: F811
    preconditions_index: PreconditionsIndex,  # noqa: F811
    redis_server: RedisServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    link = preconditions_index.link(RESTORE_PATH, PREREQUISITES_LINE)
    answer = ask_json(preconditions_data_dir, redis_server.url, RESTORE_QUESTION, capsys)
    steps = answer["citations"][0]
    assert steps["source_id"] == RESTORE and steps["section"] == "Steps"
    assert steps["quote"].startswith(FIRST_STEP)
    assert steps["before"] == {
        "heading": "Prerequisites",
        "section": "Prerequisites",
        "url": link,
        "line": PREREQUISITES_LINE,
    }
    # once per answer: the runbook's other quote (its Impact) holds no steps anyway
    assert all(c["before"] is None for c in answer["citations"][1:])

    args = ["--data-dir", str(preconditions_data_dir), "--redis-url", redis_server.url]
    capsys.readouterr()
    assert main([*args, "ask", RESTORE_QUESTION]) == 0
    text = capsys.readouterr().out
    assert f"  {BEFORE_YOU_START}: Prerequisites  {link}\n  | {FIRST_STEP}\n" in text


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        # "Before you begin" is under "Rebuild the ledger search index", not this procedure
        (ROTATE_QUESTION, "Rotate the ledger signing key"),
        # the steps are quoted with their "Before you begin": it is shown as it is
        (REBUILD_QUESTION, "Rebuild the ledger search index > Before you begin"),
        # the answer is prose: no step to run
        (IMPACT_QUESTION, "Impact"),
    ],
)
def test_no_precondition_is_named_where_none_governs_what_is_quoted(
    preconditions_data_dir: Path,  # noqa: F811
    redis_server: RedisServer,
    capsys: pytest.CaptureFixture[str],
    question: str,
    quoted: str,
) -> None:
    answer = ask_json(preconditions_data_dir, redis_server.url, question, capsys)
    assert answer["state"] == "answer"
    assert quoted in [c["section"] for c in answer["citations"]]
    assert all(c["before"] is None for c in answer["citations"])


def test_slack_names_no_precondition_for_another_procedures_steps(slack: SlackHarness) -> None:
    _, response_id = slack.slash(ROTATE_QUESTION)
    (reply,) = slack.responses(response_id)
    shown = text_of(reply)
    assert "ledgerctl keys rotate" in shown
    assert BEFORE_YOU_START not in shown and "Before you begin" not in shown
