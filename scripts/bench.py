"""Benchmark: ingest throughput, unchanged re-ingest, search latency at 1k/10k/50k chunks.

    .venv/bin/python scripts/bench.py [--sizes 1000,10000,50000] [--ingest-docs 40]

Ingest uses the real embedding model on a synthetic runbook corpus. Search
latency is measured on the serving path (the per-generation snapshot: BM25 plus
a vector matrix with permission masks) over synthetic chunks with random unit
vectors (embedding 50k chunks on a CPU would take most of an hour); queries are
embedded with the real model. Qdrant's own write and filtered-query costs are
measured separately at the store sizes. Prints a table; numbers go in README.
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.runtime import Runtime  # noqa: E402
from bot.settings import load_settings  # noqa: E402
from core.models import Chunk, Document, DocumentMetadata, SearchFilter  # noqa: E402
from ingest.chunker import chunk_document  # noqa: E402
from retrieval.answerer import ExtractiveAnswerer  # noqa: E402
from retrieval.embeddings import FastEmbedder  # noqa: E402
from retrieval.keyword_index import KeywordIndex  # noqa: E402
from retrieval.search import HybridSearcher  # noqa: E402
from retrieval.snapshot import Snapshot  # noqa: E402

WORDS = (
    "pod node disk memory cpu latency error timeout restart rollback deploy queue consumer "
    "lag certificate expiry database connection pool replica leader etcd kubelet ingress "
    "dns cache redis postgres kafka alert page escalate owner dashboard metric threshold "
    "scale drain cordon evict volume snapshot backup restore quota limit throttle retry"
).split()
SERVICES = [f"svc-{i}" for i in range(40)]
QUERIES = [
    "database connection refused on checkout",
    "KubePodCrashLooping in payments namespace",
    "disk almost full on node what to delete",
    "certificate expires soon how to renew",
    "queue consumer lag keeps growing",
    "etcd leader changes and slow fsync",
    "node_filesystem_avail_bytes below threshold",
    "rollback a bad deploy of svc-7",
]


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def synthetic_doc(i: int, rng: random.Random) -> str:
    svc = rng.choice(SERVICES)
    alert = "".join(w.capitalize() for w in rng.sample(WORDS, 3))
    parts = [
        f"---\ntitle: {alert} on {svc}\nservice: {svc}\nowner: '@team-{i % 17}'\n"
        f"updated: 2026-0{1 + i % 9}-1{i % 9}\n---\n# {alert}\n"
    ]
    for name in ("Meaning", "Impact", "Diagnosis", "Mitigation", "Escalation"):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 120)))
        parts.append(f"## {name}\n\n{body}.\n\n```console\nkubectl -n {svc} get pods\n```\n")
    return "\n".join(parts)


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p)) * 1000


def bench_ingest(rt: Runtime, docs: int, workdir: Path) -> list[tuple[str, str]]:
    rng = random.Random(7)
    corpus = workdir / "corpus"
    corpus.mkdir()
    for i in range(docs):
        (corpus / f"rb-{i:04d}.md").write_text(synthetic_doc(i, rng), encoding="utf-8")
    t0 = time.perf_counter()
    first = rt.ingestor.run(corpus, rt.ingest_options())
    t_first = time.perf_counter() - t0
    t0 = time.perf_counter()
    again = rt.ingestor.run(corpus, rt.ingest_options())
    t_again = time.perf_counter() - t0
    return [
        ("ingest: documents / chunks", f"{docs} / {first.chunks_embedded}"),
        ("ingest: seconds (real model)", f"{t_first:.1f}"),
        ("ingest: chunks per second", f"{first.chunks_embedded / t_first:.1f}"),
        ("re-ingest unchanged: seconds", f"{t_again:.2f} (embedded {again.chunks_embedded})"),
    ]


def synthetic_chunks(n_chunks: int) -> list[Chunk]:
    rng = random.Random(n_chunks)
    chunks: list[Chunk] = []
    i = 0
    while len(chunks) < n_chunks:
        access = ("sre",) if i % 10 == 0 else ("everyone",)
        doc = Document(
            source_id=f"syn/{i}",
            path=f"syn/{i}.md",
            title=f"Synthetic {i}",
            text=synthetic_doc(i, rng),
            content_hash=f"h{i}",
            metadata=DocumentMetadata(service=rng.choice(SERVICES), access=access),
        )
        chunks.extend(chunk_document(doc, 0))
        i += 1
    return chunks[:n_chunks]


def random_vectors(n: int, dim: int) -> np.ndarray:
    vecs = np.random.default_rng(n).standard_normal((n, dim)).astype(np.float32)
    return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


class _FixedSnapshots:
    """Serves one prebuilt snapshot (what SnapshotCache holds after a generation change)."""

    mirrors_dense = True

    def __init__(self, snap: Snapshot) -> None:
        self._snap = snap

    def get(self, generation: int) -> Snapshot:
        return self._snap


class _OneGeneration:
    def generation(self) -> int:
        return 1


def bench_store(rt: Runtime, n_chunks: int) -> list[tuple[str, str]]:
    """Writing to and querying Qdrant itself (embedded local mode)."""
    chunks = synthetic_chunks(n_chunks)
    vecs = random_vectors(len(chunks), rt.embedder.dimension)
    index = rt.vector_index
    index.ensure(rt.embedder.model_name, rt.embedder.dimension)
    t0 = time.perf_counter()
    for start in range(0, len(chunks), 2048):
        index.stage(chunks[start : start + 2048], vecs[start : start + 2048])
    index.publish({c.source_id: c.content_hash for c in chunks}, [])
    t_write = time.perf_counter() - t0
    t0 = time.perf_counter()
    rt.searcher.snapshot()
    t_snap = time.perf_counter() - t0
    flt = SearchFilter(groups=("everyone",))
    times = []
    for q in QUERIES[:4]:
        v = rt.embedder.embed_query(q)
        t = time.perf_counter()
        index.search(v, 50, flt)
        times.append(time.perf_counter() - t)
    return [
        (f"{n_chunks} chunks: Qdrant local write + publish s", f"{t_write:.1f}"),
        (f"{n_chunks} chunks: snapshot build from Qdrant s", f"{t_snap:.1f}"),
        (
            f"{n_chunks} chunks: Qdrant local filtered query p50 ms",
            f"{statistics.median(times) * 1000:.1f}",
        ),
    ]


def bench_search(embedder: FastEmbedder, n_chunks: int) -> list[tuple[str, str]]:
    """Query latency of the serving path at a given corpus size."""
    chunks = synthetic_chunks(n_chunks)
    t0 = time.perf_counter()
    snap = Snapshot(1, KeywordIndex(chunks), random_vectors(len(chunks), embedder.dimension))
    t_build = time.perf_counter() - t0
    searcher = HybridSearcher(embedder, _OneGeneration(), _FixedSnapshots(snap))  # type: ignore[arg-type]
    flt = SearchFilter(groups=("everyone",))
    vectors = {q: embedder.embed_query(q) for q in QUERIES}
    kw, dense, hybrid = [], [], []
    for _ in range(25):
        for q in QUERIES:
            t = time.perf_counter()
            snap.keyword.search(q, 50, flt)
            kw.append(time.perf_counter() - t)
            t = time.perf_counter()
            snap.dense_search(vectors[q], 50, flt)
            dense.append(time.perf_counter() - t)
            t = time.perf_counter()
            searcher.search(q, 10, flt, dense_vector=vectors[q])
            hybrid.append(time.perf_counter() - t)
    answerer = ExtractiveAnswerer(searcher, vocabulary=embedder.vocabulary())
    for q in QUERIES:  # warm: term statistics, document outlines
        answerer.answer_from(answerer.retrieve(q, flt, vector=vectors[q]), flt)
    answers = []
    for _ in range(5):
        for q in QUERIES:
            t = time.perf_counter()
            answerer.answer_from(answerer.retrieve(q, flt, vector=vectors[q]), flt)
            answers.append(time.perf_counter() - t)
    return [
        (f"{n_chunks} chunks: snapshot build s (BM25 + matrix)", f"{t_build:.1f}"),
        (
            f"{n_chunks} chunks: extractive answer p50/p95 ms",
            f"{pct(answers, 50):.1f} / {pct(answers, 95):.1f}",
        ),
        (f"{n_chunks} chunks: keyword p50/p95 ms", f"{pct(kw, 50):.2f} / {pct(kw, 95):.2f}"),
        (f"{n_chunks} chunks: dense p50/p95 ms", f"{pct(dense, 50):.2f} / {pct(dense, 95):.2f}"),
        (
            f"{n_chunks} chunks: hybrid (fused, grouped) p50/p95 ms",
            f"{pct(hybrid, 50):.2f} / {pct(hybrid, 95):.2f}",
        ),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--store-sizes", default="1000,10000", help="Qdrant write/query sizes")
    ap.add_argument("--ingest-docs", type=int, default=40)
    args = ap.parse_args()
    started = time.perf_counter()
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="rbb-bench-") as tmp:
        work = Path(tmp)
        base = Runtime(load_settings(data_dir=work / "ingest"))
        t = time.perf_counter()
        base.embedder.warm()
        q = [base.embedder.embed_query(x) for x in QUERIES]
        rows.append(("model load + first query s", f"{time.perf_counter() - t:.2f}"))
        t = time.perf_counter()
        for x in QUERIES * 4:
            base.embedder.embed_query(x)
        rows.append(("query embedding ms (mean)", f"{(time.perf_counter() - t) / 32 * 1000:.1f}"))
        del q
        rows += bench_ingest(base, args.ingest_docs, work)
        base.close()
        for size in (int(s) for s in args.sizes.split(",")):
            rows += bench_search(base.embedder, size)
        for size in (int(s) for s in args.store_sizes.split(",") if s):
            rt = Runtime(load_settings(data_dir=work / f"s{size}"), embedder=base.embedder)
            rows += bench_store(rt, size)
            rt.close()
            shutil.rmtree(work / f"s{size}", ignore_errors=True)
    rows.append(("peak RSS MB", f"{rss_mb():.0f}"))
    rows.append(("total bench seconds", f"{time.perf_counter() - started:.0f}"))
    width = max(len(k) for k, _ in rows)
    print(f"{'measure':<{width}}  value")
    print(f"{'-' * width}  -----")
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
