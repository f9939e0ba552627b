"""Merging two versions of one state record: the same result whichever clone merges."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given
from hypothesis import strategies as st

from memactors.adapters.git.memory_store import EDGES_REF, META_REF, SUMMARIES_REF
from memactors.adapters.git.notes_merge import STATE_KINDS, merge_runs_note
from memactors.adapters.git.state_codec import encode_runs
from memactors.events.edge import Edge, EdgeType
from memactors.events.metadata import MemoryMeta
from memactors.events.summary import Summary
from memactors.events.tier import Tier
from tests.conftest import NOW

_when = st.integers(0, 5).map(lambda d: NOW - timedelta(days=d))
_maybe_key = st.sampled_from([None, "k2", "k3"])

metas = st.builds(
    MemoryMeta, key=st.just("k1"), id=st.just("decisions:" + "a" * 40 + ":0"), namespace=st.just("decisions"),
    commit=st.sampled_from(["a" * 40, "b" * 40]), created=_when, last_access=st.none() | _when,
    activation_count=st.integers(0, 5), superseded_by=_maybe_key, consolidated_into=st.sampled_from([None, "s1", "s2"]),
    cluster_id=st.sampled_from([None, "c1", "c2"]), tier=st.sampled_from(list(Tier)))
edges = st.builds(
    Edge, source_key=st.just("k1"), target_key=st.just("k2"), source_id=st.just("x"), target_id=st.just("y"),
    edge_type=st.just(EdgeType.CONTRADICTS), weight=st.floats(0, 1), reason=st.sampled_from(["a", "b"]),
    created_at=_when, consolidation_run_id=st.sampled_from(["r1", "r2"]),
    resolution=st.sampled_from([None, "both", "keep:k1", "keep:k2"]))
summaries = st.builds(
    Summary, id=st.just("s1"), cluster_id=st.just("c1"), text=st.sampled_from(["one", "two"]),
    source_keys=st.just(("k1", "k2", "k3")), earliest=st.just(NOW), latest=st.just(NOW),
    confidence=st.floats(0, 1), provider=st.sampled_from(["offline", "openai"]), model=st.just("m"),
    created_at=_when, run_id=st.sampled_from(["r1", "r2"]))


@given(metas, metas)
def test_two_metadata_records_of_one_memory_merge_the_same_from_either_side(a: MemoryMeta, b: MemoryMeta) -> None:
    both = STATE_KINDS[META_REF].both
    merged = both(a, b)
    assert merged == both(b, a)
    assert merged.activation_count == max(a.activation_count, b.activation_count)
    assert merged.created == min(a.created, b.created)
    assert (merged.superseded_by is None) == (a.superseded_by is None and b.superseded_by is None)


@given(edges, edges)
def test_two_records_of_one_edge_merge_the_same_from_either_side_and_keep_a_decision(a: Edge, b: Edge) -> None:
    both = STATE_KINDS[EDGES_REF].both
    merged = both(a, b)
    assert merged == both(b, a)
    assert (merged.resolution is None) == (a.resolution is None and b.resolution is None)


@given(summaries, summaries)
def test_two_summaries_of_one_cluster_merge_to_the_later_written_from_either_side(a: Summary, b: Summary) -> None:
    both = STATE_KINDS[SUMMARIES_REF].both
    assert both(a, b) == both(b, a) and both(a, b).created_at == max(a.created_at, b.created_at)


@given(st.lists(st.sampled_from(["r1", "r2", "r3", "r4"]), unique=True),
       st.lists(st.sampled_from(["r1", "r2", "r3", "r4"]), unique=True))
def test_two_run_notes_merge_to_the_same_bytes_from_either_side(mine: list[str], theirs: list[str]) -> None:
    def note(ids: list[str]) -> bytes:
        return encode_runs([{"run_id": rid, "started_at": NOW.isoformat(), "trigger": "manual"} for rid in ids])

    merged = merge_runs_note(note(mine), note(theirs))
    assert merged == merge_runs_note(note(theirs), note(mine)) or set(mine) == set(theirs)
    assert merged.count(b'"run_id"') == len(set(mine) | set(theirs))
