"""``runbook-bot serve`` in a subprocess, signing in against the fake Slack
(:mod:`tests.fakes.slack_openid`): the browser tests and ``make screenshots`` start it
the same way."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import httpx

from tests.conftest import SAMPLE_RUNBOOKS
from tests.fakes.slack_openid import FakeSlackOpenID

HEALTHY_WITHIN_SECONDS = 120
STOP_WITHIN_SECONDS = 30


def cli_command(*args: str) -> list[str]:
    """``runbook-bot ARGS`` with this interpreter (no installed script needed)."""
    shim = "import sys; from bot.cli import main; sys.exit(main(sys.argv[1:]))"
    return [sys.executable, "-c", shim, *args]


def serve_env(
    base: str, fake: FakeSlackOpenID, redis_url: str, signing_secret: str, **extra: str
) -> dict[str, str]:
    """This process's environment without its Slack and runbook settings, plus what
    ``serve`` needs to answer at ``base`` with Sign in with Slack against ``fake`` (its
    client id and secret) and the sample access map."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "RUNBOOK_"))}
    env.update(
        {
            "SLACK_BOT_TOKEN": "xoxb-test",
            "SLACK_SIGNING_SECRET": signing_secret,
            "SLACK_API_URL": fake.base_url,
            "RUNBOOK_SLACK_AUTHORIZE_URL": fake.authorize_url,
            "RUNBOOK_SLACK_CLIENT_ID": fake.client_id,
            "RUNBOOK_SLACK_CLIENT_SECRET": fake.client_secret,
            "RUNBOOK_PUBLIC_URL": base,
            "REDIS_URL": redis_url,
            "RUNBOOK_ACCESS_MAP_PATH": str(SAMPLE_RUNBOOKS / "access.yml"),
            **extra,
        }
    )
    return env


def wait_healthy(
    base: str, proc: subprocess.Popen[bytes], log: Path | None = None, seconds: float = 120
) -> None:
    """Until ``/healthz`` answers 200; RuntimeError (with the log) when serve exits or
    takes longer than ``seconds``."""
    output = (lambda: "\n" + log.read_text()) if log is not None else (lambda: "")
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"serve exited with {proc.returncode}:{output()}")
        try:
            if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"serve did not become healthy:{output()}")


@contextmanager
def serving(
    data: Path,
    port: int,
    env: dict[str, str],
    cwd: Path,
    *,
    output: IO[bytes] | None = None,
    log: Path | None = None,
) -> Iterator[subprocess.Popen[bytes]]:
    """``serve`` on 127.0.0.1:``port`` over ``data``, healthy; stopped with SIGTERM
    afterwards (its ``returncode`` says how it ended). ``cwd``: a folder without a .env."""
    proc = subprocess.Popen(
        cli_command("--data-dir", str(data), "serve", "--host", "127.0.0.1", "--port", str(port)),
        cwd=cwd,
        env=env,
        stdout=output,
        stderr=subprocess.STDOUT if output is not None else None,
    )
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc, log, HEALTHY_WITHIN_SECONDS)
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=STOP_WITHIN_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
