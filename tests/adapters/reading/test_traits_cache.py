"""The content-traits cache: computed once per memory, kept across runs, never an error when damaged."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from memactors.adapters.reading.traits_cache import _FIELDS, TRAITS_FILE, TraitsCache
from memactors.events.memory import Memory, memory_key
from memactors.events.quality import content_traits

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def memory(summary: str, body: str = "") -> Memory:
    return Memory(key=memory_key("learnings", NOW.isoformat(), summary, body), namespace="learnings",
                  commit="a" * 40, index=0, upstream_index=0, timestamp=NOW, summary=summary, body=body,
                  tags=("auto-captured",))


A = memory("...we decided on this. Use WAL mode for every connection opened by...", "...Use WAL mode...")
B = memory("Batching embeddings made reindexing ten times faster", "Batches of 64 took 18 seconds.")


def test_traits_survive_the_process_and_match_a_fresh_computation(tmp_path: Path) -> None:
    first = TraitsCache(tmp_path)
    found = first.traits([A, B])
    first.save()
    again = TraitsCache(tmp_path).traits([A, B])
    assert again == found == {m.key: content_traits(summary=m.summary, body=m.body, tags=m.tags) for m in (A, B)}


def test_a_saved_file_keeps_only_memories_still_in_use(tmp_path: Path) -> None:
    first = TraitsCache(tmp_path)
    first.traits([A, B])
    first.save()
    second = TraitsCache(tmp_path)
    second.traits([B])
    second.save()
    assert A.key not in (tmp_path / TRAITS_FILE).read_text() and B.key in (tmp_path / TRAITS_FILE).read_text()


def test_a_corrupt_or_foreign_file_is_an_empty_cache(tmp_path: Path) -> None:
    wrong_row = json.dumps({"version": 1, "fields": list(_FIELDS), "traits": {B.key: [1, 2]}})
    for junk in ("{not json", '{"version": 1, "fields": ["title"], "traits": {}}', "[1, 2]", wrong_row):
        (tmp_path / TRAITS_FILE).write_text(junk)
        assert TraitsCache(tmp_path).traits([B])[B.key].title == B.summary


def test_a_saved_row_is_read_back_not_computed_again(tmp_path: Path) -> None:
    # every field of ContentTraits must be one the file's rows are checked for, or every row is dropped on load
    first = TraitsCache(tmp_path)
    first.traits([B])
    first.save()
    document = json.loads((tmp_path / TRAITS_FILE).read_text())
    document["traits"][B.key][0] = "read from the file"
    (tmp_path / TRAITS_FILE).write_text(json.dumps(document))
    assert TraitsCache(tmp_path).traits([B])[B.key].title == "read from the file"

