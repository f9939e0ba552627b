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
