"""Plain-text rendering of an answer for the terminal."""

from __future__ import annotations

from retrieval.types import Answer, Citation

_RULE = "-" * 72


def _citation_lines(c: Citation) -> list[str]:
    age = f"{c.age_days} days ago" if c.age_days is not None else "unknown"
    lines = [f"[{c.title} - {c.section}]  {c.path}:{c.line}"]
    if c.url:
        lines.append(f"  {c.url}")
    lines.append(
        f"  owner {c.owner or 'none'} | updated {age} | {c.doc_type} | rev {c.revision[:8]}"
    )
    lines.append("")
    lines += [f"  | {ln}" for ln in c.quote.splitlines()]
    return lines


def render_text(answer: Answer) -> str:
    out: list[str] = []
    for w in answer.warnings:
        out.append(f"WARNING ({w.kind}): {w.message}")
    if out:
        out.append("")
    if answer.state != "answer":
        out.append(f"{answer.text} ({answer.reason})")
        if answer.suggestions:
            out.append("Closest runbooks:")
        for sug in answer.suggestions:
            owner = f" | owner {sug.owner}" if sug.owner else ""
            out.append(f"  {sug.title} - {sug.section}  [{sug.path}:{sug.line}]{owner}")
            if sug.url:
                out.append(f"    {sug.url}")
        if answer.search_link:
            out.append(f"Search: {answer.search_link}")
        for c in answer.related:
            out += ["", "Mentioned only in:", *_citation_lines(c)]
        return "\n".join(out)
    out.append(answer.text)
    for c in answer.citations:
        out += [_RULE, *_citation_lines(c)]
    if answer.related:
        out += [_RULE, "Related incidents:"]
        out += [f"  {c.title} ({c.path})" + (f" {c.url}" if c.url else "") for c in answer.related]
    out.append(_RULE)
    out.append(f"confidence {answer.confidence:.2f} | index generation {answer.generation}")
    return "\n".join(out)
