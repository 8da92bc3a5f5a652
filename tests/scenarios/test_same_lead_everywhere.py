"""The same question in the same context leads with the same section on every surface:
an alert pasted as the question ("… what does it mean") is answered with the runbook's
first fix, in Slack, in ``runbook-bot ask`` and through the service the web pages use;
asked in an alert's thread (``--alert`` on the command line) the same holds for a question
that only asks what the alert means."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.runtime import Runtime
from core.heading_text import SECTION_SEPARATOR
from retrieval.search.embeddings import FastEmbedder
from tests.bot.slack_harness import SlackHarness, make_runtime
from tests.conftest import RedisServer
from tests.fakes.slack_api import FakeSlackAPI

PASTED = "[FIRING:1] CheckoutApiDbConnectionErrors (checkout-api prod critical) what does it mean"
FIX = "Mitigation > Roll back a bad deploy"


@pytest.fixture()
def fake() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as api:
        yield api


@pytest.fixture()
def runtime(
    sample_data_dir: Path, redis_server: RedisServer, fake: FakeSlackAPI, embedder: FastEmbedder
) -> Iterator[Runtime]:
    rt = make_runtime(sample_data_dir, redis_server.url, fake, embedder)
    yield rt
    rt.close()


def test_a_pasted_alert_leads_with_the_fix_in_slack_and_on_the_command_line(
    runtime: Runtime,
    slack: SlackHarness,
    sample_data_dir: Path,
    redis_server: RedisServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # what retrieval alone chooses: the part that says what the alert means
    assert runtime.answerer.answer(PASTED).citations[0].section != FIX

    args = ["--data-dir", str(sample_data_dir), "--redis-url", redis_server.url, "ask"]
    capsys.readouterr()
    assert main([*args, PASTED, "--json"]) == 0
    on_the_command_line = json.loads(capsys.readouterr().out)["answer"]["citations"][0]["section"]
    assert on_the_command_line == FIX

    _, response_id = slack.slash(PASTED)
    (reply,) = slack.responses(response_id)
    lead = next(b for b in reply.blocks if b.get("block_id") == "lead")["text"]["text"]
    assert FIX.split(SECTION_SEPARATOR)[-1] in lead


def test_asked_in_an_alerts_thread_the_command_line_leads_as_slack_does(
    sample_data_dir: Path, redis_server: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    question = "what does CheckoutApiDbConnectionErrors mean"
    args = ["--data-dir", str(sample_data_dir), "--redis-url", redis_server.url, "ask"]
    capsys.readouterr()
    assert main([*args, question, "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)["answer"]["citations"][0]["section"]
    assert main([*args, question, "--alert", "--json"]) == 0
    in_alert = json.loads(capsys.readouterr().out)["answer"]["citations"][0]["section"]
    assert plain != FIX and in_alert == FIX
