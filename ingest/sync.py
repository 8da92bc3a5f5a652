"""Incremental sync of one source into the index.

Only documents whose content hash changed are chunked and embedded; documents the
source no longer has are removed, and only the source's own: syncing one source
never touches another's documents. Documents that cannot be parsed are reported and
skipped while their previously indexed version stays live (a link out of the
runbook root is removed instead). A source that reads no document at all while
the index holds some of it is taken for an accident (a missing checkout, an unmounted
volume) and fails with nothing removed, unless ``allow_empty`` says the removal is
meant. What a publish killed halfway was publishing (``unfinished``) is synced again
as changed. Nothing becomes visible to searches until the
final publish, which switches to a new generation in one step.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from core.doc_ids import source_of
from core.models import Chunk, Document
from ingest.chunker import DEFAULT_MAX_TOKENS, anchor_links, chunk_document, estimate_tokens
from ingest.documents import UNREADABLE_GROUP, DocumentConfig, ParsedDocument
from ingest.errors import EmptySourceError
from ingest.known_vectors import KnownVectors
from ingest.sources.base import DEFAULT_SOURCE, Skipped, Source, owned
from ingest.sources.markdown_dir import MarkdownDirSource
from retrieval.search import Embedder

if TYPE_CHECKING:
    from retrieval.search import QdrantVectorIndex, SnapshotCache

# Chunks embedded and written per step: the vectors of one window are upserted and dropped
# before the next, so an ingest holds at most this many (the model's own batches are cut
# smaller by token budget, see retrieval.search.embed_batches).
EMBED_WINDOW = 512


@dataclass(frozen=True)
class IngestOptions:
    # a folder given as a path (not a Source) is read with these
    excludes: tuple[str, ...] = ()
    max_tokens: int = DEFAULT_MAX_TOKENS
    max_file_bytes: int = 1_000_000
    documents: DocumentConfig = field(default_factory=DocumentConfig)
    progress: bool = False
    known_groups: frozenset[str] | None = None  # report access groups outside this set
    generation_floor: int = 0  # publish above this (the highest generation seen before)
    # a source that reads no document removes all of its indexed ones only with this;
    # without it, that is taken for an accident (see EmptySourceError)
    allow_empty: bool = False
    # what an interrupted publish was publishing (id -> hash, "" for a removal): synced
    # again as changed, so a new generation publishes them in full
    unfinished: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class IngestReport:
    source: str = DEFAULT_SOURCE
    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    unchanged: int = 0
    skipped: tuple[Skipped, ...] = ()
    warnings: tuple[str, ...] = ()
    problems: tuple[Skipped, ...] = ()  # indexed, but wrong: ``--check`` fails on them
    chunks_embedded: int = 0
    chunks_reused: int = 0  # took the vector the index held for the same text
    chunks_total: int = 0
    seconds: float = 0.0
    generation: int = 0
    stamp: str = ""  # of the published generation (see retrieval.search.store_marker)
    live: Mapping[str, str] = field(default_factory=dict)  # source_id -> hash after the run

    def summary(self) -> str:
        return (
            f"added {len(self.added)}, changed {len(self.changed)}, removed {len(self.removed)}, "
            f"unchanged {self.unchanged}, skipped {len(self.skipped)}, "
            f"chunks embedded {self.chunks_embedded}"
            + (f", reused {self.chunks_reused}" if self.chunks_reused else "")
            + f" (of {self.chunks_total}), "
            f"generation {self.generation}, {self.seconds:.2f}s"
        )

    def to_json(self) -> dict[str, object]:
        """What ``ingest --json`` prints: the counts, and skipped files and problems as
        ``path:line: reason``."""
        return {
            "source": self.source,
            "added": list(self.added),
            "changed": list(self.changed),
            "removed": list(self.removed),
            "unchanged": self.unchanged,
            "skipped": [str(s) for s in self.skipped],
            "problems": [str(p) for p in self.problems],
            "chunks_embedded": self.chunks_embedded,
            "chunks_reused": self.chunks_reused,
            "chunks_total": self.chunks_total,
            "generation": self.generation,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class ParsedCorpus:
    documents: tuple[ParsedDocument, ...]
    skipped: tuple[Skipped, ...]
    warnings: tuple[str, ...]  # including ``problem_warnings``
    problems: tuple[Skipped, ...] = ()
    problem_warnings: tuple[str, ...] = ()  # the problems, summed up for a normal ingest
    unchanged: tuple[str, ...] = ()  # ids the source did not read again: known unchanged
    retired: tuple[str, ...] = ()  # what the source withdrew on purpose (SourceRead.retired)

    @property
    def empty(self) -> bool:
        """Did the source yield nothing at all (no document, none kept, none skipped)?"""
        return not (self.documents or self.unchanged or self.skipped or self.retired)

    def versions(self, known: Mapping[str, str]) -> dict[str, str]:
        """Every document of the source: id -> content hash."""
        found = {p.document.source_id: p.document.content_hash for p in self.documents}
        return {**{sid: known[sid] for sid in self.unchanged if sid in known}, **found}


def as_source(source: Source | Path, options: IngestOptions) -> Source:
    """``source``, or a folder given as a path as the default source."""
    if isinstance(source, Path):
        return MarkdownDirSource(
            DEFAULT_SOURCE, source, options.documents, options.excludes, options.max_file_bytes
        )
    return source


def _problem_warnings(docs: Sequence[ParsedDocument]) -> list[str]:
    """Restricted documents one by one; other unknown keys once per key."""
    out: list[str] = []
    unknown: dict[str, list[str]] = {}
    for parsed in docs:
        for p in parsed.problems:
            if p.restricted:
                where = parsed.document.path + (f":{p.line}" if p.line is not None else "")
                out.append(f"{where}: {p.reason}")
            elif p.key is not None:
                unknown.setdefault(p.key, []).append(parsed.document.path)
    for key, paths in sorted(unknown.items()):
        n = len(paths)
        out.append(
            f"unknown front matter key {key!r} in {n} file{'s' if n != 1 else ''} "
            f"(e.g. {paths[0]}); ignored"
        )
    return out


def parse_corpus(
    source: Source | Path, options: IngestOptions, known: Mapping[str, str] | None = None
) -> ParsedCorpus:
    """Read ``source``; ``known``: its documents' content hashes in the index."""
    read = as_source(source, options).read(known or {})
    docs: list[ParsedDocument] = []
    skipped = list(read.skipped)
    warnings: list[str] = list(read.warnings)
    seen: dict[str, str] = {}
    for parsed in read.documents:
        doc = parsed.document
        sid = doc.source_id
        if sid in seen:
            skipped.append(Skipped(doc.path, f"same source id as {seen[sid]}"))
            continue
        seen[sid] = doc.path
        if options.known_groups is not None:
            access = set(doc.metadata.access) - {UNREADABLE_GROUP}
            unknown = sorted(access - options.known_groups)
            if unknown:
                warnings.append(f"{doc.path}: unknown access group(s) {', '.join(unknown)}")
        docs.append(parsed)
    problems = tuple(
        Skipped(p.document.path, problem.reason, problem.line)
        for p in docs
        for problem in p.problems
    )
    summed = _problem_warnings(docs)
    return ParsedCorpus(
        tuple(docs),
        tuple(skipped),
        (*warnings, *summed),
        problems,
        tuple(summed),
        read.unchanged,
        read.retired,
    )


def _legacy_warnings(source: str, live: Mapping[str, str]) -> list[str]:
    """Ids without a source name belong to the default source, whose sync replaces
    them; until then, say they are there."""
    legacy = sum(1 for sid in live if source_of(sid) is None)
    if not legacy:
        return []
    if source == DEFAULT_SOURCE:
        return [
            f"{legacy} documents indexed before sources had names are replaced by "
            f"'{DEFAULT_SOURCE}:...' ids (embedded once more)"
        ]
    return [
        f"{legacy} documents indexed before sources had names stay until the source "
        f"'{DEFAULT_SOURCE}' is synced (or the index is rebuilt with --reindex)"
    ]


class Ingestor:
    def __init__(
        self,
        embedder: Embedder,
        index: QdrantVectorIndex,
        snapshots: SnapshotCache | None = None,
        count_tokens: Callable[[str], int] | None = None,
        before_publish: Callable[[Mapping[str, str]], None] | None = None,
    ) -> None:
        self._embedder = embedder
        self._index = index
        self._snapshots = snapshots
        self._count = count_tokens or estimate_tokens
        # told what a publish is about to touch (id -> hash, "" for a removal), before it
        self._before_publish = before_publish

    def _publish(
        self,
        current: Mapping[str, str],
        removed: Sequence[str],
        hollow: Mapping[str, str] | None = None,
        floor: int = 0,
    ) -> int:
        touched = {**current, **dict.fromkeys(removed, "")}
        if touched and self._before_publish is not None:
            self._before_publish(touched)
        return self._index.publish(current, removed, hollow=hollow, floor=floor)

    def _chunks(self, parsed: ParsedDocument, options: IngestOptions) -> list[Chunk]:
        chunks = chunk_document(parsed.document, parsed.body_start, options.max_tokens, self._count)
        return anchor_links(chunks, parsed.anchors)

    def run(
        self, source: Source | Path, options: IngestOptions, check_only: bool = False
    ) -> IngestReport:
        """Sync ``source`` (a folder given as a path: the default source) into the index;
        only its own documents are added, changed or removed."""
        started = time.perf_counter()
        source = as_source(source, options)
        if check_only:
            corpus = parse_corpus(source, options)
            summed = set(corpus.problem_warnings)
            return IngestReport(
                source=source.name,
                added=tuple(p.document.source_id for p in corpus.documents),
                skipped=corpus.skipped,
                warnings=tuple(w for w in corpus.warnings if w not in summed),
                problems=corpus.problems,
                seconds=time.perf_counter() - started,
            )
        self._index.ensure(self._embedder.model_name, self._embedder.dimension)
        self._index.recover()
        live = self._index.manifest()
        mine = owned(source.name, live)
        unfinished = owned(source.name, options.unfinished)
        trusted = {sid: h for sid, h in mine.items() if sid not in unfinished}
        corpus = parse_corpus(source, options, trusted)
        if mine and corpus.empty and not options.allow_empty:
            raise EmptySourceError(
                f"source {source.name!r} has no documents, but the index holds "
                f"{len(mine)} documents of it: nothing was removed (--allow-empty removes them)"
            )
        skipped_ids = {s.source_id for s in corpus.skipped if s.keep_previous and s.source_id}
        present = {p.document.source_id for p in corpus.documents} | set(corpus.unchanged)

        added: list[str] = []
        changed: list[str] = []
        pending: list[Chunk] = []
        new_hashes: dict[str, str] = {}
        hollow: dict[str, str] = {}
        unchanged = len(set(corpus.unchanged) & set(mine))
        warnings = list(corpus.warnings) + _legacy_warnings(source.name, live)
        for parsed in corpus.documents:
            doc: Document = parsed.document
            old = live.get(doc.source_id)
            if old == doc.content_hash and doc.source_id not in unfinished:
                unchanged += 1
                continue
            (changed if old is not None else added).append(doc.source_id)
            new_hashes[doc.source_id] = doc.content_hash
            chunks = self._chunks(parsed, options)
            if not chunks:
                hollow[doc.source_id] = doc.content_hash
                warnings.append(f"{doc.path}: no text to index (only front matter or headings)")
            pending.extend(chunks)
        # a removal an interrupted publish made is published again (a no-op on the store)
        gone = {sid for sid, h in unfinished.items() if not h and sid not in present}
        removed = sorted((set(mine) - present - skipped_ids) | gone)

        known = self._known_vectors() if pending else KnownVectors()
        staged = len(pending)
        reused = self._embed_and_stage(pending, options.progress, known)
        del known, pending[:]  # staged: free them before the new snapshot is built
        generation = self._publish(
            new_hashes, removed, hollow=hollow, floor=options.generation_floor
        )
        if self._snapshots is not None and (new_hashes or removed):
            self._snapshots.get(generation)  # build the new search snapshot now, not on a query
        return IngestReport(
            source=source.name,
            added=tuple(added),
            changed=tuple(changed),
            removed=tuple(removed),
            unchanged=unchanged,
            skipped=corpus.skipped,
            warnings=tuple(warnings),
            problems=corpus.problems,
            chunks_embedded=staged - reused,
            chunks_reused=reused,
            chunks_total=self._index.count_live(),
            seconds=time.perf_counter() - started,
            generation=generation,
            stamp=self._index.marker().stamp,
            live={**{k: v for k, v in live.items() if k not in removed}, **new_hashes},
        )

    def remove_sources(
        self, keep: Sequence[str], floor: int = 0, unfinished: Mapping[str, str] | None = None
    ) -> IngestReport:
        """Remove every document of a source not in ``keep`` (one no longer configured);
        ``unfinished``: what an interrupted publish was publishing."""
        started = time.perf_counter()
        self._index.ensure(self._embedder.model_name, self._embedder.dimension)
        self._index.recover()
        live = self._index.manifest()
        mine = {sid for name in keep for sid in owned(name, live)}
        kept = {sid for name in keep for sid in owned(name, dict(unfinished or {}))}
        gone = {sid for sid, h in (unfinished or {}).items() if not h and sid not in kept}
        removed = sorted((set(live) - mine) | gone)
        generation = self._publish({}, removed, floor=floor)
        if self._snapshots is not None and removed:
            self._snapshots.get(generation)
        return IngestReport(
            source="(unconfigured sources)",
            removed=tuple(removed),
            chunks_total=self._index.count_live(),
            seconds=time.perf_counter() - started,
            generation=generation,
            stamp=self._index.marker().stamp,
            live={k: v for k, v in live.items() if k not in set(removed)},
        )

    def _known_vectors(self) -> KnownVectors:
        """The live index's vectors by chunk text: from the search snapshot held or
        persisted for the live generation (none without one: nothing is read from the
        store for this)."""
        generation = self._index.generation()
        if self._snapshots is None or not self._snapshots.mirrors_dense or generation <= 0:
            return KnownVectors()
        snap = self._snapshots.peek(generation)
        if snap is None:
            return KnownVectors()
        dense = snap.dense
        if dense is None or dense.ndim != 2 or dense.shape[1] != self._embedder.dimension:
            return KnownVectors()
        return KnownVectors([c.text for c in snap.chunks], dense)

    def _embed_and_stage(self, chunks: Sequence[Chunk], progress: bool, known: KnownVectors) -> int:
        """Embed and stage ``chunks`` window by window; how many took a known vector."""
        bar = None
        if progress and len(chunks) > EMBED_WINDOW:
            from tqdm import tqdm

            bar = tqdm(total=len(chunks), unit="chunk", file=sys.stderr, desc="embedding")
        reused = 0
        for i in range(0, len(chunks), EMBED_WINDOW):
            window = chunks[i : i + EMBED_WINDOW]
            found = [known.get(c.text) for c in window]
            todo = [c.text for c, v in zip(window, found, strict=True) if v is None]
            fresh = iter(self._embedder.embed_documents(todo) if todo else ())
            vectors = np.stack([v if v is not None else next(fresh) for v in found])
            reused += len(window) - len(todo)
            self._index.stage(window, vectors)
            del vectors, found
            if bar is not None:
                bar.update(len(window))
        if bar is not None:
            bar.close()
        return reused
