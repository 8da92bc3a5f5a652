"""HyDE: the question plus a model-written excerpt embedded, with fallback and a cache."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import openai
import pytest

from retrieval.search.embeddings import FastEmbedder
from retrieval.search.hyde import HydeQuery, hyde_vector
from tests.fakes.openai_api import FakeOpenAI


@pytest.fixture()
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def client_for(fake: FakeOpenAI) -> openai.OpenAI:
    return fake.client(timeout=2.0)


def test_hyde_embeds_question_plus_excerpt(fake: FakeOpenAI, embedder: FastEmbedder) -> None:
    excerpt = "## Mitigation\nkubectl -n checkout rollout restart deploy/checkout-pgbouncer"
    fake.set_reply(lambda body: excerpt)
    question = "pgbouncer pool exhausted"
    vec = hyde_vector(client_for(fake), "m", question, embedder, timeout=2.0)
    assert vec is not None
    assert np.allclose(vec, embedder.embed_query(f"{question}\n{excerpt}"), atol=1e-5)
    (body,) = fake.requests
    assert body["messages"][-1]["content"] == question
    assert "response_format" not in body


def test_hyde_query_falls_back_on_500(fake: FakeOpenAI, embedder: FastEmbedder) -> None:
    fake.set_status(500)
    question = "pgbouncer pool exhausted"
    assert hyde_vector(client_for(fake), "m", question, embedder, timeout=2.0) is None
    hyde = HydeQuery(client_for(fake), "m", embedder, timeout=2.0)
    vec = hyde(question)
    assert np.allclose(vec, embedder.embed_query(question), atol=1e-5)
    assert len(fake.requests) == 2


def test_hyde_query_caches_successes(fake: FakeOpenAI, embedder: FastEmbedder) -> None:
    fake.set_reply(lambda body: "Restart pgbouncer.")
    hyde = HydeQuery(client_for(fake), "m", embedder, timeout=2.0)
    first, second = hyde("pool exhausted"), hyde("pool exhausted")
    assert np.array_equal(first, second)
    assert len(fake.requests) == 1
