"""What an answer names, and the part of it a channel's whole audience may see.

A rendered answer names documents in more places than its citations: related
incidents, any other list of documents it carries (closest runbooks), and warnings,
which name a document and sometimes the document that superseded it.
:func:`mentioned_sources` lists every one of them; :func:`for_audience` keeps only
what the whole audience may read, judged by the live index (a document that is no
longer indexed counts as unreadable, and so does a superseded-by name that matches no
indexed document).

The bot uses the one function both when it answers in a channel and when "Post to
channel" is clicked, so nothing a channel may not read is ever posted there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from core.doc_ids import reference_id
from core.models import Answer, AnswerWarning, Citation, DocumentMetadata
from retrieval.search import Snapshot

#: The live index's metadata of a document by source id; None when it is not indexed.
DocumentLookup = Callable[[str], DocumentMetadata | None]

_LIST_ITEM = {"related": "related incident"}
ACCESS_DENIED_TEXT = "A runbook you cannot read may cover this; ask its owners for access."


def snapshot_lookup(snapshot: Snapshot) -> DocumentLookup:
    """A :data:`DocumentLookup` over one generation of the live index."""
    by_source = snapshot.chunks_by_source

    def lookup(source_id: str) -> DocumentMetadata | None:
        chunks = by_source.get(source_id)
        return chunks[0].metadata if chunks else None

    return lookup


def reference_source_id(reference: str, within: str | None = None) -> str:
    """The source id a superseded-by reference of the document ``within`` names
    (``adr/0012-redis.md`` -> ``<its source>:adr/0012-redis``); free text stays as it is
    and matches no document."""
    return reference_id(reference, within)


def _document_lists(answer: Answer) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """Every field of ``answer`` that lists documents (items with a ``source_id``),
    except the warnings: citations, related incidents, closest runbooks and any list
    an answer may carry later."""
    for name in type(answer).model_fields:
        value = getattr(answer, name)
        if name == "warnings" or not isinstance(value, tuple) or not value:
            continue
        if all(hasattr(item, "source_id") for item in value):
            yield name, value


def _warning_references(
    warning: AnswerWarning, answer: Answer, lookup: DocumentLookup | None
) -> tuple[str, ...]:
    """The superseded-by references a warning's message may name: its document's, as the
    answer's citations and as the live index have it."""
    sid = warning.source_id
    if sid is None:
        return ()
    refs = {
        item.superseded_by
        for _name, items in _document_lists(answer)
        for item in items
        if isinstance(item, Citation) and item.source_id == sid and item.superseded_by
    }
    meta = lookup(sid) if lookup is not None else None
    if meta is not None and meta.superseded_by:
        refs.add(meta.superseded_by)
    return tuple(sorted(refs))


def mentioned_sources(answer: Answer, lookup: DocumentLookup | None = None) -> frozenset[str]:
    """Every source id the rendered ``answer`` names: its documents (citations, related
    incidents, ...), each warning's document, and the documents they are superseded by
    (``lookup`` supplies that for documents the answer only names in a warning)."""
    ids: set[str] = set()
    for _name, items in _document_lists(answer):
        for item in items:
            ids.add(item.source_id)
            if isinstance(item, Citation) and item.superseded_by:
                ids.add(reference_source_id(item.superseded_by, item.source_id))
    for warning in answer.warnings:
        if warning.source_id is not None:
            ids.add(warning.source_id)
        ids.update(
            reference_source_id(r, warning.source_id)
            for r in _warning_references(warning, answer, lookup)
        )
    return frozenset(ids)


@dataclass(frozen=True)
class Disclosure:
    """``answer`` as the audience may see it; what was left out, by source id."""

    answer: Answer
    withheld: frozenset[str]
    #: citations the audience may not read (the answer itself cannot be shown then)
    blocked: tuple[Citation, ...] = ()
    #: what else was left out, one entry each ("related incident", "warning",
    #: "superseded-by name"), for a short notice to the asker
    left_out: tuple[str, ...] = ()


def for_audience(answer: Answer, groups: frozenset[str], lookup: DocumentLookup) -> Disclosure:
    """The part of ``answer`` that everyone holding one of ``groups`` may read.

    Unreadable related documents and warnings about unreadable documents are dropped;
    a superseded-by name of an unreadable document is cut from the warning (the warning
    is dropped when the name cannot be cut cleanly) and from the citation. When a cited
    document is unreadable the answer cannot be shown: it becomes an access-denied
    abstention and :attr:`Disclosure.blocked` lists the citations.
    """

    def readable(source_id: str) -> bool:
        meta = lookup(source_id)
        return meta is not None and bool(groups.intersection(meta.access))

    withheld = {sid for sid in mentioned_sources(answer, lookup) if not readable(sid)}
    if not withheld:
        return Disclosure(answer, frozenset())

    left_out: list[str] = []
    update: dict[str, Any] = {}
    for name, items in _document_lists(answer):
        kept = []
        for item in items:
            if item.source_id in withheld:
                if name != "citations":
                    left_out.append(_LIST_ITEM.get(name, name.removesuffix("s").replace("_", " ")))
                continue
            successor = item.superseded_by if isinstance(item, Citation) else None
            if successor and reference_source_id(successor, item.source_id) in withheld:
                item = item.model_copy(update={"superseded_by": None})
                left_out.append("superseded-by name")
            kept.append(item)
        update[name] = tuple(kept)

    warnings: list[AnswerWarning] = []
    for warning in answer.warnings:
        if warning.source_id is not None and warning.source_id in withheld:
            left_out.append("warning")
            continue
        message = warning.message
        hidden = [
            ref
            for ref in _warning_references(warning, answer, lookup)
            if reference_source_id(ref, warning.source_id) in withheld
        ]
        for ref in hidden:
            message = message.replace(f" by {ref}", "")
        if any(ref in message for ref in hidden):
            left_out.append("warning")
            continue
        if hidden:
            left_out.append("superseded-by name")
        warnings.append(warning.model_copy(update={"message": message}))
    update["warnings"] = tuple(warnings)

    blocked = tuple(c for c in answer.citations if c.source_id in withheld)
    shown = answer.model_copy(update=update)
    if blocked and answer.state == "answer":
        shown = Answer(
            state="abstain",
            text=ACCESS_DENIED_TEXT,
            question=answer.question,
            reason="access-denied",
            warnings=tuple(w for w in shown.warnings if w.source_id is None),
            search_link=answer.search_link,
            generation=answer.generation,
            mode=answer.mode,
        )
    return Disclosure(shown, frozenset(withheld), blocked, tuple(left_out))
