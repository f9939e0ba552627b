"""Copy detection and similarity clustering, on vectors already computed.

Pure functions over numpy arrays (rows L2-normalised, so a dot product is
a cosine). Exact kNN is blocked numpy; above `crossover` rows pynndescent
builds an approximate graph instead (its numba compile costs ~20-30 s per
process, so small stores never touch it; a daemon compiles it in the
background with `warm_up_approximate` and may then cross over earlier).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from memactors.actors.algorithms.near_duplicates import copy_groups
from memactors.events.memory import Memory

#: How much of a body is embedded with its summary (MiniLM reads 256 word pieces anyway).
EMBED_CHARS = 2000


def embedding_text(memory: Memory) -> str:
    """The text of a memory that is embedded: its summary, then the start of its body."""
    return f"{memory.summary}\n{memory.body[:EMBED_CHARS]}".strip()


def duplicate_groups(memories: Sequence[Memory]) -> dict[str, list[str]]:
    """canonical key -> keys of its copies: the same content, or the same capture cut differently
    (actors/algorithms/near_duplicates.py).

    The newest memory of a group is canonical: it carries the latest
    timestamp of the fact, and a newer memory is never marked superseded by
    an older one; the rest are redundant. (Listings show the group's most
    complete copy, which may be an older one.)
    """
    by_key = {m.key: m for m in memories}
    groups: dict[str, list[Memory]] = {}
    for key, head in copy_groups(memories).items():
        groups.setdefault(head, []).append(by_key[key])
    result: dict[str, list[str]] = {}
    for members in groups.values():
        if len(members) > 1:
            members.sort(key=lambda m: (m.timestamp, m.key))
            result[members[-1].key] = [m.key for m in members[:-1]]
    return result


def neighbour_pairs(
    vectors: NDArray[np.float32], threshold: float, *, k: int = 15, crossover: int = 40_000, block: int = 2048
) -> list[tuple[int, int, float]]:
    """(i, j, cosine) with i < j for each row's k nearest rows at cosine >= threshold."""
    n = len(vectors)
    if n < 2:
        return []
    k = min(k, n - 1)
    if n >= crossover:
        return _approximate_pairs(vectors, threshold, k)
    rows_all, cols_all, vals_all = [], [], []
    for start in range(0, n, block):
        sims = vectors[start : start + block] @ vectors.T
        local = np.arange(sims.shape[0])
        sims[local, local + start] = -1.0  # not its own neighbour
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k] if k < n else np.argsort(-sims, axis=1)
        values = np.take_along_axis(sims, top, axis=1)
        keep = values >= threshold
        rows_all.append(np.broadcast_to((local + start)[:, None], top.shape)[keep])
        cols_all.append(top[keep])
        vals_all.append(values[keep])
    rows, cols, vals = np.concatenate(rows_all), np.concatenate(cols_all), np.concatenate(vals_all)
    low, high = np.minimum(rows, cols).astype(np.int64), np.maximum(rows, cols).astype(np.int64)
    codes, first = np.unique(low * n + high, return_index=True)
    return [(int(c // n), int(c % n), float(vals[f])) for c, f in zip(codes, first)]


def _approximate_pairs(vectors: NDArray[np.float32], threshold: float, k: int) -> list[tuple[int, int, float]]:
    n = len(vectors)
    indices, sims = approximate_neighbours(vectors, k)
    keep = sims >= threshold
    rows = np.broadcast_to(np.arange(n)[:, None], indices.shape)[keep]
    cols, vals = indices[keep], sims[keep]
    low, high = np.minimum(rows, cols), np.maximum(rows, cols)
    codes, first = np.unique(low * n + high, return_index=True)
    return [(int(c // n), int(c % n), float(vals[f])) for c, f in zip(codes, first)]


def approximate_neighbours(vectors: NDArray[np.float32], k: int) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
    """Each row's `k` approximate nearest other rows, by pynndescent: (indices, cosines), best first."""
    from pynndescent import NNDescent  # heavy import and numba compile: only for big stores

    index = NNDescent(np.ascontiguousarray(vectors, dtype=np.float32), metric="cosine", n_neighbors=k + 1,
                      random_state=0, low_memory=True)
    neighbours, distances = index.neighbor_graph
    return without_self(np.asarray(neighbours, dtype=np.int64), (1.0 - distances).astype(np.float32), k)


def without_self(indices: NDArray[np.int64], sims: NDArray[np.float32], k: int) -> tuple[NDArray[np.int64],
                                                                                          NDArray[np.float32]]:
    """`k` of each row's `k + 1` candidates: its own index dropped or, when the search missed it,
    its weakest candidate. Missing candidates (index -1) get cosine -inf, so no threshold keeps them."""
    n = len(indices)
    own = indices == np.arange(n)[:, None]
    drop = np.where(own.any(axis=1), own.argmax(axis=1), indices.shape[1] - 1)
    keep = np.ones(indices.shape, dtype=bool)
    keep[np.arange(n), drop] = False
    idx = indices[keep].reshape(n, -1)[:, :k].copy()
    val = sims[keep].reshape(n, -1)[:, :k].copy()
    missing = idx < 0
    idx[missing], val[missing] = 0, -np.inf
    return idx, val


def warm_up_approximate(dimensions: int = 384, rows: int = 2000) -> None:
    """Compile pynndescent's numba code for this process, on random data, through the very call
    `approximate_neighbours` makes (same dtype and options). Blocking for ~20-30 s the first time."""
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(rows, dimensions)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    approximate_neighbours(vectors, 15)


def components(n: int, pairs: Sequence[tuple[int, int, float]]) -> list[list[int]]:
    """Connected components of size >= 2, each sorted, largest first."""
    if not pairs:
        return []
    rows = np.fromiter((p[0] for p in pairs), dtype=np.int64, count=len(pairs))
    cols = np.fromiter((p[1] for p in pairs), dtype=np.int64, count=len(pairs))
    return _labelled(n, rows, cols)


def _labelled(n: int, rows: NDArray[np.int64], cols: NDArray[np.int64]) -> list[list[int]]:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    order = np.argsort(labels, kind="stable")
    groups = np.split(order, np.flatnonzero(np.diff(labels[order])) + 1)
    return sorted((sorted(g.tolist()) for g in groups if len(g) > 1), key=lambda g: (-len(g), g))


def split_oversized(
    members: list[int], vectors: NDArray[np.float32], threshold: float, max_size: int, step: float = 0.03
) -> list[list[int]]:
    """Split a component larger than `max_size` by raising the threshold inside it.

    Chains of single links are what make giant components; a stricter
    threshold breaks them at their weakest links. Pieces that stay too big
    at cosine 0.99 are cut into chunks around their centroid order.
    """
    if len(members) <= max_size:
        return [members]
    sub = vectors[members]
    sims = sub @ sub.T
    rows, cols = np.nonzero(np.triu(sims >= threshold, k=1))
    weights = sims[rows, cols]
    level = threshold
    while level < 0.99:
        level += step
        strong = weights >= level
        parts = _labelled(len(members), rows[strong], cols[strong])
        if all(len(p) <= max_size for p in parts) or not parts:
            break
    else:
        parts = [list(range(len(members)))]
    result: list[list[int]] = []
    for part in parts:
        if len(part) <= max_size:
            result.append([members[i] for i in part])
        else:
            centroid = sub[part].mean(axis=0)
            ordered = sorted(part, key=lambda i: -float(sub[i] @ centroid))
            for start in range(0, len(ordered), max_size):
                chunk = ordered[start : start + max_size]
                if len(chunk) > 1:
                    result.append(sorted(members[i] for i in chunk))
    return result


class NeighbourGraph:
    """Each row's `k` nearest rows (index, cosine), kept between runs: exact, or built by
    pynndescent (`approximate`) for big stores.

    `extended` adds rows in O(new × n) instead of recomputing O(n²): new
    rows get their own exact top k, and old rows take a new row in place of
    their weakest neighbour when it is closer — the same lists a full exact
    computation gives (up to ties) when the graph was exact.
    """

    approximate = False

    def __init__(self, keys: Sequence[str], vectors: NDArray[np.float32], k: int = 15, block: int = 2048) -> None:
        self.keys = list(keys)
        self.vectors = vectors
        n = len(keys)
        self.k = min(k, max(0, n - 1))
        self.top_idx = np.zeros((n, self.k), dtype=np.int64)
        self.top_val = np.full((n, self.k), -np.inf, dtype=np.float32)
        if self.k == 0:
            return
        for start in range(0, n, block):
            rows = np.arange(start, min(n, start + block))
            self._fill(rows, vectors[rows] @ vectors.T)

    @classmethod
    def approximated(cls, keys: Sequence[str], vectors: NDArray[np.float32], k: int = 15) -> NeighbourGraph:
        """The graph pynndescent finds (compiles numba unless warm); exact when there are too few rows
        for an approximate search to make sense."""
        if len(keys) <= 2 * (k + 1):
            return cls(keys, vectors, k)
        graph = cls.__new__(cls)
        graph.keys, graph.vectors, graph.k = list(keys), vectors, min(k, max(0, len(keys) - 1))
        graph.top_idx, graph.top_val = approximate_neighbours(vectors, graph.k)
        graph.approximate = True
        return graph

    def _fill(self, rows: NDArray[np.int64], sims: NDArray[np.float32]) -> None:
        sims[np.arange(len(rows)), rows] = -np.inf  # not its own neighbour
        top = np.argpartition(-sims, self.k - 1, axis=1)[:, : self.k]
        self.top_idx[rows] = top
        self.top_val[rows] = np.take_along_axis(sims, top, axis=1)

    def extended(self, keys: Sequence[str], vectors: NDArray[np.float32], *, max_new: int) -> NeighbourGraph | None:
        """The graph of `keys` (a superset of ours, any order), or None when a full build is due."""
        old = {key: i for i, key in enumerate(self.keys)}
        new_rows = np.array([p for p, key in enumerate(keys) if key not in old], dtype=np.int64)
        n = len(keys)
        if len(keys) - len(new_rows) != len(self.keys) or len(new_rows) > max_new or min(15, n - 1) != self.k:
            return None
        graph = NeighbourGraph.__new__(NeighbourGraph)
        graph.keys, graph.vectors, graph.k = list(keys), vectors, self.k
        graph.approximate = self.approximate
        remap = np.empty(len(self.keys), dtype=np.int64)
        for position, key in enumerate(keys):
            if key in old:
                remap[old[key]] = position
        graph.top_idx = np.zeros((n, self.k), dtype=np.int64)
        graph.top_val = np.full((n, self.k), -np.inf, dtype=np.float32)
        graph.top_idx[remap] = remap[self.top_idx]
        graph.top_val[remap] = self.top_val
        if len(new_rows) == 0:
            return graph
        sims = vectors[new_rows] @ vectors.T
        graph._fill(new_rows, sims.copy())
        is_old = np.ones(n, dtype=bool)
        is_old[new_rows] = False
        for q, row in enumerate(new_rows):
            column = sims[q]
            weakest = graph.top_val.argmin(axis=1)
            better = np.flatnonzero(is_old & (column > graph.top_val[np.arange(n), weakest]))
            graph.top_idx[better, weakest[better]] = row
            graph.top_val[better, weakest[better]] = column[better]
        return graph

    def pairs(self, threshold: float) -> list[tuple[int, int, float]]:
        """(i, j, cosine), i < j, for every listed neighbour at cosine >= threshold."""
        n = len(self.keys)
        keep = self.top_val >= threshold
        rows = np.broadcast_to(np.arange(n)[:, None], self.top_idx.shape)[keep]
        cols, vals = self.top_idx[keep], self.top_val[keep]
        low, high = np.minimum(rows, cols), np.maximum(rows, cols)
        codes, first = np.unique(low * n + high, return_index=True)
        return [(int(c // n), int(c % n), float(vals[f])) for c, f in zip(codes, first)]
