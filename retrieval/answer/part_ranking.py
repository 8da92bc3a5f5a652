"""The parts of the chosen runbook ranked as answers to the question.

The question's intent (:mod:`retrieval.reading.intent`) and section-level evidence rank the
parts: the words of the question found in the part and in its own heading, the dense
similarity of the chunk it lies in, and whether its heading path offers what was asked
(``Mitigation > Restart pgbouncer`` for "what do I do"). Asked only what to do ("…
firing, what do i do"), or given nothing but the alert's name ("KubeletDown", "KubeletDown
firing in prod"), Meaning and Impact restate the alert as Symptoms do; and given nothing
but the name, the runbook's first fix leads, with its first check, as its author
ordered them (also when it asks only "what do I do").

A part that only introduces its subsections ("The following two approaches can be
used:") is never quoted alone: its subsections are.

A link into the runbook (an alert's ``runbook_url`` ending in ``#mitigation``) names
the section to lead with: its part (or subsection) that matches the question best
leads whatever was asked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from core.models import normalize_name
from retrieval.answer.outline import Part
from retrieval.reading import (
    ALERT_WORDS,
    Detail,
    Intent,
    TermStats,
    coverage,
    heading_kinds,
    intent_match,
    spells_the_rule,
)
from retrieval.search import heading_key


@dataclass(frozen=True)
class SectionWeights:
    """How section-level evidence adds up (fitted across corpora, leave-one-out)."""

    lexical: float = 0.5  # IDF share of the question's terms in the part
    heading: float = 0.5  # ... in the part's own heading
    dense: float = 0.5  # cosine of the chunk the part lies in
    intent: float = 0.1  # the heading path offers what was asked
    symptoms: float = 0.4  # restating the symptoms answers no request for action or a check
    second_ratio: float = 0.85  # a second part this close to the lead is quoted too
    complement_ratio: float = 0.6  # ... or this close, when it is the complementary step
    complement_min_lexical: float = 0.15  # and holds this share of the question's terms


@dataclass(frozen=True)
class ScoredPart:
    part: Part
    score: float
    lexical: float
    # the share of the question's words in its own headings and text, not the title's
    own_lexical: float = 0.0
    anchored: bool = False  # the section a link's #anchor points at: it leads
    shows_detail: bool = False  # it shows the command or value the question asks for


def rank_parts(
    parts: Sequence[Part],
    terms: Sequence[str],
    stats: TermStats,
    dense_of: Callable[[Part], float],
    intent: Intent,
    weights: SectionWeights,
    names: frozenset[str] = frozenset(),
    naming: frozenset[str] = frozenset(),
    detail: Detail | None = None,
    what_to_do: bool = False,
    bare: bool = False,
    titled: frozenset[str] = frozenset(),
    openers: frozenset[str] = frozenset(),
    fillers: frozenset[str] = frozenset(),
) -> list[ScoredPart]:
    """The document's parts, best answer first.

    ``names`` are the identifiers the question names (its alert name), ``naming`` the
    words of the document's name the question gives (``pgbouncer``, ``single``,
    ``core`` of ``pgbouncer_single_core``): they tell which document, not which part,
    so in a part's body they are no evidence; a part whose own heading is the name is.
    ``detail``: the question asks to see a command ("syntax?") or a value ("how long
    before it fires") (:mod:`retrieval.reading.asked_detail`): each part says whether it
    shows it, and a value asked for sets back no kind of section. ``what_to_do``: the
    question asks only what to do ("… firing, what do i do"): what the alert means
    restates it, as its symptoms do, and the check before acting is the second part
    instead.
    ``bare``: the question is nothing but an alert's name, or that it fires
    (:func:`retrieval.reading.names.only_names`), perhaps asking what to do; so is one of nothing
    but the document's name. ``titled``: the words of the runbook's title; a part's own
    heading that repeats them ("Step 2: Drain the node" in "Draining a Kubernetes
    node") is no sign that it, rather than its siblings, answers: they say which
    runbook, and what the question asks of it ("what do i need before draining a node")
    picks the part. ``openers``: the headings the index's own template opens its
    runbooks with (:mod:`retrieval.search.template_headings`), such as SkyWalking's
    ``Problem``: a part so headed, of no kind the heading's words name, says what the
    runbook is about, as Symptoms do. ``fillers``: the texts the index's template
    repeats word for word in many runbooks (:mod:`retrieval.search.template_text`):
    a part that says only that is quoted only when nothing else can be.
    """
    body_terms = [t for t in terms if normalize_name(t) not in names]
    # a bare alert asks what to do, and what the alert means restates what the engineer
    # is looking at (of a runbook: an incident write-up's Impact is what happened)
    runbook = bool(parts) and parts[0].chunk.metadata.doc_type == "runbook"
    bare = bare and runbook and (intent == "unspecified" or what_to_do)
    what_to_do = what_to_do or bare
    if bare:  # that it fires, in prod, again, says nothing of which part
        body_terms = [t for t in body_terms if t not in ALERT_WORDS] or body_terms
    # a question that is nothing but the name (a bare alert): its words are all there is;
    # asked something of the runbook in words that only say what kind of answer ("what
    # does it mean", "how bad is it"), the name's words pick no part: the kind does
    asked = [t for t in body_terms if t not in naming]
    body_terms = asked or (body_terms if bare or intent == "unspecified" else [])
    heading_terms = [t for t in terms if t not in titled and t not in naming]
    # a value asked for ("at what lag does it go critical") is often in the symptoms or
    # the introduction, which restate the alert for any other question
    fact = detail is not None and detail.fact
    explaining = intent in ("meaning", "define")
    intent_weight = weights.intent
    if fact and intent == "unspecified":
        intent_weight = 0.0  # "how often does the renewer run": no kind of section is asked for
    opening = _opening(parts) if explaining else None
    out = []
    # (A small preference for earlier parts, "the usual case first", lowered lead_hit
    # by 0.02-0.1 on every corpus: it favours Overview and Symptoms over the action.)
    for p in quotable(parts, fillers):
        lexical = coverage(body_terms, p.terms, stats)
        shows = detail is not None and detail.shown_in(p.chunk.path, p.body)
        score = (
            weights.lexical * lexical
            + weights.heading * coverage(heading_terms, p.own_heading_terms, stats)
            + weights.dense * dense_of(p)
            + intent_weight * max(intent_match(intent, p.own_path), 0.5 * (p is opening))
            - (0.0 if fact else weights.symptoms * _only_symptoms(intent, p, what_to_do, openers))
        )
        own = coverage(body_terms, p.own_terms, stats)
        out.append(ScoredPart(p, score, lexical, own_lexical=own, shows_detail=shows))
    out.sort(key=lambda s: -s.score)
    return _in_the_runbooks_order(out) if bare else out


def _in_the_runbooks_order(ranked: list[ScoredPart]) -> list[ScoredPart]:
    """A bare alert's parts: the name's words are no evidence for one fix or check over
    another, so the runbook's first action leads ("Roll back a bad deploy" before "Fail
    over to the standby", as its author ordered them, and as when the alert itself
    arrives), and its first check is the best of the checks; it leads when no fix is
    written."""
    out = list(ranked)
    checks = [s for s in out if "diagnose" in heading_kinds(s.part.own_path)]
    # the first check to run: not where the alert's rule is spelled out ("Metrics")
    runs = [s for s in checks if not spells_the_rule(s.part.own_path)] or checks
    first = min(runs, key=lambda s: s.part.start) if runs else None
    if first is not None:
        raised = replace(first, score=max(s.score for s in checks))
        out = [raised if s is first else s for s in out]
        out.sort(key=lambda s: (-s.score, s is not raised))
    fixes = [s for s in out if "act" in heading_kinds(s.part.own_path)]
    if fixes:
        return lead_with(out, min(fixes, key=lambda s: s.part.start).part.heading_path)
    # nothing to do is written: the first check leads, not a part of no kind ("Services")
    return lead_with(out, first.part.heading_path) if first is not None else out


def anchored_heading(parts: Sequence[Part], anchor: str) -> tuple[str, ...] | None:
    """The heading (its path) of the document that a link's ``#anchor`` names, or None.

    GitHub's anchors: the heading lowercased, punctuation dropped, spaces as hyphens, a
    repeated heading numbered (``#mitigation-1``: the second Mitigation). Compared as
    names (:func:`normalize_name`), so ``#Mitigation`` matches too. ``parts`` are the
    whole document's: a repeated heading is numbered across the file."""
    wanted = normalize_name(anchor)
    seen: dict[str, int] = {}
    for path in _headings(parts):
        name = normalize_name(path[-1])
        n = seen.get(name, 0)
        seen[name] = n + 1
        if wanted and wanted == (f"{name}{n}" if n else name):
            return path
    return None


def _headings(parts: Sequence[Part]) -> list[tuple[str, ...]]:
    """Every heading of the document as its path, once, in the document's order."""
    ordered = sorted(parts, key=lambda p: p.start)
    paths = (p.heading_path[:n] for p in ordered for n in range(1, len(p.heading_path) + 1))
    return list(dict.fromkeys(paths))


def lead_with(ranked: Sequence[ScoredPart], heading: tuple[str, ...] | None) -> list[ScoredPart]:
    """``ranked`` with the best part under ``heading`` (the section a link's #anchor
    points at: its own text or the subsection of it that matches the question best)
    leading, scored as the best part so that a second part is chosen as usual.
    Unchanged when no part lies under it, or every part does: then it names the
    runbook itself."""
    if heading is None:
        return list(ranked)
    under = [s for s in ranked if s.part.under(heading)]
    if not under or len(under) == len(ranked):
        return list(ranked)
    first = under[0]
    lead = replace(first, score=max(first.score, ranked[0].score), anchored=True)
    return [lead, *(s for s in ranked if s is not first)]


MAX_LEAD_IN_CHARS = 300


_FORWARD = re.compile(r"\b(following|below|these (steps|sections|approaches|options))\b", re.I)


def lead_in(part: Part, following: Part | None) -> bool:
    """A part that only introduces its subsections ("The following two approaches can
    be used for the diagnosis."): short, no code and no list, pointing ahead, and the
    next part is one of its own subsections. Quoted alone it shows nothing to do; its
    subsections are quoted instead."""
    if following is None or len(following.heading_path) <= len(part.heading_path):
        return False
    if not following.under(part.heading_path):
        return False
    body = part.body.strip()
    return (
        part.body_start > part.start  # the section's first piece, under its own heading
        and len(body) <= MAX_LEAD_IN_CHARS
        and not part.facts.lays_out_steps
        and (part.facts.ends_pointing_ahead or bool(_FORWARD.search(body)))
    )


def quotable(parts: Sequence[Part], fillers: frozenset[str] = frozenset()) -> list[Part]:
    """The parts that can be quoted on their own: every part but the lead-ins, the
    lists of links (a generated "Troubleshooting Pointers" index atop a README points at
    answers instead of holding one), the stubs ("TODO") and the template's ``fillers``
    ("Nothing registered to date." in every alarm runbook), unless the document has
    nothing else."""
    ordered = sorted(parts, key=lambda p: p.start)
    nxt = {id(p): (ordered[i + 1] if i + 1 < len(ordered) else None) for i, p in enumerate(ordered)}
    out = [p for p in parts if not lead_in(p, nxt[id(p)])]
    return [p for p in out if p.holds_answer and not (fillers and p.filler_key in fillers)] or out


def _opening(parts: Sequence[Part]) -> Part | None:
    """The runbook's opening text, when no heading says what kind of section it is (the
    description under the title, or under a subtitle): what the runbook is about, the
    answer a question about what the alert means finds first."""
    first = min(parts, key=lambda p: p.start, default=None)
    return first if first is not None and not heading_kinds(first.own_path) else None


def _only_symptoms(
    intent: Intent, part: Part, what_to_do: bool = False, openers: frozenset[str] = frozenset()
) -> float:
    if intent not in ("unspecified", "act", "procedure", "diagnose"):
        return 0.0
    if not part.own_path:
        return 0.5  # the introduction under the title: what the runbook is for, half as much
    restating = {"symptoms", "meaning", "impact"} if what_to_do else {"symptoms"}
    kinds = heading_kinds(part.own_path)
    if openers and not kinds and heading_key(part.own_path[-1]) in openers:
        return 1.0  # what the template opens with: the problem restated, an example
    return 1.0 if kinds and kinds <= restating else 0.0
