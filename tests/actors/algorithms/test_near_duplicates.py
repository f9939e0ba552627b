"""Copies of one capture with different cuts fold into one group led by the most complete copy."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memactors.actors.algorithms.clustering import duplicate_groups
from memactors.actors.algorithms.near_duplicates import copy_groups, most_complete
from memactors.events.memory import Memory, memory_key

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
PASSAGE = ("Two hooks writing the index at the same time failed with database is locked. Turns out switching "
           "the connection to journal_mode=WAL lets readers and one writer work at once.")


def memory(summary: str, body: str = "", *, days: int = 0, ns: str = "learnings") -> Memory:
    when = NOW + timedelta(days=days)
    return Memory(key=memory_key(ns, when.isoformat(), summary, body), namespace=ns, commit="a" * 40, index=0,
                  upstream_index=0, timestamp=when, summary=summary, body=body, tags=("auto-captured",))


def test_a_shorter_cut_of_the_same_capture_collapses_into_the_longer() -> None:
    longer = memory(PASSAGE[:97] + "...", "..." + PASSAGE + " Next we moved on...", days=0)
    shorter = memory(PASSAGE[20:117] + "...", "..." + PASSAGE[20:], days=3)
    other = memory("Batching embeddings made reindexing faster", "Batches of 64 cut it to 18 seconds.", days=1)
    groups = copy_groups([longer, shorter, other])
    assert groups[shorter.key] == longer.key and groups[longer.key] == longer.key  # the most complete leads
    assert groups[other.key] == other.key
    assert duplicate_groups([longer, shorter, other]) == {shorter.key: [longer.key]}  # the newest is canonical
    # the read model finds the same heads from the clusterer's copy -> canonical map
    assert most_complete([longer, shorter, other], {longer.key: shorter.key}) == groups


def test_a_short_statement_inside_a_longer_one_is_not_a_copy() -> None:
    short = memory("Use SQLite", ns="decisions")
    longer = memory("Use SQLite, later Postgres", ns="decisions", days=1)
    assert copy_groups([short, longer]) == {short.key: short.key, longer.key: longer.key}


def test_copies_share_a_namespace() -> None:
    a = memory("We store the index in SQLite", PASSAGE, ns="learnings")
    b = memory("We store the index in SQLite", PASSAGE, ns="decisions", days=1)
    assert copy_groups([a, b]) == {a.key: a.key, b.key: b.key}
