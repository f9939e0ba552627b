"""Clusterer: collapses copies of a capture (exact or cut differently), embeds the rest and groups them by meaning."""

from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np
import trio

from memactors.actors.algorithms.clustering import (
    NeighbourGraph,
    components,
    duplicate_groups,
    embedding_text,
    split_oversized,
)
from memactors.actors.ports import Embedder
from memactors.bus.actor import Actor
from memactors.bus.bus import Bus
from memactors.events.cluster import Cluster, ClusterKind, cluster_id
from memactors.events.memory import Memory
from memactors.events.pipeline import ClustersFormed, MemoriesScanned

#: Characters of a body that go into its embedding (MiniLM reads 256 tokens anyway).
progress = logging.getLogger("memactors.progress")


class Clusterer(Actor):
    """On MemoriesScanned: duplicate groups by normalised content, then similarity clusters.

    Clusters come from the kNN graph at cosine >= `threshold` (never from
    time), split when larger than `max_size`. Two near neighbours of the
    same namespace at cosine >= `pair_threshold` that share no cluster
    (each memory's nearest such neighbour) form a pair for the judge: a replaced decision often reads less alike
    than a paraphrase. A cluster is `touched` when its membership differs
    from what its members carried after the last run, a pair when either
    memory is new, a group of duplicates when a copy is new or moved (or the
    run is `--full`): only touched ones cost LLM calls.
    """

    name = "clusterer"
    subscribes = (MemoriesScanned,)
    publishes = (ClustersFormed,)

    def __init__(
        self, bus: Bus, embedder: Embedder, *, threshold: float, pair_threshold: float | None = None,
        max_size: int = 20, crossover: int | Callable[[], int] = 40_000,
    ) -> None:
        super().__init__(bus)
        self._embedder = embedder
        self._threshold = threshold
        self._pair_threshold = min(threshold, pair_threshold if pair_threshold is not None else threshold)
        # state kept between runs (a daemon's warm path): the exact kNN graph, splits, clusters
        self._graph: NeighbourGraph | None = None
        self._splits: dict[tuple[str, ...], list[list[str]]] = {}
        self._clusters: dict[tuple[str, ...], Cluster] = {}
        self._max_size = max_size
        self._crossover = crossover

    async def handle(self, event: MemoriesScanned) -> None:  # type: ignore[override]
        progress.info("embedding and clustering %d memories...", len(event.memories))
        formed = await trio.to_thread.run_sync(self._form, event)
        touched = sum(c.touched for c in formed.clusters)
        progress.info("%d clusters and pairs, %d new or changed", len(formed.clusters), touched)
        await self.bus.publish(formed)

    def _form(self, scanned: MemoriesScanned) -> ClustersFormed:
        memories = sorted(scanned.memories, key=lambda m: (m.timestamp, m.key))
        prior = scanned.prior.meta
        full = scanned.request.full

        def touched(keys: tuple[str, ...], cid: str) -> bool:
            return full or any(prior.get(k) is None or prior[k].cluster_id != cid for k in keys)

        def is_new(keys: tuple[str, ...], _cid: str) -> bool:
            # a memory sits in one summarized cluster but possibly several pairs: pairs are
            # judged again only when one of their memories is new
            return full or any(k not in prior for k in keys)

        clusters: list[Cluster] = []
        duplicate_of: dict[str, str] = {}
        for canonical, copies in duplicate_groups(memories).items():
            keys = (canonical, *copies)
            cid = cluster_id(keys)
            # the canonical copy's recorded cluster is its pair or semantic cluster, if any: judge by the copies
            changed = is_new(keys, cid) or any(prior[k].cluster_id != cid for k in copies)
            clusters.append(Cluster(id=cid, kind=ClusterKind.DUPLICATES, members=keys, touched=changed))
            duplicate_of.update({copy: canonical for copy in copies})
        canon = [m for m in memories if m.key not in duplicate_of]
        vectors = self._embedder.embed([embedding_text(m) for m in canon]) if canon else np.zeros((0, 1))
        pairs = self._neighbours([m.key for m in canon], vectors)
        strong = [p for p in pairs if p[2] >= self._threshold]
        grouped: dict[int, str] = {}
        position = {m.key: i for i, m in enumerate(canon)}
        splits: dict[tuple[str, ...], list[list[str]]] = {}
        for component in components(len(canon), strong):
            members = tuple(canon[i].key for i in component)
            parts = self._splits.get(members)
            if parts is None:
                parts = [[canon[i].key for i in part]
                         for part in split_oversized(component, vectors, self._threshold, self._max_size)]
            splits[members] = parts
            for part_keys in parts:
                part = sorted(position[key] for key in part_keys)
                cluster = self._cluster(part, canon, vectors, touched, is_new)
                clusters.append(cluster)
                grouped.update({i: cluster.id for i in part})
        self._splits = splits
        nearest: dict[int, tuple[float, int]] = {}
        for i, j, sim in pairs:
            if canon[i].namespace != canon[j].namespace or (i in grouped and grouped.get(i) == grouped.get(j)):
                continue
            for a, b in ((i, j), (j, i)):
                if sim > nearest.get(a, (-1.0, -1))[0]:
                    nearest[a] = (sim, b)
        seen: set[tuple[int, int]] = set()
        for a, (_, b) in sorted(nearest.items()):
            pair = (min(a, b), max(a, b))
            if pair not in seen:
                seen.add(pair)
                clusters.append(self._cluster(list(pair), canon, vectors, touched, is_new))
        self._clusters = {c.members: c for c in clusters if c.kind is not ClusterKind.DUPLICATES}
        return ClustersFormed(
            run_id=scanned.run_id, clusters=tuple(clusters), duplicate_of=duplicate_of, embedded=len(canon)
        )

    @property
    def knn(self) -> str | None:
        """How the kept kNN graph was built: `exact`, `approximate`, or None before a run."""
        if self._graph is None:
            return None
        return "approximate" if self._graph.approximate else "exact"

    def _neighbours(self, keys: list[str], vectors) -> list[tuple[int, int, float]]:
        graph = None
        if self._graph is not None:
            graph = self._graph.extended(keys, vectors, max_new=max(64, len(keys) // 20))
        if graph is None:
            self._graph = None  # free the old graph before building the new one
            crossover = self._crossover() if callable(self._crossover) else self._crossover
            if len(keys) >= crossover:
                progress.info("approximate kNN (pynndescent) over %d memories...", len(keys))
                graph = NeighbourGraph.approximated(keys, vectors)
            else:
                graph = NeighbourGraph(keys, vectors)
        self._graph = graph
        return graph.pairs(self._pair_threshold)

    def _cluster(self, part: list[int], canon: list[Memory], vectors, touched, is_new) -> Cluster:
        part = sorted(part)  # canon is oldest first, so members are too
        keys = tuple(canon[i].key for i in part)
        cached = self._clusters.get(keys)
        if cached is not None:
            return cached.model_copy(update={"touched": (touched if len(part) >= 3 else is_new)(keys, cached.id)})
        sub = vectors[part]
        sims = sub @ sub.T
        centroid = sub.mean(axis=0)
        norm = float(np.linalg.norm(centroid)) or 1.0
        cid = cluster_id(keys)
        cluster = Cluster(
            id=cid,
            kind=ClusterKind.SEMANTIC if len(part) >= 3 else ClusterKind.PAIR,
            members=keys,
            similarity=tuple(tuple(round(float(v), 4) for v in row) for row in sims),
            centrality=tuple(round(float(v), 4) for v in (sub @ centroid) / norm),
            touched=(touched if len(part) >= 3 else is_new)(keys, cid),
        )
        self._clusters[keys] = cluster
        return cluster
