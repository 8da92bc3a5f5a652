"""What documents are called and which of those names a query mentions."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Container, Iterable, Mapping
from pathlib import PurePosixPath

from core.heading_text import without_title_label
from core.models import Chunk, normalize_name
from retrieval.reading.tokenize import ACRONYM_PLURAL, tokenize

_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*")
MIN_NAME_LEN = 6
# a name more documents use than this (and than MAX_NAME_DOCS) is a product, not a runbook's
MAX_NAME_SHARE = 0.1
MAX_NAME_DOCS = 3


def query_names(
    query: str, doc_freq: Mapping[str, int] | None = None, n_docs: int = 0
) -> frozenset[str]:
    """Identifier-like words of a query (alert names, service names), normalized. Given
    the index's document frequencies, a name that many documents use is left out: a
    product written in camel case (``PgBouncer``, in 15 of 63 GitLab runbooks) names
    none of them, where an alert name (``KubePodCrashLooping``) names its runbook."""
    limit = max(MAX_NAME_DOCS, MAX_NAME_SHARE * n_docs)
    out = set()
    for w in _IDENTIFIER.findall(query):
        compound = any(c in w for c in "-_.") or any(c.isupper() for c in w[1:])
        if len(w) >= MIN_NAME_LEN and compound:
            name = normalize_name(w)
            if doc_freq is None or doc_freq.get(name, 0) <= limit:
                out.add(name)
    return frozenset(out)


def naming_terms(query: str, names: Iterable[str]) -> frozenset[str]:
    """Tokens that the query's words naming a document give and no other word of the
    query does. A word names the document when it is one of its ``names`` (normalized:
    alert name, title, file name) whole: ``pgbouncer_single_core``, or
    ``component_saturation_slo_out_of_bounds:pgbouncer_single_core`` as one word; a
    service name the title merely contains (``checkout-api``) is not one. These words
    tell which document, not which of its parts answers."""
    wanted = frozenset(n for n in names if n)

    def naming(word: str) -> bool:
        return normalize_name(word) in wanted

    named: set[str] = set()
    rest: set[str] = set()
    for word in query.split():
        if naming(word):
            named.update(tokenize(word))
            continue
        for ident in _IDENTIFIER.findall(word):
            if naming(ident):
                named.update(tokenize(ident))
        rest.update(
            tokenize(_IDENTIFIER.sub(lambda m: " " if naming(m.group(0)) else m.group(0), word))
        )
    return frozenset(named - rest)


# the words of a message that only says an alert fires ("firing", "went off", "critical"),
# and where ("in prod"): the alert itself, asking nothing of its runbook
ALERT_WORDS = frozenset(
    tokenize(
        "firing alert critical warning paging triggered went off now again "
        "prod production staging stage stg dev test canary cluster"
    )
)


def only_names(query: str, names: Container[str], naming: Container[str] = frozenset()) -> bool:
    """Is every word of the query a name it gives (``CheckoutApiDbConnectionErrors``),
    words of the document's name (``naming``, as :func:`naming_terms` gives them), words
    said of an alert (``ALERT_WORDS``: "firing", "in prod") or one instance of a thing
    (``node-3``, ``10.42.7.19``)? Such a query is a bare alert: it asks nothing else."""
    for word in query.split():
        if any(ch.isdigit() for ch in word):
            continue
        for ident in _IDENTIFIER.findall(word):
            if normalize_name(ident) in names:
                continue
            if not all(t in ALERT_WORDS or t in naming for t in tokenize(ident)):
                return False
    return True


def document_names(chunk: Chunk) -> frozenset[str]:
    """What a document is called: title, top heading, file name (normalized)."""
    names = {normalize_name(chunk.title), normalize_name(PurePosixPath(chunk.path).stem)}
    if chunk.heading_path:
        names.add(normalize_name(without_title_label(chunk.heading_path[0])))
    return frozenset(n for n in names if n)


def written_as_name(word: str) -> bool:
    """Written as a name: joined (``checkout-api``) or in camel case (``etcdNoLeader``),
    not a word in capitals (``CLUSTER``) nor an acronym in the plural (``PDBs``)."""
    joined = any(c in word for c in "-_.")
    camel = any(c.isupper() for c in word[1:]) and not word.isupper()
    return joined or (camel and not ACRONYM_PLURAL.fullmatch(word))


def written_names(chunks: Iterable[Chunk]) -> dict[str, str]:
    """Identifier names as the runbooks write them (``KubePodCrashLooping``: an alert in
    front matter, a title, a file name, or a name in the text), by normalized name; the
    most used spelling when there are several."""
    counts: Counter[str] = Counter()
    for c in chunks:
        named = [*c.metadata.alerts, c.title, PurePosixPath(c.path).stem]
        counts.update(n.strip() for n in named)
        counts.update(_IDENTIFIER.findall(c.text))
    out: dict[str, str] = {}
    for name, _n in counts.most_common():
        if len(name) >= MIN_NAME_LEN and _IDENTIFIER.fullmatch(name) and written_as_name(name):
            out.setdefault(normalize_name(name), name)
    return out


_PLAIN_WORD = re.compile(r"(?<![\w.\-/])[A-Za-z][A-Za-z0-9]*(?![\w.\-/])")


def as_written(
    query: str,
    doc_freq: Mapping[str, int],
    names: Callable[[], Mapping[str, str]],
    documents: Container[str] = frozenset(),
) -> str:
    """``query`` with a name of the runbooks typed in other case (``kubepodcrashlooping``
    for ``KubePodCrashLooping``) written as the runbooks write it, so that it is read as
    that name: kept whole, split into its words, and matched as a document's name.

    A word is rewritten when it is a document's name (``documents``, normalized) typed
    in lower case, or when the index does not read it as typed (some of its words match
    nothing) but the runbooks use it whole, and then only to a spelling all of whose
    words the index has. ``github`` stays as typed where the runbooks write ``GitHub``,
    and ``cluster`` where they write ``CLUSTER``. ``names`` (written spellings by
    normalized name) is asked only for a word that may be rewritten."""

    def known(text: str) -> bool:
        tokens = tokenize(text)
        return bool(tokens) and all(doc_freq.get(t, 0) for t in tokens)

    def write(m: re.Match[str]) -> str:
        word = m.group(0)
        if len(word) < MIN_NAME_LEN:
            return word
        named = word.islower() and normalize_name(word) in documents
        if not named and (known(word) or not doc_freq.get(word.lower(), 0)):
            return word
        written = names().get(normalize_name(word))
        return written if written is not None and (named or known(written)) else word

    return _PLAIN_WORD.sub(write, query)


# an alert name in camel case, split into its words ("HTTPServer" -> "HTTP", "Server")
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_CAMEL_NAME = re.compile(r"(?<![\w.\-/])[A-Z][a-z]+(?:[A-Z][A-Za-z]*)+\d*(?![\w.\-/])")
_TITLE_WORD = re.compile(r"[a-z0-9]+")
# words a title may have that an alert name leaves out ("… Has a High Error Rate")
_FILLER = frozenset("a an the has have is are was were been of for in on to its their".split())
MIN_NAME_PARTS = 3


def spells_title(parts: list[str], title: list[str]) -> bool:
    """Do the name's parts begin the title's words one by one, in order, the title's
    other words being only filler ("Config Policy Controller High Error Rate" of
    "Configuration Policy Controller Has a High Error Rate")?"""
    if not parts:
        return all(w in _FILLER for w in title)
    if not title:
        return False
    head, word = parts[0], title[0]
    if word.startswith(head) and spells_title(parts[1:], title[1:]):
        return True
    return word in _FILLER and spells_title(parts, title[1:])


def as_titled(
    query: str, known: Callable[[str], bool], titles: Callable[[], Iterable[str]]
) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``query`` with an alert name in camel case that no runbook writes but one
    runbook's title spells in words (``ConfigPolicyControllerHighErrorRate`` for
    "Configuration Policy Controller Has a High Error Rate") read as that title, and
    each such reading. ``known``: is the name (normalized) a word or a document name of
    the index; ``titles`` is asked only for a name that is not."""
    read_as: dict[str, str] = {}

    def write(m: re.Match[str]) -> str:
        word = m.group(0)
        parts = [p.lower() for p in _CAMEL_PART.findall(word)]
        if len(parts) < MIN_NAME_PARTS or known(normalize_name(word)):
            return word
        spelled = {t for t in titles() if spells_title(parts, _TITLE_WORD.findall(t.lower()))}
        if len(spelled) != 1:
            return word
        read_as[word] = title = spelled.pop()
        return title

    return _CAMEL_NAME.sub(write, query), tuple(read_as.items())
