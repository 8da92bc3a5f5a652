"""Fixtures for the web pages: Debian's Chromium under Playwright, a fake Slack with Sign in
with Slack, and the pages served in-process (:class:`Site`) or by ``runbook-bot serve``
itself (:class:`Served`).

People: ``ALICE`` is in no Slack user group (she reads what ``everyone`` may read); ``SAM``
is in ``@sre-oncall``, which the sample access map grants the ``sre`` group.
"""

from __future__ import annotations

import html
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from slack_sdk import WebClient

from bot.runtime import Runtime
from bot.server import BotServer
from bot.settings import Settings, load_settings
from bot.slack.directory import SlackUsergroupDirectory
from bot.web.app import build_web_pages
from bot.web.config import web_config
from bot.web.pages import WebPages
from retrieval.answer.answer_config import AnswerConfig
from retrieval.search.embeddings import FastEmbedder
from tests.conftest import ROOT, RedisServer, free_port
from tests.fakes.slack_openid import FakeSlackOpenID
from tests.serve_process import serve_env, serving

CLIENT_ID = "1111.2222"
CLIENT_SECRET = "oidc-client-secret-value"
SIGNING_SECRET = "web-signing-secret"
ACCESS_MAP = ROOT / "runbooks" / "access.yml"
ALICE = ("U0ALICE01", "Alice Doe")
SAM = ("U0SAM0001", "Sam Reliability")
SRE_USERGROUP = {"sre-oncall": ("S0SREONCALL", [SAM[0]])}
BREAK_GLASS = "sre/break-glass-access.md"
BREAK_GLASS_QUESTION = "break glass access to production database"
STALE_QUESTION = "elasticsearch cluster red"
STALE_PATH = "search/elasticsearch-cluster-red.md"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


# --------------------------------------------------------------------------- the browser


@pytest.fixture(scope="session")
def chromium() -> str:
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is not installed (`make chromium` installs Debian's package)")
    return CHROMIUM


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, headless=True)
        yield launched
        launched.close()


# --------------------------------------------------------------------------- fake Slack


def fake_slack() -> FakeSlackOpenID:
    fake = FakeSlackOpenID(client_id=CLIENT_ID, client_secret=CLIENT_SECRET)
    fake.set_usergroups(SRE_USERGROUP)
    return fake


def copy_index(template: Path, target: Path, model_dir: Path) -> Path:
    shutil.copytree(template, target)
    if not (target / "models").exists():
        (target / "models").symlink_to(model_dir)  # the offline model the session assembled
    return target


# --------------------------------------------------------------------------- in-process


@dataclass
class Site:
    """The web pages on a BotServer in this process, with a fake Slack and a real Redis."""

    base: str
    fake: FakeSlackOpenID
    runtime: Runtime
    pages: WebPages
    server: BotServer

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base, follow_redirects=False, timeout=60)

    def sign_in(self, client: httpx.Client, who: tuple[str, str], next_path: str = "/") -> str:
        """Sign ``who`` in through the fake Slack; returns where the site sent them."""
        self.fake.sign_in_as(*who)
        start = client.get("/auth/slack/login", params={"next": next_path})
        assert start.status_code == 303, start.text
        consent = httpx.get(start.headers["location"], timeout=30)
        assert consent.status_code == 200, consent.text
        allow = html.unescape(re.search(r'id="allow" href="([^"]+)"', consent.text)[1])  # type: ignore[index]
        back = client.get(allow.removeprefix(self.base))
        assert back.status_code == 303, back.text
        return str(back.headers["location"])

    def csrf(self, client: httpx.Client) -> str:
        page = client.get("/")
        return re.search(r'name="csrf" value="([^"]+)"', page.text)[1]  # type: ignore[index]


def site_settings(
    data_dir: Path, redis_url: str, fake: FakeSlackOpenID, port: int, **extra: object
) -> Settings:
    values: dict[str, object] = {
        "data_dir": data_dir,
        "redis_url": redis_url,
        "slack_bot_token": "xoxb-test",
        "slack_signing_secret": SIGNING_SECRET,
        "slack_api_url": fake.base_url,
        "slack_authorize_url": fake.authorize_url,
        "slack_client_id": CLIENT_ID,
        "slack_client_secret": CLIENT_SECRET,
        "public_url": f"http://127.0.0.1:{port}",
        "access_map_path": ACCESS_MAP,
    }
    values.update(extra)
    return load_settings(**values)


def start_site(
    settings: Settings,
    fake: FakeSlackOpenID,
    embedder: FastEmbedder,
    port: int,
    *,
    today: date | None = None,
    answer_config: AnswerConfig | None = None,
) -> Site:
    runtime = Runtime(settings, embedder=embedder, answer_config=answer_config)
    bot_client = WebClient(token="xoxb-test", base_url=fake.base_url)
    service = runtime.service(SlackUsergroupDirectory(bot_client))
    config = web_config(settings, runtime.web_session_secret, "127.0.0.1")
    pages = build_web_pages(
        runtime, service, bot_client, config, today=(lambda: today) if today else date.today
    )
    server = BotServer(None, runtime, host="127.0.0.1", port=port, web_routes=pages.routes())
    server.start()
    return Site(f"http://127.0.0.1:{port}", fake, runtime, pages, server)


@pytest.fixture()
def fake() -> Iterator[FakeSlackOpenID]:
    with fake_slack() as api:
        yield api


@pytest.fixture()
def site(
    sample_data_dir: Path,
    redis_server: RedisServer,
    fake: FakeSlackOpenID,
    embedder: FastEmbedder,
) -> Iterator[Site]:
    port = free_port()
    settings = site_settings(sample_data_dir, redis_server.url, fake, port)
    running = start_site(settings, fake, embedder, port)
    yield running
    running.server.stop()
    running.runtime.close()


# --------------------------------------------------------------------------- `serve` itself


@dataclass
class Served:
    """``runbook-bot serve`` in a subprocess, with Sign in with Slack against the fake."""

    base: str
    fake: FakeSlackOpenID
    log: Path


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, sample_index_template: Path, model_dir: Path
) -> Iterator[Served]:
    work = tmp_path_factory.mktemp("served")
    redis = RedisServer(work)
    redis.start()
    fake = fake_slack().start()
    data = copy_index(sample_index_template, work / "data", model_dir)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = serve_env(base, fake, redis.url, SIGNING_SECRET, RUNBOOK_LOG_FORMAT="json")
    log = work / "serve.log"
    try:
        with log.open("wb") as out, serving(data, port, env, work, output=out, log=log) as proc:
            yield Served(base, fake, log)
    finally:
        fake.stop()
        redis.stop()
    code = proc.returncode
    output = log.read_text()
    assert code == 0, output
    assert "web pages with Sign in with Slack" in output
    assert "Traceback" not in output, output
    assert CLIENT_SECRET not in output
    assert "InstallationStore" not in output  # bolt kept the bot token (no OAuth installs)


def browser_sign_in(page: Page, served: Served, who: tuple[str, str]) -> None:
    """Sign in through the fake Slack's consent page, as a person would."""
    served.fake.sign_in_as(*who)
    page.goto(served.base + "/")
    page.get_by_role("link", name="Sign in with Slack").click()
    page.wait_for_url(served.fake.authorize_url + "**")
    page.locator("#allow").click()
    page.wait_for_url(served.base + "/")
