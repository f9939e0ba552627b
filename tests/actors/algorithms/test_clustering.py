from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memactors.actors.algorithms.clustering import components, duplicate_groups, neighbour_pairs, split_oversized
from memactors.events.memory import Memory, memory_key

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def memory(summary: str, body: str = "", *, ns: str = "decisions", days: int = 0) -> Memory:
    when = T0 + timedelta(days=days)
    return Memory(key=memory_key(ns, when.isoformat(), summary, body), namespace=ns, commit="c" * 40,
                  index=days, upstream_index=days, timestamp=when, summary=summary, body=body)


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def test_duplicates_ignore_case_spacing_and_punctuation_and_keep_the_newest() -> None:
    a = memory("Use PostgreSQL!", "Chosen for JSONB.", days=0)
    b = memory("use postgresql", "chosen   for jsonb", days=5)
    c = memory("Use PostgreSQL", "Chosen for JSONB.", ns="learnings", days=6)
    d = memory("Use MySQL", days=7)
    assert duplicate_groups([a, b, c, d]) == {b.key: [a.key]}


@settings(max_examples=25, deadline=None)
@given(n=st.integers(min_value=2, max_value=60), seed=st.integers(0, 10_000), threshold=st.floats(0.0, 0.9))
def test_exact_neighbours_find_every_pair_a_brute_force_would(n: int, seed: int, threshold: float) -> None:
    rng = np.random.default_rng(seed)
    vectors = unit(rng.normal(size=(n, 8)))
    found = {(i, j) for i, j, _ in neighbour_pairs(vectors, threshold, k=n - 1, block=7)}
    sims = vectors @ vectors.T
    expected = {(i, j) for i in range(n) for j in range(i + 1, n) if sims[i, j] >= threshold}
    assert found == expected


def test_components_are_transitive_groups_of_two_or_more() -> None:
    assert components(6, [(0, 1, 0.9), (1, 2, 0.8), (4, 5, 0.7)]) == [[0, 1, 2], [4, 5]]


def test_an_oversized_chain_is_split_under_the_cap() -> None:
    rng = np.random.default_rng(1)
    base = rng.normal(size=(1, 16))
    vectors = unit(base + 0.35 * rng.normal(size=(50, 16)))
    members = list(range(50))
    parts = split_oversized(members, vectors, 0.5, 20)
    assert parts and all(2 <= len(p) <= 20 for p in parts)
    flat = [i for p in parts for i in p]
    assert len(flat) == len(set(flat))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(min_value=2, max_value=80), added=st.integers(min_value=0, max_value=6),
       seed=st.integers(0, 10_000))
def test_a_graph_extended_with_new_rows_equals_one_built_from_scratch(n: int, added: int, seed: int) -> None:
    from memactors.actors.algorithms.clustering import NeighbourGraph

    rng = np.random.default_rng(seed)
    vectors = unit(rng.normal(size=(n + added, 12)))
    keys = [f"k{i}" for i in range(n + added)]
    order = rng.permutation(n + added)  # new rows land anywhere, old rows move
    old = NeighbourGraph([keys[i] for i in range(n)], vectors[:n], k=15)
    keys_now, vectors_now = [keys[i] for i in order], vectors[order]
    grown = old.extended(keys_now, vectors_now, max_new=10)
    fresh = NeighbourGraph(keys_now, vectors_now, k=15)
    if min(15, n + added - 1) != min(15, n - 1):
        assert grown is None
        return
    assert grown is not None
    got = {(i, j): v for i, j, v in grown.pairs(0.1)}
    want = {(i, j): v for i, j, v in fresh.pairs(0.1)}
    near_threshold = {p for p, v in {**got, **want}.items() if abs(v - 0.1) < 1e-4}
    assert set(got) - near_threshold == set(want) - near_threshold
    assert all(abs(got[p] - want[p]) < 1e-4 for p in set(got) & set(want))


def test_without_self_drops_the_row_itself_or_its_weakest_candidate_and_blanks_missing_ones() -> None:
    from memactors.actors.algorithms.clustering import without_self

    indices = np.array([[0, 2, 1], [2, 0, 3], [3, 2, -1], [3, 1, 2]], dtype=np.int64)
    sims = np.array([[1.0, 0.9, 0.8], [0.7, 0.6, 0.5], [1.0, 0.4, -1.0], [1.0, 0.3, 0.2]], dtype=np.float32)
    idx, val = without_self(indices, sims, 2)
    assert idx.tolist() == [[2, 1], [2, 0], [3, 0], [1, 2]]
    assert val[0].tolist() == pytest.approx([0.9, 0.8]) and val[1].tolist() == pytest.approx([0.7, 0.6])
    assert val[2, 0] == pytest.approx(1.0) and val[2, 1] == -np.inf  # -1: no neighbour found, no pair
    assert val[3].tolist() == pytest.approx([0.3, 0.2])


def clustered(n: int, dims: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n // 10, dims))
    return unit(centres[rng.integers(0, len(centres), size=n)] + 0.5 * rng.normal(size=(n, dims)))


def test_an_approximate_graph_finds_the_exact_pairs_and_grows_exactly() -> None:
    """The one test that pays pynndescent's numba compile (~20-30 s): the approximate path is what
    every full kNN build of a big store (and of a warm daemon's mid-sized one) goes through."""
    from memactors.actors.algorithms.clustering import NeighbourGraph

    vectors = clustered(3000, 32, seed=4)
    keys = [f"k{i}" for i in range(len(vectors))]
    old = 2990
    approx = NeighbourGraph.approximated(keys[:old], vectors[:old])
    exact = NeighbourGraph(keys[:old], vectors[:old])
    assert approx.approximate and not exact.approximate
    want = {(i, j) for i, j, _ in exact.pairs(0.6)}
    got = {(i, j) for i, j, _ in approx.pairs(0.6)}
    assert len(want) > 1000 and len(want & got) >= 0.98 * len(want) and got <= want | {
        (i, j) for i, j, _ in neighbour_pairs(vectors[:old], 0.6, k=old - 1)}
    assert {(i, j) for i, j, _ in neighbour_pairs(vectors[:old], 0.6, crossover=2)} == got
    grown = approx.extended(keys, vectors, max_new=64)
    fresh = NeighbourGraph(keys, vectors)
    assert grown is not None and grown.approximate
    for row in range(old, len(keys)):  # new memories get their exact neighbours
        assert set(grown.top_idx[row]) == set(fresh.top_idx[row])


class RecordingCrossover:
    """A crossover that says how often the clusterer asked (once per full kNN build)."""

    def __init__(self, value: int) -> None:
        self.value = value
        self.asked = 0

    def __call__(self) -> int:
        self.asked += 1
        return self.value


async def test_the_clusterer_asks_its_crossover_at_each_full_build_and_not_when_a_graph_grows() -> None:
    import trio

    from memactors.actors.clusterer import Clusterer
    from memactors.adapters.models.embeddings import LocalMiniLM
    from memactors.bus.bus import Bus
    from memactors.events.pipeline import ClustersFormed, MemoriesScanned, RunRequested
    from memactors.events.state import StateSnapshot

    bus = Bus()
    formed = bus.subscribe("test", (ClustersFormed,))
    crossover = RecordingCrossover(10**9)
    clusterer = Clusterer(bus, LocalMiniLM(), threshold=0.6, crossover=crossover)
    topics = ["payment webhooks", "the search index", "CI caching", "log shipping", "rate limiting"]
    memories = [memory(f"Learned how {t} handles {a}", days=i * 5 + j, ns="learnings")
                for i, t in enumerate(topics) for j, a in enumerate(["retries", "timeouts", "alerts", "costs"])]

    async def run(members: list[Memory]) -> ClustersFormed:
        request = RunRequested(run_id=f"r{crossover.asked}-{len(members)}", trigger="test", started_at=T0)
        await clusterer.handle(MemoriesScanned(run_id=request.run_id, request=request, memories=tuple(members),
                                               skipped={}, warnings={}, prior=StateSnapshot(tips={}, meta={}),
                                               head=None))
        return await formed.receive()

    with trio.fail_after(60):
        assert clusterer.knn is None
        await run(memories[:-1])
        assert crossover.asked == 1 and clusterer.knn == "exact"
        await run(memories)  # one new memory: the kept graph grows by a row
        assert crossover.asked == 1
        await run(memories[1:])  # one vanished (a pruned note): a full build, which asks again
        assert crossover.asked == 2 and clusterer.knn == "exact"
