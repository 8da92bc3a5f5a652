from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from core.models import Chunk, DocType, DocumentMetadata, SearchFilter
from retrieval.search.keyword_index import KeywordIndex


def make_chunk(
    chunk_id: str,
    text: str,
    *,
    access: tuple[str, ...] = ("everyone",),
    doc_type: DocType = "runbook",
    service: str | None = None,
) -> Chunk:
    return Chunk(
        chunk_id=chunk_id,
        source_id=f"src-{chunk_id}",
        path=f"{chunk_id}.md",
        title=chunk_id,
        heading_path=(chunk_id,),
        text=text,
        start=0,
        end=len(text),
        content_hash=f"hash-{chunk_id}",
        line=1,
        metadata=DocumentMetadata(
            access=access,
            doc_type=doc_type,
            service=service,
        ),
    )


CORPUS = [
    make_chunk("crashloop", "KubePodCrashLooping fires when a pod restarts repeatedly."),
    make_chunk("crash-words", "A kube pod crash that keeps looping: check the kube events."),
    make_chunk("pod-crash", "Pod crash after OOM kill. Kube scheduler moves the pod."),
    make_chunk("looping", "Looping restarts of a kube pod: crash reason in the logs."),
    make_chunk("checkout-api", "Restart the checkout-api deployment when latency spikes."),
    make_chunk("checkout-web", "Restart the checkout-web deployment when latency spikes."),
    make_chunk("force", "Delete the stuck namespace with kubectl delete --force."),
    make_chunk("finalizers", "Remove finalizers from the stuck namespace before deleting it."),
    make_chunk("err5023", "Payment error 5023 means the card processor timed out."),
    make_chunk("err5024", "Payment error 5024 means the card was declined."),
    make_chunk(
        "disk-sre",
        "node_filesystem_avail_bytes is low: rotate logs and expand the volume.",
        access=("sre",),
        service="storage",
    ),
    make_chunk(
        "disk-public",
        "Disk is low on a node: ask SRE to free space.",
        service="storage",
    ),
    make_chunk(
        "disk-incident",
        "Incident: node filesystem full, disk space low for hours.",
        doc_type="incident",
        service="storage",
    ),
    make_chunk(
        "etcd",
        "etcdBackendQuotaLowSpace: defragment etcd and raise the backend quota.",
        service="etcd",
    ),
]


@pytest.fixture(scope="module")
def index() -> KeywordIndex:
    return KeywordIndex(CORPUS)


def ids(results: list[tuple[Chunk, float]]) -> list[str]:
    return [c.chunk_id for c, _ in results]


def test_size(index: KeywordIndex) -> None:
    assert index.size == len(CORPUS)
    assert KeywordIndex().size == 0


def test_exact_identifier_ranks_first(index: KeywordIndex) -> None:
    results = index.search("KubePodCrashLooping", k=5)
    assert ids(results)[0] == "crashloop"
    # the similar chunks still match on the identifier's parts, below it
    assert {"crash-words", "pod-crash", "looping"} <= set(ids(results))
    assert results[0][1] > results[1][1]


def test_identifier_parts_match_words(index: KeywordIndex) -> None:
    assert "crashloop" in ids(index.search("pod crash looping", k=10))


def test_hyphenated_service_name(index: KeywordIndex) -> None:
    results = index.search("checkout-api", k=5)
    assert ids(results)[0] == "checkout-api"
    assert "checkout-web" in ids(results)  # shares "checkout", ranked lower
    assert results[0][1] > dict((c.chunk_id, s) for c, s in results)["checkout-web"]


def test_flag(index: KeywordIndex) -> None:
    assert ids(index.search("--force", k=3))[0] == "force"
    assert ids(index.search("force delete namespace", k=3))[0] == "force"


def test_error_code(index: KeywordIndex) -> None:
    assert ids(index.search("5023", k=3)) == ["err5023"]
    assert ids(index.search("payment error 5023", k=3))[0] == "err5023"


def test_metric_name_and_camel_alert(index: KeywordIndex) -> None:
    assert ids(index.search("node_filesystem_avail_bytes", k=3))[0] == "disk-sre"
    assert ids(index.search("etcd backend quota", k=3))[0] == "etcd"


def test_scores_positive_sorted_and_k_respected(index: KeywordIndex) -> None:
    results = index.search("kube pod crash restart", k=3)
    assert len(results) == 3
    scores = [s for _, s in results]
    assert all(s > 0 for s in scores)
    assert scores == sorted(scores, reverse=True)
    everything = index.search("kube pod crash restart", k=1000)
    assert 3 < len(everything) < len(CORPUS)  # only chunks that match at all
    assert all(isinstance(s, float) for _, s in everything)


def test_empty_and_unknown_queries(index: KeywordIndex) -> None:
    assert index.search("", k=5) == []
    assert index.search("the of and", k=5) == []  # stopwords only
    assert index.search("zzyzx qwertyuiop", k=5) == []  # not in the vocabulary
    assert index.search("KubePodCrashLooping", k=0) == []
    # unknown tokens are ignored, known ones still score
    assert ids(index.search("zzyzx 5023", k=5)) == ["err5023"]


def test_repeated_query_tokens_count_once(index: KeywordIndex) -> None:
    assert index.search("5023 5023 5023", k=3) == index.search("5023", k=3)


def test_empty_index() -> None:
    empty = KeywordIndex([])
    assert empty.search("anything", k=5) == []
    assert empty.search("anything", k=5, flt=SearchFilter(groups=("sre",))) == []
    no_tokens = KeywordIndex([make_chunk("blank", "... the of a !!!")])
    assert no_tokens.size == 1
    assert no_tokens.search("the", k=5) == []


def test_access_filter_applied_before_ranking(index: KeywordIndex) -> None:
    query = "node_filesystem_avail_bytes low disk"
    assert ids(index.search(query, k=1))[0] == "disk-sre"  # best match overall

    public = index.search(query, k=1, flt=SearchFilter(groups=("everyone",)))
    # not just dropped after ranking: k=1 still yields the best *eligible* chunk
    assert len(public) == 1 and public[0][0].chunk_id != "disk-sre"
    for k in (1, 5, 100):
        assert "disk-sre" not in ids(
            index.search(query, k=k, flt=SearchFilter(groups=("everyone",)))
        )

    assert ids(index.search(query, k=1, flt=SearchFilter(groups=("sre",)))) == ["disk-sre"]
    both = index.search(query, k=100, flt=SearchFilter(groups=("everyone", "sre")))
    assert ids(both)[0] == "disk-sre"
    assert index.search(query, k=5, flt=SearchFilter(groups=())) == []
    assert index.search(query, k=5, flt=SearchFilter(groups=("nobody",))) == []


def test_access_filter_scores_match_unfiltered(index: KeywordIndex) -> None:
    query = "disk low space"
    unfiltered = dict((c.chunk_id, s) for c, s in index.search(query, k=100))
    filtered = index.search(query, k=100, flt=SearchFilter(groups=("everyone",)))
    assert filtered
    for chunk, score in filtered:
        assert score == pytest.approx(unfiltered[chunk.chunk_id])


def test_doc_type_filter(index: KeywordIndex) -> None:
    query = "disk space low node filesystem"
    incidents = index.search(query, k=10, flt=SearchFilter(doc_types=("incident",)))
    assert ids(incidents) == ["disk-incident"]
    runbooks = index.search(query, k=10, flt=SearchFilter(doc_types=("runbook",)))
    assert "disk-incident" not in ids(runbooks) and runbooks


def test_service_filter(index: KeywordIndex) -> None:
    query = "low space quota disk"
    storage = index.search(query, k=10, flt=SearchFilter(services=("storage",)))
    assert set(ids(storage)) == {"disk-sre", "disk-public", "disk-incident"}
    etcd = index.search(query, k=10, flt=SearchFilter(services=("etcd",)))
    assert ids(etcd) == ["etcd"]
    assert index.search(query, k=10, flt=SearchFilter(services=("nope",))) == []


def test_combined_filters(index: KeywordIndex) -> None:
    flt = SearchFilter(groups=("everyone",), doc_types=("runbook",), services=("storage",))
    assert ids(index.search("disk low node", k=10, flt=flt)) == ["disk-public"]
    # unfiltered-equivalent filter
    everything = SearchFilter(groups=("everyone", "sre"))
    assert index.search("disk low", k=10, flt=everything) == index.search("disk low", k=10)


def test_filter_cache_returns_same_results(index: KeywordIndex) -> None:
    flt = SearchFilter(groups=("everyone",))
    first = index.search("disk low", k=10, flt=flt)
    again = index.search("disk low", k=10, flt=SearchFilter(groups=("everyone",)))
    assert first == again


def test_ties_are_deterministic_by_position() -> None:
    chunks = [make_chunk(f"c{i}", "identical text about redis failover") for i in range(20)]
    index = KeywordIndex(chunks)
    assert ids(index.search("redis failover", k=5)) == ["c0", "c1", "c2", "c3", "c4"]
    assert ids(index.search("redis", k=50)) == [f"c{i}" for i in range(20)]


def test_search_larger_corpus_topk_matches_full_sort() -> None:
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(300)]
    chunks = [
        make_chunk(f"c{i}", " ".join(rng.choice(vocab, size=40).tolist())) for i in range(500)
    ]
    index = KeywordIndex(chunks)
    for q in ("w1 w2 w3", "w10 w200", "w299"):
        full = index.search(q, k=10_000)
        assert index.search(q, k=7) == full[:7]


# -- persistence ---------------------------------------------------------------

QUERIES = [
    "KubePodCrashLooping",
    "checkout-api",
    "--force",
    "5023",
    "disk low node_filesystem_avail_bytes",
    "etcd quota",
]
FILTERS = [None, SearchFilter(groups=("everyone",)), SearchFilter(services=("storage",))]


def test_save_load_round_trip(index: KeywordIndex, tmp_path: Path) -> None:
    index.save(tmp_path / "kw", generation=7)
    loaded = KeywordIndex.load(tmp_path / "kw")
    assert loaded is not None
    restored, generation = loaded
    assert generation == 7
    assert restored.size == index.size
    for q in QUERIES:
        for flt in FILTERS:
            assert restored.search(q, 10, flt) == index.search(q, 10, flt)


def test_load_with_chunks_by_id(index: KeywordIndex, tmp_path: Path) -> None:
    index.save(tmp_path, generation=3)
    by_id = {c.chunk_id: c for c in CORPUS}
    loaded = KeywordIndex.load(tmp_path, by_id)
    assert loaded is not None and loaded[1] == 3
    assert loaded[0].search("checkout-api", 3) == index.search("checkout-api", 3)
    # a chunk that is gone or changed makes the saved index stale
    missing = dict(by_id)
    del missing["etcd"]
    assert KeywordIndex.load(tmp_path, missing) is None
    changed = dict(by_id)
    changed["etcd"] = make_chunk("etcd", "new text").model_copy(update={"content_hash": "new"})
    assert KeywordIndex.load(tmp_path, changed) is None


def test_save_overwrites_previous_generation(index: KeywordIndex, tmp_path: Path) -> None:
    index.save(tmp_path, generation=1)
    small = KeywordIndex(CORPUS[:2])
    small.save(tmp_path, generation=2)
    loaded = KeywordIndex.load(tmp_path)
    assert loaded is not None
    assert loaded[1] == 2 and loaded[0].size == 2
    KeywordIndex().save(tmp_path, generation=3)
    loaded = KeywordIndex.load(tmp_path)
    assert loaded is not None
    assert loaded[1] == 3 and loaded[0].size == 0
    assert loaded[0].search("kube", 5) == []
    assert not (tmp_path / "bm25").exists()


def test_load_missing_directory(tmp_path: Path) -> None:
    assert KeywordIndex.load(tmp_path / "nope") is None
    assert KeywordIndex.load(tmp_path) is None  # exists but empty


def _saved(index: KeywordIndex, tmp_path: Path) -> Path:
    d = tmp_path / "kw"
    index.save(d, generation=5)
    assert KeywordIndex.load(d) is not None
    return d


@pytest.mark.parametrize(
    "damage",
    [
        "no-meta",
        "meta-garbage",
        "meta-wrong-format",
        "meta-wrong-tokenizer",
        "meta-bad-generation",
        "meta-count-mismatch",
        "chunks-truncated",
        "chunks-garbage",
        "chunks-missing",
        "model-missing",
        "model-array-truncated",
        "model-vocab-garbage",
        "model-vocab-mismatch",
        "model-params-garbage",
        "model-indices-out-of-range",
    ],
)
def test_load_corrupted_returns_none(index: KeywordIndex, tmp_path: Path, damage: str) -> None:
    d = _saved(index, tmp_path)
    meta = json.loads((d / "meta.json").read_text())
    model = d / "bm25"
    if damage == "no-meta":
        (d / "meta.json").unlink()
    elif damage == "meta-garbage":
        (d / "meta.json").write_text("{not json")
    elif damage.startswith("meta-"):
        key, value = {
            "meta-wrong-format": ("format", "something-else/9"),
            "meta-wrong-tokenizer": ("tokenizer", -1),
            "meta-bad-generation": ("generation", "seven"),
            "meta-count-mismatch": ("chunks", meta["chunks"] + 1),
        }[damage]
        meta[key] = value
        (d / "meta.json").write_text(json.dumps(meta))
    elif damage == "chunks-truncated":
        lines = (d / "chunks.jsonl").read_text().splitlines(keepends=True)
        (d / "chunks.jsonl").write_text("".join(lines[:-1]))
    elif damage == "chunks-garbage":
        with (d / "chunks.jsonl").open("a") as f:
            f.write('{"chunk_id": 1}\n')
    elif damage == "chunks-missing":
        (d / "chunks.jsonl").unlink()
    elif damage == "model-missing":
        shutil.rmtree(model)
    elif damage == "model-array-truncated":
        data = (model / "data.csc.index.npy").read_bytes()
        (model / "data.csc.index.npy").write_bytes(data[: len(data) // 2])
    elif damage == "model-vocab-garbage":
        (model / "vocab.index.json").write_text("[1, 2")
    elif damage == "model-vocab-mismatch":
        vocab = json.loads((model / "vocab.index.json").read_text())
        vocab.popitem()
        (model / "vocab.index.json").write_text(json.dumps(vocab))
    elif damage == "model-params-garbage":
        (model / "params.index.json").write_text('{"k1": "x", "bogus": 1}')
    elif damage == "model-indices-out-of-range":
        indices = np.load(model / "indices.csc.index.npy")
        indices[0] = len(CORPUS) + 10
        np.save(model / "indices.csc.index.npy", indices)
    assert KeywordIndex.load(d) is None
