"""Structural merges of two sides' notes, and the detection of line-sort damage.

Memory notes merge entry by entry: every entry of either side is kept
byte-for-byte, identical entries once, in timestamp order, and the local
note's bytes stay untouched whenever the remote adds nothing or only newer
entries. State records merge by ID (three-way where a merge base says a
record was deleted on purpose); metadata merges field by field. Nothing
here touches git: callers hand in bytes and decoded records.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Generic, TypeVar

from memactors.adapters.git.memory_store import EDGES_REF, META_REF, RUNS_REF, SUMMARIES_REF
from memactors.adapters.git.note_format import _find_blocks
from memactors.adapters.git.state_codec import (
    UnreadableState,
    decode_edges_note,
    decode_meta_note,
    decode_runs_note,
    decode_summaries_note,
    encode_edges_note,
    encode_meta_note,
    encode_runs,
    encode_summaries_note,
    started,
)
from memactors.events.edge import REMOVED, Edge, EdgeType, merge_edge
from memactors.events.metadata import MemoryMeta, merge_meta
from memactors.events.summary import Summary

_EPOCH = datetime.min.replace(tzinfo=timezone.utc)
_IDENTITY_PREFIXES = ("timestamp:", "type:")

# --- memory notes ----------------------------------------------------------------------


@dataclass(frozen=True)
class RawEntry:
    """One entry of a note exactly as stored (ending with one newline), and its timestamp if readable.

    `text` is decoded with `surrogateescape`, so `encode()` gives back the
    original bytes even for invalid UTF-8.
    """

    text: str
    timestamp: datetime | None
    is_entry: bool = True  # False for text before the first entry (not a memory, kept anyway)

    def encode(self) -> bytes:
        return self.text.encode("utf-8", "surrogateescape")


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _front_matter_timestamp(lines: list[str]) -> datetime | None:
    """The `timestamp:` of a front matter, read leniently: ordering only, never identity."""
    for line in lines:
        if line.startswith("timestamp:"):
            raw = line[len("timestamp:") :].strip().strip("'\"")
            try:
                moment = datetime.fromisoformat(raw)
            except ValueError:
                return None
            return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)
    return None


def split_entries(data: bytes) -> list[RawEntry]:
    """A note cut into its entries, each byte-exact minus the blank separator lines after it.

    Text before the first entry (or a note with no entry at all) is kept as
    non-entry pieces, one per blank-line-separated paragraph, so nothing of
    a note is ever dropped by a merge.
    """
    text = _decode(data)
    lines = text.split("\n")
    blocks = _find_blocks(lines)
    pieces: list[RawEntry] = []

    def piece(start: int, end: int, timestamp: datetime | None, is_entry: bool) -> None:
        chunk = "\n".join(lines[start:end]).rstrip("\n")
        if chunk.strip():
            pieces.append(RawEntry(chunk + "\n", timestamp, is_entry))

    first = blocks[0].start if blocks else len(lines)
    # Text before the first entry (a note that is not YAML at all, say) is cut at blank lines,
    # the separators `git notes append` writes, so each appended message stays one piece.
    start = 0
    for i in range(first + 1):
        if i == first or not lines[i].strip():
            piece(start, i, None, False)
            start = i + 1
    for index, block in enumerate(blocks):
        end = blocks[index + 1].start if index + 1 < len(blocks) else len(lines)
        piece(block.start, end, _front_matter_timestamp(lines[block.start + 1 : block.close]), True)
    return pieces


def join_entries(entries: Iterable[RawEntry]) -> bytes:
    """Entries as one note, separated by a blank line as `git notes append` does."""
    return b"\n".join(entry.encode() for entry in entries)


def _effective_times(entries: list[RawEntry]) -> list[datetime]:
    """Each entry's sort time; one without a readable timestamp stays right after its predecessor."""
    times, last = [], _EPOCH
    for entry in entries:
        if entry.timestamp is not None:
            last = max(last, entry.timestamp)
        times.append(last)
    return times


def merge_memory_note(local: bytes, remote: bytes) -> bytes:
    """The union of two versions of one memory note; the local one wins every tie.

    Every entry of either side is kept byte-for-byte, identical entries once
    (a local duplicate stays: local entries are never touched). Entries
    are interleaved by timestamp, each side keeping its own order. When the
    remote adds nothing the local bytes come back unchanged; when it adds
    only entries newer than every local one they are appended to the local
    bytes, exactly as `git notes append` would have.
    """
    if local == remote or not remote.strip():
        return local
    if not local.strip():
        return remote
    mine = split_entries(local)
    known = {entry.text for entry in mine}
    theirs = split_entries(remote)
    # Sort times are taken in each entry's own note, so an entry keeps its place after its predecessors.
    their_times = _effective_times(theirs)
    new: list[RawEntry] = []
    new_times: list[datetime] = []
    for entry, moment in zip(theirs, their_times):
        if entry.text not in known:
            known.add(entry.text)
            new.append(entry)
            new_times.append(moment)
    if not new:
        return local
    mine_times = _effective_times(mine)
    if not mine or new_times[0] >= mine_times[-1]:
        head = local if local.endswith(b"\n") else local + b"\n"
        return head + b"\n" + join_entries(new)
    merged: list[RawEntry] = []
    i = j = 0
    while i < len(mine) or j < len(new):
        if j >= len(new) or (i < len(mine) and mine_times[i] <= new_times[j]):
            merged.append(mine[i])
            i += 1
        else:
            merged.append(new[j])
            j += 1
    return join_entries(merged) if merged else local


def entry_texts(data: bytes) -> set[str]:
    """The set of distinct entries (and non-entry text) of a note: what a merge must keep."""
    return {entry.text for entry in split_entries(data)}


def salvage_entries(data: bytes) -> bytes:
    """Only the well-formed entries of a note (drops text before the first entry, e.g. sorted debris)."""
    return join_entries(entry for entry in split_entries(data) if entry.is_entry)


# --- line-sort damage --------------------------------------------------------------------


def line_sort_damage(data: bytes) -> int:
    """How many entries a line-sorting merge (`cat_sort_uniq`) destroyed in this note; 0 if healthy.

    The signature of that merge: `timestamp:`/`type:` lines outside any
    entry's front matter, in a run of lines without blank lines that is
    sorted, free of duplicates and holds a `---` line.
    """
    if b"timestamp:" not in data and b"type:" not in data:
        return 0
    lines = _decode(data).split("\n")
    inside: set[int] = set()
    for block in _find_blocks(lines):
        inside.update(range(block.start, block.close + 1))
    stray = [i for i, line in enumerate(lines) if i not in inside and line.startswith(_IDENTITY_PREFIXES)]
    if not stray:
        return 0
    damaged_runs: set[tuple[int, int]] = set()
    for i in stray:
        start = i
        while start > 0 and lines[start - 1].strip() and start - 1 not in inside:
            start -= 1
        end = i
        while end + 1 < len(lines) and lines[end + 1].strip() and end + 1 not in inside:
            end += 1
        run = [line.encode("utf-8", "surrogateescape") for line in lines[start : end + 1]]
        if len(run) >= 3 and b"---" in run and all(a < b for a, b in zip(run, run[1:])):
            damaged_runs.add((start, end))
    if not damaged_runs:
        return 0
    scattered = [i for i in stray if lines[i].startswith("timestamp:") and any(s <= i <= e for s, e in damaged_runs)]
    return max(1, len(scattered))  # one timestamp per destroyed entry


# --- state records -----------------------------------------------------------------------

R = TypeVar("R")


def three_way(
    base: Mapping[str, R],
    local: Mapping[str, R],
    remote: Mapping[str, R],
    both: Callable[[R, R], R],
) -> dict[str, R]:
    """Records of both sides by ID; `both` merges a record present on each side.

    A record missing on one side is kept, unless the merge base holds it
    unchanged on the other side: then that side's run deleted it on purpose
    (a stale summary, say) and the deletion stands.
    """
    merged: dict[str, R] = {}
    for rid in local.keys() | remote.keys():
        mine, theirs = local.get(rid), remote.get(rid)
        if mine is not None and theirs is not None:
            merged[rid] = mine if mine == theirs else both(mine, theirs)
        elif mine is not None:
            if base.get(rid) != mine:
                merged[rid] = mine
        elif theirs is not None:
            if base.get(rid) != theirs:
                merged[rid] = theirs
    return merged


def later_summary(local: Summary, remote: Summary) -> Summary:
    """Same ID, different content (two runs summarised the same cluster): the later written stands,
    then the one that sorts last by its JSON, whichever side is local."""
    return max((local, remote), key=lambda s: (s.created_at, s.run_id, s.model_dump_json()))


def _run_order(run: Mapping[str, Any]) -> tuple[datetime, str, str]:
    return started(run), str(run.get("run_id")), json.dumps(run, sort_keys=True, default=str)


def either_run(local: Mapping[str, Any], remote: Mapping[str, Any]) -> Mapping[str, Any]:
    """One record of a run both sides hold (they are the same unless edited): a total choice."""
    return max((local, remote), key=_run_order)


def apply_resolutions(meta: dict[str, MemoryMeta], edges: Iterable[Edge]) -> dict[str, MemoryMeta]:
    """Re-apply the user's decisions on conflicts to merged metadata.

    `keep:K` leaves the other memory superseded by K and K superseded by
    neither; `both` leaves neither superseded by the other, whatever either
    side's runs had decided. A supersession the user marked wrong (`removed`)
    leaves its target not superseded by its source.
    """
    result = dict(meta)
    for edge in edges:
        if (edge.resolution == REMOVED and edge.edge_type in (EdgeType.SUPERSEDES, EdgeType.SUBSUMES)
                and (record := result.get(edge.target_key)) is not None and record.superseded_by == edge.source_key):
            result[edge.target_key] = record.model_copy(update={"superseded_by": None})
            continue
        if edge.edge_type is not EdgeType.CONTRADICTS or not edge.resolution:
            continue
        pair = (edge.source_key, edge.target_key)
        kept = edge.resolution.removeprefix("keep:") if edge.resolution.startswith("keep:") else None
        for key in pair:
            record = result.get(key)
            if record is None:
                continue
            if kept is not None and key != kept:
                wanted = kept
            elif record.superseded_by in pair:
                wanted = None
            else:
                continue
            if record.superseded_by != wanted:
                result[key] = record.model_copy(update={"superseded_by": wanted})
    return result


# --- run records -------------------------------------------------------------------------


def merge_runs_note(local: bytes, remote: bytes) -> bytes:
    """The run records of one commit from both sides: union by run ID, oldest first (then by run ID),
    the same bytes whichever side is local.

    Raises UnreadableState when either side cannot be read (refused, not guessed).
    """
    if local == remote:
        return local
    union: dict[Any, Mapping[str, Any]] = {}
    for run in [*decode_runs_note(local), *decode_runs_note(remote)]:
        rid = run.get("run_id")
        union[rid] = either_run(union[rid], run) if rid in union else run
    return encode_runs(sorted(union.values(), key=_run_order))


def run_ids(data: bytes) -> set[str]:
    try:
        return {str(run.get("run_id")) for run in decode_runs_note(data)}
    except UnreadableState:
        return set()


# --- the codec and merge of each state ref -------------------------------------------------


@dataclass(frozen=True)
class StateKind(Generic[R]):
    """How one state ref's notes decode, encode, key their records and merge a record both sides hold."""

    decode: Callable[[str, bytes], list[R]]
    encode: Callable[[list[R]], bytes]
    rid: Callable[[R], str]
    both: Callable[[R, R], R]


STATE_KINDS: dict[str, StateKind[Any]] = {
    META_REF: StateKind(decode_meta_note, encode_meta_note, lambda m: m.key, merge_meta),
    SUMMARIES_REF: StateKind(decode_summaries_note, encode_summaries_note, lambda s: s.id, later_summary),
    EDGES_REF: StateKind(decode_edges_note, encode_edges_note, lambda e: e.id, merge_edge),
    RUNS_REF: StateKind(lambda _commit, data: decode_runs_note(data),
                        lambda runs: encode_runs(sorted(runs, key=_run_order)),
                        lambda r: str(r.get("run_id")), either_run),
}
