"""Which parts of the chosen runbook to quote, in which order, and how much of each.

The question's intent (:mod:`retrieval.intent`) and section-level evidence pick
the lead part: the words of the question found in the part and in its own
heading, the dense similarity of the chunk it lies in, and whether its heading
path offers what was asked (``Mitigation > Restart pgbouncer`` for "what do I
do"). A second part is quoted only when it stands on its own: nearly as strong
as the lead, or the complementary step (the diagnosis before acting, the action
after diagnosing) with real evidence of its own, or that step as a whole top-level
section of the runbook's own layout (``Diagnosis`` beside ``Mitigation``). When the
action leads a bare alert or "what do I do", that check is the second part even when a
section that restates the alert (Meaning) scores closer. Asked only what to do ("…
firing, what do i do"), Meaning and Impact restate the alert as Symptoms do, and when
the runbook's check leads on its words, its own action section goes first beside it.
Asked what it means or whether it matters, the section that explains goes before the
steps that lead on the question's words. Asked whether to do a thing ("can i just
silence it if it flaps"), the section that speaks of it (Alert Behavior: "should not be
silenced") keeps the lead over an action section that shares none of the question's words.

A part that only introduces its subsections ("The following two approaches can be
used:") is never quoted alone: its subsections are.

A link into the runbook (an alert's ``runbook_url`` ending in ``#mitigation``) names
the section to lead with: its part (or subsection) that matches the question best
leads whatever was asked, and the usual second part may follow it.

A numbered procedure is quoted as one unit with its warnings and code; when it
is too long it is cut at a step boundary and the quote says which steps it shows.
A long table (an alert or an error code per row) is quoted by the one row the
question's words pick out, with the table's header beside it ("row 11 of 20").

Asked where to start, the runbook's first numbered step leads, and the step the
question's words matched follows it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from core.heading_text import plain_heading
from core.markdown import TABLE_ROW, TABLE_SEPARATOR, group_blocks, iter_lines, split_blocks
from core.markup import syntax_for
from core.models import normalize_name
from retrieval.asked_detail import Detail
from retrieval.contrast import opens_on_state, says_state
from retrieval.evidence import TermStats, coverage
from retrieval.intent import WANTED, Intent, heading_kinds, intent_match
from retrieval.outline import Part
from retrieval.tokenize import tokenize

MAX_QUOTE_CHARS = 1500  # a part this short is quoted whole
_STEP = re.compile(r"^(\d+)[.)]\s", re.MULTILINE)
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*\S+")  # [name]: https://...
_ONLY_HTML = re.compile(r"^\s*(<[^>]+>\s*)+$")


@dataclass(frozen=True)
class SectionWeights:
    """How section-level evidence adds up (fitted across corpora, leave-one-out)."""

    lexical: float = 0.5  # IDF share of the question's terms in the part
    heading: float = 0.5  # ... in the part's own heading
    dense: float = 0.5  # cosine of the chunk the part lies in
    intent: float = 0.1  # the heading path offers what was asked
    # ... when asked what it means or what fires it: the symptoms such a question repeats
    # are in every section, the kind of section it wants is not
    intent_explain: float = 0.15
    symptoms: float = 0.4  # restating the symptoms answers no request for action or a check
    ruled_out: float = 0.4  # a part headed by what the question sets aside ("not a tenant's")
    detail: float = 0.15  # asked for a command or a value: a part that shows it
    second_ratio: float = 0.85  # a second part this close to the lead is quoted too
    complement_ratio: float = 0.6  # ... or this close, when it is the complementary step
    complement_min_lexical: float = 0.15  # and holds this share of the question's terms


@dataclass(frozen=True)
class ScoredPart:
    part: Part
    score: float
    lexical: float
    anchored: bool = False  # the section a link's #anchor points at: it leads
    shows_detail: bool = False  # it shows the command or value the question asks for


@dataclass(frozen=True)
class Quote:
    part: Part
    start: int  # offsets into the original document text
    end: int
    text: str
    note: str | None = None  # "steps 1-3 of 7" when a procedure is cut, "row 4 of 20"
    # the header and separator lines of the table whose row is quoted, verbatim
    header: str | None = None


def rank_parts(
    parts: Sequence[Part],
    terms: Sequence[str],
    stats: TermStats,
    dense_of: Callable[[Part], float],
    intent: Intent,
    weights: SectionWeights,
    names: frozenset[str] = frozenset(),
    naming: frozenset[str] = frozenset(),
    ruled_out: frozenset[str] = frozenset(),
    detail: Detail | None = None,
    what_to_do: bool = False,
    seen: frozenset[str] = frozenset(),
) -> list[ScoredPart]:
    """The document's parts, best answer first.

    ``names`` are the identifiers the question names (its alert name), ``naming`` the
    words of the document's name the question gives (``pgbouncer``, ``single``,
    ``core`` of ``pgbouncer_single_core``): they tell which document, not which part,
    so in a part's body they are no evidence; a part whose own heading is the name is.
    ``ruled_out`` are the words of what the question sets aside ("not a tenant's"):
    no evidence either, and a part headed by them is the case the question rules out.
    ``detail``: the question asks to see a command ("syntax?") or a value ("how long
    before it fires"), which a part that shows it answers better than one that only
    explains (:mod:`retrieval.asked_detail`). ``what_to_do``: the question asks only
    what to do ("… firing, what do i do"): what the alert means restates it, as its
    symptoms do, and the check before acting is the second part instead. ``seen``: the
    healthy states the question reports ("the pod is Running"); a part headed by one is
    the check the asker has done or the case they have ruled out, and a section that
    opens on one ("If the pod is running, …") is the branch they are in, its checks with it.
    """
    body_terms = [t for t in terms if normalize_name(t) not in names]
    # a question that is nothing but the name (a bare alert): its words are all there is
    body_terms = [t for t in body_terms if t not in naming] or body_terms
    body_terms = [t for t in body_terms if t not in ruled_out]
    # a value asked for ("at what lag does it go critical") is often in the symptoms or
    # the introduction, which restate the alert for any other question
    fact = detail is not None and detail.fact
    explaining = intent in ("meaning", "define")
    intent_weight = weights.intent_explain if explaining else weights.intent
    if fact and intent == "unspecified":
        intent_weight = 0.0  # "how often does the renewer run": no kind of section is asked for
    branches = _seen_branches(parts, seen)
    out = []
    # (A small preference for earlier parts, "the usual case first", lowered lead_hit
    # by 0.02-0.1 on every corpus: it favours Overview and Symptoms over the action.)
    for p in quotable(parts):
        lexical = coverage(body_terms, p.terms, stats)
        shows = detail is not None and detail.shown_in(p.chunk.path, p.body)
        score = (
            weights.lexical * lexical
            + weights.heading * coverage(terms, _own_heading_terms(p), stats)
            + weights.dense * dense_of(p)
            + intent_weight * intent_match(intent, p.own_path)
            - (0.0 if fact else weights.symptoms * _only_symptoms(intent, p, what_to_do))
            - weights.ruled_out * (_headed_by(p, ruled_out) or _says_seen(p, seen))
            + weights.ruled_out * any(p.under(b) for b in branches)  # the case it is in
            + weights.detail * shows
        )
        out.append(ScoredPart(p, score, lexical, shows_detail=shows))
    out.sort(key=lambda s: -s.score)
    return out


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
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s", re.MULTILINE)
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
        and "```" not in body
        and not _LIST_ITEM.search(body)
        and (body.endswith(":") or bool(_FORWARD.search(body)))
    )


def quotable(parts: Sequence[Part]) -> list[Part]:
    """The parts that can be quoted on their own: every part but the lead-ins, the
    lists of links (a generated "Troubleshooting Pointers" index atop a README points at
    answers instead of holding one) and the stubs ("TODO"), unless the document has
    nothing else."""
    ordered = sorted(parts, key=lambda p: p.start)
    nxt = {id(p): (ordered[i + 1] if i + 1 < len(ordered) else None) for i, p in enumerate(ordered)}
    out = [p for p in parts if not lead_in(p, nxt[id(p)])]
    return [p for p in out if p.holds_answer] or out


def _headed_by(part: Part, words: frozenset[str]) -> bool:
    """Do ``words`` name the part: its heading or one above it, not the title?"""
    return bool(words) and any(words & set(tokenize(h)) for h in part.own_path)


def _says_seen(part: Part, seen: frozenset[str]) -> bool:
    """Does the part's heading, or one above it, speak of a state the asker has seen?"""
    return any(says_state(h, seen) for h in part.own_path)


def _seen_branches(parts: Sequence[Part], seen: frozenset[str]) -> list[tuple[str, ...]]:
    """Headings of the sections that open on a state the asker has seen ("If the pod is
    running, the problem might be with Prometheus"): the case the question is in, with
    the checks nested under it."""
    return [p.heading_path for p in parts if p.heading_path and opens_on_state(p.body, seen)]


def _own_heading_terms(part: Part) -> frozenset[str]:
    """The part's own heading words, unless its heading is just the document's title."""
    return part.heading_terms if part.own_path else frozenset()


def _only_symptoms(intent: Intent, part: Part, what_to_do: bool = False) -> float:
    if intent not in ("unspecified", "act", "procedure", "diagnose"):
        return 0.0
    if not part.own_path:
        return 0.5  # the introduction under the title: what the runbook is for, half as much
    restating = {"symptoms", "meaning", "impact"} if what_to_do else {"symptoms"}
    kinds = heading_kinds(part.own_path)
    return 1.0 if kinds and kinds <= restating else 0.0


def _complement(intent: Intent, lead: Part) -> tuple[str, ...]:
    """The kind of section that completes the lead: the diagnosis before acting, the
    action after diagnosing."""
    kinds = heading_kinds(lead.own_path)
    if intent in ("unspecified", "act") and "act" in kinds:
        return ("diagnose",)
    if intent in ("unspecified", "diagnose") and "diagnose" in kinds:
        return ("act",)
    if intent in ("act", "procedure") and "act" not in kinds:
        return ("act",)  # asked what to do, and the best words are elsewhere: the action too
    if intent == "unspecified":
        return WANTED["unspecified"]
    return ()


# a heading that names a case: "a. If the condition does not exist", "When the pod is
# running", "In case of a full disk"
_CASE = re.compile(
    r"^\s*(?:(?:[a-z]|\d{1,2})[.)]\s+|(?:option|case|scenario)\s+\w+\s*[:.)-]\s*)?"
    r"(?:if|when|in case|unless|otherwise)\b",
    re.I,
)
# ... or one environment of several: "Staging" beside "Production"
_ENVIRONMENT = re.compile(
    r"^\s*(?:prod|production|staging|stage|stg|pre-?prod|preview|dev|development|test|testing|"
    r"integration|sandbox|local)\s*$",
    re.I,
)


def _alternatives(a: Part, b: Part) -> bool:
    """Two cases of one split under the same heading ("a. If …", "b. If …"; "Staging",
    "Production"): the lead is the case that matched, its sibling the one that did not."""
    pa, pb = a.heading_path, b.heading_path
    return (
        len(pa) == len(pb) >= 2
        and pa[:-1] == pb[:-1]
        and any(
            bool(case.match(plain_heading(pa[-1]))) and bool(case.match(plain_heading(pb[-1])))
            for case in (_CASE, _ENVIRONMENT)
        )
    )


def _nested(a: Part, b: Part) -> bool:
    return a.start <= b.start < a.end or b.start <= a.start < b.end


# a numbered step's heading: "1. Identify the Redis master", "Step 2: Drain the node"
_NUMBERED_HEADING = re.compile(r"^(?:step\s+)?(\d+)(?:[.):]|\s+-)\s", re.I)


def _step_number(part: Part) -> int | None:
    m = _NUMBERED_HEADING.match(plain_heading(part.heading))
    return int(m[1]) if m else None


def from_the_first_step(
    chosen: Sequence[ScoredPart], ranked: Sequence[ScoredPart]
) -> list[ScoredPart]:
    """Asked where to start: when a numbered step other than the first leads, its first
    step leads instead, and the step the question matched best follows it."""
    if not chosen:
        return list(chosen)
    lead = chosen[0].part
    n = _step_number(lead)
    if n is None or n <= 1:
        return list(chosen)
    parent = lead.heading_path[:-1]
    first = next(
        (s for s in ranked if s.part.heading_path[:-1] == parent and _step_number(s.part) == 1),
        None,
    )
    if first is None:
        return list(chosen)
    return [first, *(s for s in chosen if s.part is not first.part)][: max(2, len(chosen))]


def choose_parts(
    ranked: Sequence[ScoredPart],
    intent: Intent,
    weights: SectionWeights,
    detail: Detail | None = None,
    what_to_do: bool = False,
) -> list[ScoredPart]:
    """The lead part and, when it earns its place, one more; asked for a ``detail``
    (a command, a value), the part that shows it first; asked only ``what_to_do``, the
    action first."""
    if not ranked:
        return []
    lead = ranked[0]
    chosen = [lead]
    after_check = False  # the action completes a check that names the cause: it follows
    # a fact asked for and given ("how often does the renewer run"): no step completes it
    given = detail is not None and detail.fact and lead.shows_detail
    wanted = () if given and intent == "unspecified" else _complement(intent, lead.part)
    base = shared_depth([s.part.own_path for s in ranked])
    bare = intent == "unspecified"
    asked_action = intent in ("act", "procedure") and not _acts(lead.part)
    checks = "diagnose" in heading_kinds(lead.part.own_path)
    # the first part nearly as strong as the lead: the second quote, unless the action
    # leads and its runbook's own check follows further down (the diagnosis to run before
    # acting beats a Meaning that only restates the alert)
    nearest: ScoredPart | None = None
    check_first = wanted == ("diagnose",)
    for s in ranked[1:]:
        if _nested(s.part, lead.part) or s.part.heading_path == lead.part.heading_path:
            continue
        if _alternatives(s.part, lead.part):
            continue  # "b. If the condition exists" beside "a. If it does not": one holds
        close = s.score >= weights.second_ratio * lead.score
        companion = _companion(s.part, lead.part, base)
        completes = (
            bool(wanted)
            and bool(heading_kinds(s.part.own_path) & set(wanted))
            # a bare alert or symptom gets the action and the check that goes with it,
            # whenever the runbook lays them out side by side
            and (
                s.score >= weights.complement_ratio * lead.score
                or (bare and companion)
                # asked what to do, and the runbook's check leads: its own action section
                # beside it (not a procedure that shares a word)
                or (asked_action and checks and companion and _siblings(s.part, lead.part, base))
            )
            and (s.lexical >= weights.complement_min_lexical or companion)
            # the action asked for beside a lead that explains: the runbook's own action
            # section, not a procedure that shares a word
            and (companion or not asked_action)
        )
        if completes and (nearest is None or (check_first and companion)):
            chosen.append(s)
            after_check = not close and not what_to_do and checks
            break
        if close and nearest is None:
            nearest = s
            if not check_first:
                break
        if not wanted:
            break
    if len(chosen) == 1 and nearest is not None:
        chosen.append(nearest)
    explains = bool(heading_kinds(lead.part.own_path) & {"meaning", "symptoms"})
    if (
        not given  # "how often is it rotated": the part that says so, not the steps
        and (intent == "act" or (intent in ("procedure", "unspecified") and explains))
        and not lead.anchored
        and not after_check
        and len(chosen) == 2
        and _same_runbook(chosen[1].part, lead.part, base)
        and _acts(chosen[1].part)
        and not _acts(lead.part)
        # "can i just silence it if it flaps": the section that speaks of it (Alert
        # Behavior: "should not be silenced") stays first before steps that do not
        and (what_to_do or intent != "act" or chosen[1].lexical > 0 or lead.lexical == 0)
    ):
        # "what do I do": the action first, the check it needs after it; "how do I …"
        # or a bare alert: the steps before the section that explains the alert
        chosen.reverse()
    elif len(chosen) == 2 and not lead.shows_detail and chosen[1].shows_detail:
        chosen.reverse()  # "syntax?", "how long?": the command or value, then the rest
    elif (
        intent in ("meaning", "define")
        and not lead.anchored
        and len(chosen) == 2
        and _same_runbook(chosen[1].part, lead.part, base)
        and _explains(chosen[1].part)
        and not _explains(lead.part)
    ):
        chosen.reverse()  # "does that matter": what it means first, the steps after it
    return chosen


def _same_runbook(part: Part, lead: Part, base: int) -> bool:
    """Do two parts belong to one runbook's layout, not two playbooks of one file? Both
    sit within two levels of the headings every part shares, or under one heading."""
    a, b = part.own_path[base:], lead.own_path[base:]
    return (len(a) <= 2 and len(b) <= 2) or (bool(a) and bool(b) and a[0] == b[0])


def _siblings(part: Part, lead: Part, base: int) -> bool:
    """Two top-level sections of one runbook's layout (``Diagnosis``, ``Mitigation``)."""
    return len(part.own_path) - base == 1 and len(lead.own_path) - base == 1


def _companion(part: Part, lead: Part, base: int) -> bool:
    """A whole top-level section of the layout an alert runbook follows (``Diagnosis``
    beside ``Mitigation``): the step that goes with the lead, whatever its words. Levels
    count below ``base`` headings every part shares (the runbook's own heading, in a
    file of runbooks)."""
    return (
        len(part.own_path) - base == 1
        and len(lead.own_path) - base <= 2
        and bool(heading_kinds(part.own_path[base:]) & {"act", "diagnose"})
    )


def shared_depth(paths: Sequence[tuple[str, ...]]) -> int:
    """How many leading headings every path shares."""
    if not paths:
        return 0
    depth = 0
    for level in zip(*paths, strict=False):
        if any(h != level[0] for h in level):
            break
        depth += 1
    return depth


def _acts(part: Part) -> bool:
    return "act" in heading_kinds(part.own_path)


def _explains(part: Part) -> bool:
    return bool(heading_kinds(part.own_path) & {"meaning", "impact"})


MAX_SECTION_CHARS = 2400  # a section split over several indexed pieces: quoted up to this


def pieces(part: Part, parts: Sequence[Part]) -> list[Part]:
    """The indexed pieces of the part's section, in order: a long section is split over
    several chunks, and a part is one of them (same heading path, consecutive)."""
    ordered = sorted(parts, key=lambda p: p.start)
    i = next((n for n, p in enumerate(ordered) if p.start == part.start), None)
    if i is None:
        return [part]
    lo = hi = i
    while lo > 0 and ordered[lo - 1].heading_path == part.heading_path:
        lo -= 1
    while hi + 1 < len(ordered) and ordered[hi + 1].heading_path == part.heading_path:
        hi += 1
    return ordered[lo : hi + 1]


def quote_parts(
    part: Part,
    parts: Sequence[Part],
    terms: Sequence[str],
    stats: TermStats,
    *,
    acting: bool = False,
) -> list[Quote]:
    """The whole section the part belongs to, from its first piece: a warning or a
    lead-in never stands in for the steps that follow it, and a procedure is never shown
    from its middle. A section longer than MAX_SECTION_CHARS is cut after a piece, and
    the last quote says which steps are shown, or that the rest is in the runbook.

    ``acting``: the question asks what to do. When the cut leaves out the piece where
    the section's own fix begins (a label such as "How to **fix**:" in a playbook that
    has no headings below the alert), that piece is quoted after the first one instead
    of the pieces between them."""
    group = [
        p for i, p in enumerate(pieces(part, parts)) if i == 0 or not _only_link_definitions(p.body)
    ]
    if len(group) == 1:
        return [quote_part(group[0], terms, stats)]
    kept = _within_budget(group, terms, stats)
    if acting and len(kept) < len(group):
        fix = next((i for i in range(len(kept), len(group)) if _labels_action(group[i].body)), None)
        if fix is not None:
            kept = [kept[0], *_within_budget(group[fix:], terms, stats, len(kept[0].text))]
    total = sum(len(_STEP.findall(p.body)) for p in group)
    shown = sum(len(_STEP.findall(q.text)) for q in kept)
    if len(kept) < len(group):
        contiguous = all(q.part is p for q, p in zip(kept, group, strict=False))
        if contiguous and total > shown > 0:
            note = f"steps 1-{shown} of {total}"
        else:
            note = "part of this section"
        kept[-1] = replace(kept[-1], note=note)
    return kept


def _within_budget(
    group: Sequence[Part], terms: Sequence[str], stats: TermStats, used: int = 0
) -> list[Quote]:
    """The pieces quoted in order until MAX_SECTION_CHARS (at least the first)."""
    out: list[Quote] = []
    for piece in group:
        q = quote_part(piece, terms, stats)
        if out and used + len(q.text) > MAX_SECTION_CHARS:
            break
        out.append(q)
        used += len(q.text)
    return out


# a line that labels what follows as the fix: "How to **fix**:", "**Mitigation**"
_ACTION_LABEL = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?(?P<label>[^\n]{0,40}?\b(?:fix|mitigat\w*|remediat\w*|"
    r"resolution|resolv\w*|remed(?:y|ies)|workarounds?|recover\w*)\b[^\n]{0,30}?)[ \t]*$",
    re.I | re.M,
)


def _labels_action(text: str) -> bool:
    """Does a line of ``text`` label the fix (bold, or ending with a colon)?"""
    for m in _ACTION_LABEL.finditer(text):
        label = m["label"].strip()
        if (
            label.endswith(":")
            or label.endswith(":**")
            or (label.startswith(("**", "__")) and label.endswith(("**", "__")))
        ):
            return True
    return False


def _only_link_definitions(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and all(_LINK_DEFINITION.match(line) for line in lines)


def quote_part(part: Part, terms: Sequence[str], stats: TermStats) -> Quote:
    """The part's body verbatim; a long one as its procedure or its best passage."""
    body = part.body.rstrip()
    start = part.body_start
    if len(body) <= MAX_QUOTE_CHARS:
        return Quote(part, start, start + len(body), body)
    units = [
        (s, e)
        for s, e in group_blocks(split_blocks(body, 0, len(body), syntax_for(part.chunk.path)))
        if body[s:e].strip() and not _ONLY_HTML.match(body[s:e])
    ]
    if not units:
        return Quote(part, start, start + len(body), body)
    steps = [i for i, (s, e) in enumerate(units) if _STEP.search(body[s:e])]
    if steps:
        return _procedure(part, body, units, steps[0])
    best = max(
        range(len(units)),
        key=lambda i: (coverage(terms, tokenize(body[units[i][0] : units[i][1]]), stats), -i),
    )
    s, e = units[best]
    if e - s > MAX_QUOTE_CHARS:
        row = _table_row(part, body, s, e, terms, stats)
        if row is not None:
            return row
    for _ns, ne in units[best + 1 :]:
        if ne - s > MAX_QUOTE_CHARS:
            break
        e = ne
    return Quote(part, start + s, start + e, body[s:e])


def _table_row(
    part: Part, body: str, s: int, e: int, terms: Sequence[str], stats: TermStats
) -> Quote | None:
    """The one row of a long table (an alert per row) that the question's words pick
    out, with the table's header; None when the unit is no table or no row stands out."""
    lines = [(a, b) for a, b, _line in iter_lines(body[:e], s)]
    if (
        len(lines) < 4
        or not TABLE_ROW.match(body[lines[0][0] : lines[0][1]])
        or not TABLE_SEPARATOR.match(body[lines[1][0] : lines[1][1]])
    ):
        return None
    rows = [(a, b) for a, b in lines[2:] if TABLE_ROW.match(body[a:b])]
    scored = sorted(
        ((coverage(terms, tokenize(body[a:b]), stats), i) for i, (a, b) in enumerate(rows)),
        key=lambda x: (-x[0], x[1]),
    )
    if not scored or scored[0][0] <= 0 or (len(scored) > 1 and scored[1][0] >= scored[0][0]):
        return None
    i = scored[0][1]
    a, b = rows[i]
    header = body[lines[0][0] : lines[1][1]]
    start = part.body_start
    return Quote(part, start + a, start + b, body[a:b], f"row {i + 1} of {len(rows)}", header)


def _procedure(part: Part, body: str, units: list[tuple[int, int]], first: int) -> Quote:
    """A numbered procedure with its lead-in, cut at a step boundary when too long."""
    begin = units[first - 1][0] if first > 0 and body[units[first - 1][1] - 1] == ":" else None
    s = units[first][0] if begin is None else begin
    proc_end = units[first][1]
    for ns, ne in units[first + 1 :]:
        if not _STEP.search(body[ns:ne]) and not body[ns:ne].startswith((" ", "\t", "```")):
            break
        proc_end = ne
    numbers = [m.start() for m in _STEP.finditer(body, s, proc_end)]
    total = len(numbers)
    if proc_end - s <= MAX_QUOTE_CHARS or total <= 1:
        return Quote(part, part.body_start + s, part.body_start + proc_end, body[s:proc_end])
    ends = [*numbers[1:], proc_end]  # where each step ends
    shown = max(1, sum(1 for e in ends if e - s <= MAX_QUOTE_CHARS))
    end = ends[shown - 1]
    while end > s and body[end - 1].isspace():
        end -= 1
    note = f"steps 1-{shown} of {total}" if shown > 1 else f"step 1 of {total}"
    return Quote(part, part.body_start + s, part.body_start + end, body[s:end], note)
