"""Vectors cached by content hash under git's common dir, so a text is embedded once."""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from memactors.actors.ports import Embedder

progress = logging.getLogger("memactors.progress")
#: Texts embedded per call when there are many, and how often the counter speaks (seconds).
PROGRESS_CHUNK = 256
PROGRESS_EVERY = 2.0


class CachedEmbedder:
    """An Embedder that asks `inner` only for texts it has not seen with that model.

    Vectors live in `<directory>/<model>.npy` with their sha256 keys in
    `<model>.keys.npy`; a missing or corrupt pair is an empty cache, never
    an error. `save()` writes atomically and only when something was added.
    """

    def __init__(self, inner: Embedder, directory: Path) -> None:
        self.inner = inner
        self.directory = directory
        self.hits = 0
        self.misses = 0
        self._index: dict[bytes, int] | None = None
        self._vectors: NDArray[np.float32] | None = None
        self._added: list[tuple[bytes, NDArray[np.float32]]] = []
        self._lock = threading.Lock()  # a daemon saves from one thread while a run embeds in another

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    def _files(self) -> tuple[Path, Path]:
        stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.inner.model_id)
        return self.directory / f"{stem}.npy", self.directory / f"{stem}.keys.npy"

    def _load(self) -> None:
        vectors_file, keys_file = self._files()
        self._index, self._vectors = {}, None
        try:
            vectors = np.load(vectors_file, allow_pickle=False)
            keys = np.load(keys_file, allow_pickle=False)
            if vectors.ndim == 2 and len(vectors) == len(keys) and keys.dtype == np.dtype("S32"):
                self._vectors = vectors.astype(np.float32, copy=False)
                self._index = {bytes(k): i for i, k in enumerate(keys)}
        except (OSError, ValueError):
            pass

    def _key(self, text: str) -> bytes:
        return hashlib.sha256(f"{self.inner.model_id}\0{text}".encode("utf-8", "surrogatepass")).digest()

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        with self._lock:
            return self._embed(texts)

    def _embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        if self._index is None:
            self._load()
        assert self._index is not None
        keys = [self._key(t) for t in texts]
        added = dict(self._added)
        missing = [i for i, k in enumerate(keys) if k not in self._index and k not in added]
        unique: dict[bytes, int] = {}
        for i in missing:
            unique.setdefault(keys[i], i)
        if unique:
            fresh = self._embed_with_progress([texts[i] for i in unique.values()])
            for row, key in enumerate(unique):
                added[key] = fresh[row]
                self._added.append((key, fresh[row]))
        self.misses += len(unique)
        self.hits += len(texts) - len(unique)
        rows = [self._vectors[self._index[k]] if k in self._index else added[k] for k in keys]  # type: ignore[index]
        if not rows:
            return np.zeros((0, self.inner.dimensions), dtype=np.float32)
        return np.stack(rows).astype(np.float32, copy=False)

    def _embed_with_progress(self, texts: list[str]) -> NDArray[np.float32]:
        """The inner model's vectors for `texts`, in chunks, with a counter and an estimate on the progress log
        (shown on a terminal only) at most every PROGRESS_EVERY seconds: thousands of texts take tens of seconds."""
        if len(texts) <= PROGRESS_CHUNK:
            return self.inner.embed(texts)
        started = last = time.monotonic()
        parts = []
        for start in range(0, len(texts), PROGRESS_CHUNK):
            parts.append(self.inner.embed(texts[start : start + PROGRESS_CHUNK]))
            done, now = min(start + PROGRESS_CHUNK, len(texts)), time.monotonic()
            if now - last >= PROGRESS_EVERY and done < len(texts):
                left = (now - started) / done * (len(texts) - done)
                progress.info("embedding %d/%d memories (%d%%), about %.0f s left", done, len(texts),
                              100 * done // len(texts), left)
                last = now
        return np.concatenate(parts)

    def save(self) -> None:
        """Persist what was added since loading; failures leave the old files (it is only a cache)."""
        with self._lock:
            self._save()

    def _save(self) -> None:
        if not self._added:
            return
        keys = np.array([k for k, _ in self._added], dtype="S32")
        vectors = np.stack([v for _, v in self._added]).astype(np.float32)
        if self._vectors is not None and self._index:
            old_keys = np.array(list(self._index), dtype="S32")
            keys = np.concatenate([old_keys, keys])
            vectors = np.concatenate([self._vectors, vectors])
        vectors_file, keys_file = self._files()
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            for target, data in ((vectors_file, vectors), (keys_file, keys)):
                tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
                with tmp.open("wb") as handle:
                    np.save(handle, data, allow_pickle=False)
                os.replace(tmp, target)
        except OSError:
            return
        self._vectors = vectors
        self._index = {bytes(k): i for i, k in enumerate(keys)}
        self._added = []
