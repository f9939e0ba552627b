"""`memactors doctor`: find notes a line-sorting merge destroyed, rebuild them.

`git notes merge -s cat_sort_uniq` (git-notes-memory's repository-wide
setting) sorts the lines of two diverged notes together: front matter and
bodies interleave and the entries are gone from the tip. The notes commit
that did it is a merge whose parents still hold both intact versions, so
a memory note can be rebuilt by merging those entry by entry. Our state
notes keep one record per line, so their records survive the sort and are
read back from the damaged note itself, merged as `sync` would. A repair is
a new notes commit on top: the damaged version stays in history.
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from memactors.adapters.git.memory_store import EDGES_REF, META_REF, RUNS_REF, MemoryStore
from memactors.adapters.git.notes_merge import (
    STATE_KINDS,
    StateKind,
    apply_resolutions,
    line_sort_damage,
    merge_memory_note,
    salvage_entries,
    split_entries,
    started,
)
from memactors.adapters.git.repo_lock import RepoLock
from memactors.adapters.git.state_codec import UnreadableState, decode_runs_note, unsorted_documents
from memactors.adapters.git.store import GitStore, RefsMoved, StoreError
from memactors.events.edge import Edge

#: How many notes commits one rebuild may walk (a guard against pathological histories).
MAX_HISTORY_STEPS = 100_000


class DamagedNote(BaseModel):
    """A memory or state note whose tip version was line-sorted, or a state note that cannot be read.

    `damage` is `line_sort` or `unreadable` (`reason` says how). `commit` is
    the commit the note hangs on; `namespace` the memory namespace (None
    for our state refs); `damaged_by` the notes commit that introduced the
    damage (None when history cannot tell); `entries_destroyed` the front
    matters (state: record lines) found scattered; `repairable` and
    `entries_recoverable` say what `repair` would bring back (state:
    distinct records). An unreadable note is restored to its version at
    `restored_from`, the newest notes commit in the ref's history where it
    reads (absent there: removed); `writes_dropped` are the later notes
    commits whose writes to it are lost (the next run recomputes them).
    """

    model_config = ConfigDict(frozen=True)

    ref: str
    namespace: str | None
    commit: str
    blob: str
    entries_destroyed: int
    damaged_by: str | None
    repairable: bool
    entries_recoverable: int
    damage: str = "line_sort"
    reason: str | None = None
    restored_from: str | None = None
    writes_dropped: list[str] = []


class RepairReport(BaseModel):
    """What `repair` did (or would do): notes rebuilt, notes it could not rebuild, the new notes commit per ref.

    `entries_restored` counts memory entries and state records together; each note's count is on it.
    """

    model_config = ConfigDict(frozen=True)

    repaired: list[DamagedNote] = []
    unrepairable: list[DamagedNote] = []
    refs_updated: dict[str, str] = {}
    entries_restored: int = 0
    dry_run: bool = False


def git_of(target: GitStore | MemoryStore | str | os.PathLike[str]) -> GitStore:
    """The repository behind a store, a GitStore or a path."""
    if isinstance(target, MemoryStore):
        return target.git
    if isinstance(target, GitStore):
        return target
    return GitStore(Path(target))


class _Unrepairable(Exception):
    pass


class _Rebuilder:
    """Rebuilds damaged notes of one notes history; remembers what it rebuilt at each commit."""

    def __init__(self, git: GitStore) -> None:
        self.git = git
        self._memo: dict[tuple[str, str], bytes | None] = {}
        self.origin: str | None = None  # the damaging merge found by the last rebuild
        self._steps = 0

    def _blob_at(self, notes_commit: str, commit: str) -> str | None:
        return self.git.note_blob_at(notes_commit, commit)

    def rebuild(self, notes_commit: str, commit: str) -> bytes:
        """The note on `commit` as of `notes_commit`, with any line-sort damage undone."""
        self._steps = 0
        self.origin = None
        result = self._rebuild(notes_commit, commit)
        if result is None:
            raise _Unrepairable(f"no note on {commit[:12]} at {notes_commit[:12]}")
        return result

    def _rebuild(self, notes_commit: str, commit: str) -> bytes | None:
        key = (notes_commit, commit)
        if key in self._memo:
            return self._memo[key]
        blob = self._blob_at(notes_commit, commit)
        if blob is None:
            self._memo[key] = None
            return None
        data = self.git.read_blob(blob)
        if not line_sort_damage(data):
            self._memo[key] = data
            return data
        # Walk back while the history is linear: later appends on top of the
        # damage are salvaged; the merge that caused it is undone from its parents.
        salvaged: list[bytes] = []
        current, current_blob = notes_commit, blob
        while True:
            self._steps += 1
            if self._steps > MAX_HISTORY_STEPS:
                raise _Unrepairable("history too long to search")
            parents = [str(p) for p in self.git.repo[current].parent_ids]
            if len(parents) >= 2:
                if current_blob not in {self._blob_at(parent, commit) for parent in parents}:
                    self.origin = self.origin or current  # this merge wrote the damage, not just carried it
                versions = [self._rebuild(parent, commit) for parent in parents]
                present = [v for v in versions if v is not None]
                if not present:
                    raise _Unrepairable(f"the merge {current[:12]} had no intact version to start from")
                rebuilt = present[0]
                for other in present[1:]:
                    rebuilt = merge_memory_note(rebuilt, other)
                break
            if not parents:
                raise _Unrepairable("the note was damaged when it was first written")
            parent_blob = self._blob_at(parents[0], commit)
            if parent_blob is None:
                raise _Unrepairable(f"the note was written damaged by {current[:12]}, not by a merge")
            if parent_blob != current_blob:
                salvaged.append(salvage_entries(self.git.read_blob(current_blob)))
            current, current_blob = parents[0], parent_blob
        for later in reversed(salvaged):
            rebuilt = merge_memory_note(rebuilt, later)
        self._memo[key] = rebuilt
        return rebuilt


def rebuild_note(git: GitStore, notes_commit: str, commit: str) -> bytes | None:
    """The note on `commit` in `notes_commit` with line-sort damage undone from history, or None if impossible."""
    try:
        return _Rebuilder(git).rebuild(notes_commit, commit)
    except (_Unrepairable, StoreError):
        return None


def _scan(git: GitStore) -> list[tuple[DamagedNote, bytes | None]]:
    found: list[tuple[DamagedNote, bytes | None]] = []
    for namespace, ref in sorted(git.memory_refs().items()):
        tip = git.tip(ref)
        if tip is None:
            continue
        rebuilder = _Rebuilder(git)
        for commit, blob in sorted(git.notes_at(tip)):
            data = git.read_blob(blob)
            destroyed = line_sort_damage(data)
            if not destroyed:
                continue
            try:
                rebuilt: bytes | None = rebuilder.rebuild(tip, commit)
            except _Unrepairable:
                rebuilt = None
            recoverable = len({e.text for e in split_entries(rebuilt) if e.is_entry}) if rebuilt else 0
            found.append(
                (
                    DamagedNote(
                        ref=ref,
                        namespace=namespace,
                        commit=commit,
                        blob=blob,
                        entries_destroyed=destroyed,
                        damaged_by=rebuilder.origin if rebuilt is not None else None,
                        repairable=rebuilt is not None,
                        entries_recoverable=recoverable,
                    ),
                    rebuilt,
                )
            )
    return found


def _written_by(git: GitStore, tip: str, commit: str, blob: str) -> str | None:
    """The notes commit that first gave `commit` this note `blob`, walking back from `tip`."""
    current = tip
    for _ in range(MAX_HISTORY_STEPS):
        same = [p for p in map(str, git.repo[current].parent_ids) if git.note_blob_at(p, commit) == blob]
        if not same:
            return current
        current = same[0]
    return None


def _scan_state(git: GitStore, bad_refs: set[str]) -> list[tuple[DamagedNote, bytes | None]]:
    """Damaged notes of our state refs (refs in `bad_refs` left out), each decoded once:
    line-sorted ones with their records rebuilt from their own lines (None when a line cannot be
    read), and ones unreadable another way with the version history offers (see `_last_readable`)."""
    found: list[tuple[DamagedNote, list | None]] = []
    unreadable: list[tuple[DamagedNote, bytes | None]] = []
    tips = {ref: git.tip(ref) if ref not in bad_refs else None for ref in STATE_KINDS}
    for ref, kind in STATE_KINDS.items():
        tip = tips[ref]
        for commit, blob in sorted(git.notes_at(tip)) if tip else ():
            data = git.read_blob(blob)
            try:
                kind.decode(commit, data)
                continue
            except (UnreadableState, ValueError) as exc:
                reason = str(exc).splitlines()[0]
            documents = unsorted_documents(data)
            if documents is None:  # not a line sort: restore the newest version that reads
                restored, source, dropped = _last_readable(git, kind, tip, commit, blob)
                unreadable.append((DamagedNote(
                    ref=ref, namespace=None, commit=commit, blob=blob, entries_destroyed=0,
                    damaged_by=dropped[-1] if dropped else None, repairable=source is not None,
                    entries_recoverable=len(kind.decode(commit, restored)) if restored else 0, damage="unreadable",
                    reason=reason, restored_from=source, writes_dropped=dropped), restored))
                continue
            try:
                records: list | None = kind.decode(commit, documents)
            except (UnreadableState, ValueError):
                records = None
            note = DamagedNote(ref=ref, namespace=None, commit=commit, blob=blob,
                               entries_destroyed=documents.count(b"\n"), damaged_by=_written_by(git, tip, commit, blob),
                               repairable=records is not None, entries_recoverable=len(records or []))
            found.append((note, records))
    if not found:
        return unreadable
    edges = _edges(git, tips[EDGES_REF], {n.commit: r for n, r in found if n.ref == EDGES_REF and r is not None})
    rebuilt: list[tuple[DamagedNote, bytes | None]] = []
    for note, records in found:
        if records is not None and note.ref == META_REF:
            # Either side's supersession came back with the union; the user's resolutions win again.
            records = list(apply_resolutions({m.key: m for m in records}, edges).values())
        rebuilt.append((note, STATE_KINDS[note.ref].encode(records) if records is not None else None))
    return rebuilt + unreadable


def _scan_all(git: GitStore) -> list[tuple[DamagedNote, bytes | None]]:
    """Every damaged memory note, state ref and state note, each with what a repair would write."""
    bad = _scan_bad_refs(git)
    return _scan(git) + bad + _scan_state(git, {note.ref for note, _ in bad})


def _scan_bad_refs(git: GitStore) -> list[tuple[DamagedNote, None]]:
    """State refs that point at something other than a notes commit, each with the commit its reflog
    last gave it (the repair moves the ref back there), when there is one."""
    found: list[tuple[DamagedNote, None]] = []
    for ref in STATE_KINDS:
        tip = git.tip(ref)
        if tip is None:
            continue
        try:
            git.notes_at(tip)
            continue
        except StoreError as exc:
            reason = str(exc).splitlines()[0]
        back = git.last_commit_in_reflog(ref)
        found.append((DamagedNote(ref=ref, namespace=None, commit=tip, blob=tip, entries_destroyed=0,
                                  damaged_by=None, repairable=back is not None, entries_recoverable=0,
                                  damage="bad_ref", reason=reason, restored_from=back), None))
    return found


def _last_readable(git: GitStore, kind: StateKind, tip: str, commit: str,
                   blob: str) -> tuple[bytes | None, str | None, list[str]]:
    """(note bytes or None for absent, the notes commit they come from or None if none found,
    notes commits after it that changed the note, newest first)."""
    dropped: list[str] = []
    current, current_blob = tip, blob
    for _ in range(MAX_HISTORY_STEPS):
        parents = [str(p) for p in git.repo[current].parent_ids]
        if not parents:
            return None, None, dropped
        parent = parents[0]
        parent_blob = git.note_blob_at(parent, commit)
        if parent_blob != current_blob:
            dropped.append(current)
        if parent_blob is None:
            return None, parent, dropped
        data = git.read_blob(parent_blob)
        try:
            kind.decode(commit, data)
        except (UnreadableState, ValueError):
            current, current_blob = parent, parent_blob
            continue
        return data, parent, dropped
    return None, None, dropped


def _edges(git: GitStore, tip: str | None, rebuilt: dict[str, list[Edge]]) -> list[Edge]:
    """Every readable edge of the edges ref, rebuilt notes in place of their damaged versions."""
    edges: list[Edge] = []
    for commit, blob in git.notes_at(tip) if tip else ():
        if commit in rebuilt:
            edges.extend(rebuilt[commit])
            continue
        try:
            edges.extend(STATE_KINDS[EDGES_REF].decode(commit, git.read_blob(blob)))
        except (UnreadableState, ValueError):
            continue
    return edges


def _newest_run_commit(git: GitStore, tip: str | None, rebuilt: dict[str, bytes | None]) -> str | None:
    """The commit whose run note holds the latest-started run, rebuilt notes read in place of damaged ones."""
    newest: tuple[datetime, str] | None = None
    for commit, blob in git.notes_at(tip) if tip else ():
        data = rebuilt.get(commit) or git.read_blob(blob)
        try:
            runs = decode_runs_note(data)
        except UnreadableState:
            continue
        for run in runs:
            if newest is None or started(run) > newest[0]:
                newest = (started(run), commit)
    return newest[1] if newest else None


def diagnose(target: GitStore | MemoryStore | str | os.PathLike[str]) -> list[DamagedNote]:
    """Every memory and state note whose current version a line-sorting merge destroyed, and every
    state note that cannot be read; reads only."""
    git = git_of(target)
    return [note for note, _ in _scan_all(git)]


def repair(target: GitStore | MemoryStore | str | os.PathLike[str], *, dry_run: bool = False,
           lock_wait: float = 0.0) -> RepairReport:
    """Rebuild every repairable damaged note into one new notes commit per ref, the damage kept in history.

    Holds the repository lock, waiting up to `lock_wait` seconds for a run in progress (then
    RepositoryBusy naming the holder);
    moves refs with compare-and-swap, so a capture racing the repair makes
    it fail cleanly (StoreError) rather than lose the capture.
    """
    git = git_of(target)
    with RepoLock(git.common_dir, role="doctor --repair", wait=lock_wait):
        found = _scan_all(git)
        repaired = [note for note in (n for n, _ in found) if note.repairable]
        unrepairable = [note for note in (n for n, _ in found) if not note.repairable]
        restored = sum(note.entries_recoverable for note in repaired)
        if dry_run or not repaired:
            return RepairReport(repaired=repaired, unrepairable=unrepairable, entries_restored=restored,
                                dry_run=dry_run)
        by_ref: dict[str, dict[str, bytes | None]] = {}
        updates: dict[str, str] = {}
        for note, rebuilt in found:
            if note.damage == "bad_ref":
                if note.repairable and note.restored_from:
                    updates[note.ref] = note.restored_from  # back where its reflog last had a commit
            elif note.repairable:  # an unreadable note restored to "absent" is removed: rebuilt is None
                by_ref.setdefault(note.ref, {})[note.commit] = rebuilt
        tips = {ref: git.tip(ref) for ref in {*by_ref, *updates}}
        for ref, notes in by_ref.items():
            message = f"Notes repaired by 'memactors doctor --repair': {len(notes)} line-sorted notes rebuilt\n"
            if ref == RUNS_REF and (newest := _newest_run_commit(git, tips[ref], notes)):
                message += f"\nRun-Commit: {newest}\n"  # how `status` finds the last run
            updates[ref] = git.build_notes_commit(tips[ref], notes, message, keep_layout=True)
        try:
            git.move_refs(updates, tips, "memactors: doctor --repair")
        except RefsMoved as exc:
            raise StoreError(f"{exc}; nothing was repaired, run the repair again") from None
        return RepairReport(repaired=repaired, unrepairable=unrepairable, refs_updated=updates,
                            entries_restored=restored)
