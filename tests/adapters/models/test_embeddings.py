"""The real local model, the vector cache, and an OpenAI-compatible endpoint on 127.0.0.1."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from memactors.adapters.models.embeddings import (
    EmbeddingModelError,
    LocalMiniLM,
    OpenAIEmbeddings,
    PrefetchedQuery,
    default_tokenizer_path,
    embedder_from_env,
)
from memactors.adapters.models.vector_cache import CachedEmbedder
from memactors.adapters.runtime.settings import Settings
from tests.conftest import FIXTURES
from tests.fake_openai import FakeOpenAI

FIXTURE = FIXTURES / "similarity_pairs.json"


@pytest.fixture(scope="module")
def model() -> LocalMiniLM:
    return LocalMiniLM()


def test_paraphrases_land_closer_than_unrelated_sentences(model: LocalMiniLM) -> None:
    v = model.embed(["Use PostgreSQL as the primary database", "We chose Postgres for storage",
                     "The CI pipeline runs on GitHub Actions"])
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > 0.5 > v[0] @ v[2]


def test_order_is_kept_across_mixed_lengths_and_batches(model: LocalMiniLM) -> None:
    texts = [("word " * (i % 7 * 20)) + f"item {i}" for i in range(70)]
    together = model.embed(texts)
    alone = np.stack([model.embed([t])[0] for t in texts[:5]])
    assert np.allclose(together[:5], alone, atol=1e-4)
    assert model.embed([]).shape == (0, 384)


def test_a_tampered_tokenizer_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "tokenizer.json"
    shutil.copy(default_tokenizer_path(), copy)
    copy.write_bytes(copy.read_bytes() + b" ")
    with pytest.raises(EmbeddingModelError, match="sha256"):
        LocalMiniLM(tokenizer_path=copy).embed(["x"])


def test_a_prefetched_query_is_the_vector_the_optimised_model_gives(model: LocalMiniLM) -> None:
    query = "how do we retry payment webhooks"
    prefetched = PrefetchedQuery(embedder_from_env({}, one_shot=True), query)
    assert prefetched.model_id == model.model_id and prefetched.dimensions == 384
    assert np.allclose(prefetched.embed([query]), model.embed([query]), atol=1e-5)
    other = ["Use PostgreSQL", "Retries must be idempotent"]
    assert np.allclose(prefetched.embed(other), model.embed(other), atol=1e-5)  # anything else: the model itself


def test_a_prefetch_that_failed_raises_where_the_vector_is_asked_for(tmp_path: Path) -> None:
    copy = tmp_path / "tokenizer.json"
    shutil.copy(default_tokenizer_path(), copy)
    copy.write_bytes(copy.read_bytes() + b" ")
    prefetched = PrefetchedQuery(LocalMiniLM(tokenizer_path=copy), "query")
    with pytest.raises(EmbeddingModelError, match="sha256"):
        prefetched.embed(["query"])


def test_the_default_cluster_threshold_separates_the_labelled_pairs(model: LocalMiniLM) -> None:
    """Evidence for MEMACTORS_CLUSTER_THRESHOLD (see bench/threshold_eval.py and docs/benchmarks.md)."""
    pairs = json.loads(FIXTURE.read_text())
    a = model.embed([p["a"] for p in pairs])
    b = model.embed([p["b"] for p in pairs])
    sims = (a * b).sum(axis=1)
    same = np.array([p["same"] for p in pairs])
    threshold = Settings().cluster_threshold
    predicted = sims >= threshold
    precision = (predicted & same).sum() / predicted.sum()
    recall = (predicted & same).sum() / same.sum()
    assert precision >= 0.9 and recall >= 0.8
    means = {c: sims[[p["category"] == c for p in pairs]].mean() for c in {p["category"] for p in pairs}}
    assert means["paraphrase"] > means["replaced_decision"] > means["compatible_addition"] > means["unrelated_lookalike"]


def test_the_cache_embeds_each_text_once_and_survives_corruption(model: LocalMiniLM, tmp_path: Path) -> None:
    cache = CachedEmbedder(model, tmp_path)
    first = cache.embed(["alpha fact", "beta fact", "alpha fact"])
    assert cache.misses == 2 and cache.hits == 1
    cache.save()
    again = CachedEmbedder(model, tmp_path)
    assert np.allclose(again.embed(["beta fact", "alpha fact"]), first[[1, 0]])
    assert again.misses == 0
    for file in tmp_path.iterdir():
        file.write_bytes(b"garbage")
    broken = CachedEmbedder(model, tmp_path)
    assert broken.embed(["alpha fact"]).shape == (1, 384) and broken.misses == 1


def test_an_openai_compatible_endpoint_is_retried_and_normalised() -> None:
    with FakeOpenAI() as server:
        server.script_embeddings_failure(429)
        embedder = OpenAIEmbeddings(model="text-embedding-3-small", base_url=server.base_url, api_key="sk-test",
                                    backoff=0.01)
        vectors = embedder.embed(["one", "two", "three"])
    assert vectors.shape == (3, server.embedding_dimensions)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert [r["path"] for r in server.requests].count("/v1/embeddings") == 2


def test_embeddings_are_chosen_by_environment() -> None:
    assert isinstance(embedder_from_env({}), LocalMiniLM)
    assert isinstance(embedder_from_env({"MEMACTORS_EMBEDDINGS": "openai", "OPENAI_API_KEY": "k"}), OpenAIEmbeddings)
    with pytest.raises(ValueError, match="not one of"):
        embedder_from_env({"MEMACTORS_EMBEDDINGS": "word2vec"})
