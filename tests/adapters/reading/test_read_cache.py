"""The read caches on disk: written atomically, rewritten only when the read model changed."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from memactors.adapters.reading.read_cache import CONTEXT_FILE, RECALL_FILE, ReadCache
from memactors.events.read_model import EntryKind, IndexedEntry, ReadModel
from memactors.events.tier import Tier

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
