"""Screenshots of what the bot posts in Slack, from the payloads it really sends.

Runs the real bolt App (signed HTTP, the sample runbooks indexed with the real model, a
private redis-server) against the fake Slack Web API of the tests, asks it questions,
and keeps what it posted:

* ``slash-answer``: ``/runbook`` in a channel, the ephemeral answer;
* ``alert-thread``: ``@runbook`` in the thread of an Alertmanager alert;
* ``abstention``: ``/runbook`` about something no runbook covers;
* ``best-guess``: ``/runbook`` answered below the "sure" bar: labelled, with the next
  closest runbooks under its quotes;
* ``alert-auto-reply``: an Alertmanager alert in an alert channel, answered in its thread
  without a mention (from its ``runbook_url``);
* ``follow-up``: "and if that doesn't work?" in that thread;
* ``long-quote``: a long procedure, its lead folded behind "Show more";
* ``show-more``: the same message after "Show more", in place.
* ``draft-review``: "Draft a runbook" on a "no runbook" answer in an incident thread, the
  review modal;
* ``github/draft-pull-request``: the pull request it opened once confirmed (fake GitHub
  API), drawn by ``scripts/pull_request_html.py``.

Each payload is saved as JSON next to its screenshot (``docs/slack/<name>.json``), turned
into a Slack-looking page by ``scripts/blockkit_html.py`` and photographed by headless
Chromium (Debian's ``chromium`` package)::

    make screenshots            # or: python scripts/slack_screenshots.py docs/slack
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

import blockkit_html  # noqa: E402
import pull_request_html  # noqa: E402

from bot.slack.actions import SHOW_MORE  # noqa: E402
from retrieval.search.embeddings import FastEmbedder  # noqa: E402
from tests.bot.alert_fixtures import alert_message  # noqa: E402
from tests.bot.slack_harness import (  # noqa: E402
    SlackHarness,
    make_runtime,
    next_ts,
    request_id_of,
)
from tests.conftest import SAMPLE_RUNBOOKS, RedisServer  # noqa: E402
from tests.fakes.github_api import FakeGitHub  # noqa: E402
from tests.fakes.slack_api import FakeSlackAPI  # noqa: E402

WIDTH = 700
ALERT_CHANNEL = "C0INC04242"
AUTO_CHANNEL = "C0ALERTS01"
DRAFT_CHANNEL = "C0INC05151"
GITHUB_TOKEN = "ghp_screenshots"
DRAFT_ROOT = "1700003000.000100"
DRAFT_THREAD = [
    {"ts": DRAFT_ROOT, "user": "U0DANA001", "text": "zookeeper ensemble lost quorum, kafka down"},
    {
        "ts": "1700003000.000200",
        "user": "U0ERIN001",
        "text": "checking who is leader\n```kubectl -n kafka exec zk-0 -- zkServer.sh status```",
    },
    {
        "ts": "1700003000.000300",
        "user": "U0ERIN001",
        "text": "zk-2 is stuck: `kubectl -n kafka delete pod zk-2` <!subteam^S0SRE|@sre-oncall>",
    },
    {
        "ts": "1700003000.000400",
        "user": "U0ERIN001",
        "text": "fixed by restarting zk-2, quorum back",
    },
]
ALERT = {
    "type": "message",
    "subtype": "bot_message",
    "bot_id": "B0ALERTMGR",
    "username": "Alertmanager",
    "text": "",
    "attachments": [
        {
            "color": "#e01e5a",
            "title": "[FIRING:1] CheckoutApiDbConnectionErrors (checkout-api prod critical)",
            "text": (
                "*Summary:* checkout-api cannot reach its database\n"
                "*Description:* 38 connection errors/s for 2 minutes: dial tcp "
                "10.42.7.19:6432: connect: connection refused"
            ),
        }
    ],
}


def capture(out: Path) -> list[Path]:
    """Ask the bot three questions; save each scene (what is above + the bot's message)."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "redis").mkdir()
        redis = RedisServer(work / "redis")
        redis.start()
        try:
            with FakeSlackAPI() as fake, FakeGitHub(token=GITHUB_TOKEN) as github:
                embedder = FastEmbedder(cache_dir=work / "models")
                runtime = make_runtime(
                    work / "data",
                    redis.url,
                    fake,
                    embedder,
                    alert_channels="alerts-*",
                    github_token=GITHUB_TOKEN,
                    github_repo="acme/runbooks",
                    github_api_url=github.base_url,
                )
                runtime.ingest(SAMPLE_RUNBOOKS)
                fake.set_conversation(ALERT_CHANNEL, name="inc-4242-checkout-db")
                fake.set_conversation(AUTO_CHANNEL, name="alerts-checkout")
                fake.set_usergroups({"checkout-oncall": ("S0CHECKOUT", ["U0DANA001"])})
                fake.set_conversation(DRAFT_CHANNEL, name="inc-5151-kafka")
                fake.set_thread(DRAFT_CHANNEL, DRAFT_ROOT, DRAFT_THREAD)
                for user, name in (("U0DANA001", "dana"), ("U0ERIN001", "erin")):
                    fake.set_user(user, profile={"display_name": name, "real_name": name})
                harness = SlackHarness(runtime, fake)
                try:
                    scenes = _scenes(harness, fake)
                    scenes.update(_draft_scenes(harness, fake, github))
                finally:
                    harness.close()
                    runtime.close()
        finally:
            redis.stop()
    paths = []
    for name, scene in scenes.items():
        # a pull request is no Slack scene: beside them, in github/
        folder = out / "github" if scene.get("pull_request") else out
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.json"
        path.write_text(json.dumps(scene, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def _slash_scene(h: SlackHarness, question: str, channel_name: str) -> dict[str, Any]:
    """``/runbook question`` in the channel ``#channel_name``: the ephemeral answer."""
    _, response_id = h.slash(question, channel="C0GENERAL1", channel_name=channel_name)
    (answer,) = h.responses(response_id)
    return {
        "pane": f"# {channel_name}",
        "channel": f"/runbook {question}",
        "ephemeral": True,
        "message": _message(answer.params),
    }


def _scenes(h: SlackHarness, fake: FakeSlackAPI) -> dict[str, dict[str, Any]]:
    scenes: dict[str, dict[str, Any]] = {}
    question = "checkout-api database connection refused, what do I do?"
    scenes["slash-answer"] = _slash_scene(h, question, "checkout")

    parent = next_ts()
    fake.set_thread(ALERT_CHANNEL, parent, [{**ALERT, "ts": parent}])
    ask = "what do I do?"
    h.mention(ask, channel=ALERT_CHANNEL, user="U0DANA001", thread_ts=parent)
    (reply,) = h.thread_posts(ALERT_CHANNEL, parent)
    scenes["alert-thread"] = {
        "pane": "Thread",
        "channel": "# inc-4242-checkout-db",
        "thread": True,
        "above": [
            {"author": "Alertmanager", "app": True, "color": "#e6522c", **ALERT},
            {"author": "Dana", "text": f"<@UBOT|runbook> {ask}", "color": "#2eb67d"},
        ],
        "message": _message(reply.params),
    }

    scenes["abstention"] = _slash_scene(h, "how do I reset the grafana admin password?", "platform")
    scenes["best-guess"] = _slash_scene(h, "disk pressure on elasticsearch nodes", "search")
    alert = alert_message("alertmanager-firing", ts=next_ts())
    fake.set_thread(AUTO_CHANNEL, alert["ts"], [alert])
    h.message(alert, channel=AUTO_CHANNEL)
    (auto,) = h.thread_posts(AUTO_CHANNEL, alert["ts"])
    shown_alert = {"author": "Alertmanager", "app": True, "color": "#e6522c", **alert}
    scenes["alert-auto-reply"] = {
        "pane": "Thread",
        "channel": "# alerts-checkout",
        "thread": True,
        "above": [shown_alert],
        "message": _message(auto.params),
    }

    ask = "and if that doesn't work?"
    h.mention(ask, channel=AUTO_CHANNEL, user="U0DANA001", thread_ts=alert["ts"])
    follow = h.thread_posts(AUTO_CHANNEL, alert["ts"], count=2)[1]
    scenes["follow-up"] = {
        "pane": "Thread",
        "channel": "# alerts-checkout",
        "thread": True,
        "above": [
            shown_alert,
            {"author": "Dana", "text": f"<@UBOT|runbook> {ask}", "color": "#2eb67d"},
        ],
        "message": _message(follow.params),
    }
    question = "how do I relieve an exhausted pgbouncer pool for checkout?"
    _, response_id = h.slash(question, channel="C0GENERAL1", channel_name="checkout")
    (long,) = h.responses(response_id)
    scenes["long-quote"] = {
        "pane": "# checkout",
        "channel": f"/runbook {question}",
        "ephemeral": True,
        "message": _message(long.params),
    }
    _, click = h.action(SHOW_MORE, request_id_of(long))
    (whole,) = h.responses(click)
    scenes["show-more"] = {
        "pane": "# checkout",
        "channel": f"/runbook {question}",
        "ephemeral": True,
        "message": _message(whole.params),
    }
    h.settle()
    h.assert_valid()
    return scenes


def _draft_scenes(
    h: SlackHarness, fake: FakeSlackAPI, github: FakeGitHub
) -> dict[str, dict[str, Any]]:
    """ "Draft a runbook" on a "no runbook" answer: the review modal, then the pull request."""
    ask = "zookeeper ensemble lost quorum what now"
    h.mention(ask, channel=DRAFT_CHANNEL, user="U0DANA001", thread_ts=DRAFT_ROOT)
    (none,) = h.thread_posts(DRAFT_CHANNEL, DRAFT_ROOT)
    h.settle()
    value = next(
        e["value"]
        for b in none.blocks
        if b.get("type") == "actions"
        for e in b["elements"]
        if e["action_id"] == "draft_runbook"
    )
    h.action("draft_runbook", value, user="U0DANA001", channel=DRAFT_CHANNEL, ephemeral=False)
    h.settle()
    (update,) = fake.wait_for("views.update")
    view = update.params["view"]
    view = json.loads(view) if isinstance(view, str) else view
    scenes: dict[str, dict[str, Any]] = {
        "draft-review": {"pane": "Draft a runbook", "channel": "# inc-5151-kafka", "modal": view}
    }
    h.submit_view(view, user="U0DANA001", service="kafka", path="kafka/zookeeper-lost-quorum.md")
    h.settle()
    (pull,) = github.repo.pulls
    scenes["draft-pull-request"] = {
        "pull_request": {
            "number": pull.number,
            "title": pull.title,
            "body": pull.body,
            "head": pull.head,
            "base": pull.base,
            "files": github.files(pull.head),
        }
    }
    return scenes


def _message(params: dict[str, Any]) -> dict[str, Any]:
    blocks = params.get("blocks")
    if isinstance(blocks, str):
        blocks = json.loads(blocks)
    return {"text": params.get("text", ""), "blocks": blocks or []}


def shoot(scene_path: Path, chromium: str) -> Path:
    """The scene as a PNG, as tall as its content."""
    html_path = scene_path.with_suffix(".html")
    scene = json.loads(scene_path.read_text(encoding="utf-8"))
    render = pull_request_html.page if scene.get("pull_request") else blockkit_html.page
    html_path.write_text(render(scene), encoding="utf-8")
    height = _content_height(html_path, chromium)
    png = scene_path.with_suffix(".png")
    subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            f"--window-size={WIDTH},{height}",
            f"--screenshot={png}",
            html_path.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    html_path.unlink()
    return png


def _content_height(html_path: Path, chromium: str) -> int:
    """Lay the page out once and read its height back from the DOM."""
    probe = html_path.with_suffix(".probe.html")
    script = (
        "<script>window.onload=()=>{document.body.setAttribute('data-height',"
        "Math.ceil(document.querySelector('.pane').getBoundingClientRect().bottom))}</script>"
    )
    probe.write_text(html_path.read_text(encoding="utf-8").replace("</body>", script + "</body>"))
    try:
        dom = subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                f"--window-size={WIDTH},600",
                "--virtual-time-budget=2000",
                "--dump-dom",
                probe.as_uri(),
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
    finally:
        probe.unlink()
    m = re.search(r'data-height="(\d+)"', dom)
    return int(m.group(1)) + 8 if m else 1600


def main(argv: list[str]) -> int:
    """``[DIR] [--no-capture]``: --no-capture photographs the payloads already in DIR."""
    args = [a for a in argv if not a.startswith("--")]
    out = (Path(args[0]) if args else ROOT / "docs" / "slack").resolve()
    out.mkdir(parents=True, exist_ok=True)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.stderr.write("error: chromium is not installed (apt-get install -y chromium)\n")
        return 2
    if "--no-capture" in argv:
        scenes = sorted([*out.glob("*.json"), *out.glob("github/*.json")])
    else:
        scenes = capture(out)
    for scene in scenes:
        print(shoot(scene, chromium))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
