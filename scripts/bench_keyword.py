"""Benchmark the BM25 keyword index on a synthetic runbook-like corpus.

    .venv/bin/python scripts/bench_keyword.py [--chunks 50000] [--queries 200]

Reports tokenize and build time, search latency p50/p95 with and without an
access filter, and save/load time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import string
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.models import Chunk, DocumentMetadata, SearchFilter
from retrieval.reading.tokenize import _expand, _stem, _words, tokenize
from retrieval.search.keyword_index import KeywordIndex

SERVICES = ["checkout", "payments", "search", "auth", "storage", "etcd", "ingress", "billing"]
_COMMON_TEXT = """
the a to of and is in on for it with if then not no when
restart check pod node service alert error disk memory cpu latency
deploy rollback kubectl logs run
"""
COMMON = _COMMON_TEXT.split()


def make_vocabulary(rng: random.Random, n_words: int) -> tuple[list[str], list[float]]:
    words = list(COMMON)
    while len(words) < n_words:
        words.append("".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 11))))
    idents: list[str] = []
    for i in range(n_words // 5):
        a, b, c = rng.sample(words[len(COMMON) :], 3)
        kind = i % 6
        if kind == 0:
            idents.append(f"Kube{a.title()}{b.title()}")  # alert name
        elif kind == 1:
            idents.append(f"{a}-{b}")  # service name
        elif kind == 2:
            idents.append(f"{a}_{b}_{c}_total")  # metric
        elif kind == 3:
            idents.append(f"--{a}")  # flag
        elif kind == 4:
            idents.append(f"ERR-{rng.randint(1000, 9999)}")  # error code
        else:
            idents.append(f"/etc/{a}/{b}.conf")  # path
    vocab = words + idents
    weights = [1.0 / (rank + 1) ** 0.9 for rank in range(len(vocab))]  # Zipf-ish
    return vocab, weights


def make_corpus(
    rng: random.Random, n_chunks: int, vocab: list[str], weights: list[float]
) -> list[Chunk]:
    chunks = []
    for i in range(n_chunks):
        service = rng.choice(SERVICES)
        title = f"{service} runbook {i // 8}"
        body = " ".join(rng.choices(vocab, weights=weights, k=rng.randint(100, 200)))
        text = f"{title}\n{body}"
        access = ("everyone",) if rng.random() < 0.8 else ("sre",)
        chunks.append(
            Chunk(
                chunk_id=f"c{i}",
                source_id=f"doc{i // 8}",
                path=f"runbooks/{service}/{i // 8}.md",
                title=title,
                heading_path=(title,),
                text=text,
                start=0,
                end=len(text),
                content_hash=f"h{i // 8}",
                line=1,
                metadata=DocumentMetadata(
                    service=service,
                    access=access,
                    doc_type="incident" if rng.random() < 0.1 else "runbook",
                ),
            )
        )
    return chunks


def make_queries(rng: random.Random, n: int, vocab: list[str]) -> list[str]:
    idents = [w for w in vocab if not w.isalpha()]
    queries = []
    for _ in range(n):
        words = rng.choices(vocab, k=rng.randint(2, 12))
        if rng.random() < 0.5:
            words.append(rng.choice(idents))
        queries.append("how do I fix " + " ".join(words))
    return queries


def percentiles(samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p50 = statistics.median(ms)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"p50 {p50:6.2f} ms   p95 {p95:6.2f} ms   max {ms[-1]:6.2f} ms"


def time_queries(
    index: KeywordIndex, queries: list[str], k: int, flt: SearchFilter | None
) -> tuple[list[float], float]:
    samples = []
    hits = 0
    for q in queries:
        start = time.perf_counter()
        results = index.search(q, k, flt)
        samples.append(time.perf_counter() - start)
        hits += len(results)
    return samples, hits / len(queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=50_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--words", type=int, default=5_000)
    parser.add_argument("--k", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    vocab, weights = make_vocabulary(rng, args.words)
    t = time.perf_counter()
    chunks = make_corpus(rng, args.chunks, vocab, weights)
    queries = make_queries(rng, args.queries, vocab)
    words = sum(len(c.text.split()) for c in chunks)
    print(
        f"corpus: {len(chunks)} chunks, {words / len(chunks):.0f} words/chunk, "
        f"{len(vocab)} distinct surface words (generated in {time.perf_counter() - t:.1f} s)"
    )

    t, cpu0 = time.perf_counter(), time.process_time()
    n_tokens = sum(len(tokenize(c.text)) for c in chunks)
    tok_s, tok_cpu = time.perf_counter() - t, time.process_time() - cpu0
    print(
        f"tokenize (cold caches): {tok_s:6.2f} s wall {tok_cpu:6.2f} s cpu   "
        f"{n_tokens / len(chunks):.0f} tokens/chunk"
    )
    # Build from cold caches too, so the build time is what a fresh process pays.
    _words.clear()
    _expand.cache_clear()
    _stem.cache_clear()

    t, cpu0 = time.perf_counter(), time.process_time()
    index = KeywordIndex(chunks)
    build_s, build_cpu = time.perf_counter() - t, time.process_time() - cpu0
    print(f"build (tokenize + bm25s index): {build_s:6.2f} s wall {build_cpu:6.2f} s cpu")

    for label, flt in (
        ("no filter", None),
        ("groups=(everyone,)", SearchFilter(groups=("everyone",))),
        (
            "groups+doc_type+service",
            SearchFilter(
                groups=("everyone",), doc_types=("runbook",), services=("checkout", "payments")
            ),
        ),
    ):
        if flt is not None:
            t = time.perf_counter()
            index.search(queries[0], args.k, flt)  # first use builds and caches the mask
            first = (time.perf_counter() - t) * 1000
        else:
            index.search(queries[0], args.k)
            first = 0.0
        samples, avg_hits = time_queries(index, queries, args.k, flt)
        extra = f"   (first call incl. mask {first:.1f} ms)" if flt is not None else ""
        print(
            f"search k={args.k} {label:24s} {percentiles(samples)}   "
            f"{avg_hits:.0f} hits/query{extra}"
        )

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        index.save(Path(tmp), generation=1)
        save_s = time.perf_counter() - t
        t = time.perf_counter()
        loaded = KeywordIndex.load(Path(tmp))
        load_s = time.perf_counter() - t
        t = time.perf_counter()
        by_id = {c.chunk_id: c for c in chunks}
        loaded_by_id = KeywordIndex.load(Path(tmp), by_id)
        load_ids_s = time.perf_counter() - t
    assert loaded is not None and loaded_by_id is not None
    same = all(loaded[0].search(q, 10) == index.search(q, 10) for q in queries[:20])
    print(
        f"save {save_s:.2f} s   load {load_s:.2f} s   load(chunks_by_id) {load_ids_s:.2f} s   "
        f"round trip identical: {same}"
    )


if __name__ == "__main__":
    main()
