"""Questions embedded without fastembed: the same vectors, and fastembed never imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from retrieval.search.embeddings import FastEmbedder
from retrieval.search.offline_model import OFFLINE_MODEL_NAME, assemble_offline_model
from retrieval.search.query_encoder import QueryEncoder, encodable
from tests.conftest import ROOT

QUESTIONS = [
    "checkout-api database connection refused",
    "",
    "KubePodCrashLooping in payments — what do I do?",
    "Ünïcode, emoji 🚨 and CJK 数据库 in one question",
    "restart the pods one at a time and watch the error rate " * 60,  # past 256 tokens
]


@pytest.fixture(scope="module")
def model_path(model_dir: Path) -> Path:
    path = assemble_offline_model(model_dir / "all-MiniLM-L6-v2")
    assert path is not None, "the offline model packages are not installed"
    return path


def test_vectors_equal_fastembeds_for_the_same_question(model_path: Path) -> None:
    from fastembed import TextEmbedding

    reference = TextEmbedding(OFFLINE_MODEL_NAME, specific_model_path=str(model_path))
    encoder = QueryEncoder(model_path)
    for question in QUESTIONS:
        want = np.asarray(next(iter(reference.query_embed(question))), dtype=np.float32)
        got = encoder.embed(question)
        assert got.dtype == np.float32 and got.shape == want.shape == (384,)
        np.testing.assert_allclose(got, want, atol=2e-6)
        assert abs(float(np.linalg.norm(got)) - 1.0) < 1e-5
    assert not np.allclose(encoder.embed(QUESTIONS[0]), encoder.embed(QUESTIONS[2]))


def test_long_questions_are_cut_where_fastembed_cuts_them(model_path: Path) -> None:
    encoder = QueryEncoder(model_path)
    long = QUESTIONS[-1]
    assert len(encoder.tokenizer.encode(long).ids) == 256
    # words past the window change nothing
    np.testing.assert_allclose(encoder.embed(long), encoder.embed(long + " disk full"), atol=1e-6)


def test_the_vocabulary_is_the_tokenizers_whole_words(
    model_path: Path, embedder: FastEmbedder
) -> None:
    fresh = FastEmbedder(model_path=model_path)
    words = fresh.vocabulary()
    assert {"database", "restart", "certificate"} <= words
    assert not any(w.startswith("##") for w in words)
    assert words == embedder.vocabulary()  # fastembed's own tokenizer, loaded by ingest


def test_a_directory_without_the_model_files_is_not_encodable(tmp_path: Path) -> None:
    assert not encodable(None)
    assert not encodable(tmp_path)
    (tmp_path / "tokenizer.json").write_text("{}")
    assert not encodable(tmp_path)


def test_a_cold_question_never_imports_fastembed(model_path: Path) -> None:
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from retrieval.search.embeddings import FastEmbedder\n"
        f"e = FastEmbedder(model_path=Path({str(model_path)!r}))\n"
        "v = e.embed_query('disk full on the database host')\n"
        "words = e.vocabulary()\n"
        "print(json.dumps([len(v), 'disk' in words, 'fastembed' in sys.modules]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == [384, True, False]


def test_once_fastembed_is_loaded_it_embeds_questions_too(
    model_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    emb = FastEmbedder(model_path=model_path)
    cold = emb.embed_query(QUESTIONS[0])
    emb.embed_documents(["disk full"])  # an ingest in the same process loads fastembed

    def unused(self: QueryEncoder, text: str) -> None:
        raise AssertionError("the question went to the second model")

    monkeypatch.setattr(QueryEncoder, "embed", unused)  # one model in memory from now
    np.testing.assert_allclose(emb.embed_query(QUESTIONS[0]), cold, atol=2e-6)


def test_a_model_pooled_another_way_is_left_to_fastembed(model_path: Path) -> None:
    # the encoder knows mean pooling only: a CLS-pooled model is embedded by fastembed
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from retrieval.search.embeddings import FastEmbedder\n"
        f"e = FastEmbedder('BAAI/bge-small-en-v1.5', model_path=Path({str(model_path)!r}))\n"
        "try:\n"
        "    e.embed_query('disk full')\n"
        "except Exception:\n"
        "    pass  # fastembed may refuse these files for that model: it was asked\n"
        "print('fastembed' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "True"
