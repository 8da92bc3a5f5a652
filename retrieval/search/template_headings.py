"""The headings a corpus's own template opens its runbooks with.

Many runbook sets follow a template: SkyWalking's FAQ pages open with ``Problem`` before
``Reason`` and ``Resolve``, Netdata's alert guides with ``Understand the alert``, Istio's
analysis messages with ``An example``, the Kubernetes playbooks with ``When to use this
playbook``. The first section of such a template says what the runbook is about (the
error restated, an example of the message, when it applies), and the ones after it say
what to do. Which heading opens the template is read from the index itself: a heading
that stands in many of its runbooks, and comes first in most of those, whatever its
words. No word list names them, so a team's own template is read as these are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from core.heading_text import plain_heading
from core.models import Chunk

# a template's heading stands in at least this many runbooks, and this share of them
MIN_RUNBOOKS = 3
MIN_SHARE = 0.15
# ... and opens at least this share of the runbooks it stands in
MIN_OPENING = 0.5


def heading_key(heading: str) -> str:
    """A heading as a template names it: its words, in lower case, without a colon."""
    return plain_heading(heading).rstrip(":").strip().lower()


def template_openers(chunks: Iterable[Chunk]) -> frozenset[str]:
    """The headings (:func:`heading_key`) that open the index's template."""
    paths: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for chunk in sorted(chunks, key=lambda c: (c.source_id, c.start)):
        paths[chunk.source_id].append(chunk.heading_path)
    stands: dict[str, int] = defaultdict(int)
    opens: dict[str, int] = defaultdict(int)
    runbooks = 0
    for doc_paths in paths.values():
        own = _own_headings(doc_paths)
        if not own:
            continue
        runbooks += 1
        for key in own:
            stands[key] += 1
        opens[own[0]] += 1
    return frozenset(
        key
        for key, n in stands.items()
        if key and n >= max(MIN_RUNBOOKS, MIN_SHARE * runbooks) and opens[key] >= MIN_OPENING * n
    )


def _own_headings(doc_paths: list[tuple[str, ...]]) -> list[str]:
    """The runbook's section headings in its order, each once; a top heading that every
    section lies under is the runbook's title, not one of them."""
    paths = [p for p in doc_paths if p]
    tops = {p[0] for p in paths}
    if len(tops) == 1 and any(len(p) > 1 for p in paths):
        paths = [p[1:] for p in paths if len(p) > 1]
    seen: dict[str, None] = {}
    for p in paths:
        seen.setdefault(heading_key(p[-1]), None)
    return list(seen)
