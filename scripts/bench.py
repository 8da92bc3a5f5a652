"""Benchmark: ingest memory and throughput, cold start, serving at 10k/50k chunks, Qdrant,
answers end to end.

    .venv/bin/python scripts/bench.py [--corpus-docs 10000] [--embed-texts 256]
        [--sizes 10000,50000] [--store-sizes 1000,10000] [--ask-chunks 10000]
        [--ask-data data/bench] [--only SECTION,...]

Every section runs in a subprocess of its own and its peak RSS is that process's
own (``os.wait4``), so the numbers do not mix and this process stays small.

- ``model``: model load and query embedding.
- ``text``: tokenizing a large corpus, and redacting ordinary text and inputs that would
  make a backtracking pattern quadratic.
- ``embed``: the ingest's embedding path against plain fastembed ``embed()`` calls
  on the same chunk texts, interleaved in one process (the machine is shared).
- ``ingest``: ``runbook-bot ingest`` of a synthetic corpus (``--corpus-docs``
  generated Markdown runbooks: front matter, headings, steps, code), then again
  unchanged.
- ``cold``: ``runbook-bot ask`` in a fresh process after ingesting ``runbooks/``.
- ``serve``: ``runbook-bot serve`` from start to the answer of a signed slash
  command (``/healthz`` polled first; Slack's Web API is a local fake).
- ``serving``: a serving process over a persisted snapshot of synthetic chunks
  with random unit vectors (embedding 50k chunks on a CPU would take hours):
  search and extractive answer latency (query embedding excluded) and its RSS.
- ``store``: Qdrant embedded local mode's own write, snapshot-build and filtered
  query costs.
- ``ask``: ``AnswerService.ask`` in process, as an on-call engineer meets it (query
  embedding, search and composition; no answer cache, no query log) over every
  question of the question sets, at three index sizes: the sample runbooks, every
  corpus once (``../shared/corpora``, ``tests/fixtures/corpora``, ``runbooks/``) and
  the corpora again under other source names up to ``--ask-chunks``. The indexes are
  ingested once into ``--ask-data`` (default ``data/bench``) and reused: a second run
  embeds nothing. Also per ask: searches and retrievals done, and the query
  embedding's own time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CLI = ROOT / ".venv" / "bin" / "runbook-bot"
SHARED_CORPORA = ROOT.parent / "shared" / "corpora"
QUESTION = "checkout-api database connection refused"

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
Rows = list[tuple[str, str]]
# plain fastembed's batch size in the comparison (64 texts of 256 tokens peak near 3 GB)
RAW_BATCH = 32


def own_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def pct(values: list[float], p: float) -> float:
    import numpy as np

    return float(np.percentile(values, p)) * 1000


# --------------------------------------------------------------------------- corpora


def synthetic_doc(i: int, rng: random.Random) -> str:
    """A long runbook: five sections of 40-120 words and a command each."""
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


def compact_runbook(i: int, rng: random.Random) -> str:
    """A short runbook: a summary and numbered steps with a command; one in four also
    has an escalation section."""
    svc = rng.choice(SERVICES)
    alert = "".join(w.capitalize() for w in rng.sample(WORDS, 3))
    summary = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))
    metric = "_".join(rng.sample(WORDS, 3))
    text = (
        f"---\ntitle: {alert} on {svc}\nservice: {svc}\nowner: '@team-{i % 17}'\n"
        f"updated: 2026-0{1 + i % 9}-1{i % 9}\n---\n"
        f"# {alert} on {svc}\n\n{summary.capitalize()}.\n\n"
        f"1. Check `{metric}` on the {svc} dashboard.\n"
        f"2. Restart the {rng.choice(WORDS)} workers:\n\n"
        f"   ```console\n   kubectl -n {svc} rollout restart deploy/{svc}-{i % 7}\n   ```\n"
    )
    if i % 4 == 0:
        text += f"\n## Escalation\n\nPage @team-{i % 17} when {rng.choice(WORDS)} keeps failing.\n"
    return text


def write_corpus(folder: Path, docs: int, make: Any = compact_runbook) -> None:
    rng = random.Random(7)
    folder.mkdir(parents=True)
    for i in range(docs):
        sub = folder / f"team-{i % 50:02d}"
        sub.mkdir(exist_ok=True)
        (sub / f"rb-{i:05d}.md").write_text(make(i, rng), encoding="utf-8")


def synthetic_chunks(n_chunks: int) -> list[Any]:
    from core.models import Chunk, Document, DocumentMetadata
    from ingest.chunker import chunk_document

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


def random_vectors(n: int, dim: int) -> Any:
    import numpy as np

    vecs = np.random.default_rng(n).standard_normal((n, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    return vecs


# --------------------------------------------------------------------------- sections


def section_model(work: Path) -> Rows:
    from retrieval.search.embeddings import FastEmbedder

    emb = FastEmbedder(cache_dir=work / "models")
    t = time.perf_counter()
    emb.warm()
    for q in QUERIES:
        emb.embed_query(q)
    rows = [("model load + first queries s", f"{time.perf_counter() - t:.2f}")]
    t = time.perf_counter()
    for q in QUERIES * 4:
        emb.embed_query(q)
    rows.append(("query embedding ms (mean)", f"{(time.perf_counter() - t) / 32 * 1000:.1f}"))
    return rows


# inputs that would take a backtracking pattern time growing with the square of their
# length (the redaction of every logged question and every drafted thread runs over them)
PATHOLOGICAL = {
    "a_ x 20k": "a_" * 20_000,
    "key_ x 10k": "key_" * 10_000,
    "token_ x 8k =x": "token_" * 8_000 + "=x",
    "-a x 20k": "-a" * 20_000,
    "a. x 20k": "a." * 20_000,
    "postgres://a: x 5k": "postgres://a:" * 5_000,
    "sk- x 10k": "sk-" * 10_000,
    "xapp- x 10k": "xapp-" * 10_000,
    "eyJaaaaa. x 5k": "eyJaaaaa." * 5_000,
    "curl -u x 10k": "curl " + " -u" * 10_000,
    "password: x 5k": "password: " * 5_000,
}


def section_text(work: Path) -> Rows:
    """Tokenizing a large corpus, and redacting ordinary and pathological text: the work
    every ingest and every logged question does, per character."""
    from core.redact import redact
    from retrieval.reading import tokenize

    words = [f"word{i % 3000}" for i in range(150)] + ["KubePodCrashLooping", "checkout-api"]
    texts = [" ".join(words) + f" chunk{i}" for i in range(5000)]  # 760k words
    t = time.perf_counter()
    total = sum(len(tokenize(x)) for x in texts)
    rows = [("tokenize 5,000 chunk texts (760k words) s", f"{time.perf_counter() - t:.2f}")]
    rows.append(("  tokens", f"{total}"))
    plain = "kubectl -n checkout rollout restart deploy/checkout-api; token=abc " * 600
    t = time.perf_counter()
    redact(plain)
    base = time.perf_counter() - t
    rows.append((f"redact ordinary text ({len(plain) // 1000}k chars) ms", f"{base * 1000:.1f}"))
    for name, text in PATHOLOGICAL.items():
        t = time.perf_counter()
        redact(text)
        took = time.perf_counter() - t
        rows.append((f"redact {name} ({len(text) // 1000}k chars) ms", f"{took * 1000:.1f}"))
    return rows


def section_embed(work: Path, n_texts: int) -> Rows:
    """The ingest's embedder and plain fastembed on the same texts, round by round."""
    from retrieval.search.embeddings import FastEmbedder

    texts = [c.text for c in synthetic_chunks(n_texts)]
    emb = FastEmbedder(cache_dir=work / "models")
    emb.warm()
    model: Any = emb._load()  # the very same fastembed TextEmbedding
    rounds = 4
    per = max(1, len(texts) // rounds)
    spent = {"ours": 0.0, "fastembed": 0.0, "fastembed sorted": 0.0}
    for r in range(rounds):
        part = texts[r * per : (r + 1) * per]
        by_len = sorted(part, key=len)
        runs = [
            ("ours", lambda p=part: emb.embed_documents(p)),
            ("fastembed", lambda p=part: list(model.embed(p, batch_size=RAW_BATCH))),
            ("fastembed sorted", lambda p=by_len: list(model.embed(p, batch_size=RAW_BATCH))),
        ]
        for name, run in runs[r % 3 :] + runs[: r % 3]:  # rotate who goes first
            t = time.perf_counter()
            run()
            spent[name] += time.perf_counter() - t
    n = per * rounds
    rate = {k: n / v for k, v in spent.items()}
    best = max(rate["fastembed"], rate["fastembed sorted"])
    return [
        (f"embed {n} chunk texts: ours chunks/s", f"{rate['ours']:.1f}"),
        (f"  fastembed embed(batch_size={RAW_BATCH}) chunks/s", f"{rate['fastembed']:.1f}"),
        ("  fastembed, texts sorted by length, chunks/s", f"{rate['fastembed sorted']:.1f}"),
        ("  ours / best fastembed", f"{rate['ours'] / best:.2f}"),
    ]


def section_store(work: Path, n_chunks: int) -> Rows:
    """Writing to and querying Qdrant itself (embedded local mode)."""
    from bot.runtime import Runtime
    from bot.settings import load_settings
    from core.models import SearchFilter
    from retrieval.search.embeddings import FastEmbedder

    emb = FastEmbedder(cache_dir=work / "models")
    rt = Runtime(load_settings(data_dir=work / f"store-{n_chunks}"), embedder=emb)
    chunks = synthetic_chunks(n_chunks)
    vecs = random_vectors(len(chunks), emb.dimension)
    index = rt.vector_index
    index.ensure(emb.model_name, emb.dimension)
    t0 = time.perf_counter()
    for start in range(0, len(chunks), 512):
        index.stage(chunks[start : start + 512], vecs[start : start + 512])
    index.publish({c.source_id: c.content_hash for c in chunks}, [])
    t_write = time.perf_counter() - t0
    del vecs
    t0 = time.perf_counter()
    rt.searcher.snapshot()
    t_snap = time.perf_counter() - t0
    flt = SearchFilter(groups=("everyone",))
    times = []
    for q in QUERIES[:4]:
        v = emb.embed_query(q)
        t = time.perf_counter()
        index.search(v, 50, flt)
        times.append(time.perf_counter() - t)
    rt.close()
    return [
        (f"{n_chunks} chunks: Qdrant local write + publish s", f"{t_write:.1f}"),
        (f"{n_chunks} chunks: snapshot build from Qdrant s", f"{t_snap:.1f}"),
        (
            f"{n_chunks} chunks: Qdrant local filtered query p50 ms",
            f"{statistics.median(times) * 1000:.1f}",
        ),
    ]


def section_snapshot(work: Path, n_chunks: int) -> Rows:
    """Persist a search snapshot of ``n_chunks`` synthetic chunks as an ingest would."""
    import numpy as np

    from bot.settings import load_settings
    from retrieval.search.keyword_index import KeywordIndex
    from retrieval.search.snapshot import DENSE_FILE, write_checksums
    from retrieval.search.store_marker import StoreMarker, write_store_marker

    s = load_settings(data_dir=work / f"serve-{n_chunks}")
    chunks = sorted(synthetic_chunks(n_chunks), key=lambda c: c.chunk_id)
    t = time.perf_counter()
    index = KeywordIndex(chunks)
    dense = random_vectors(len(chunks), 384)
    t_build = time.perf_counter() - t
    s.snapshot_dir.mkdir(parents=True)
    np.save(s.snapshot_dir / DENSE_FILE, dense)
    index.save(s.snapshot_dir, 1)
    marker = StoreMarker(1, f"bench-{n_chunks}")
    write_checksums(s.snapshot_dir, marker.generation, marker.stamp)
    s.qdrant_local_path.mkdir(parents=True)
    write_store_marker(s.qdrant_local_path, s.collection, marker)
    return [(f"{n_chunks} chunks: snapshot build s (BM25 + matrix)", f"{t_build:.1f}")]


def section_serving(work: Path, n_chunks: int) -> Rows:
    """A serving process: the Runtime over the persisted snapshot (the store stays shut)."""
    from bot.runtime import Runtime
    from bot.settings import load_settings
    from core.models import SearchFilter

    models = work / "models"
    rt = Runtime(
        load_settings(data_dir=work / f"serve-{n_chunks}", redis_url="redis://127.0.0.1:1")
    )
    rt.settings.model_cache_dir.symlink_to(models)
    t = time.perf_counter()
    snap = rt.searcher.snapshot()
    t_load = time.perf_counter() - t
    assert len(snap.chunks) == n_chunks and not rt.store.opened
    searcher, answerer = rt.searcher, rt.extractive
    flt = SearchFilter(groups=("everyone",))
    vectors = {q: rt.embedder.embed_query(q) for q in QUERIES}
    for q in QUERIES:  # warm: masks, term statistics, document outlines
        answerer.answer_from(answerer.retrieve(q, flt, vector=vectors[q]), flt)
    kw, dense, hybrid, answers = [], [], [], []
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
    for _ in range(5):
        for q in QUERIES:
            t = time.perf_counter()
            answerer.answer_from(answerer.retrieve(q, flt, vector=vectors[q]), flt)
            answers.append(time.perf_counter() - t)
    return [
        (f"{n_chunks} chunks: snapshot load s (cold process)", f"{t_load:.2f}"),
        (f"{n_chunks} chunks: keyword p50/p95 ms", f"{pct(kw, 50):.2f} / {pct(kw, 95):.2f}"),
        (f"{n_chunks} chunks: dense p50/p95 ms", f"{pct(dense, 50):.2f} / {pct(dense, 95):.2f}"),
        (
            f"{n_chunks} chunks: hybrid (fused, grouped) p50/p95 ms",
            f"{pct(hybrid, 50):.2f} / {pct(hybrid, 95):.2f}",
        ),
        (
            f"{n_chunks} chunks: extractive answer p50/p95 ms",
            f"{pct(answers, 50):.1f} / {pct(answers, 95):.1f}",
        ),
    ]


# --------------------------------------------------------------------------- asks

# the indexes of the ``ask`` section, by level: the sample runbooks; every question
# set's corpus once; the same again under other source names up to --ask-chunks
ASK_LEVELS = ("sample runbooks", "every corpus once", "corpora repeated")
ASK_TARGET_MS = {"p50 ms": 30.0, "p95 ms": 80.0}  # at ~10k chunks
ASK_MIN_QUESTIONS = 200
ASK_ROUNDS = 2  # processes per size; each asks every ASK_ROUNDS-th question
NO_REDIS = "redis://127.0.0.1:1/0"  # nothing listens: no answer cache, no query log


def ask_sets() -> list[Any]:
    """Every question set ``make quality`` scores: the shared corpora, the fixture
    corpora and the sample runbooks."""
    from bot.quality import discover, repository_sets

    return [*discover(SHARED_CORPORA), *repository_sets(ROOT)]


def ask_data(root: Path, level: int, target: int) -> Path:
    return root / ("ask-runbooks", "ask-corpora", f"ask-{target}")[level]


def section_ask_index(root: Path, level: int, target: int) -> Rows:
    """Ingest (incrementally) the index of ``level`` into its own data dir under
    ``root``: a second run finds every source unchanged and embeds nothing."""
    from bot.runtime import Runtime
    from bot.settings import load_settings
    from ingest.manifest import read_manifest

    sets = ask_sets()
    if level == 0:
        sets = [s for s in sets if s.root == ROOT / "runbooks"]
    data = ask_data(root, level, target)
    if level == 2 and not data.exists() and ask_data(root, 1, target).is_dir():
        # the first round is the middle index: start from it rather than embed it again
        shutil.copytree(ask_data(root, 1, target), data, symlinks=True)
    rt = Runtime(load_settings(data_dir=data, redis_url=NO_REDIS))
    embedded = reused = sources = 0
    t = time.perf_counter()

    def ingest(qset: Any, name: str) -> int:
        nonlocal embedded, reused, sources
        report = rt.ingest(rt.folder_source(qset.root, name))
        embedded += report.chunks_embedded
        reused += report.chunks_reused
        sources += 1
        manifest = read_manifest(data)
        return manifest.chunks if manifest is not None else 0

    # originals, then copies round by round until the target: the sources a first run
    # took are kept in the data dir, so a second one syncs the same and embeds nothing
    plan = data / "bench-sources.json"
    taken = json.loads(plan.read_text(encoding="utf-8")) if plan.is_file() else []
    rounds = [(q, q.name) for q in sets]
    if level == 2:
        rounds += [(q, f"{q.name}-{copy}") for copy in range(2, 100) for q in sets]
    chunks = 0
    for n, (qset, name) in enumerate(rounds):
        if n >= len(sets) and chunks >= target and name not in taken:
            break
        chunks = ingest(qset, name)
        taken = list(dict.fromkeys([*taken, name]))
    plan.write_text(json.dumps(taken), encoding="utf-8")
    seconds = time.perf_counter() - t
    rt.close()
    return [
        ("chunks", str(chunks)),
        ("sources", str(sources)),
        ("embedded", str(embedded)),
        ("reused", str(reused)),
        ("seconds", f"{seconds:.1f}"),
    ]


class Counted:
    """A method stand-in that counts its calls and the seconds spent in them."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.calls = 0
        self.seconds = 0.0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        t = time.perf_counter()
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - t


def counting(obj: object, name: str) -> Counted:
    """Count ``obj.name`` calls from now on (an instance attribute over the method)."""
    counted = Counted(getattr(obj, name))
    setattr(obj, name, counted)
    return counted


def section_asks(root: Path, level: int, target: int, part: int, parts: int) -> Rows:
    """``AnswerService.ask`` in a serving process with no answer cache and no query log,
    after a warm-up on other questions: every ``parts``-th question of the question sets
    from ``part`` on. Raw seconds per ask, as JSON lists."""
    from bot.runtime import Runtime
    from bot.service import AnswerService
    from bot.settings import load_settings

    questions = [
        str(json.loads(line)["q"])
        for qset in ask_sets()
        for line in qset.questions.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    while len(questions) < ASK_MIN_QUESTIONS:
        questions += questions[:ASK_MIN_QUESTIONS]
    rt = Runtime(load_settings(data_dir=ask_data(root, level, target), redis_url=NO_REDIS))
    answerer, searcher = rt.extractive, rt.searcher
    embeds = counting(rt.embedder, "embed_query")
    searches = counting(searcher, "search_chunks")
    retrievals = counting(answerer, "retrieve")
    resolver = rt.resolver()
    service = AnswerService(answerer, searcher, resolver, None, None, "bench", mode=rt.answer_mode)
    snap = searcher.snapshot()
    groups = {g for c in snap.chunks for g in c.metadata.access}
    asker = resolver.scope_for_groups(groups | set(resolver.access_map.known_groups))
    for q in QUERIES * 2:  # warm: snapshot, model, masks; none of the timed questions
        service.ask(q, "bench-warm", asker=asker)
    embeds.calls = searches.calls = retrievals.calls = 0
    totals, embedding, alone = [], [], []
    answered = 0
    mine = questions[part::parts]
    for i, q in enumerate(mine):
        before = embeds.seconds
        t = time.perf_counter()
        delivery = service.ask(q, f"bench-{i}", asker=asker)
        totals.append(time.perf_counter() - t)
        embedding.append(embeds.seconds - before)
        answered += delivery.public.state == "answer"
    for q in mine:  # the same questions embedded back to back, nothing in between
        t = time.perf_counter()
        embeds.fn(q)
        alone.append(time.perf_counter() - t)
    return [
        ("chunks", str(len(snap.chunks))),
        ("totals", json.dumps(totals)),
        ("embedding", json.dumps(embedding)),
        ("alone", json.dumps(alone)),
        ("answered", str(answered)),
        ("embeds", str(embeds.calls)),
        ("searches", str(searches.calls)),
        ("retrievals", str(retrievals.calls)),
    ]


SECTIONS = {
    "model": section_model,
    "text": section_text,
    "embed": section_embed,
    "store": section_store,
    "snapshot": section_snapshot,
    "serving": section_serving,
    "ask_index": section_ask_index,
    "asks": section_asks,
}


# --------------------------------------------------------------------------- the runner


def run_child(
    argv: list[str], env: dict[str, str] | None = None, quiet: bool = False
) -> tuple[str, float, float]:
    """(stdout, wall seconds, peak RSS MB) of a child process (``quiet``: no stderr)."""
    t = time.perf_counter()
    err = subprocess.DEVNULL if quiet else None
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=err, text=True)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}")
    return out, wall, usage.ru_maxrss / 1024


def section(work: Path, name: str, *args: object) -> tuple[Rows, float]:
    argv = [sys.executable, __file__, "--section", name, "--work", str(work)]
    argv += [str(a) for a in args]
    out, _, rss = run_child(argv)
    rows = [(str(k), str(v)) for k, v in json.loads(out.strip().splitlines()[-1])]
    return rows, rss


def cli(data: Path, *args: str, env: dict[str, str] | None = None) -> tuple[str, float, float]:
    return run_child([str(CLI), "--data-dir", str(data), *args], env, quiet=True)


def bench_ingest(work: Path, docs: int) -> Rows:
    corpus = work / "corpus"
    write_corpus(corpus, docs)
    data = work / "ingest"
    out, wall, rss = cli(data, "ingest", str(corpus), "--json")
    report = json.loads(out)
    _, again, again_rss = cli(data, "ingest", str(corpus))
    # a review bumps every document's date: every document changes, no chunk text does
    for f in corpus.rglob("*.md"):
        f.write_text(f.read_text(encoding="utf-8").replace("updated: 2026-", "updated: 2025-"))
    out, touched, touched_rss = cli(data, "ingest", str(corpus), "--json")
    retouched = json.loads(out)
    shutil.rmtree(data, ignore_errors=True)
    shutil.rmtree(corpus, ignore_errors=True)
    n = report["chunks_embedded"]
    return [
        (f"ingest {docs} documents: chunks", f"{n}"),
        (f"ingest {docs} documents: seconds (process)", f"{wall:.1f}"),
        (f"ingest {docs} documents: chunks per second", f"{n / wall:.1f}"),
        (f"ingest {docs} documents: peak RSS MB", f"{rss:.0f}"),
        (f"re-ingest {docs} unchanged: seconds / peak RSS MB", f"{again:.1f} / {again_rss:.0f}"),
        (
            f"re-ingest {docs} with every date bumped: chunks embedded / reused",
            f"{retouched['chunks_embedded']} / {retouched['chunks_reused']}",
        ),
        (
            f"re-ingest {docs} with every date bumped: seconds / peak RSS MB",
            f"{touched:.1f} / {touched_rss:.0f}",
        ),
        ("  first ingest / date-bumped re-ingest seconds", f"{wall / touched:.1f}"),
    ]


def bench_cold(work: Path, runs: int = 5) -> Rows:
    data = work / "cold"
    cli(data, "ingest", str(ROOT / "runbooks"))
    env = {**os.environ, "REDIS_URL": "redis://127.0.0.1:1/0"}  # a cache miss every time
    walls, rss = [], 0.0
    for _ in range(runs):
        out, wall, peak = cli(data, "ask", QUESTION, env=env)
        assert "checkout" in out.lower(), out
        walls.append(wall)
        rss = max(rss, peak)
    return [
        (
            f"cold `ask` on runbooks/: wall s (median of {runs}; min / max)",
            f"{statistics.median(walls):.2f} ({min(walls):.2f} / {max(walls):.2f})",
        ),
        ("cold `ask`: peak RSS MB", f"{rss:.0f}"),
    ]


def bench_serve(work: Path) -> Rows:
    from tests.conftest import RedisServer, free_port
    from tests.fakes.signing import signed_headers
    from tests.fakes.slack_api import FakeSlackAPI

    data = work / "cold"  # ingested by bench_cold
    if not data.exists():
        cli(data, "ingest", str(ROOT / "runbooks"))
    secret = "bench-signing-secret"
    redis_dir = work / "redis"
    redis_dir.mkdir()
    redis = RedisServer(redis_dir) if shutil.which("redis-server") else None
    if redis is not None:
        redis.start()
    port = free_port()
    with FakeSlackAPI() as fake:
        env = {
            **os.environ,
            "SLACK_BOT_TOKEN": "xoxb-bench",
            "SLACK_SIGNING_SECRET": secret,
            "SLACK_API_URL": fake.base_url,
            "REDIS_URL": redis.url if redis is not None else "redis://127.0.0.1:1/0",
            "RUNBOOK_LOG_FORMAT": "text",
        }
        env.pop("SLACK_APP_TOKEN", None)
        base = f"http://127.0.0.1:{port}"
        argv = [str(CLI), "--data-dir", str(data), "serve", "--port", str(port)]
        started = time.perf_counter()
        proc = subprocess.Popen(
            [*argv, "--host", "127.0.0.1"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            healthy = None
            while healthy is None and time.perf_counter() - started < 60:
                try:
                    with urllib.request.urlopen(base + "/healthz", timeout=5) as r:
                        healthy = time.perf_counter() - started if r.status == 200 else None
                except OSError:
                    time.sleep(0.05)
            assert healthy is not None, "serve did not become healthy"
            body = (
                f"command=%2Frunbook&text={QUESTION.replace(' ', '+')}&user_id=U0BENCH01"
                "&channel_id=C0BENCH01&channel_name=bench&team_id=T1"
                f"&response_url={fake.response_url('bench')}&trigger_id=t.1"
            )
            headers = {"Content-Type": "application/x-www-form-urlencoded"}
            headers.update(signed_headers(secret, body))
            req = urllib.request.Request(base + "/slack/events", body.encode(), headers)
            with urllib.request.urlopen(req, timeout=30) as r:
                answer = r.read().decode()
            first = time.perf_counter() - started
            assert "checkout" in answer.lower(), answer[:500]
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
            if redis is not None:
                redis.stop()
    return [
        ("serve: start -> /healthz 200 s", f"{healthy:.2f}"),
        ("serve: start -> first slash-command answer s", f"{first:.2f}"),
    ]


def bench_asks(root: Path, target: int) -> tuple[Rows, list[str]]:
    """Build (or reuse) the three indexes, then time ``ask`` over each, in rounds that
    alternate the order of the sizes (the machine is shared): rows for the main table
    and the lines of the side-by-side one."""
    rows: Rows = []
    for level, name in enumerate(ASK_LEVELS):
        b = dict(section(root, "ask_index", level, target)[0])
        rows.append(
            (
                f"ask index, {name}: chunks / sources / embedded now / s",
                f"{b['chunks']} / {b['sources']} / {b['embedded']} / {b['seconds']}",
            )
        )
    raw: list[dict[str, Any]] = [
        {"totals": [], "embedding": [], "alone": [], "rss": 0.0}
        | dict.fromkeys(("answered", "embeds", "searches", "retrievals"), 0)
        for _ in ASK_LEVELS
    ]
    levels = list(range(len(ASK_LEVELS)))
    for part in range(ASK_ROUNDS):
        for level in levels if part % 2 == 0 else levels[::-1]:
            got, rss = section(root, "asks", level, target, part, ASK_ROUNDS)
            r, g = raw[level], dict(got)
            r["chunks"] = g["chunks"]
            r["rss"] = max(r["rss"], rss)
            for key in ("totals", "embedding", "alone"):
                r[key] += json.loads(g[key])
            for key in ("answered", "embeds", "searches", "retrievals"):
                r[key] += int(g[key])
    return rows, ask_table([ask_measures(r) for r in raw])


def ask_measures(r: dict[str, Any]) -> dict[str, str]:
    totals, embedding = r["totals"], r["embedding"]
    rest = [a - b for a, b in zip(totals, embedding, strict=True)]
    n = len(totals)
    return {
        "chunks": r["chunks"],
        "questions asked": str(n),
        "answered (not declined) %": f"{r['answered'] / n * 100:.0f}",
        "p50 ms": f"{pct(totals, 50):.1f}",
        "p95 ms": f"{pct(totals, 95):.1f}",
        "mean ms": f"{statistics.fmean(totals) * 1000:.1f}",
        "query embedding ms per ask (mean)": f"{statistics.fmean(embedding) * 1000:.1f}",
        "query embedding ms per ask (p50)": f"{pct(embedding, 50):.1f}",
        "  same questions embedded back to back (p50)": f"{pct(r['alone'], 50):.1f}",
        "p50 ms without the query embedding": f"{pct(rest, 50):.1f}",
        "p95 ms without the query embedding": f"{pct(rest, 95):.1f}",
        "query embeddings per ask": f"{r['embeds'] / n:.2f}",
        "searches per ask (search_chunks)": f"{r['searches'] / n:.2f}",
        "retrievals per ask (retrieve)": f"{r['retrievals'] / n:.2f}",
        "process peak RSS MB": f"{r['rss']:.0f}",
    }


def ask_table(results: list[dict[str, str]]) -> list[str]:
    """Measures down, index sizes across, the largest over the smaller two, the targets."""
    small, mid, large = results
    head = [
        "`AnswerService.ask`, no answer cache",
        *(f"{int(r['chunks']):,} chunks" for r in results),
        "largest / smallest",
        "largest / middle",
        "target (largest)",
    ]
    lines = [head]
    for key in large:
        ratios = ["", ""]
        if key not in ("chunks", "questions asked", "answered (not declined) %"):
            ratios = [f"{float(large[key]) / max(float(r[key]), 1e-9):.2f}" for r in (small, mid)]
        goal = ASK_TARGET_MS.get(key)
        met = ""
        if goal is not None:
            met = f"<= {goal:.0f} ({'met' if float(large[key]) <= goal else 'missed'})"
        lines.append([key, small[key], mid[key], large[key], *ratios, met])
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(line, widths, strict=True))
        ).rstrip()
        for line in lines
    ]
    out.insert(1, "  ".join("-" * w for w in widths))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpus-docs", type=int, default=10000, help="synthetic ingest corpus")
    ap.add_argument("--embed-texts", type=int, default=256, help="texts in the embed comparison")
    ap.add_argument("--sizes", default="10000,50000", help="serving snapshot sizes (chunks)")
    ap.add_argument("--store-sizes", default="1000,10000", help="Qdrant write/query sizes")
    ap.add_argument(
        "--ask-chunks", type=int, default=10000, help="chunks of the largest `ask` index"
    )
    ap.add_argument(
        "--ask-data",
        type=Path,
        default=ROOT / "data" / "bench",
        help="where the `ask` indexes are kept between runs",
    )
    ap.add_argument("--only", default="", help="comma-separated sections (default: all)")
    ap.add_argument("--section", help=argparse.SUPPRESS)
    ap.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.section:  # a child: one section, its rows as JSON on the last line
        rows = SECTIONS[args.section](args.work, *(int(a) for a in args.args))
        print(json.dumps(rows))
        return 0

    only = set(filter(None, args.only.split(",")))
    wanted = lambda name: not only or name in only  # noqa: E731
    started = time.perf_counter()
    rows: Rows = []
    table: list[str] = []
    with tempfile.TemporaryDirectory(prefix="rbb-bench-") as tmp:
        work = Path(tmp)
        from retrieval.search.offline_model import assemble_offline_model

        assemble_offline_model(work / "models" / "all-MiniLM-L6-v2")  # once, shared
        if wanted("model"):
            got, rss = section(work, "model")
            rows += [*got, ("  process peak RSS MB", f"{rss:.0f}")]
        if wanted("text"):
            got, _ = section(work, "text")
            rows += got
        if wanted("embed"):
            got, rss = section(work, "embed", args.embed_texts)
            rows += [*got, ("  process peak RSS MB (plain fastembed included)", f"{rss:.0f}")]
        if wanted("ingest"):
            rows += bench_ingest(work, args.corpus_docs)
        if wanted("cold"):
            rows += bench_cold(work)
        if wanted("serve"):
            rows += bench_serve(work)
        if wanted("serving"):
            for size in (int(s) for s in args.sizes.split(",") if s):
                got, _ = section(work, "snapshot", size)
                rows += got
                got, rss = section(work, "serving", size)
                rows += [*got, (f"{size} chunks: serving process peak RSS MB", f"{rss:.0f}")]
                shutil.rmtree(work / f"serve-{size}", ignore_errors=True)
        if wanted("store"):
            for size in (int(s) for s in args.store_sizes.split(",") if s):
                got, rss = section(work, "store", size)
                rows += [*got, (f"{size} chunks: Qdrant section peak RSS MB", f"{rss:.0f}")]
                shutil.rmtree(work / f"store-{size}", ignore_errors=True)
        if wanted("ask"):
            got_rows, table = bench_asks(args.ask_data.resolve(), args.ask_chunks)
            rows += got_rows
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    rows.append(
        ("bench process peak RSS MB (largest child)", f"{own_rss_mb():.0f} ({children:.0f})")
    )
    rows.append(("total bench seconds", f"{time.perf_counter() - started:.0f}"))
    width = max(len(k) for k, _ in rows)
    print(f"{'measure':<{width}}  value")
    print(f"{'-' * width}  -----")
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    if table:
        print()
        print("\n".join(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
