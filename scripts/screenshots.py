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
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import RedisServer, free_port  # noqa: E402
from tests.fakes.slack_openid import FakeSlackOpenID  # noqa: E402
from tests.serve_process import cli_command, serve_env, serving  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CLIENT_ID, CLIENT_SECRET = "1111.2222", "screenshot-client-secret"
WHO = ("U0ALICE01", "Alice Doe")
DESKTOP = {"width": 1200, "height": 900}
PHONE = {"width": 390, "height": 844}
MAX_DESKTOP_HEIGHT = 1500
ANSWERED = "elasticsearch cluster red"
UNSURE = "how to rotate tls certificates"
RUNBOOK = "/runbooks/runbooks:checkout-api/database-connection-failures"
RUNBOOK_SECTION = "#mitigation-relieve-an-exhausted-pgbouncer-pool"
UNANSWERED = (
    "frobnicate the quantum llama zxqv",
    "xylophone tuning for the lobby piano",
    "frobnicate the quantum llama zxqv",
)


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
        page.goto(base + RUNBOOK)
        shoot(page, out, "runbook")
        cookies = desk.cookies()
        desk.close()

        phone = browser.new_context(
            viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
        )
        phone.add_cookies(cookies)
        page = phone.new_page()
        page.goto(base + "/ask?q=" + ANSWERED.replace(" ", "+"))
        shoot(page, out, "phone-answer", full=False)
        page.goto(base + RUNBOOK + RUNBOOK_SECTION)
        shoot(page, out, "phone-runbook", full=False)
        page.goto(base + "/search?q=disk+full")
        shoot(page, out, "phone-search", full=False)
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
        redis = RedisServer(work)
        redis.start()
        fake = FakeSlackOpenID(client_id=CLIENT_ID, client_secret=CLIENT_SECRET).start()
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = serve_env(base, fake, redis.url, "screenshots", RUNBOOK_LOG_LEVEL="WARNING")
        try:
            if args.data is not None:
                shutil.copytree(args.data, data)
            else:
                ingest = cli_command("--data-dir", str(data), "ingest", str(ROOT / "runbooks"))
                subprocess.run(ingest, cwd=work, env=env, check=True)
            with serving(data, port, env, work):
                take(base, fake, args.out)
        finally:
            fake.stop()
            redis.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
