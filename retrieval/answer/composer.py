"""Which of the ranked parts to quote, and in which order (:mod:`retrieval.answer.part_ranking`
ranks them, :mod:`retrieval.answer.quote_spans` cuts each quote).

A second part is quoted only when it stands on its own: nearly as strong as the lead,
or the complementary step (the diagnosis before acting, the action after diagnosing)
with real evidence of its own, or that step as a whole top-level section of the
runbook's own layout (``Diagnosis`` beside ``Mitigation``). When the action leads a
bare alert or "what do I do", that check is the second part even when a section that
restates the alert (Meaning) scores closer. Asked only what to do, and the runbook's
check leads on the question's words, its own action section goes first beside it.
Asked what it means or whether it matters, the section that explains goes before the
steps that lead on the question's words. Asked whether to do a thing ("can i just
silence it if it flaps"), the section that speaks of it (Alert Behavior: "should not be
silenced") keeps the lead over an action section that shares none of the question's words.

Asked where to start, the runbook's first numbered step leads, and the step the
question's words matched follows it.

Asked how to do a thing or check it, a lead whose own text only introduces the steps its
subsections lay out (a note, then "1. Issue a new token") is followed by the first step.
Asked what to do, an action section that only links to the procedure written elsewhere
is quoted after the check, so the answer says where the steps are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.heading_text import plain_heading
from retrieval.answer.outline import Part
from retrieval.answer.part_ranking import ScoredPart, SectionWeights
from retrieval.answer.quote_spans import MAX_QUOTE_CHARS
from retrieval.answer.stubs import stub
from retrieval.reading import WANTED, Detail, Intent, heading_kinds, intent_match, tokenize
from retrieval.search import mostly_links


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
    step leads instead, and the step the question matched best follows it; so does the
    first of a section's checks when another of them leads."""
    if not chosen:
        return list(chosen)
    lead = chosen[0].part
    n = _step_number(lead)
    parent = lead.heading_path[:-1]
    if n is None:
        # checks that are no numbered steps ("Diagnosis > Check whether pgbouncer is up"):
        # the first of them, as the runbook orders them
        checks = [
            s
            for s in ranked
            if s.part.heading_path[:-1] == parent
            and len(s.part.heading_path) > 1
            and "diagnose" in heading_kinds(s.part.own_path)
        ]
        if "diagnose" not in heading_kinds(lead.own_path) or not checks:
            return list(chosen)
        earliest = min(checks, key=lambda s: s.part.start)
        if earliest.part.heading_path == lead.heading_path:  # the lead, or a piece of it
            return list(chosen)
        rest = (s for s in chosen if s.part.heading_path != earliest.part.heading_path)
        return [earliest, *rest][: max(2, len(chosen))]
    if n <= 1:
        return list(chosen)
    first = next(
        (s for s in ranked if s.part.heading_path[:-1] == parent and _step_number(s.part) == 1),
        None,
    )
    if first is None:
        return list(chosen)
    return [first, *(s for s in chosen if s.part is not first.part)][: max(2, len(chosen))]


def names_the_procedure(terms: Sequence[str], step: Part, title: str) -> bool:
    """Does the question name the procedure rather than the one numbered ``step`` that
    leads? So it does when none of its words (``terms``) is in the step's own heading but
    for the runbook's title: "how do i drain a node" of "Draining a Kubernetes node",
    whose "Step 2: Drain the node" merely repeats the title, or "how do i rotate a
    partner api token" of "3. Revoke the old partner token" under "Rotate a partner API
    token"; not "how do i revoke the old partner token"."""
    own = step.heading_terms - frozenset(tokenize(title))
    return procedure_step(step) and not own & frozenset(terms)


def whole_procedure(chosen: Sequence[ScoredPart], ranked: Sequence[ScoredPart]) -> list[ScoredPart]:
    """Asked for a procedure that a numbered step of it leads: the procedure from its
    start. Its section's own text when it has some (the note on which environments need
    it), which its first step follows (:func:`steps_below`); else its first step, and the
    step after it when the first led, or else the step that led."""
    if not chosen:
        return list(chosen)
    parent = chosen[0].part.heading_path[:-1]
    intro = next((s for s in ranked if s.part.heading_path == parent), None)
    if intro is not None:
        return [intro]
    numbered = [
        (n, s)
        for s in ranked
        if s.part.heading_path[:-1] == parent and (n := _step_number(s.part)) is not None
    ]
    # one part a step: a step's section split over indexed pieces is quoted whole anyway
    steps: dict[tuple[str, ...], ScoredPart] = {}
    for _n, s in sorted(numbered, key=lambda x: (x[0], x[1].part.start)):
        steps.setdefault(s.part.heading_path, s)
    in_order = list(steps.values())
    if in_order and in_order[0].part is chosen[0].part:
        # its first step leads: the step after it is the one to do next, not another
        # that the question's words matched ("Step 3: Verify")
        return in_order[: max(2, len(chosen))]
    return from_the_first_step(chosen, ranked)


def fact_given(detail: Detail | None, lead: ScoredPart) -> bool:
    """A fact asked for and shown by the lead ("how often does the renewer run"): no
    step completes it."""
    return detail is not None and detail.fact and lead.shows_detail


def steps_below(lead: ScoredPart, ranked: Sequence[ScoredPart]) -> ScoredPart | None:
    """A section whose own text only introduces the procedure its subsections lay out
    ("Rotate a token": a note on which environments, then "1. Issue a new token", "2.
    Update the secret"), among one document's ranked parts: the subsection whose steps
    follow it, so that a note is never
    the whole answer to "how do I". The first numbered step when the subsections are
    numbered, else the one that matches the question best; None when the lead shows
    steps itself or no subsection does."""
    if lead.part.shows_steps:
        return None
    depth = len(lead.part.heading_path)
    below = [
        s
        for s in ranked
        if len(s.part.heading_path) > depth
        and s.part.under(lead.part.heading_path)
        and s.part.shows_steps
    ]
    numbered = [s for s in below if _step_number(s.part) is not None]
    if numbered:
        return min(numbered, key=lambda s: (_step_number(s.part) or 0, s.part.start))
    return below[0] if below else None


def action_elsewhere(chosen: Sequence[ScoredPart], parts: Sequence[Part]) -> Part | None:
    """The runbook's action section when it only links to the procedure written elsewhere
    ("Mitigation: [Restore Ceph Mon Quorum Lost](…)", "Possible Resolutions: - [Past
    incidents](…)") and no chosen part is an action: asked what to do, the engineer
    sees where the steps are rather than only the check. A link list is never chosen by
    its words (it holds no answer); it is added after the quotes, short and verbatim.
    ``parts``: every part of the lead's document."""
    if not chosen or any(_acts(s.part) for s in chosen):
        return None
    lead = chosen[0].part
    base = shared_depth([p.own_path for p in parts])
    for p in parts:
        if (
            _acts(p)
            and _same_runbook(p, lead, base)
            and mostly_links(p.body)
            and not stub(p.body)
            and len(p.body.strip()) <= MAX_QUOTE_CHARS
        ):
            return p
    return None


def procedure_step(part: Part) -> bool:
    """A numbered step of a procedure: "Step 2: Drain the node", or a numbered heading
    under a section ("Rotate a token > 2. Update the secret", "Procedure > 2. Drain the
    node"); not a document's numbered sections ("3. Restoring to a point in time" after
    "1. Overview")."""
    return _step_number(part) is not None and (
        plain_heading(part.heading).lower().startswith("step")
        or len(part.own_path) > 1
        or "act" in heading_kinds(part.heading_path[:-1])
    )


def step_note(part: Part, parts: Sequence[Part], shown: Sequence[Part] = ()) -> str | None:
    """The note "step 2 of 3" for a numbered step heading among its numbered siblings in
    ``parts`` (one document's); "steps 1-2 of 3" when ``shown`` (the parts the answer
    quotes) holds its earlier siblings too, said once, on the last of them. None for any
    other part, a step with no sibling, an earlier step of those shown, or when every
    step is shown."""
    n = _step_number(part)
    if n is None:
        return None
    parent = part.heading_path[:-1]
    steps = {
        p.heading_path
        for p in parts
        if p.heading_path[:-1] == parent and _step_number(p) is not None
    }
    together = sorted(
        {n}
        | {m for p in shown if p.heading_path[:-1] == parent and (m := _step_number(p)) is not None}
    )
    if len(steps) < 2 or n != together[-1] or len(together) >= len(steps):
        return None
    if len(together) == 1:
        return f"step {n} of {len(steps)}"
    if together == list(range(together[0], n + 1)):
        return f"steps {together[0]}-{n} of {len(steps)}"
    return f"steps {', '.join(map(str, together))} of {len(steps)}"


def choose_parts(
    ranked: Sequence[ScoredPart],
    intent: Intent,
    weights: SectionWeights,
    detail: Detail | None = None,
    what_to_do: bool = False,
    named_only: bool = False,
) -> list[ScoredPart]:
    """The lead part and, when it earns its place, one more; asked for a ``detail``
    (a command, a value), the part that shows it first; asked only ``what_to_do``, the
    action first. ``named_only``: the question names the runbook and asks nothing else
    of it (a bare alert), so its words are in every part: only the check or action that
    goes with the lead is a second quote, never a list of the team's links."""
    if not ranked:
        return []
    lead = ranked[0]
    chosen = [lead]
    after_check = False  # the action completes a check that names the cause: it follows
    # a fact asked for and given ("how often does the renewer run"): no step completes it
    given = fact_given(detail, lead)
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
        # nearly as strong, and relevant on its own: the kind of section asked for, or the
        # question's words in its own headings or text when the lead has some (in a short
        # runbook every part scores alike on the title they share), not filler
        close = s.score >= weights.second_ratio * lead.score and (
            (not named_only and (s.own_lexical > 0 or lead.own_lexical == 0))
            or intent_match(intent, s.part.own_path) > 0
        )
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
        # the check beats a nearer part, when it is the runbook's own, or the lead was
        # not chosen by its words (a link's #anchor, or a bare alert's first action)
        if completes and (nearest is None or (check_first and (companion or lead.anchored))):
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
