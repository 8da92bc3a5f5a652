"""What a question asks for, and what kind of answer a runbook heading offers.

An on-call question wants one of a few things: what an alert means or whether it
matters (``meaning``), what makes it fire, its threshold or window (``define``:
Meaning, Description or Metrics before Impact), how to find the cause
(``diagnose``), what to do about it (``act``), how to carry out a named procedure
(``procedure``), or whom to call (``escalate``). A bare alert or a described
symptom asks for nothing in particular (``unspecified``) and is answered with the
action first, then how to confirm the cause (measured on three corpora: leading
with the diagnosis for described symptoms chose the answering section less often).

Headings are classified the same way, on the whole heading path, so that
``Mitigation > Restart pgbouncer`` counts as an action section; a ``Symptoms``
heading restates the alert whatever its parent (``Troubleshooting > Symptoms``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

from retrieval.reading.tokenize import tokenize

Intent = Literal[
    "define", "meaning", "diagnose", "act", "procedure", "prepare", "escalate", "unspecified"
]
SectionKind = Literal["meaning", "impact", "diagnose", "act", "prepare", "escalate", "symptoms"]

# Question patterns, most specific first: the first intent whose pattern matches wins.
# asking only what to do, nothing about the alert itself: "what do I do?", "next steps"
_OPEN_ACT = (
    r"what (do|should|can) (i|we) do|what now|now what|next steps?|what next|"
    r"what('?s| is) the (play|move)"
)

_QUESTION_INTENTS: tuple[tuple[Intent, re.Pattern[str]], ...] = (
    (
        "escalate",
        re.compile(
            r"\b(escalat\w*|who (do|should|can) (i|we) (call|page|contact|ping|ask|talk)|"
            r"who (do i|to) call|who'?s? on[- ]?call|contact (someone|support)|"
            r"(get|reach) (hold of )?(someone|anyone|support)|urgent support|"
            r"(anyone|someone|somebody) (to|i can|we can) (reach|call|contact|page|ping)|"
            # whose it is: "who owns ledger sync", "which team is responsible for dns"
            r"who (owns|maintains)|who('?s| is) (the owner|responsible)|"
            r"which team (owns|maintains|is responsible))\b",
            re.I,
        ),
    ),
    (
        # what must be in place first: "what do i need before i start", "prerequisites"
        "prepare",
        re.compile(
            r"\b(prereq\w*|pre-requisites?|"
            r"what (do|will|would) (i|we) need (to have|to get|before|first|in place|ready)|"
            r"what (access|permissions?|roles?|rights|credentials) (do|will) (i|we) need|"
            r"before (i|we) (start|begin)( on| with| the|\?|$))",
            re.I,
        ),
    ),
    (
        # what makes the alert fire: the rule, its threshold and window, which a
        # Meaning or Description section states and an Impact section does not
        "define",
        re.compile(
            r"\b(threshold|what (exactly )?trips|what counts as|over what window|"
            r"(fire|fires|trip|trips|trigger|triggers|page|pages|alert|alerts) at\b|"
            r"what (error )?(%|percent)|slo\b|error budget|"
            r"(go|goes|turn|turns|become|becomes) (critical|red|yellow|amber)\b|"
            r"how (long|many|much)\b[^?]*\b(trip|trips|fire|fires|go off|goes off|allowed)\b)",
            re.I,
        ),
    ),
    (
        "meaning",
        re.compile(
            # "what does it mean", "what does the spambot finding mean"
            r"\b(what does (it|this|that|(the |this |that )?[\w.:/-]+( [\w.:/-]+){0,5}) "
            r"(mean|tell)|what('?s| is) (this|that|it) (alert|about)|impact\w*|"
            r"customer[- ]?(facing|impacting)|blast radius|"
            r"(does|do|will|would|could|can|is|are) (\w+ ){0,2}(affect\w*|hurt\w*) "
            r"(\w+ ){0,2}(customers?|users?|clients?|tenants?)|"
            r"(who|which \w+) (is|are) (affected|hit)|"
            r"user[- ]?facing|real problem|just noise|noise\b|should i (worry|care)|"
            r"worry|wake (ppl|people|someone|anyone) up|can (it|this) wait|"
            r"do i (still )?(need|have) to (do anything|look at it|worry|care)|matter|"
            r"how (bad|serious|severe|urgent|big (of )?a deal)|"
            # why it is built so ("why does cnv want two kvm workers"), not why it fails
            r"why (does|do|would) ([\w./-]+ ){1,6}(need|want|require|carry)\b|"
            r"severity|(outside|within|above|beyond) (the )?(normal|usual|expected)|"
            r"is (that|this|it) (normal|expected|ok|okay|fine|bad)\b|"
            r"what('?s| is) (this|that|it) telling|at what (level|point|percent|usage|fill)|"
            r"(take|bring|knock)s? (\w+ ){0,2}down\b|still (going through|being served|serving))",
            re.I,
        ),
    ),
    (
        "diagnose",
        re.compile(
            r"\b(which (metric|log|logs|condition|dashboard|panel|query)|"
            r"how (do|can) (i|we) (tell|see|find|check|know|confirm|verify|figure|work out|"
            r"spot|identify|debug|investigate|troubleshoot|list|show|view|inspect|look up)\b|"
            r"where (do|can|should) (i|we)( \w+)? (see|find|look|check)|"
            r"where .* (logged|logs?)|"
            r"what (do|should) (i|we) (check|look|compare|filter)|what to (check|compare)|"
            r"(am i|are we) supposed to (check|compare|look)|"
            # where to begin is the first check, not the fix
            r"where (do|should|can) (i|we) (even )?(start|begin)|where to (start|begin)|"
            r"why (is|does|did|are|do)|root cause|culprit|diagnos\w*|investigat\w*|"
            r"what (\w+ )?caused|cause of|"
            r"what'?s (eating|using|causing|wrong)|is (it|the \w+) (still )?broken)\b",
            re.I,
        ),
    ),
    (
        "procedure",
        re.compile(
            r"\b(how (do|can|should) (i|we|you) |how to |what'?s the (command|way|process|"
            r"procedure)|command to|steps to|procedure (for|to)|"
            r"is there (a|an) (snippet|script|command|one-?liner|query|way|procedure|process)|"
            r"where (do|can|should) (i|we) (bump|change|set|increase|raise|lower|edit|"
            r"update|configure|scale|adjust|tune)\b)",
            re.I,
        ),
    ),
    (
        "act",
        re.compile(
            r"\b(" + _OPEN_ACT + r"|what (do|should|can) (i|we) "
            r"(kill|restart|delete|remove|drop|scale|bump|poke|try|change)|fix|workaround|"
            r"options\b|"
            r"safe to \w+|"
            r"mitigat\w*|remediat\w*|resolve|recover|roll ?back|rollback|restart|bounce|"
            r"can i (just )?\w+|should i \w+|buys? (me )?time|stop (it|this)|get rid|"
            r"make it stop|unblock|unstick|clear (it|the))\b",
            re.I,
        ),
    ),
)

# what an action section's heading says
_ACT = re.compile(
    # "Resolving client address and port to process" looks an address up: no fix
    r"\b(mitigat\w*|remediat\w*|remed(y|ies)|resolutions?|resolv\w*(?![^/]*\bto\b)|fix\w*|"
    r"steps?|procedures?|"
    r"recover\w*|roll ?back|rollback|workarounds?|what to do|response|failover|"
    r"clean ?up|manual intervention|instructions?|"
    r"actions?|restart\w*|restor\w*|repair\w*|solutions?|"
    # "How to diagnose this problem" is a check, not an action
    r"how to(?! (?:diagnos|investigat|troubleshoot|debug|check|verify|identify|"
    r"find|tell|spot|detect|recogni[sz]e|read|see|monitor)))\b",
    re.I,
)

_HEADING_KINDS: tuple[tuple[SectionKind, re.Pattern[str]], ...] = (
    ("act", _ACT),
    (
        "diagnose",
        re.compile(
            r"\b(diagnos\w*|investigat\w*|troubleshoot\w*|debug\w*|check(s|ing|ed)?|"
            # "log in" / "log out" is signing in, not reading logs
            r"verify\w*|identify\w*|logs|log(?!\s+(?:in|into|out)\b)|queries|query|"
            r"dashboards?|metrics?|triage|causes?|inspect\w*|examin\w*|analy[sz]\w*|"
            r"assess\w*)\b",
            re.I,
        ),
    ),
    (
        "meaning",
        re.compile(
            r"\b(impact|meaning|description|overview|summary|about|context|severit(y|ies)|"
            r"blast radius|understanding|explanation|background|alert rules?|alerting rules?|slos?|"
            r"thresholds?|purpose|definition|alert behaviou?r|tl;?dr|"
            r"what (does|do) (this|the|it)\b.{0,40}\bmean|why (is|does|do) (this|the|we)|"
            r"what (it|this|the alert) means|why it fires|alert (condition|expression|query))\b",
            re.I,
        ),
    ),
    # what happens if it is left: a kind of meaning, and the one "how bad is it" wants
    (
        "impact",
        re.compile(r"\b(impact\w*|severit(y|ies)|consequences?|effects?|blast radius)\b", re.I),
    ),
    ("escalate", re.compile(r"\b(escalat\w*|contacts?|support|on-?call|owners?)\b", re.I)),
    (
        "prepare",
        re.compile(
            r"\b(prerequisites?|pre-requisites?|requirements|before you (begin|start)|"
            r"dependencies|preparation|what you('ll| will)? need|you will need|"
            r"(required )?permissions)\b",
            re.I,
        ),
    ),
    ("symptoms", re.compile(r"\b(symptoms?|signs?|alert firing)\b", re.I)),
)

# What each intent is served by, best first.
WANTED: dict[Intent, tuple[SectionKind, ...]] = {
    "define": ("meaning",),
    "meaning": ("meaning",),
    "diagnose": ("diagnose",),
    "act": ("act",),
    "procedure": ("act",),
    "prepare": ("prepare",),
    "escalate": ("escalate",),
    "unspecified": ("act", "diagnose"),
}


# A question about what happened, not about what to do now: an incident write-up answers it.
_PAST = re.compile(
    r"\b(what (\w+ )?(caused|happened)|cause of (the|that|last)|post-?mortems?|"
    r"incident (report|review|write-?up)|write-?ups?|retro(spective)?s?|"
    r"last time (this|it|we)|(outage|incident)s? (on|in|last|from|of) "
    r"(\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|last|the \w+ (before|of)))",
    re.I,
)


def asks_about_past(question: str) -> bool:
    """Does the question ask what happened in an earlier incident ("what caused the
    outage in september", "the post-mortem for ...")?"""
    return bool(_PAST.search(question))


# What an alert pasted as the question carries besides words: its ``[FIRING:1]`` header
# and its labels (``severity=critical``, ``msg="..."``). They say which alert, never what
# the person asks: ``severity=warning`` is not a question about severity.
_ALERT_NOISE = re.compile(
    r"\[(?:FIRING|RESOLVED)(?::\s*\d+)?\]|[\w.-]+=(?:\"[^\"]*\"|'[^']*'|\S*)", re.I
)


def question_intent(question: str) -> Intent:
    asked = _ALERT_NOISE.sub(" ", question)
    for intent, pattern in _QUESTION_INTENTS:
        if pattern.search(asked):
            return intent
    return "unspecified"


_WHAT_TO_DO = re.compile(r"\b(" + _OPEN_ACT + r")\b", re.I)


_WHERE_TO_START = re.compile(
    r"\b(where (do|should|can) (i|we) (even )?(start|begin)|where to (start|begin)|"
    r"(what|which) (do|should) (i|we) (check|look at|do) first|first step)\b",
    re.I,
)


def asks_where_to_start(question: str) -> bool:
    """ "…, where do i start": the first step of the runbook's checks, not the best one."""
    return bool(_WHERE_TO_START.search(question))


def asks_what_to_do(question: str) -> bool:
    """Does the question ask what to do, and nothing else the runbook explains?"""
    return question_intent(question) == "act" and says_what_to_do(question)


def says_what_to_do(question: str) -> bool:
    """Does the question say "what do i do" (whatever else it asks)?"""
    return bool(_WHAT_TO_DO.search(question))


def heading_kinds(heading_path: Sequence[str]) -> frozenset[SectionKind]:
    """The kinds of answer a section offers, judged on its whole heading path."""
    return _kinds(tuple(heading_path))


# a section of a runbook headed by what the whole document is ("Runbook", "Playbook"):
# where its author wrote the response, not a link to another runbook
_RESPONSE_HEADING = re.compile(r"^\W*(?:the\s+)?(?:run|play)\s?book(?:\s+steps)?\W*$", re.I)


@lru_cache(maxsize=1 << 14)
def _kinds(heading_path: tuple[str, ...]) -> frozenset[SectionKind]:
    if heading_path and _of(heading_path[-1]) == {"symptoms"}:
        # "Troubleshooting > Symptoms" restates the alert; its parent does not make it a check
        return frozenset({"symptoms"})
    kinds = _of(" / ".join(heading_path))
    if heading_path and _RESPONSE_HEADING.match(heading_path[-1]):
        return kinds | {"act"}  # "## Runbook" in a runbook: the steps to take
    return kinds


# words that say a section lays out steps, not what the steps are for
_STEPS_WORDS = re.compile(r"\b(steps?|procedures?|instructions?)\b", re.I)


# a list of tasks to tick off while responding ("Quick Response Checklist": acknowledge,
# open the dashboard, post in the channel), not the fix, unless it names one
_CHECKLIST = re.compile(r"\bcheck ?lists?\b", re.I)
_RESPONSE_WORDS = re.compile(r"\b(response|actions?)\b", re.I)


def _of(text: str) -> frozenset[SectionKind]:
    kinds = frozenset(kind for kind, pattern in _HEADING_KINDS if pattern.search(text))
    if {"act", "diagnose"} <= kinds and not _ACT.search(_STEPS_WORDS.sub(" ", text)):
        # "Investigation steps", "Troubleshooting procedure": steps of a check
        return kinds - {"act"}
    if "act" in kinds and _CHECKLIST.search(text):
        plain = _RESPONSE_WORDS.sub(" ", _STEPS_WORDS.sub(" ", text))
        if not _ACT.search(plain):
            return kinds - {"act"}
    return kinds


# a heading over the rule that fires the alert: its metric, expression or threshold
_RULE = re.compile(
    r"\b(metrics?|thresholds?|alert(ing)? (rules?|conditions?|expressions?)|expressions?|"
    r"trigger(s|ing)?( conditions?)?)\b",
    re.I,
)


# "how bad is it", "how serious": words that ask how much it matters, not of what
_SEVERITY_ASK = re.compile(
    r"\bhow (bad|serious|severe|urgent|worried|concerned|big (?:of )?a deal)\b", re.I
)


def asking_words(question: str) -> frozenset[str]:
    """Tokens of the words that only say what kind of answer is wanted ("bad" of "how
    bad is it", "first" of "what do i check first"): no evidence for the part that says
    them ("Roll back a bad deploy")."""
    severity = (t for m in _SEVERITY_ASK.finditer(question) for t in tokenize(m[1]))
    # "what do i check first", "where do i start": the first check is asked for, not a
    # part that says "first" ("roll back first and debug later")
    start = (t for m in _WHERE_TO_START.finditer(question) for t in tokenize(m[0]))
    return frozenset((*severity, *start))


def spells_the_rule(heading_path: Sequence[str]) -> bool:
    """Is the section where the alert's rule is spelled out ("Metrics", "Alert Rules"):
    what fires it, not a check to run?"""
    return bool(heading_path) and bool(_RULE.search(heading_path[-1]))


def intent_match(intent: Intent, heading_path: Sequence[str]) -> float:
    """1.0 when the section offers what the question asks for first, 0.5 for a later
    preference, 0 otherwise; restating symptoms never serves an action question, and
    what fires the alert is found where its rule is spelled out before its Impact (a
    check to run, before it)."""
    kinds = heading_kinds(heading_path)
    if intent == "define":
        if spells_the_rule(heading_path):
            return 1.0  # "Metrics", "Alert Rules": where the expression is spelled out
        if "impact" in kinds:
            return 0.5  # what it costs, where the rule that fires it was asked for
    if intent == "diagnose" and spells_the_rule(heading_path):
        # "how do i tell if it's a false positive": a check to run (Troubleshooting)
        # before the expression that fires the alert (Metrics), which a question naming
        # a metric still finds by its words
        return 0.5
    wanted = WANTED[intent]
    for i, kind in enumerate(wanted):
        if kind in kinds:
            return 1.0 if i == 0 else 0.5
    return 0.0
