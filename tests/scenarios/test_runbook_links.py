"""Slack answers over signed HTTP, from runbooks whose source has no link (a folder
outside git): every title links to the runbook's web page at its section, a long lead
quote and sample output fold behind "Show more", which shows them in place."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.runtime import Runtime
from bot.slack.actions import SHOW_MORE
from retrieval.search.embeddings import FastEmbedder
from tests.bot.slack_harness import (
    SlackHarness,
    action_ids,
    make_runtime,
    request_id_of,
    text_of,
)
from tests.conftest import RedisServer
from tests.fakes.slack_api import FakeSlackAPI
from tests.unlinked_index import (
    INVOICE_EXPORT,
    REPLAY_QUESTION,
    ROTATION_DOCS,
    ROTATION_QUESTION,
    unlinked_data_dir,  # noqa: F401
    unlinked_index_template,  # noqa: F401
)

PUBLIC_URL = "https://runbooks.acme.io"
PAGE = f"{PUBLIC_URL}/runbooks/{INVOICE_EXPORT}"


@pytest.fixture()
def fake() -> Iterator[FakeSlackAPI]:
    with FakeSlackAPI() as api:
        yield api


@pytest.fixture()
def runtime(
    unlinked_data_dir: Path,  # noqa: F811
    redis_server: RedisServer,
    fake: FakeSlackAPI,
    embedder: FastEmbedder,
) -> Iterator[Runtime]:
    rt = make_runtime(unlinked_data_dir, redis_server.url, fake, embedder, public_url=PUBLIC_URL)
    yield rt
    rt.close()


def test_titles_without_a_source_link_open_the_runbook_page_at_their_section(
    slack: SlackHarness,
) -> None:
    _, response_id = slack.slash(REPLAY_QUESTION)
    (call,) = slack.responses(response_id)
    shown = text_of(call)
    # the lead, the further section and the escalation heading: each a link to the page
    assert f"<{PAGE}#mitigation-replay-the-failed-export-batches|" in shown
    assert f"<{PAGE}#diagnosis|" in shown
    assert f"<{PAGE}#escalation|Escalation>" in shown  # never a bold title without its link


def test_show_more_shows_the_folded_lead_and_example_in_place(slack: SlackHarness) -> None:
    _, response_id = slack.slash(REPLAY_QUESTION)
    (call,) = slack.responses(response_id)
    shown = text_of(call)
    assert "Pause the scheduler" in shown
    assert "Tell finance" not in shown  # past the lead's first lines
    assert "state=error reason" not in shown  # the sample output
    assert "Example folded (8 lines)" in shown
    assert SHOW_MORE in action_ids(call)
    # the commands shown are as written
    assert "kubectl -n billing scale deploy/invoice-export-scheduler --replicas=0" in shown

    _, click = slack.action(SHOW_MORE, request_id_of(call))
    (replaced,) = slack.responses(click)
    assert replaced.params.get("replace_original") is True
    whole = text_of(replaced)
    assert "Tell finance in" in whole
    assert 'batch=8813 state=error reason="ledger bucket: 403 AccessDenied"' in whole
    assert "`billingctl ledger count --since=24h`" in whole
    assert SHOW_MORE not in action_ids(replaced)


def test_a_runbook_that_points_elsewhere_is_quoted_with_its_link(slack: SlackHarness) -> None:
    _, response_id = slack.slash(ROTATION_QUESTION)
    (call,) = slack.responses(response_id)
    assert f"<{ROTATION_DOCS}|key rotation docs>" in text_of(call)


def test_the_app_home_example_question_comes_from_the_index(
    slack: SlackHarness, fake: FakeSlackAPI
) -> None:
    assert slack.home_opened("U0ALICE01").status == 200
    (published,) = fake.wait_for("views.publish", timeout=10)
    view = published.params["view"]
    view = json.loads(view) if isinstance(view, str) else view
    how = next(b for b in view["blocks"] if b.get("block_id") == "how")
    assert "`/runbook InvoiceExportStuck`" in how["text"]["text"]
    assert "checkout-api" not in json.dumps(view)
