"""The recall index's entries as a table: the columns recall ranks on, and rows parsed only when read.

A cold `recall` ranks every entry but shows ten; validating 10,000 entries'
JSON cost more than anything else it does after loading the model. So the
recall index stores, beside each entry's JSON (one blob and its offsets),
the few columns ranking needs — tier, kind, retention score, quality,
whether a newer memory replaced it, namespace, and the row a result is
shown as (the most complete copy of its capture) — and `EntryTable` parses
an entry the first time it is read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np
from numpy.typing import NDArray
from pydantic import TypeAdapter

from memactors.events.read_model import EntryKind, IndexedEntry
from memactors.events.tier import TIER_ORDER, Tier

_ENTRY = TypeAdapter(IndexedEntry)
_KINDS = (EntryKind.MEMORY, EntryKind.SUMMARY)


def tier_codes(tiers: frozenset[Tier] | set[Tier]) -> list[int]:
    """The column codes of `tiers`."""
    return [TIER_ORDER.index(t) for t in tiers]


@dataclass(frozen=True)
class EntryColumns:
    """One value per entry, row-aligned with the entries and the vectors."""

    tier: NDArray[np.uint8]  # position in TIER_ORDER
    kind: NDArray[np.uint8]  # position in (memory, summary)
    score: NDArray[np.float32]  # retention
    quality: NDArray[np.float32]
    superseded: NDArray[np.bool_]
    namespace: NDArray[np.int32]  # position in `namespaces`
    head: NDArray[np.int32]  # the row this entry is shown as: its capture's most complete copy, else itself
    namespaces: tuple[str, ...]


class EntryTable(Sequence[IndexedEntry]):
    """The entries, each parsed on first access and kept; `row_of` finds an entry by id."""

    def __init__(self, blob: bytes, offsets: NDArray[np.int64], ids: list[str]) -> None:
        self._blob, self._offsets, self._ids = blob, offsets, ids
        self._parsed: dict[int, IndexedEntry] = {}
        self._rows: dict[str, int] | None = None

    def __len__(self) -> int:
        return len(self._ids)

    @overload
    def __getitem__(self, row: int) -> IndexedEntry: ...

    @overload
    def __getitem__(self, row: slice) -> list[IndexedEntry]: ...

    def __getitem__(self, row: int | slice) -> IndexedEntry | list[IndexedEntry]:
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        if row < 0:
            row += len(self)
        if not 0 <= row < len(self):
            raise IndexError(row)
        entry = self._parsed.get(row)
        if entry is None:
            entry = _ENTRY.validate_json(self._blob[int(self._offsets[row]):int(self._offsets[row + 1])])
            self._parsed[row] = entry
        return entry

    def __iter__(self) -> Iterator[IndexedEntry]:
        return (self[i] for i in range(len(self)))

    def row_of(self, entry_id: str) -> int | None:
        if self._rows is None:
            self._rows = {entry_id: row for row, entry_id in enumerate(self._ids)}
        return self._rows.get(entry_id)


def table_arrays(entries: Sequence[IndexedEntry]) -> dict[str, NDArray[np.generic]]:
    """What the recall index stores for `entries`: their JSON blob and offsets, ids, and the columns."""
    blobs = [_ENTRY.dump_json(e) for e in entries]
    offsets = np.zeros(len(blobs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(b) for b in blobs])
    namespaces = sorted({e.namespace for e in entries})
    canonical = {e.key: row for row, e in enumerate(entries) if e.kind is EntryKind.MEMORY and e.copy_of is None}
    return {
        "entry_blob": np.frombuffer(b"".join(blobs), dtype=np.uint8),
        "entry_offsets": offsets,
        "entry_ids": _json_bytes([e.id for e in entries]),
        "namespaces": _json_bytes(namespaces),
        "tier": np.asarray([TIER_ORDER.index(e.tier) for e in entries], dtype=np.uint8),
        "kind": np.asarray([_KINDS.index(e.kind) for e in entries], dtype=np.uint8),
        "score": np.asarray([e.score for e in entries], dtype=np.float32),
        "quality": np.asarray([e.quality for e in entries], dtype=np.float32),
        "superseded": np.asarray([bool(e.superseded_by) for e in entries], dtype=np.bool_),
        "namespace": np.asarray([namespaces.index(e.namespace) for e in entries], dtype=np.int32),
        "head": np.asarray([canonical.get(e.copy_of or e.key, row) if e.kind is EntryKind.MEMORY else row
                            for row, e in enumerate(entries)], dtype=np.int32),
    }


def load_table(data: Mapping[str, NDArray[np.generic]]) -> tuple[EntryTable, EntryColumns]:
    """The entries and columns `table_arrays` stored (raises KeyError or ValueError when they are not there)."""
    ids = json.loads(data["entry_ids"].tobytes())
    offsets = np.asarray(data["entry_offsets"], dtype=np.int64)
    columns = EntryColumns(
        tier=data["tier"], kind=data["kind"], score=data["score"], quality=data["quality"],
        superseded=data["superseded"], namespace=data["namespace"], head=data["head"],
        namespaces=tuple(json.loads(data["namespaces"].tobytes())),
    )
    if not all(len(column) == len(ids) for column in (columns.tier, columns.kind, columns.score, columns.quality,
                                                     columns.superseded, columns.namespace, columns.head)) \
            or len(offsets) != len(ids) + 1:
        raise ValueError("the recall index's columns do not line up")
    return EntryTable(data["entry_blob"].tobytes(), offsets, ids), columns


def _json_bytes(value: object) -> NDArray[np.uint8]:
    return np.frombuffer(json.dumps(value).encode(), dtype=np.uint8)
