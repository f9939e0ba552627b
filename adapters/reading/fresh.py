"""Memories written since the last run, searchable at once beside the read model that run left.

A capture (by hand, by MCP, by an approved proposal) lands in `refs/notes/mem/*`
at once, but the read model is rebuilt only by a run. So a reader that finds
the memory refs moved past the tips the read model recorded reads the notes
that changed (`MemoryStore.memories_since`), flattens each new memory as a run
would (its title, quality, excerpt and terms), marks it `fresh` (new since
the last run: no tier yet, listed with the hot ones), embeds it with the same
model, and appends it to the index. Nothing is written: the next run takes it
in properly (tier, copies, supersession, summaries).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timezone

import numpy as np

from memactors.actors.algorithms.indexing import build_read_model
from memactors.actors.ports import Embedder
from memactors.adapters.reading.entry_table import EntryColumns, EntryTable, table_arrays
from memactors.adapters.reading.read_cache import RecallIndex
from memactors.events.memory import Memory
from memactors.events.metadata import MemoryMeta
from memactors.events.read_model import IndexedEntry
from memactors.events.tier import TIER_ORDER, Tier

#: More new memories than this since the last run are not read at query time (a run is due; recall says so).
MAX_FRESH = 500


class _Joined(EntryTable):
    """The stored entries followed by the fresh ones."""

    def __init__(self, stored: EntryTable, fresh: Sequence[IndexedEntry]) -> None:
        self._stored, self._fresh = stored, list(fresh)
        self._rows: dict[str, int] | None = None

    def __len__(self) -> int:
        return len(self._stored) + len(self._fresh)

    def __getitem__(self, row):  # type: ignore[override]
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        if row < 0:
            row += len(self)
        return self._stored[row] if row < len(self._stored) else self._fresh[row - len(self._stored)]

    def row_of(self, entry_id: str) -> int | None:
        row = self._stored.row_of(entry_id)
        if row is not None:
            return row
        if self._rows is None:
            self._rows = {e.id: len(self._stored) + i for i, e in enumerate(self._fresh)}
        return self._rows.get(entry_id)


def new_entries(index: RecallIndex, memories: Sequence[Memory], now: datetime | None = None
                ) -> tuple[list[IndexedEntry], list[str]]:
    """(entries, their embedding texts) for the memories the index does not hold, marked fresh."""
    fresh = [m for m in memories if index.entries.row_of(m.id) is None]
    if not fresh:
        return [], []
    now = now or datetime.now(timezone.utc)
    metas = {m.key: MemoryMeta(key=m.key, id=m.id, namespace=m.namespace, commit=m.commit, created=m.timestamp,
                               tier=Tier.HOT) for m in fresh}
    model = build_read_model(fresh, metas, {m.key: 1.0 for m in fresh}, (), run_id=index.run_id, generated_at=now,
                             memory_tips={})
    return ([e.model_copy(update={"fresh": True}) for e in model.entries], list(model.embedding_texts))


def with_fresh(index: RecallIndex, memories: Sequence[Memory], embedder: Embedder | None) -> RecallIndex:
    """`index` with the memories it does not hold appended (see the module); the same index when there are none."""
    entries, texts = new_entries(index, memories)
    if not entries:
        return index
    arrays = table_arrays(entries)
    old = index.columns
    fresh_names = arrays_names(arrays)
    names = list(old.namespaces) + [n for n in fresh_names if n not in old.namespaces]
    base = len(index.entries)
    columns = EntryColumns(
        tier=np.concatenate([old.tier, np.full(len(entries), TIER_ORDER.index(Tier.HOT), dtype=np.uint8)]),
        kind=np.concatenate([old.kind, arrays["kind"]]),
        score=np.concatenate([old.score, arrays["score"]]),
        quality=np.concatenate([old.quality, arrays["quality"]]),
        superseded=np.concatenate([old.superseded, arrays["superseded"]]),
        namespace=np.concatenate([old.namespace, np.asarray([names.index(fresh_names[i]) for i in arrays["namespace"]],
                                                             dtype=np.int32)]),
        head=np.concatenate([old.head, arrays["head"] + base]),
        namespaces=tuple(names),
    )
    vectors = index.vectors
    if vectors is not None:
        if embedder is not None and embedder.model_id == index.model_id:
            vectors = np.concatenate([vectors, embedder.embed(texts).astype(np.float32)])
        else:
            vectors = np.concatenate([vectors, np.zeros((len(entries), vectors.shape[1]), dtype=np.float32)])
    return replace(index, entries=_Joined(index.entries, entries), vectors=vectors, columns=columns,
                   lexical_rows=base if index.lexical is not None else None)


def empty_index(embedder: Embedder | None) -> RecallIndex:
    """An index holding nothing (no run has built one yet), for `with_fresh` to fill."""
    columns = EntryColumns(tier=np.zeros(0, np.uint8), kind=np.zeros(0, np.uint8), score=np.zeros(0, np.float32),
                           quality=np.zeros(0, np.float32), superseded=np.zeros(0, np.bool_),
                           namespace=np.zeros(0, np.int32), head=np.zeros(0, np.int32), namespaces=())
    vectors = np.zeros((0, embedder.dimensions), np.float32) if embedder is not None else None
    return RecallIndex(entries=EntryTable(b"", np.zeros(1, np.int64), []), vectors=vectors,
                       model_id=embedder.model_id if embedder is not None else None, run_id="", generated_at="",
                       memory_tips={}, columns=columns)


def arrays_names(arrays) -> list[str]:
    """The namespace names `table_arrays` numbered its entries' namespace column by."""
    import json

    return json.loads(arrays["namespaces"].tobytes())
