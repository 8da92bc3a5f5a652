"""The task a question asks how to do ("how do i rotate it", "steps to provision a host
cluster", "purge by surrogate key"), and whether an answer does it (:func:`does_task`).

A runbook that never speaks of cancelling, renewing or fencing does not say how to
cancel, renew or fence, however close its topic: "how do i cancel the stuck run"
answered from the fail-over checklist is a near miss, not an answer. Only the verb of
the request counts: "after the upgrade" is an event, "upgrade stalled" a noun, "we
rotated the keys" what was done, and an alert's name (``KubeDeploymentRolloutStuck``)
names the runbook, not a task. When the steps are asked for ("how do i …"), the quotes
must give steps, not describe what exists; when a way is named ("… using vault"), they
must name it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from core.markdown_facts import markdown_facts
from retrieval.reading.evidence import query_terms
from retrieval.reading.lexicon import INSTRUCTION_VERBS, OPERATIONS
from retrieval.reading.tokenize import tokenize

# what comes right before the verb of a request: "how do i", "how to", "steps to",
# "need to", "can we", "do i" (an adverb may come between: "how do i safely drain")
_REQUEST = re.compile(
    r"(?:\bhow\s+(?:do|can|should|would|shall)\s+(?:i|we|you)|\bhow\s+to|\b(?:steps?|"
    r"procedure|process|way|runbook|instructions?)\s+(?:to|for)|\b(?:need|want|have|"
    r"trying|supposed)\s+to|\b(?:do|can|could|should|must|may)\s+(?:i|we)|\bi|\bwe)"
    r"(?:\s+(?:just|manually|safely|actually|properly|quickly|then|also|still|now|first|"
    r"ever|even))?\s+$",
    re.I,
)
# a word between a verb and the operation it names: not one that makes the operation an
# event ("run a backup before the upgrade")
_BETWEEN = r"(?:(?!(?:before|after|during|since|until|the|a|an|of|on|in|to|from)\b)[\w.-]+\s+)"
# an operation named after a verb of doing ("how do i force a sentinel failover", "take a
# snapshot"), or as what a procedure is for ("the failover procedure", "the runbook for a
# major version upgrade")
_DOING = re.compile(
    r"^(?P<request>.*)\b(?:force|trigger|perform|run|start|initiate|take|kick\s+off)\s+"
    rf"(?:(?:a|an|the)\s+)?{_BETWEEN}{{0,3}}$",
    re.I | re.S,
)
_PROCEDURE_AFTER = re.compile(r"^\s+(?:procedure|steps|process|runbook|playbook)\b", re.I)
_PROCEDURE_FOR = re.compile(
    r"\b(?:procedure|steps|process|runbook|playbook|instructions)\s+(?:to|for)\s+"
    rf"(?:(?:a|an|the)\s+)?{_BETWEEN}{{0,4}}$",
    re.I,
)
_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
_OPERATION_STEMS = frozenset(t for w in OPERATIONS for t in tokenize(w))
MIN_SHARED_STEM = 5  # "rebal" of "rebalance" and "rebalanc" of "rebalancing" agree
# turning a value up or down ("how do i raise the cap", "bump the limit") is asked for
# as an operation too; any word for the same direction speaks of it ("increase it")
_UP = ("raise", "increase", "bump", "grow", "extend", "expand", "widen", "enlarge")
_DOWN = ("lower", "reduce", "decrease", "shrink", "narrow")
_ADJUSTMENTS: dict[str, tuple[str, ...]] = {
    **{w: (*_UP, "higher", "larger", "resize") for w in _UP},
    **{w: (*_DOWN, "smaller") for w in _DOWN},
}
_ASKED_ONLY = frozenset({"reset", "recover"})
_TASK_STEMS = _OPERATION_STEMS | {t for w in _ASKED_ONLY for t in tokenize(w)}
# the other words a runbook does an operation in ("switch traffic to the secondary" is a
# failover, "roll the key" a rotation); a phrase is matched as written
_SAME_TASK: dict[str, tuple[str, ...]] = {
    "failover": ("fail over", "failing over", "switch", "switchover", "flip", "cut over"),
    "restart": ("bounce", "reboot", "rollout restart", "recycle", "kill"),
    "rollback": ("roll back", "revert"),
    "purge": ("flush", "invalidate"),
    "drain": ("evict",),
    "restore": ("recover",),
    "recover": ("restore",),
    "enable": ("turn on", "switch on"),
    "disable": ("turn off", "switch off"),
    "delete": ("remove", "drop"),
}
_SAME_BY_STEM = {tuple(tokenize(op)): words for op, words in _SAME_TASK.items()}


# an operation spoken of as an event ("after the cnv upgrade", "before tonight's node
# upgrade", "mid-upgrade"), within two words of a determiner, not asked for
_EVENT_BEFORE = frozenset(
    "the a an our their its this that these those after before during since until "
    "every each last next mid pre post".split()
)


def asked_operations(question: str) -> frozenset[str]:
    """The words of the question that ask for an operation ("upgrade" of "how do i
    upgrade the operator", "upgrading checkout-db"), lowercased; not one it speaks of
    as an event ("after the upgrade")."""
    words = _WORD.findall(question)
    out = set()
    for i, word in enumerate(words):
        if not any(t in _OPERATION_STEMS for t in tokenize(word)):
            continue
        before = [w.lower() for w in words[max(0, i - 2) : i]]
        if not any(b in _EVENT_BEFORE or b.endswith("'s") for b in before):
            out.add(word.lower())
    return frozenset(out)


def _named_as_task(word: str, before: str, after: str) -> bool:
    """Is the operation word ``word`` named after a verb of doing in a request ("how do i
    force a sentinel failover") or as what a procedure is for ("the failover procedure")?"""
    if not any(t in _TASK_STEMS for t in tokenize(word)):
        return False
    doing = _DOING.search(before)
    if doing is not None and _REQUEST.search(doing["request"]):
        return True
    return bool(_PROCEDURE_AFTER.match(after) or _PROCEDURE_FOR.search(before))


@lru_cache(maxsize=1024)
def requested_operations(question: str) -> frozenset[str]:
    """The operations the question asks how to do, lowercased: the words of
    :func:`asked_operations`, the words for turning a value up or
    down, "reset" and "recover", in the place of a request's verb; and an operation
    named as the task of a request or a procedure."""
    operations = asked_operations(question)
    out = set()
    for m in _WORD.finditer(question):
        word = m[0].lower()
        if word.endswith("ed"):  # "we scaled up an hour ago": what was done, not asked
            continue
        before, after = question[: m.start()], question[m.end() :]
        verb = word in operations or word in _ADJUSTMENTS or word in _ASKED_ONLY
        if (verb and _REQUEST.search(before)) or _named_as_task(word, before, after):
            out.add(word)
    return frozenset(out)


def _stems(word: str) -> tuple[str, ...]:
    return tuple(tokenize(word))


def _speaks_of(stem: str, tokens: Iterable[str]) -> bool:
    return any(
        t.startswith(stem) or (stem.startswith(t) and len(t) >= MIN_SHARED_STEM) for t in tokens
    )


def speaks_of_operations(operations: Iterable[str], texts: Iterable[str]) -> bool:
    """Does the text (the quotes, their sections and runbook titles) speak of every
    operation asked for, in any form ("rotate": "rotation", "rotating"; "bump":
    "increase", "higher")?"""
    texts = list(texts)
    tokens = {t for text in texts for t in tokenize(text)}
    written = " ".join(" ".join(text.lower().split()) for text in texts)

    def said(word: str) -> bool:
        if " " in word:
            return re.search(rf"\b{re.escape(word)}\b", written) is not None
        return any(_speaks_of(s, tokens) for s in _stems(word))

    def spoken(op: str) -> bool:
        if op in _ADJUSTMENTS:
            return any(said(w) for w in _ADJUSTMENTS[op])
        stems = _stems(op)
        if not stems:
            return False
        return all(_speaks_of(s, tokens) for s in stems) or any(
            said(w) for w in _SAME_BY_STEM.get(stems, ())
        )

    return all(spoken(op) for op in operations)


# a request for the steps themselves: "how do i …", "how to …", "the steps to …", "the
# procedure for …" (not "can i just …" or "do i have to …", which a sentence answers)
_HOW = re.compile(
    r"\bhow\s+(?:do|can|should|would|shall)\s+(?:i|we|you)\b|\bhow\s+to\b|"
    r"\b(?:steps?|procedure|process|instructions|runbook|playbook)\s+(?:to|for)\b|"
    r"\b(?:the|what)\s+(?:\w+\s+)?(?:steps|procedure|process)\b",
    re.I,
)
# what shows steps: code (a fence, an indented block, a shell prompt; not a name in
# backticks, as asked_detail.shows_command takes one: `govuk-assets` is no step), a numbered step,
# or a sentence that opens with an instruction ("Run …", "- Delete the …", "If it is
# stuck, restart it") or says what to do ("you need to …", "To restore it, …")
_ITEM = re.compile(r"^\s*(?:[-*+]\s+|>\s*)+")
_CLAUSE = re.compile(r"(?:^|[.!?:;]\s+|,\s+(?:then\s+)?|\bthen\s+)([A-Za-z][\w-]*)")
_YOU_DO = re.compile(
    r"\byou\s+(?:can|should|must|need\s+to|have\s+to|will\s+need\s+to|may)\s+\w+|"
    r"(?:^|[.!?]\s+)to\s+\w+\b[^.!?\n]*,",
    re.I | re.M,
)


def asks_how(question: str) -> bool:
    """Does the question ask for the steps of an operation ("how do i restore …", "the
    steps to provision …"), not whether to do it ("can i just delete …")?"""
    return bool(requested_operations(question)) and bool(_HOW.search(question))


def gives_steps(markdown: str) -> bool:
    """Does the text (as Markdown) give steps to follow: code, a numbered step, an
    instruction or what to do? A description of what exists ("These buckets have
    versioning, so that we can restore previous versions") gives none."""
    facts = markdown_facts(markdown)
    if facts.has_code or facts.has_numbered or _YOU_DO.search(markdown):
        return True
    for line in markdown.splitlines():
        text = _ITEM.sub("", line)
        if any(m[1].lower() in INSTRUCTION_VERBS for m in _CLAUSE.finditer(text)):
            return True
    return False


# the way asked for ("purge by surrogate key", "restart it using helm", "deploy via argo")
_METHOD = re.compile(
    r"\b(?:by|using|via)\s+(?:(?:a|an|the|its|their|our)\s+)?"
    r"(?P<method>[\w./-]+(?:\s+(?!(?:so|and|or|but|to|for|in|on|of|from|without|before|after)\b)"
    r"[\w./-]+){0,2})",
    re.I,
)
_CLAUSE_END = re.compile(r"[.?!,;:()]|\b(?:so|and|but|because|without)\b", re.I)
# "by hand", "by default", "by mistake": how or why, not a way a runbook would name
_NOT_METHODS = frozenset("hand default mistake accident itself themselves now".split())


def asked_method(question: str) -> tuple[str, ...]:
    """The words of the way a request for steps asks for ("surrogate key" of "how do i
    purge by surrogate key"), in the clause of the operation; none when it names none.
    "queued by one user" names who did it, not a way."""
    operations = requested_operations(question)
    if not operations or not _HOW.search(question):
        return ()
    for word in _WORD.finditer(question):
        if word[0].lower() not in operations:
            continue
        rest = question[word.end() :]
        end = _CLAUSE_END.search(rest)
        clause = rest[: end.start()] if end else rest
        for m in _METHOD.finditer(clause):
            before = clause[: m.start()].split()
            passive = bool(before) and before[-1].lower().endswith(("ed", "en"))
            first = m["method"].split()[0].lower()
            if not passive and first not in _NOT_METHODS:
                return tuple(query_terms(m["method"]))
    return ()


def shows_method(terms: Iterable[str], texts: Iterable[str]) -> bool:
    """Do the texts name every word of the way asked for?"""
    tokens = {t for text in texts for t in tokenize(text)}
    return all(t in tokens for t in terms)


@dataclass(frozen=True)
class TaskCheck:
    """What the answer's quotes leave undone of the task the question asks for."""

    task_missing: bool  # an operation asked for is never spoken of, or the way asked for
    steps_missing: bool  # the steps are asked for and no quote gives any


def check_task(question: str, quotes: Sequence[str], placed: Sequence[str]) -> TaskCheck:
    """``placed``: each quote with its runbook's title and section. They must speak of
    every operation asked for, name the way asked for and, when the steps themselves are
    asked for, give steps. A question that asks for no task leaves nothing undone."""
    operations = requested_operations(question)
    unspoken = bool(operations) and not speaks_of_operations(operations, placed)
    task_missing = unspoken or not shows_method(asked_method(question), placed)
    steps_missing = asks_how(question) and not any(gives_steps(q) for q in quotes)
    return TaskCheck(task_missing, steps_missing)


def does_task(question: str, quotes: Sequence[str], placed: Sequence[str]) -> bool:
    """Do the answer's quotes do the task the question asks for (:func:`check_task`)?"""
    check = check_task(question, quotes, placed)
    return not (check.task_missing or check.steps_missing)
