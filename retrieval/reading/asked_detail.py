"""The one detail a question asks to see, and whether a quote shows it.

Some questions ask for a thing a runbook either shows or does not:

- the command ("whats the cmd to flip traffic"), or one tool's ("amtool syntax to
  silence" is not answered by a ``kubectl`` line);
- a value: a duration ("how long before this fires", "how often does the backup
  run", "how many days do we give them"), a size in the unit asked for ("how many
  bits", "in MB") or a number ("what's the memory limit", "how many replicas can it
  take");
- a setting by name ("which flag controls …", "which config key sets …"), shown as
  code (``-alertmanager.persist-interval``, ``max_concurrency``, ``GITALY_TOKEN``);
- the default ("whats the default max_series"), given only where a runbook says so;
  of a setting named as one (``-compactor.deletion-delay``, ``max_series``), only in a
  sentence or line of code that names that setting, not another setting's default;
- the value of a named quantity ("what's the kafka session timeout"), only in a sentence
  or line of code that names that quantity, not another figure of the runbook;
- the name itself ("what's the actual bucket name"): code beside that word, not a
  placeholder for it (``bucket => ":bucket:"``);
- the query ("the prometheus query behind it", "which metric do i graph"), shown as
  a PromQL expression or a metric's name in code.

A part that shows the detail answers such a question better than one that only
explains, so it ranks higher (:mod:`retrieval.answer.part_ranking`). A runbook on the topic that
shows none of it does not answer the question: quoting it as if it did is a near
miss, and the closest runbooks are offered instead (:mod:`retrieval.answer.answerer`).

A question that asks how to find the value out ("how do I tell how many MB a defrag
frees") asks for a method, not the value, and so does one about the state of the
incident ("how many pods are failing"): any part may answer it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from typing import Literal

from core.markup import syntax_for
from core.models import AbstainReason, normalize_name
from retrieval.reading.tokenize import tokenize

DetailName = Literal["command", "duration", "size", "number", "setting", "query", "default", "name"]


@dataclass(frozen=True)
class Detail:
    name: DetailName
    missing: AbstainReason  # why the question is not answered when no quote shows it
    shows: Callable[[str], bool] = field(compare=False)  # does this text (as Markdown)?
    # a fact is asked for, not what to do: the part that gives it leads, even when the
    # question names an action ("how often is the key rotated")
    fact: bool = True
    tool: str | None = None  # the command asked for is this tool's ("amtool syntax")

    def shown_in(self, path: str, text: str) -> bool:
        """Does ``text`` of the file at ``path`` show it, read in Markdown whatever the
        file's syntax?"""
        return self.shows(syntax_for(path).as_markdown(text))


# code as Markdown shows it: a span, a fence, an indented block (its lines, not a nested
# list item's)
_CODE = re.compile(
    r"`[^`\n]+`|^ {0,3}(```|~~~)[^\n]*\n.*?^ {0,3}\1"
    r"|(?:^(?: {4}|\t)(?![-*+] |\d+[.)] )[^\n]*\n?)+",
    re.M | re.S,
)


# -- the command ------------------------------------------------------------------------

_COMMAND_WORD = r"(?:commands?|cmds?|syntax|one-?liners?|cli)"
_COMMAND = re.compile(r"\b" + _COMMAND_WORD + r"\b", re.I)
# a command as runbooks show one (in Markdown, as every syntax displays): in backticks, a
# ``~~~`` fence, an indented code block (not a nested list item), or a shell prompt
_SHOWN_COMMAND = re.compile(
    r"`|^ {0,3}~~~|^\s*\$ \S|(?:\A|\n)[ \t]*\n(?: {4}|\t)(?![-*+] |\d+[.)] )\S", re.M
)


def asks_for_command(question: str) -> bool:
    """Does the question ask for the command to run, not only what to do?"""
    return bool(_COMMAND.search(question))


def shows_command(markdown: str) -> bool:
    """Does the text (as Markdown) show a command: code, a fence or a shell prompt?"""
    return bool(_SHOWN_COMMAND.search(markdown))


# the tool whose command is asked for: "amtool syntax", "etcdctl command", "oc cmds"
_TOOL = re.compile(r"\b([a-z][\w-]*(?:\.[\w-]+)*) " + _COMMAND_WORD + r"\b", re.I)
# words before "command" that name no tool, or a language or platform whose commands
# need not spell it ("the sql command", "the k8s cli")
_NOT_TOOLS = frozenset(
    "the a an exact actual right correct full whole specific same which what whats what's "
    "this that these those any some single one my our your its their shell bash terminal "
    "linux unix windows usual proper real sql python ruby yaml json k8s kubernetes "
    "postgres postgresql mysql".split()
)


def asked_tool(question: str) -> str | None:
    """The tool named as the command's ("amtool syntax to silence …"), if any."""
    m = _TOOL.search(question)
    word = m.group(1).lower() if m else None
    return word if word and word not in _NOT_TOOLS else None


def code_of(markdown: str) -> str:
    """The code of ``markdown`` (its spans, fences and blocks), one piece a line: where
    :func:`shows_tool_command` looks for a tool's name."""
    return "\n".join(m.group(0) for m in _CODE.finditer(markdown))


def written_in_code(tool: str, code: str) -> bool:
    """Does ``code`` (:func:`code_of`) run ``tool``? A name of three letters or more may
    begin the program's (``redis`` of ``redis-cli``, ``etcd`` of ``etcdctl``); a shorter
    one (``oc``) is the program's whole name."""
    end = r"(?![\w-])" if len(tool) <= 2 else ""
    return bool(re.compile(r"(?<![\w-])" + re.escape(tool) + end, re.I).search(code))


def shows_tool_command(tool: str, markdown: str) -> bool:
    """Does the text show code that runs ``tool`` (in a span, a fence, a block)?"""
    return written_in_code(tool, code_of(markdown))


# -- a value --------------------------------------------------------------------------

# what a value is called when a question asks for it ("whats the backup retention",
# "what latency threshold"); "default" and "target" are left out: they name things too
# ("the default storage class", "the target cluster")
_VALUE_NOUN = (
    r"(?:threshold|limit|retention|size|timeout|interval|ttl|duration|frequency|"
    r"percentage|quota|cutoff)s?"
)
_QUANTITY = (
    r"(?:memory|ram|cpu|disk|space|storage|data|time|capacity|headroom|runway|room|"
    r"traffic|load|lag|latency|downtime|bandwidth|throughput|budget|quota|money|"
    r"longer|more|bigger|larger|smaller|less|fewer)"
)
_ASKS_VALUE = re.compile(
    r"\bhow (?:many|long|often|far back|old|big|large|frequently)\b"
    # "how much memory", not "how much does this matter"
    r"|\bhow much (?:[\w-]+ )?" + _QUANTITY + r"\b"
    r"|\bevery how\b"
    r"|\bwhat(?:'s| is|s| are)? (?:the |our |its |their )?(?:[\w-]+ ){0,2}" + _VALUE_NOUN + r"\b"
    r"|\b(?:key|what) size\b"
    r"|\bwhat(?:'s| is|s)? (?:the )?(?:max|maximum|min|minimum)\b"
    r"|\b(?:what|which) (?:\w+ )?(?:port|%|percent)(?!\w)"
    r"|\bin (?:seconds|minutes|hours|days|bits|bytes|mb|gb|ms)\b",
    re.I,
)
# "how do i tell how many …", "how can we work out how long …": a method is asked for;
# "how many pods are failing", "how long has it been down": the state of the incident,
# which no runbook gives, only the way to find it out
_ASKS_METHOD = re.compile(
    r"\bhow (?:do|can|could|would|should|to)\b(?: (?:i|we|you|one))?"
    r" (?:tell|find|work|figure|check|see|know|calculate|measure|determine|compute|"
    r"estimate|get|query|look)(?: out| up)?(?: \w+){0,3}? how (?:many|much|long|often|far|old)\b"
    r"|\bhow (?:many|much)(?: [\w-]+){0,3}? (?:are|is|were|was|have|has)(?: been)?"
    r" (?:currently |still |now |already )?(?:affected|impacted|failing|down|broken|stuck|"
    r"lost|dropped|pending|firing|crashing|crashlooping|unhealthy|behind|queued|missing)\b"
    r"|\bhow long (?:has|have)(?: [\w-]+){1,4}? been\b",
    re.I,
)
# a value in units of time is wanted: "how long", "how often", "how many days"
_ASKS_TIME = re.compile(
    r"\bhow (?:long|often|frequently|far back|old)\b|\bevery how\b"
    r"|\b(?:seconds?|minutes?|mins|hours?|days?|weeks?|months?|years?)\b"
    r"|\b(?:retention|timeout|interval|ttl|duration|frequency)s?\b",
    re.I,
)

_NUMBER_WORD = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|"
    r"twenty|thirty|forty|fifty|sixty|ninety|hundred|thousand)"
)
_TIME_UNIT = (
    r"(?:ms|s|m|h|d|w|y|secs?|seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|"
    r"months?|years?)"
)
_DURATION = re.compile(
    r"(?<![\w.])(?:\d+(?:[.,]\d+)?\s*-?\s*|(?:"
    + _NUMBER_WORD
    + r"|an?|a few|a couple of|several|half an?)[\s-]+)"
    + _TIME_UNIT
    + r"\b"
    r"|\b(?:daily|weekly|monthly|hourly|nightly|yearly|annually|quarterly|fortnightly|"
    r"bi-?weekly)\b"
    r"|\b(?:every|once a|twice a|once per|per) (?:other )?(?:second|minute|hour|day|night|"
    r"week|fortnight|month|quarter|year)\b"
    r"|\b\d{1,2}:\d{2}\b|\bat (?:midnight|noon)\b",  # a time of day: "at 02:00 UTC"
    re.I,
)
# a figure with its unit or none ("50,000", "1.5M", "4Gi", "10GB", "95%"), or in words
_NUMBER = re.compile(
    r"(?<![\w.])(?:\d+(?:[.,]\d+)*(?:[a-z]{1,3}\b|%|\b)|(?:" + _NUMBER_WORD + r"|single|dozen)\b)",
    re.I,
)
# a size asked for in its unit ("how many bits", "in MB") is given in one
_SIZE_UNIT = r"(?:bits?|bytes?|[kmgtp]i?b|[kmgtp]i|kilobytes?|megabytes?|gigabytes?|terabytes?)"
_ASKS_SIZE = re.compile(r"\b" + _SIZE_UNIT + r"\b", re.I)
_SIZE = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?\s*-?\s*" + _SIZE_UNIT + r"\b", re.I)
# numbers that are not values: link targets, list markers, "step 2", "v1", and where to
# connect ("localhost:9200", "port-forward svc/es 9200:9200")
_NOT_VALUES = re.compile(
    r"\]\([^)]*\)|\bhttps?://\S+|^\s*\d+[.)]\s|\b(?:step|phase|part|section|version|v)\s*\d+"
    r"|\b[a-z][\w.-]*:\d{2,5}\b|\b\d{4,5}:\d{4,5}\b",
    re.I | re.M,
)


def shows_duration(markdown: str) -> bool:
    """Does the text give a span of time ("15 minutes", "for: 5m", "three hours",
    "daily")?"""
    return bool(_DURATION.search(_NOT_VALUES.sub(" ", markdown)))


def shows_size(markdown: str) -> bool:
    """Does the text give a size in its unit ("2048 bits", "8 KB", "512Mi")?"""
    return bool(_SIZE.search(_NOT_VALUES.sub(" ", markdown)))


def shows_number(markdown: str) -> bool:
    """Does the text give a number (not a list marker, a step or a link's)?"""
    return bool(_NUMBER.search(_NOT_VALUES.sub(" ", markdown)))


# -- a setting by name -----------------------------------------------------------------

_ASKS_SETTING = re.compile(
    r"\b(?:which|what)(?: [\w-]+){0,2}? (?:flags?|settings?|config(?:uration)? "
    r"(?:keys?|options?|settings?|parameters?)|parameters?|env(?:ironment)? "
    r"var(?:iable)?s?|annotations?)\b",
    re.I,
)
# a setting's name: a flag (``-x.y``, ``--x``), a dotted or snake_case key, an env var
_SETTING = re.compile(
    r"(?<![\w-])--?[a-zA-Z][\w.-]*|\b[a-zA-Z]\w*[._][\w.]*\w|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b"
)


def shows_setting(markdown: str) -> bool:
    """Does the text show a setting's name as code (a flag, a key, an env var)?"""
    return any(_SETTING.search(m.group(0)) for m in _CODE.finditer(markdown))


# -- a default --------------------------------------------------------------------------

# "whats the default max_series", "what's the default for -x.y": the value that applies
# when nothing is set, which a runbook gives only where it says so
_ASKS_DEFAULT = re.compile(
    r"\bwhat(?:'s| is|s| are)? (?:the |its |their )?defaults?\b(?! (?:\w+ )?(?:is|are)\b)"
    r"|\bdefault (?:value|setting)s? (?:of|for)\b",
    re.I,
)
_DEFAULT = re.compile(r"\bdefault(?:s|ed)?\b", re.I)


def shows_default(markdown: str) -> bool:
    """Does the text say what the default is: the word, and a value or a name as code
    ("the default storage class is `gp3-csi`")?"""
    return bool(_DEFAULT.search(markdown)) and (
        shows_number(markdown) or bool(_CODE.search(markdown))
    )


# the setting whose default is asked for, written as one ("max_series", "-x.deletion-delay",
# "`retention`"): right after "default", or after "default for"/"of"
_DEFAULT_OF = re.compile(
    r"\bdefaults?(?: (?:value|setting)s?)?(?: (?:for|of))?(?: the)? "
    r"(?:`(?P<code>[^`\n]+)`|-{0,2}(?P<name>[A-Za-z][\w-]*(?:[._][\w-]+)+))",
    re.I,
)
_SPAN = re.compile(r"`[^`\n]+`")
# a sentence whose stops end it only before a space: ``-x.deletion-delay`` stays whole
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=\S))+")
_CODE_BLOCKS = re.compile(r"^ {0,3}(```|~~~)[^\n]*\n.*?^ {0,3}\1", re.M | re.S)


def default_of(question: str) -> str | None:
    """The setting whose default the question asks, when it names one as a setting is
    written: the last part of its name, letters and digits only (``deletiondelay`` of
    ``-compactor.deletion-delay``), so the flag and the config key both match."""
    m = _DEFAULT_OF.search(question)
    if m is None:
        return None
    name = (m["code"] or m["name"]).strip().lstrip("-")
    return normalize_name(re.split(r"[.:/]", name)[-1]) or None


def _pieces(markdown: str) -> list[str]:
    """The text's lines of code and its sentences of prose: where a value is said."""
    pieces = [
        line for m in _CODE.finditer(markdown) for line in m.group(0).strip("`~").splitlines()
    ]
    return pieces + _SENTENCE.findall(_CODE_BLOCKS.sub(" ", markdown))


def shows_default_of(key: str, markdown: str) -> bool:
    """Does the text say the default where it names the setting ``key``: in one sentence
    or one line of code, the word "default", the setting, and a value or other code?"""
    for piece in _pieces(markdown):
        if key not in normalize_name(piece) or not _DEFAULT.search(piece):
            continue
        # the value beside the name: a number, or code other than the name itself
        rest = _SPAN.sub(lambda c: " " if key in normalize_name(c[0]) else c[0], piece)
        if shows_number(rest) or _SPAN.search(rest):
            return True
    return False


# -- the value of a named quantity ------------------------------------------------------

# "what's the p99 latency target", "the kafka session timeout", "what queue size": the
# value of one quantity, which the runbook says where it names that quantity; another
# figure of the same runbook (its retention, the lag that pages) answers another question
_VALUE_OF = re.compile(
    r"\bwhat(?:'s| is|s| are)? (?:the |our |its |their )?(?:[\w-]+ ){0,2}?(?P<x>[a-z][\w-]*) "
    # a quantity's target is its value too: "the latency target", "the uptime objective"
    r"(?:" + _VALUE_NOUN + r"|(?:target|objective)s?)\b",
    re.I,
)
# words before the value's noun that say which value, not of what
_NOT_QUANTITIES = frozenset(
    "the a an actual exact current default configured real max maximum min minimum alert "
    "alerting same new old right usual typical recommended expected allowed hard soft".split()
)


# "how many replicas does checkout-db run", "how many partitions can the topic take": the
# count of one thing, which the runbook gives where it names that thing
_COUNT_OF = re.compile(
    r"\bhow many (?:[\w-]+ ){0,2}?(?P<x>[a-z][\w-]*) "
    r"(?:does|do|did|can|could|should|will|would|must|may)\b",
    re.I,
)


def value_of(question: str) -> str | None:
    """The quantity whose value the question asks ("latency" of "what's the p99 latency
    target", "replica" of "how many replicas does it run"), as a stem, when it names one."""
    m = _VALUE_OF.search(question) or _COUNT_OF.search(question)
    if m is None or m["x"].lower() in _NOT_QUANTITIES:
        return None
    stems = tokenize(m["x"])
    return stems[-1] if stems else None


def counted(question: str) -> bool:
    """Does the question ask how many of a thing there are ("how many replicas does it
    run"), not the value of a quantity?"""
    return _VALUE_OF.search(question) is None and _COUNT_OF.search(question) is not None


@lru_cache(maxsize=256)
def _count_pattern(thing: str) -> re.Pattern[str]:
    # "3 replica shards", "six data nodes", "replicas: 3", "number_of_replicas": 1; not a
    # shard's id ("shard": 0) nor another figure of the same line ("retries [5]"); "at
    # least one primary shard" says there is some, not how many
    figure = r"(?<![\w.])(?<!least )(?<!most )(?<!than )(?:\d[\d,.]*|" + _NUMBER_WORD + r")"
    noun = r"(?<![a-z])" + re.escape(thing) + r"\w*"
    return re.compile(
        figure + r"\s+(?:[\w-]+\s+){0,3}?" + noun + r"|" + noun + r"[\"']?\s*[:=]\s*[1-9]",
        re.I,
    )


def shows_count_of(thing: str, markdown: str) -> bool:
    """Does the text give a count of ``thing`` (a stem): a figure just before it, or
    set beside it?"""
    pattern = _count_pattern(thing)
    return any(pattern.search(_NOT_VALUES.sub(" ", piece)) for piece in _pieces(markdown))


def shows_value_of(quantity: str, shows: Callable[[str], bool], markdown: str) -> bool:
    """Does one sentence or line of code name ``quantity`` and show a value (``shows``)?"""
    return any(quantity in tokenize(piece) and shows(piece) for piece in _pieces(markdown))


# -- a name ---------------------------------------------------------------------------

# "what's the actual bucket name", "the exact name of the secret": the name itself, which
# a runbook shows as code beside that word, not a placeholder for it (``":bucket:"``,
# ``<bucket>``); asked without "actual" or "exact", the way to find it answers too
_ASKS_NAME = re.compile(
    r"\b(?:actual|exact|real) (?P<noun>[a-z][\w-]*) names?\b"
    r"|\b(?:actual|exact|real) name of (?:the |our |its |their )?(?P<noun2>[a-z][\w-]*)",
    re.I,
)
_TOKEN = re.compile(r"[\w./:@{}<>$-]{3,}")
_PLACEHOLDER = re.compile(r"^[:<{$\[]|[>}:\]]$|your|example|change_?me|replace|xxx|\.\.\.", re.I)


def asked_name(question: str) -> str | None:
    """The thing whose name the question asks for ("bucket"), if it asks for one."""
    m = _ASKS_NAME.search(question)
    noun = (m["noun"] or m["noun2"]) if m else None
    return noun.lower() if noun else None


def _concrete(text: str, noun: str) -> bool:
    """Does ``text`` hold a token, other than the noun, that is no placeholder?"""
    return any(not _PLACEHOLDER.search(t) and noun not in t.lower() for t in _TOKEN.findall(text))


def shows_name(noun: str, markdown: str) -> bool:
    """Does the text show a name for ``noun`` as code: on a line of code that says the
    noun, or as code in a sentence that does?"""
    for m in _CODE.finditer(markdown):
        for line in m.group(0).strip("`~").splitlines():
            if noun in line.lower() and _concrete(line, noun):
                return True
    for sentence in _SENTENCE.findall(_CODE_BLOCKS.sub(" ", markdown)):
        if noun in sentence.lower():
            spans = re.findall(r"`([^`\n]+)`", sentence)
            if any(_concrete(s, noun) for s in spans):
                return True
    return False


# -- the query --------------------------------------------------------------------------

_ASKS_QUERY = re.compile(
    r"\b(?:promql|(?:prometheus|alert(?:ing)?|rule'?s?) (?:query|queries|expression|expr)"
    r"|(?:query|expression|expr) behind|(?:which|what) metrics?)\b",
    re.I,
)
# PromQL as runbooks show it: a selector, a function call, a range, a metric's name
_PROMQL = re.compile(
    r"\b[a-zA-Z_:][\w:]*\{[^}\n]*\}"
    r"|\b(?:rate|irate|increase|sum|avg|max|min|count|histogram_quantile|absent|delta|"
    r"deriv|topk|bottomk|predict_linear)\s*(?:(?:by|without)\s*\([^)]*\)\s*)?\("
    r"|\[\d+[smhdw]\]"
    r"|\b[a-z][a-z0-9]*(?:_[a-z0-9]+){2,}\b"
)


def shows_query(markdown: str) -> bool:
    """Does the text show a query (PromQL, or a metric's name) as code?"""
    return any(_PROMQL.search(m.group(0)) for m in _CODE.finditer(markdown))


COMMAND = Detail("command", "no-command", shows_command, fact=False)
DURATION = Detail("duration", "no-value", shows_duration)
NUMBER = Detail("number", "no-value", shows_number)
SIZE = Detail("size", "no-value", shows_size)
SETTING = Detail("setting", "no-value", shows_setting)
QUERY = Detail("query", "no-value", shows_query)
DEFAULT = Detail("default", "no-value", shows_default)


@lru_cache(maxsize=1024)  # asked of one question by ranking, choosing and checking parts
def asked_detail(question: str, not_tools: frozenset[str] = frozenset()) -> Detail | None:
    """The detail the question asks to see, if any: the command first, then a setting,
    a query, a value. ``not_tools``: words before "command" that name no tool here (a
    "migration command", "the first commands"): any command shows what was asked."""
    if asks_for_command(question):
        tool = asked_tool(question)
        if tool is None or tool in not_tools:
            return COMMAND
        return Detail("command", "no-command", partial(shows_tool_command, tool), False, tool)
    if _ASKS_DEFAULT.search(question):
        key = default_of(question)
        if key is None:
            return DEFAULT
        return Detail("default", "no-value", partial(shows_default_of, key))
    if _ASKS_SETTING.search(question):
        return SETTING
    noun = asked_name(question)
    if noun is not None:
        return Detail("name", "no-value", partial(shows_name, noun))
    if _ASKS_QUERY.search(question):
        return QUERY
    quantity = value_of(question)
    if (quantity is None and not _ASKS_VALUE.search(question)) or _ASKS_METHOD.search(question):
        return None
    value = (
        DURATION if _ASKS_TIME.search(question) else SIZE if _ASKS_SIZE.search(question) else NUMBER
    )
    if quantity is None:
        return value
    if value is NUMBER and counted(question):
        return replace(value, shows=partial(shows_count_of, quantity))
    return replace(value, shows=partial(shows_value_of, quantity, value.shows))
