"""The read caches on disk: written atomically, rewritten only when the read model changed."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from memactors.adapters.reading.read_cache import CONTEXT_FILE, RECALL_FILE, ReadCache, ReadModelMissing
from memactors.events.read_model import EntryKind, IndexedEntry, ReadModel
from memactors.events.tier import TIER_ORDER, Tier

WHEN = datetime(2026, 6, 1, tzinfo=timezone.utc)


def model(summary: str, run_id: str) -> ReadModel:
    entry = IndexedEntry(kind=EntryKind.MEMORY, id="decisions:" + "a" * 40 + ":0", key="k1", namespace="decisions",
                         tier=Tier.HOT, score=0.7, timestamp=WHEN, summary=summary)
    return ReadModel(run_id=run_id, generated_at=WHEN, memory_tips={"refs/notes/mem/decisions": "b" * 40},
                     entries=(entry,), embedding_texts=(summary,))


def test_a_run_that_changes_nothing_rewrites_no_cache_file(tmp_path: Path) -> None:
    cache = ReadCache(tmp_path)
    cache.write(model("Use PostgreSQL", "r1"))
    files = [tmp_path / "memactors" / name for name in (RECALL_FILE, CONTEXT_FILE)]
    inodes = [f.stat().st_ino for f in files]
    cache.write(model("Use PostgreSQL", "r2"))
    assert [f.stat().st_ino for f in files] == inodes  # not replaced
    assert cache.load().run_id == "r1"
    cache.write(model("Use PostgreSQL 16", "r3"))
    assert [f.stat().st_ino for f in files] != inodes and cache.load().entries[0].summary == "Use PostgreSQL 16"
    files[1].unlink()
    cache.write(model("Use PostgreSQL 16", "r4"))  # same model, a file missing: written again
    assert files[1].exists() and cache.load().run_id == "r4"


def test_the_ranking_columns_agree_with_the_entries_they_stand_for(dormant_store) -> None:
    index = ReadCache(dormant_store.store.path / ".git").load()
    columns = index.columns
    keys = {e.key: row for row, e in enumerate(index.entries) if e.kind is EntryKind.MEMORY and e.copy_of is None}
    assert len(index.entries) == len(columns.tier) > 100
    for row, entry in enumerate(index.entries):
        assert TIER_ORDER[columns.tier[row]] is entry.tier
        assert columns.namespaces[columns.namespace[row]] == entry.namespace
        assert columns.score[row] == pytest.approx(entry.score, abs=1e-6)
        assert columns.quality[row] == pytest.approx(entry.quality, abs=1e-6)
        assert bool(columns.superseded[row]) == bool(entry.superseded_by)
        canonical = entry.copy_of or entry.key
        expected = keys[canonical] if entry.kind is EntryKind.MEMORY and canonical in keys else row
        assert columns.head[row] == expected  # a copy is shown as its capture's most complete copy
        assert index.entries.row_of(entry.id) is not None


def test_a_recall_index_of_an_older_layout_asks_for_a_run(tmp_path: Path) -> None:
    cache = ReadCache(tmp_path)
    cache.write(model("Use PostgreSQL", "r1"))
    path = tmp_path / "memactors" / RECALL_FILE
    with np.load(path) as data:
        header = json.loads(data["header"].tobytes())
        vectors = data["vectors"]
    header.pop("format")
    np.savez(path, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8), vectors=vectors,
             entries=np.frombuffer(b"[]", dtype=np.uint8))
    with pytest.raises(ReadModelMissing, match="format None"):
        cache.load()
