"""A pull request as a page that looks like GitHub's: its title, branches, description and
the file it adds. Used by ``scripts/slack_screenshots.py`` for the pull request a runbook
draft opened (on the fake GitHub API of the tests)."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from markdown_it import MarkdownIt

CSS = """
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: #1f2328;
  font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", "DejaVu Sans", sans-serif; }
.pane { width: 680px; padding: 16px 20px; }
h1 { font-size: 24px; font-weight: 400; margin: 0 0 8px; }
h1 .number { color: #59636e; }
.state { display: inline-block; background: #1f883d; color: #fff; border-radius: 16px;
  padding: 2px 10px; font-weight: 600; margin-right: 8px; }
.branches code { background: #ddf4ff; color: #0969da; border-radius: 6px; padding: 1px 5px; }
.box { border: 1px solid #d1d9e0; border-radius: 6px; margin-top: 16px; }
.box-head { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px;
  font-weight: 600; }
.box-body { padding: 8px 16px; }
pre { background: #f6f8fa; border-radius: 6px; padding: 12px; white-space: pre-wrap;
  word-break: break-all; font: 12px/1.45 "DejaVu Sans Mono", monospace; margin: 0; }
code { font: 12px "DejaVu Sans Mono", monospace; background: #eff1f3; border-radius: 4px;
  padding: 1px 4px; }
a { color: #0969da; text-decoration: none; }
"""


def page(scene: Mapping[str, Any]) -> str:
    pr = scene["pull_request"]
    body = MarkdownIt("commonmark", {"html": False}).render(str(pr.get("body", "")))
    files = "".join(
        f'<div class="box"><div class="box-head">{html.escape(path)}</div>'
        f'<div class="box-body"><pre>{html.escape(text)}</pre></div></div>'
        for path, text in (pr.get("files") or {}).items()
    )
    return (
        '<!doctype html><html><head><meta charset="utf-8"><style>'
        + CSS
        + '</style></head><body><div class="pane">'
        + f'<h1>{html.escape(str(pr["title"]))} <span class="number">#{pr["number"]}</span></h1>'
        + '<div class="branches"><span class="state">Open</span>runbook-bot wants to merge '
        + f"into <code>{html.escape(str(pr['base']))}</code> from "
        + f"<code>{html.escape(str(pr['head']))}</code></div>"
        + '<div class="box"><div class="box-head">Description</div>'
        + f'<div class="box-body">{body}</div></div>'
        + files
        + "</div></body></html>"
    )
