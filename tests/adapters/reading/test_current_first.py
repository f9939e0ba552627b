"""What recall lists first when knowledge was replaced: what holds now, above what it replaced."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from memactors.actors.algorithms.indexing import build_read_model
from memactors.adapters.reading.read_cache import ReadCache
from memactors.adapters.reading.recall import search
from memactors.events.memory import Memory
from memactors.events.metadata import MemoryMeta
from memactors.events.summary import Summary
from memactors.events.tier import Tier

NOW = datetime(2026, 11, 1, tzinfo=timezone.utc)


def _memory(n: int, summary: str, days_ago: int) -> Memory:
    return Memory(key=f"k{n}", namespace="decisions", commit=f"{n:040x}", index=0, upstream_index=0,
                  timestamp=NOW - timedelta(days=days_ago), summary=summary, body=summary)


def test_a_summary_whose_facts_were_replaced_never_ranks_above_what_replaced_them(tmp_path: Path) -> None:
    postgres = _memory(1, "Use PostgreSQL for the database of the API", 40)
    pool = _memory(2, "The database connection pool holds 20 connections", 39)
    backups = _memory(3, "The database is backed up nightly to object storage", 38)
    sqlite = _memory(4, "Switch the database from PostgreSQL to SQLite for the API", 2)
    metas = {m.key: MemoryMeta(key=m.key, id=m.id, namespace=m.namespace, commit=m.commit, created=m.timestamp,
                               tier=Tier.HOT, superseded_by=sqlite.key if m is postgres else None)
             for m in (postgres, pool, backups, sqlite)}
    summary = Summary(id="s1", cluster_id="c1", text="Use PostgreSQL for the database of the API, pooled, backed up",
                      key_facts=("Use PostgreSQL for the database", "Pool of 20 database connections"),
                      superseded_facts=("Use PostgreSQL for the database of the API",),
                      source_keys=(postgres.key, pool.key, backups.key), earliest=postgres.timestamp,
                      latest=backups.timestamp, confidence=0.6, provider="offline", model="extractive",
                      created_at=NOW, run_id="r1")
    model = build_read_model([postgres, pool, backups, sqlite], metas, {k: 0.9 for k in metas}, [summary],
                             run_id="r1", generated_at=NOW, memory_tips={})
    cache = ReadCache(tmp_path)
    cache.write(model)
    # the summary matches these words best, yet one of its facts was replaced: what replaced it comes first
    query = "PostgreSQL database of the API, pooled"
    hits = search(cache.load(), query, limit=1)
    assert [h.entry.summary for h in hits] == ["Switch the database from PostgreSQL to SQLite for the API"]
    listed = [h.entry.summary for h in search(cache.load(), query, limit=5)]
    assert listed[:2] == ["Switch the database from PostgreSQL to SQLite for the API",
                          "Use PostgreSQL for the database of the API, pooled, backed up"]


def test_an_entry_names_what_it_replaced_newest_first_whatever_order_the_store_was_read_in() -> None:
    ports = [_memory(n, f"The API listens on port {8000 + n}", 50 - n) for n in range(1, 6)]
    current = _memory(9, "The API listens on port 9000", 1)
    metas = {m.key: MemoryMeta(key=m.key, id=m.id, namespace=m.namespace, commit=m.commit, created=m.timestamp,
                               tier=Tier.HOT, superseded_by=None if m is current else current.key)
             for m in (*ports, current)}
    listed = []
    for read_order in (ports, ports[::-1], ports[2:] + ports[:2]):
        model = build_read_model([*read_order, current], metas, {k: 0.9 for k in metas}, [], run_id="r1",
                                 generated_at=NOW, memory_tips={})
        listed.append(next(e.supersedes for e in model.entries if e.key == current.key))
    # what held just before comes first; the oldest fall off the end
    assert listed == [("The API listens on port 8005", "The API listens on port 8004", "The API listens on port 8003")] * 3
