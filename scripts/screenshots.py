"""Screenshots of the web pages for the README (``make screenshots``).

Ingests the sample runbooks into a scratch data dir, starts a private redis-server, a fake
Slack with Sign in with Slack (``tests/fakes/slack_openid.py``) and ``runbook-bot serve``,
signs in through the fake consent page in Debian's Chromium (driven by Playwright) and
saves PNGs of the pages at a desktop and a phone width::

    python scripts/screenshots.py --out docs/screenshots [--data DIR]

``--data`` reuses an ingested data dir (it is copied, never changed).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.slack_openid import FakeSlackOpenID  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CLIENT_ID, CLIENT_SECRET = "1111.2222", "screenshot-client-secret"
WHO = ("U0ALICE01", "Alice Doe")
DESKTOP = {"width": 1200, "height": 900}
PHONE = {"width": 390, "height": 844}
MAX_DESKTOP_HEIGHT = 1500
ANSWERED = "elasticsearch cluster red"
UNSURE = "who approves a production database schema change"
UNANSWERED = (
    "frobnicate the quantum llama zxqv",
    "xylophone tuning for the lobby piano",
    "frobnicate the quantum llama zxqv",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cli(*args: str) -> list[str]:
    shim = "import sys; from bot.cli import main; sys.exit(main(sys.argv[1:]))"
    return [sys.executable, "-c", shim, *args]


def start_redis(work: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--dir",
            str(work),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return proc, f"redis://127.0.0.1:{port}/0"


def wait_healthy(base: str, proc: subprocess.Popen[bytes], seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"serve exited with {proc.returncode}")
        try:
            if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit("serve did not become healthy")


def shoot(page: Page, out: Path, name: str, *, full: bool = True) -> None:
    page.wait_for_load_state("networkidle")
    path = out / f"{name}.png"
    if full:
        height = min(page.evaluate("document.documentElement.scrollHeight"), MAX_DESKTOP_HEIGHT)
        width = page.viewport_size["width"] if page.viewport_size else DESKTOP["width"]
        page.screenshot(
            path=str(path), clip={"x": 0, "y": 0, "width": width, "height": height}, full_page=True
        )
    else:
        page.screenshot(path=str(path))
    print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")


def ask(page: Page, question: str) -> None:
    box = page.get_by_label("Ask the runbooks")
    box.fill(question)
    box.press("Enter")
    page.wait_for_url("**/ask?q=*")
    page.locator("section.answer").wait_for()


def take(base: str, fake: FakeSlackOpenID, out: Path) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        desk = browser.new_context(viewport=DESKTOP, device_scale_factor=1)
        page = desk.new_page()
        page.goto(base + "/")
        shoot(page, out, "signin", full=False)

        fake.sign_in_as(*WHO)
        page.get_by_role("link", name="Sign in with Slack").click()
        page.wait_for_url(fake.authorize_url + "**")
        page.locator("#allow").click()
        page.wait_for_url(base + "/")
        for question in UNANSWERED:  # something for the gaps report
            ask(page, question)
        ask(page, UNSURE)
        shoot(page, out, "unsure")
        ask(page, ANSWERED)
        shoot(page, out, "answer")
        page.goto(base + "/search?q=disk+full&doc_type=runbook")
        shoot(page, out, "search")
        page.goto(base + "/reports/stale")
        shoot(page, out, "stale")
        page.goto(base + "/reports/gaps")
        shoot(page, out, "gaps")
        cookies = desk.cookies()
        desk.close()

        phone = browser.new_context(
            viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
        )
        phone.add_cookies(cookies)
        page = phone.new_page()
        page.goto(base + "/ask?q=" + ANSWERED.replace(" ", "+"))
        shoot(page, out, "phone-answer", full=False)
        phone.close()
        browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--data", type=Path, default=None, help="an ingested data dir to copy")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        raise SystemExit("chromium is not installed (make chromium)")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rbb-shots-") as tmp:
        work = Path(tmp)
        data = work / "data"
        redis, redis_url = start_redis(work)
        fake = FakeSlackOpenID(client_id=CLIENT_ID, client_secret=CLIENT_SECRET).start()
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "RUNBOOK_"))}
        env.update(
            {
                "SLACK_BOT_TOKEN": "xoxb-screenshots",
                "SLACK_SIGNING_SECRET": "screenshots",
                "SLACK_API_URL": fake.base_url,
                "RUNBOOK_SLACK_AUTHORIZE_URL": fake.authorize_url,
                "RUNBOOK_SLACK_CLIENT_ID": CLIENT_ID,
                "RUNBOOK_SLACK_CLIENT_SECRET": CLIENT_SECRET,
                "RUNBOOK_PUBLIC_URL": base,
                "REDIS_URL": redis_url,
                "RUNBOOK_ACCESS_MAP_PATH": str(ROOT / "runbooks" / "access.yml"),
                "RUNBOOK_LOG_LEVEL": "WARNING",
            }
        )
        serve: subprocess.Popen[bytes] | None = None
        try:
            if args.data is not None:
                shutil.copytree(args.data, data)
            else:
                subprocess.run(
                    cli("--data-dir", str(data), "ingest", str(ROOT / "runbooks")),
                    cwd=work,
                    env=env,
                    check=True,
                )
            serve = subprocess.Popen(
                cli("--data-dir", str(data), "serve", "--host", "127.0.0.1", "--port", str(port)),
                cwd=work,
                env=env,
            )
            wait_healthy(base, serve)
            take(base, fake, args.out)
        finally:
            if serve is not None:
                serve.send_signal(signal.SIGTERM)
                serve.wait(timeout=30)
            fake.stop()
            redis.terminate()
            redis.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
