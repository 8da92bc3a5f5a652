"""The composition root: builds the collaborators from Settings, once, lazily."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import secrets
import time
from collections.abc import Mapping
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import redis

from bot.answer_format import answer_format
from bot.oncall import HumanSteps
from bot.service import AnswerService, Observer
from bot.settings import Settings
from ingest.documents import DocumentConfig
from ingest.errors import SourceConfigError
from ingest.manifest import (
    Manifest,
    local_store_locked,
    mark_pending,
    read_manifest,
    unchanged,
    write_manifest,
)
from ingest.sources.base import DEFAULT_SOURCE, Source, SourceDefaults, owned
from ingest.sources.markdown_dir import MarkdownDirSource
from ingest.sources.registry import build_source, load_sources_file
from ingest.sync import IngestOptions, Ingestor, IngestReport, as_source, parse_corpus
from retrieval.answer import AnswerConfig, Answerer, ExtractiveAnswerer, RunbookSections
from retrieval.permissions import (
    AccessMap,
    PermissionResolver,
    UsergroupDirectory,
    load_access_map,
)
from retrieval.reading import Glossary, Lexicon, TeamWords, load_glossary, load_team_words
from retrieval.search import (
    FastEmbedder,
    HybridSearcher,
    HydeQuery,
    SearchConfig,
    SnapshotCache,
    StoreHandle,
    read_store_marker,
)
from state.answer_cache import RedisAnswerCache
from state.client import redis_client
from state.dedup import Deduplicator
from state.private_file import read_or_create_private
from state.querylog import FileQueryLog, RedisQueryLog
from state.usergroups import UsergroupCache

if TYPE_CHECKING:
    import openai

    from retrieval.search import QdrantVectorIndex

log = logging.getLogger("runbook_bot.runtime")


class Runtime:
    def __init__(
        self,
        settings: Settings,
        embedder: FastEmbedder | None = None,
        answer_config: AnswerConfig | None = None,
    ) -> None:
        """``embedder`` and ``answer_config``, when given, stand in for the ones the
        settings would build (a loaded model shared, a confidence model of one's own)."""
        self.settings = settings
        if embedder is not None:
            self.__dict__["embedder"] = embedder
        if answer_config is not None:
            self.__dict__["answer_config"] = answer_config

    @cached_property
    def embedder(self) -> FastEmbedder:
        s = self.settings
        return FastEmbedder(
            s.embedding_model,
            model_path=s.embedding_model_path,
            cache_dir=s.model_cache_dir,
            threads=s.embedding_threads,
        )

    @cached_property
    def vector_index(self) -> QdrantVectorIndex:
        """The vector store itself, opened now (see :attr:`store`)."""
        return self.store.store()

    def _open_vector_index(self) -> QdrantVectorIndex:
        s = self.settings
        key = s.qdrant_api_key.get_secret_value() if s.qdrant_api_key else None
        from retrieval.search import QdrantVectorIndex, open_client

        client = open_client(s.qdrant_url, s.qdrant_local_path, key)
        marker_dir = s.qdrant_local_path if s.qdrant_url is None else None
        return QdrantVectorIndex(
            client, s.collection, s.qdrant_shards, s.qdrant_replicas, marker_dir=marker_dir
        )

    @cached_property
    def store(self) -> StoreHandle:
        """The store as queries use it: in embedded mode a persisted snapshot of the
        published generation answers without opening it."""
        s = self.settings
        marker_dir = s.qdrant_local_path if s.qdrant_url is None else None
        return StoreHandle(self._open_vector_index, marker_dir, s.collection)

    def hold_store(self) -> None:
        """For a long-running process: hold the embedded store from now on, without
        opening it (answers come from the persisted snapshot; its client takes seconds
        to import). :class:`IndexLockedError` when another process holds it."""
        self.store.reserve()

    @cached_property
    def snapshots(self) -> SnapshotCache:
        s = self.settings
        return SnapshotCache(self.store, s.snapshot_dir, mirror_dense=s.qdrant_url is None)

    @cached_property
    def searcher(self) -> HybridSearcher:
        s = self.settings
        return HybridSearcher(
            self.embedder,
            self.store,
            self.snapshots,
            SearchConfig(rrf_k=s.rrf_k, candidates=s.search_candidates),
        )

    @cached_property
    def answer_config(self) -> AnswerConfig:
        s = self.settings
        model = AnswerConfig().model
        if s.answer_min_confidence is not None:
            model = replace(
                model,
                answer_at=s.answer_min_confidence,
                suggest_at=min(model.suggest_at, s.answer_min_confidence),
            )
        if s.sure_min_confidence is not None:
            model = replace(model, sure_at=s.sure_min_confidence)
        return AnswerConfig(
            stale_after_days=s.stale_after_days,
            model=model,
            search_link_template=s.search_link,
        )

    @cached_property
    def llm_client(self) -> openai.OpenAI | None:
        s = self.settings
        if not s.llm_enabled:
            return None
        from retrieval.answer import build_openai_client

        key = s.openai_api_key.get_secret_value() if s.openai_api_key else None
        return build_openai_client(key, s.openai_base_url, s.llm_timeout_seconds)

    @cached_property
    def glossary(self) -> Glossary:
        return load_glossary(self.settings.glossary_path)

    @cached_property
    def lexicon(self) -> Lexicon:
        """Ordinary words: a question's word outside it and the runbooks names something."""
        return Lexicon(self.embedder.vocabulary, team=self.team_words)  # read on first use

    @cached_property
    def team_words(self) -> TeamWords:
        return load_team_words(self.settings.words_path)

    @cached_property
    def extractive(self) -> ExtractiveAnswerer:
        s = self.settings
        hyde = None
        if s.hyde and self.llm_client is not None:
            hyde = HydeQuery(self.llm_client, s.llm_model, self.embedder, s.llm_timeout_seconds)
        return ExtractiveAnswerer(
            self.searcher,
            self.answer_config,
            rewrite=self.glossary if self.glossary else None,
            dense_query=hyde,
            vocabulary=self.lexicon,
        )

    @cached_property
    def ingestor(self) -> Ingestor:
        embedded = self.settings.qdrant_url is None
        publishing = self._publishing if embedded else None
        return Ingestor(self.embedder, self.vector_index, self.snapshots, before_publish=publishing)

    def _publishing(self, touched: Mapping[str, str]) -> None:
        """Before a publish: mark what it touches pending in the manifest, so a run killed
        inside it leaves them to be synced again (see ingest.manifest)."""
        s = self.settings
        mark_pending(s.data_dir, touched, self.embedder.model_name, s.collection)

    def ingest_options(
        self, excludes: tuple[str, ...] = (), progress: bool = False, allow_empty: bool = False
    ) -> IngestOptions:
        s = self.settings
        known = self.access_map.known_groups if self.access_map.groups else None
        return IngestOptions(
            excludes=excludes,
            max_tokens=s.chunk_max_tokens,
            max_file_bytes=s.max_file_bytes,
            documents=DocumentConfig(
                s.default_access_group,
                s.source_url_template,
                frozenset(k.lower() for k in s.front_matter_keys),
            ),
            progress=progress,
            known_groups=frozenset(known) if known is not None else None,
            allow_empty=allow_empty,
        )

    def source_defaults(self, base_dir: Path = Path()) -> SourceDefaults:
        options = self.ingest_options()
        return SourceDefaults(
            options.documents,
            options.max_file_bytes,
            base_dir,
            self.settings.data_dir,
            self.access_map,
        )

    def folder_source(
        self, root: Path, name: str = DEFAULT_SOURCE, excludes: tuple[str, ...] = ()
    ) -> MarkdownDirSource:
        """A folder of Markdown runbooks named on the command line."""
        d = self.source_defaults()
        return MarkdownDirSource(name, root, d.documents, excludes, d.max_file_bytes)

    def configured_sources(self, names: tuple[str, ...] = ()) -> tuple[Source, ...]:
        """The sources of the sources file (``RUNBOOK_SOURCES_PATH``), or the ``names``
        among them; () when no file is configured."""
        s = self.settings
        if s.sources_path is None:
            return ()
        configs = load_sources_file(s.sources_path)
        unknown = sorted(set(names) - {c.name for c in configs})
        if unknown:
            raise SourceConfigError(
                f"{s.sources_path}: no source named {', '.join(map(repr, unknown))}"
            )
        defaults = self.source_defaults(s.sources_path.resolve().parent)
        return tuple(
            build_source(c, defaults, s.source_settings)
            for c in configs
            if not names or c.name in names
        )

    def _generation_floor(self, options: IngestOptions) -> IngestOptions:
        seen = read_manifest(self.settings.data_dir)
        if seen is None:  # never reuse a generation, even of a store restored from backup
            return options
        floor = max(options.generation_floor, seen.floor)
        return dataclasses.replace(options, generation_floor=floor, unfinished=seen.pending)

    def drop_index(self) -> int:
        """Drop the index for a rebuild (``ingest --reindex``); the generation the rebuild
        publishes above: the highest the store or the data dir has seen. The data dir
        keeps it (an empty manifest), so generations grow even when the rebuild stops
        early or publishes nothing."""
        s = self.settings
        seen = read_manifest(s.data_dir)
        floor = max(self.vector_index.generation(), seen.floor if seen is not None else 0)
        self.vector_index.drop()
        model, collection = self.embedder.model_name, s.collection
        write_manifest(s.data_dir, Manifest(0, model, collection, 0, {}, highest=floor))
        return floor

    def _after_publish(self, before: int, report: IngestReport, floor: int = 0) -> None:
        s = self.settings
        if report.generation != before:
            removed = self.cache.cleanup(report.generation)
            log.info(
                "index generation %d; %d older cached answers removed", report.generation, removed
            )
        if s.qdrant_url is None:
            seen = read_manifest(s.data_dir)
            # a completed publish wrote everything an interrupted one left unfinished
            pending = seen.pending if seen is not None and report.generation == before else {}
            write_manifest(
                s.data_dir,
                Manifest(
                    report.generation,
                    self.embedder.model_name,
                    s.collection,
                    report.chunks_total,
                    dict(report.live),
                    report.stamp,
                    highest=max(floor, report.generation),
                    pending=pending,
                ),
            )

    def remove_other_sources(self, keep: tuple[str, ...]) -> IngestReport:
        """Remove the documents of every source not in ``keep`` (dropped from the
        sources file)."""
        options = self.ingest_options()
        if self.settings.qdrant_url is None:
            options = self._generation_floor(options)
        before = self.vector_index.generation()
        report = self.ingestor.remove_sources(keep, options.generation_floor, options.unfinished)
        self._after_publish(before, report, options.generation_floor)
        return report

    def ingest(
        self,
        source: Source | Path,
        options: IngestOptions | None = None,
        check_only: bool = False,
    ) -> IngestReport:
        """Sync ``source`` (a folder given as a path: the default source) into the index;
        a new generation also drops older cached answers.

        On the embedded default an unchanged source is recognised from the data dir's
        manifest without opening the vector store.
        """
        options = options or self.ingest_options()
        source = as_source(source, options)
        s = self.settings
        embedded = s.qdrant_url is None
        if embedded and not check_only:
            quick = self._unchanged_report(source, options)
            if quick is not None:
                return quick
            options = self._generation_floor(options)
        before = None if check_only else self.vector_index.generation()
        report = self.ingestor.run(source, options, check_only=check_only)
        if before is not None:
            self._after_publish(before, report, options.generation_floor)
        return report

    def _unchanged_report(self, source: Source, options: IngestOptions) -> IngestReport | None:
        s = self.settings
        started = time.perf_counter()
        manifest = read_manifest(s.data_dir)
        if manifest is None or not s.qdrant_local_path.is_dir():
            return None
        if local_store_locked(s.qdrant_local_path):
            return None  # let the store report who holds it
        known = owned(source.name, manifest.documents)
        corpus = parse_corpus(source, options, known)
        if corpus.skipped:
            return None
        docs = corpus.versions(known)
        store = read_store_marker(s.qdrant_local_path, s.collection)
        if not unchanged(manifest, docs, s.embedding_model, s.collection, store, source.name):
            return None
        return IngestReport(
            source=source.name,
            unchanged=len(docs),
            warnings=corpus.warnings,
            problems=corpus.problems,
            chunks_total=manifest.chunks,
            seconds=time.perf_counter() - started,
            generation=manifest.generation,
            stamp=manifest.stamp,
            live=manifest.documents,
        )

    @cached_property
    def redis(self) -> redis.Redis:
        return redis_client(self.settings.redis_url)

    @cached_property
    def cache(self) -> RedisAnswerCache:
        s = self.settings
        return RedisAnswerCache(self.redis, s.cache_ttl_seconds, s.redis_namespace)

    @cached_property
    def dedup(self) -> Deduplicator:
        s = self.settings
        return Deduplicator(self.redis, s.dedup_ttl_seconds, s.redis_namespace)

    @cached_property
    def query_log(self) -> RedisQueryLog | FileQueryLog:
        s = self.settings
        if s.query_log_path is not None:
            file_log = FileQueryLog(s.query_log_path, s.query_log_retention_days)
            file_log.prune()
            return file_log
        return RedisQueryLog(self.redis, s.query_log_retention_days, s.redis_namespace)

    @cached_property
    def access_map(self) -> AccessMap:
        return load_access_map(self.settings.access_map_path)

    @cached_property
    def usergroups(self) -> UsergroupCache:
        s = self.settings
        return UsergroupCache(self.redis, s.usergroup_cache_ttl_seconds, s.redis_namespace)

    def resolver(self, directory: UsergroupDirectory | None = None) -> PermissionResolver:
        return PermissionResolver(
            self.access_map, directory, self.usergroups, self.settings.default_access_group
        )

    @cached_property
    def user_salt(self) -> str:
        s = self.settings
        if s.user_hash_salt is not None:
            return s.user_hash_salt.get_secret_value()
        return read_or_create_private(s.data_dir / ".user-salt", secrets.token_hex(16)).strip()

    @cached_property
    def web_session_secret(self) -> str:
        """The key that signs web session cookies: the setting, else a random one kept in
        the data dir (``.web-session-secret``, 0600); replicas need the setting."""
        s = self.settings
        if s.web_session_secret is not None:
            return s.web_session_secret.get_secret_value()
        path = s.data_dir / ".web-session-secret"
        return read_or_create_private(path, secrets.token_urlsafe(32)).strip()

    @cached_property
    def answerer(self) -> Answerer:
        """The LLM answerer when an endpoint is configured, else extractive."""
        s = self.settings
        if self.llm_client is None:
            return self.extractive
        from retrieval.answer import LLMAnswerer

        return LLMAnswerer(self.extractive, self.llm_client, s.llm_model, s.llm_timeout_seconds)

    @cached_property
    def answer_mode(self) -> str:
        """Part of every cache key: answers of different modes, settings or answering code
        never mix (`bot.answer_format`)."""
        s = self.settings
        mode = f"llm:{s.llm_model}" if s.llm_enabled else "extractive"
        mode += (":hyde" if s.hyde else "") + (":glossary" if self.glossary else "")
        glossary = sorted(self.glossary.entries.items())
        words = self.team_words
        team = [sorted(words.ordinary), sorted(words.products)]
        return answer_format(mode, [repr(self.answer_config), repr(glossary), repr(team)])

    def service(
        self,
        directory: UsergroupDirectory | None = None,
        observer: Observer | None = None,
        sections: RunbookSections | None = None,
        steps: HumanSteps | None = None,
    ) -> AnswerService:
        """The answer service; ``sections``: the runbook sections its callers also show
        (one outline cache for both), else its own."""
        return AnswerService(
            self.answerer,
            self.searcher,
            self.resolver(directory),
            self.cache,
            self.query_log,
            self.user_salt,
            mode=self.answer_mode,
            observer=observer,
            sections=sections,
            steps=steps,
        )

    def close(self) -> None:
        llm = self.__dict__.get("llm_client")
        if llm is not None:
            llm.close()  # its pooled connections to the model server
        if "store" in self.__dict__:
            if self.store.opened:
                with contextlib.suppress(Exception):  # closing is best effort
                    self.store.store().client.close()
            self.store.release()
