"""Benchmark: ingest throughput, unchanged re-ingest, search latency at 1k/10k/50k chunks.

    .venv/bin/python scripts/bench.py [--sizes 1000,10000,50000] [--ingest-docs 40]

Ingest uses the real embedding model on a synthetic runbook corpus. The search
sizes use synthetic chunks with random unit vectors written straight into the
embedded Qdrant (embedding 50k chunks on a CPU would take most of an hour);
queries are embedded with the real model. Prints a table; numbers go in README.
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
from ingest.chunker import chunk_document  # noqa: E402
from retrieval.types import Document, DocumentMetadata, SearchFilter  # noqa: E402

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


def fill_synthetic(rt: Runtime, n_chunks: int) -> None:
    rng = random.Random(n_chunks)
    index = rt.vector_index
    dim = rt.embedder.dimension
    index.ensure(rt.embedder.model_name, dim)
    chunks = []
    i = 0
    while len(chunks) < n_chunks:
        text = synthetic_doc(i, rng)
        access = ("sre",) if i % 10 == 0 else ("everyone",)
        doc = Document(
            source_id=f"syn/{i}",
            path=f"syn/{i}.md",
            title=f"Synthetic {i}",
            text=text,
            content_hash=f"h{i}",
            metadata=DocumentMetadata(service=rng.choice(SERVICES), access=access),
        )
        chunks.extend(chunk_document(doc, 0))
        i += 1
    chunks = chunks[:n_chunks]
    vecs = np.random.default_rng(n_chunks).standard_normal((len(chunks), dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    for start in range(0, len(chunks), 2048):
        index.stage(chunks[start : start + 2048], vecs[start : start + 2048])
    index.publish({c.source_id: c.content_hash for c in chunks}, [])


def bench_search(rt: Runtime, n_chunks: int) -> list[tuple[str, str]]:
    t0 = time.perf_counter()
    fill_synthetic(rt, n_chunks)
    t_fill = time.perf_counter() - t0
    t0 = time.perf_counter()
    snap = rt.searcher.snapshot()
    t_snap = time.perf_counter() - t0
    flt = SearchFilter(groups=("everyone",))
    vectors = {q: rt.embedder.embed_query(q) for q in QUERIES}
    kw, dense, hybrid, qdrant_local = [], [], [], []
    for _ in range(12):
        for q in QUERIES:
            t = time.perf_counter()
            snap.keyword.search(q, 50, flt)
            kw.append(time.perf_counter() - t)
            t = time.perf_counter()
            snap.dense_search(vectors[q], 50, flt)
            dense.append(time.perf_counter() - t)
            t = time.perf_counter()
            rt.searcher.search(q, 10, flt, dense_vector=vectors[q])
            hybrid.append(time.perf_counter() - t)
    if n_chunks <= 10_000:
        for q in QUERIES[:4]:
            t = time.perf_counter()
            rt.vector_index.search(vectors[q], 50, flt)
            qdrant_local.append(time.perf_counter() - t)
    rows = [
        (f"{n_chunks} chunks: load + snapshot build s", f"{t_fill:.1f} + {t_snap:.1f}"),
        (f"{n_chunks} chunks: keyword p50/p95 ms", f"{pct(kw, 50):.2f} / {pct(kw, 95):.2f}"),
        (
            f"{n_chunks} chunks: dense (mirror) p50/p95 ms",
            f"{pct(dense, 50):.2f} / {pct(dense, 95):.2f}",
        ),
        (
            f"{n_chunks} chunks: hybrid search p50/p95 ms",
            f"{pct(hybrid, 50):.2f} / {pct(hybrid, 95):.2f}",
        ),
    ]
    if qdrant_local:
        rows.append(
            (
                f"{n_chunks} chunks: Qdrant local filtered query p50 ms",
                f"{statistics.median(qdrant_local) * 1000:.1f}",
            )
        )
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", default="1000,10000,50000")
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
            rt = Runtime(load_settings(data_dir=work / f"s{size}"), embedder=base.embedder)
            rows += bench_search(rt, size)
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
