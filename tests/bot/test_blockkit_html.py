"""scripts/blockkit_html.py: the screenshots show the payloads as Slack would."""

from __future__ import annotations

import importlib.util
import json
from types import ModuleType

from tests.conftest import ROOT


def renderer(name: str = "blockkit_html") -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mrkdwn_to_html() -> None:
    r = renderer()
    out = r.mrkdwn(
        "*<https://x.example/a|Mitigation &gt; Restart>* _why_ ~old~ `a &lt; b`\n"
        "```\nkubectl get pods\n```\n> quoted\n:warning: <@U1> <!subteam^S1|@oncall> <#C1>"
    )
    assert '<b><a href="https://x.example/a">Mitigation &gt; Restart</a></b>' in out
    assert "<i>why</i>" in out and "<s>old</s>" in out and "<code>a &lt; b</code>" in out
    assert "<pre>kubectl get pods</pre>" in out
    assert "<blockquote>quoted</blockquote>" in out
    assert "⚠️" in out and '<span class="mention">@oncall</span>' in out


def test_every_committed_scene_renders() -> None:
    r = renderer()
    scenes = sorted((ROOT / "docs" / "slack").glob("*.json"))
    assert {p.stem for p in scenes} >= {"slash-answer", "alert-thread", "abstention"}
    for path in scenes:
        page = r.page(json.loads(path.read_text(encoding="utf-8")))
        assert page.startswith("<!doctype html>") and "runbook" in page
        assert "[section]" not in page  # every block type is drawn


def test_the_committed_pull_request_renders() -> None:
    r = renderer("pull_request_html")
    (path,) = sorted((ROOT / "docs" / "slack" / "github").glob("*.json"))
    page = r.page(json.loads(path.read_text(encoding="utf-8")))
    assert page.startswith("<!doctype html>") and "Description" in page
    assert "<li>Thread: https://fake.slack.com/archives/" in page
