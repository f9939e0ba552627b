from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from memactors.actors.clustering import components, duplicate_groups, neighbour_pairs, split_oversized
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
    from memactors.actors.clustering import NeighbourGraph

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
