"""Shared fixtures: the real embedding model, a private redis-server, sample corpora."""

from __future__ import annotations

import logging
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import pytest
import redis

from bot.logs import configure_logging
from bot.runtime import Runtime
from core.models import Document, DocumentMetadata
from retrieval.search.embeddings import FastEmbedder

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_RUNBOOKS = ROOT / "runbooks"


def markdown_document(text: str, title: str, path: str) -> Document:
    """An in-memory Markdown document with default metadata, as a source would give it."""
    return Document(
        source_id=path.rsplit(".", 1)[0],
        path=path,
        title=title,
        text=text,
        content_hash="h",
        metadata=DocumentMetadata(),
    )


@contextmanager
def runtime_over(
    files: dict[str, str], tmp_path: Path, embedder: FastEmbedder, **settings: Any
) -> Iterator[Runtime]:
    """A Runtime over a fresh index of ``files`` (path -> text) in a folder of their own;
    ``settings`` override the defaults."""
    from bot.settings import load_settings

    root = tmp_path / "runbooks"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    rt = Runtime(load_settings(data_dir=tmp_path / "data", **settings), embedder=embedder)
    try:
        rt.ingest(root)
        yield rt
    finally:
        rt.close()


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def embedder(model_dir: Path) -> FastEmbedder:
    emb = FastEmbedder(cache_dir=model_dir)
    emb.warm()
    return emb


@contextmanager
def logging_to(stream: TextIO, level: str = "INFO", fmt: str = "json") -> Iterator[None]:
    """Logging configured as the bot does, into ``stream``; the root logger is restored
    afterwards."""
    root = logging.getLogger()
    handlers, old_level = list(root.handlers), root.level
    configure_logging(level, fmt, stream=stream)
    try:
        yield
    finally:
        for h in list(root.handlers):
            root.removeHandler(h)
        for h in handlers:
            root.addHandler(h)
        root.setLevel(old_level)
        logging.captureWarnings(False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """A private redis-server process on a free loopback port."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is not installed (make redis installs it)")
        self.proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url)
        for _ in range(100):
            try:
                if client.ping():
                    return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None


@pytest.fixture()
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    yield server
    server.stop()


def ingest_once(folder: Path, data: Path, embedder: FastEmbedder) -> Path:
    """``folder`` ingested into the data directory ``data`` (embedded Qdrant), for a
    session fixture to copy from: ``data``."""
    from bot.runtime import Runtime
    from bot.settings import load_settings

    rt = Runtime(load_settings(data_dir=data), embedder=embedder)
    try:
        report = rt.ingestor.run(folder, rt.ingest_options())
        assert report.chunks_embedded > 0, report
    finally:
        rt.close()
    return data


def private_copy(template: Path, target: Path) -> Path:
    """A private, writable copy of an index ingested once per session, at ``target``."""
    shutil.copytree(template, target)
    return target


@pytest.fixture(scope="session")
def sample_index_template(tmp_path_factory: pytest.TempPathFactory, embedder: FastEmbedder) -> Path:
    """The sample runbooks ingested once per test session (embedded Qdrant)."""
    return ingest_once(SAMPLE_RUNBOOKS, tmp_path_factory.mktemp("sample-index"), embedder)


@pytest.fixture()
def sample_data_dir(sample_index_template: Path, tmp_path: Path) -> Path:
    """A private, writable copy of the ingested sample index."""
    return private_copy(sample_index_template, tmp_path / "data")


@pytest.fixture()
def sample_runtime(sample_data_dir: Path, embedder: FastEmbedder) -> Iterator[Runtime]:
    """A Runtime over a private copy of the sample index (embedded Qdrant, real model)."""
    from bot.settings import load_settings

    rt = Runtime(load_settings(data_dir=sample_data_dir), embedder=embedder)
    yield rt
    rt.close()
