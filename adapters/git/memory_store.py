"""The actors' ports over a git repository: read memories and state, commit a run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memactors.actors.ports import ScanOutcome, StateChange, StateConflict
from memactors.adapters.git.note_format import MAX_NOTE_BYTES, parse_note
from memactors.adapters.git.parse_cache import ParseCache
from memactors.adapters.git.state_codec import (
    UnreadableState,
    decode_edges_note,
    decode_meta_note,
    decode_runs_note,
    decode_summaries_note,
    encode_edges_note,
    encode_meta_note,
    encode_runs_note,
    encode_summaries_note,
    started,
)
from memactors.adapters.git.store import GitStore, RefsMoved, StoreError
from memactors.events.memory import Memory
from memactors.events.metadata import MemoryMeta
from memactors.events.state import StateSnapshot

META_REF = "refs/notes/mem-meta"
SUMMARIES_REF = "refs/notes/mem-summaries"
EDGES_REF = "refs/notes/mem-edges"
RUNS_REF = "refs/notes/mem-runs"
#: Our refs; mem-runs last: it is the record of a run that completed.
STATE_REFS = (META_REF, SUMMARIES_REF, EDGES_REF, RUNS_REF)


class CorruptState(StoreError):
    """A state note cannot be read (not a line sort: garbage, truncated, a ref at a blob); no run can
    trust the state until `memactors doctor --repair` restores it from the ref's history."""

    needs_user = True

    def __init__(self, ref: str, commit: str | None, reason: str) -> None:
        where = f"{ref} note on {commit[:12]}" if commit else ref
        remedy = ("" if "doctor --repair" in reason
                  else "; run `memactors doctor --repair`, which restores it from the ref's history")
        super().__init__(f"{where} is unreadable ({reason}){remedy}")
        self.ref, self.commit = ref, commit


class MemoryStore:
    """`MemorySource` and `StateSink` for one repository.

    Scans parse only notes whose blob is not in the parse cache; the
    cache is saved after each scan asked to `remember`. Identical entries
    (same stable key) count once: the rest count as `duplicate_entry` on
    the same commit, as `rewritten_copy` on another one (git copies notes
    when a rebase or amend rewrites a commit and leaves the old note on a
    commit no branch reaches). The copy kept is the one on the most
    recently committed commit; the others' positional IDs become its aliases.
    """

    def __init__(self, git: GitStore) -> None:
        self.git = git
        self.cache = ParseCache(git.common_dir / "memactors" / "parse-cache.json")

    def check_readable(self) -> None:
        """Raise CorruptState naming the first state ref that cannot be read.

        A memory ref that cannot be read is not fatal: the scan skips it and the run reports it.
        """
        for ref in STATE_REFS:
            try:
                self.git.notes(ref)
            except StoreError as exc:
                raise CorruptState(ref, None, str(exc).splitlines()[0]) from None

    def head(self) -> str | None:
        return self.git.head()

    def scan(
        self, namespaces: tuple[str, ...] | None, *, remember: bool = True, reparse: bool = False
    ) -> ScanOutcome:
        outcome = ScanOutcome(memories=[])
        seen: dict[str, int] = {}  # key -> position in outcome.memories
        times: dict[str, int] = {}

        def committed(commit: str) -> int:
            if commit not in times:
                times[commit] = self.git.commit_time(commit) or -1
            return times[commit]

        for namespace, ref in sorted(self.git.memory_refs().items()):
            if namespaces is not None and namespace not in namespaces:
                continue
            try:
                tip = self.git.tip(ref)
                notes = sorted(self.git.notes(ref))
            except StoreError as exc:  # one broken ref must not hide every other namespace
                outcome.unreadable_refs[ref] = (
                    f"{ref} skipped: {str(exc).splitlines()[0]}; point it back at a notes commit "
                    f"or remove it with `git update-ref -d {ref}`")
                continue
            if tip is not None:
                outcome.tips[ref] = tip
            for commit, blob in notes:
                parse = None if reparse else self.cache.get(namespace, blob, commit)
                if parse is None:
                    if self.git.blob_size(blob) > MAX_NOTE_BYTES:
                        outcome.skipped["note_too_large"] += 1  # never read into memory
                        outcome.skipped_notes.append((ref, commit, "note_too_large", 1))
                        continue
                    parse = parse_note(namespace, commit, self.git.read_blob(blob))
                    self.cache.put(namespace, blob, commit, parse)
                outcome.skipped.update(parse.skipped)
                outcome.skipped_notes.extend((ref, commit, reason, n) for reason, n in sorted(parse.skipped.items()))
                outcome.warnings.update(parse.warnings)
                for memory in parse.memories:
                    position = seen.get(memory.key)
                    if position is not None:
                        kept = outcome.memories[position]
                        outcome.skipped["duplicate_entry" if memory.commit in kept.commits() else "rewritten_copy"] += 1
                        outcome.memories[position] = one_of(kept, memory, committed)
                        continue
                    seen[memory.key] = len(outcome.memories)
                    outcome.memories.append(memory)
        if remember:
            self.cache.save()
        return outcome

    def memories_since(self, tips: dict[str, str]) -> list[Memory]:
        """The memories in notes written or changed since the memory refs stood at `tips` (ref -> notes commit,
        as a read model recorded them): only the notes that differ are read. A ref that cannot be read, or an
        old tip that is gone, gives nothing (the next run reads it whole)."""
        found: dict[str, Memory] = {}
        for namespace, ref in sorted(self.git.memory_refs().items()):
            old = tips.get(ref)
            try:
                if self.git.tip(ref) == old:
                    continue
                before = dict(self.git.notes_at(old)) if old else {}
                changed = [(c, b) for c, b in self.git.notes(ref) if before.get(c) != b]
            except (StoreError, KeyError, ValueError):
                continue
            for commit, blob in changed:
                parse = self.cache.get(namespace, blob, commit)
                if parse is None:
                    if self.git.blob_size(blob) > MAX_NOTE_BYTES:
                        continue
                    parse = parse_note(namespace, commit, self.git.read_blob(blob))
                for memory in parse.memories:
                    found.setdefault(memory.key, memory)
        return list(found.values())

    def load_state(self) -> StateSnapshot:
        """Our state at the tips; raises CorruptState naming the first note that cannot be read,
        the run note on HEAD included (a run appends to it). Other run notes are not read here: they
        only grow, and `status` and `doctor` report the unreadable ones."""
        tips = {ref: self.git.tip(ref) for ref in STATE_REFS}
        head = self.head()
        if head is not None:
            self._runs_at(tips[RUNS_REF], head)
        meta: dict[str, MemoryMeta] = {}
        for record, _ in self._records(META_REF, decode_meta_note):
            meta[record.key] = record
        summaries, summary_commits = {}, {}
        for summary, commit in self._records(SUMMARIES_REF, decode_summaries_note):
            summaries[summary.id], summary_commits[summary.id] = summary, commit
        edges, edge_commits = {}, {}
        for edge, commit in self._records(EDGES_REF, decode_edges_note):
            edges[edge.id], edge_commits[edge.id] = edge, commit
        return StateSnapshot(tips=tips, meta=meta, summaries=summaries, summary_commits=summary_commits,
                             edges=edges, edge_commits=edge_commits)

    def _records(self, ref: str, decode):
        try:
            notes = self.git.notes(ref)
        except StoreError as exc:
            raise CorruptState(ref, None, str(exc)) from None
        for commit, blob in notes:
            try:
                records = decode(commit, self.git.read_blob(blob))
            except (UnreadableState, ValueError) as exc:
                raise CorruptState(ref, commit, _reason(exc)) from None
            for record in records:
                yield record, commit

    def commit(self, change: StateChange, expected_tips: dict[str, str | None]) -> list[str]:
        run_id = change.report.run_id
        message = f"memactors run {run_id}\n\nRun-Commit: {change.run_commit}\n"
        updates: dict[str, str] = {}
        for ref, notes, encode in (
            (META_REF, change.meta_by_commit, encode_meta_note),
            (SUMMARIES_REF, change.summaries_by_commit, encode_summaries_note),
            (EDGES_REF, change.edges_by_commit, encode_edges_note),
        ):
            if notes:
                encoded = {commit: encode(records) if records else None for commit, records in notes.items()}
                updates[ref] = self.git.build_notes_commit(expected_tips.get(ref), encoded, message)
        runs_tip = expected_tips.get(RUNS_REF)
        existing = self._runs_at(runs_tip, change.run_commit)
        updates[RUNS_REF] = self.git.build_notes_commit(
            runs_tip, {change.run_commit: encode_runs_note(existing, change.report)}, message
        )
        try:
            self.git.move_refs(updates, expected_tips, f"memactors: run {run_id}")
        except RefsMoved as exc:
            raise StateConflict(str(exc)) from None
        self.git.ensure_rewrite_refs(list(STATE_REFS))
        return [ref for ref in STATE_REFS if ref in updates]

    def _runs_at(self, tip: str | None, commit: str) -> bytes | None:
        """The run note on `commit`, checked readable (CorruptState if not: nothing may append to it)."""
        try:
            data = self._note_at(tip, commit)
            if data is not None:
                decode_runs_note(data)
        except StoreError as exc:
            raise CorruptState(RUNS_REF, None, str(exc).splitlines()[0]) from None
        except UnreadableState as exc:
            raise CorruptState(RUNS_REF, commit, _reason(exc)) from None
        return data

    def _note_at(self, tip: str | None, commit: str) -> bytes | None:
        if tip is None:
            return None
        tree = self.git._tree_of(tip)
        path = self.git.note_path(tree, commit)
        return None if path is None else self.git.read_blob(str(tree[path].id))

    def judge_rules(self) -> int:
        """The offline judge rules the newest persisted run recorded; 0 when none did or it cannot be read."""
        try:
            run = self.last_run()
        except CorruptState:
            return 0
        rules = run.get("judge_rules", 0) if run else 0
        return rules if isinstance(rules, int) else 0

    def abandoned(self, memories: list[Memory]) -> set[str]:
        """The keys of `memories` whose every commit sits only on a branch deleted without merging (not in
        HEAD's history, not merged by rebase or squash, on no branch; a commit this clone lacks is never one)."""
        from memactors.adapters.git.branches import BranchMap

        branches = BranchMap(self.git.repo)
        orphaned: dict[str, bool] = {}

        def is_orphaned(commit: str) -> bool:
            if commit not in orphaned:
                orphaned[commit] = branches.orphaned(commit)
            return orphaned[commit]

        return {m.key for m in memories if all(is_orphaned(commit) for commit in m.commits())}

    def last_run(self) -> dict[str, Any] | None:
        """The record of the newest persisted run: found through the tip commit's trailer, or (when
        someone else wrote the tip) the latest-started run of any readable note. Raises CorruptState
        when the trailer's note cannot be read."""
        tip = self.git.tip(RUNS_REF)
        if tip is None:
            return None
        message = self.git.repo[tip].message
        run_commit = next(
            (line.split(":", 1)[1].strip() for line in message.splitlines() if line.startswith("Run-Commit:")),
            None,
        )
        run_id = message.splitlines()[0].removeprefix("memactors run ").strip()
        data = self._note_at(tip, run_commit) if run_commit else None
        if data is None:
            return max(self.readable_runs()[0], key=started, default=None)
        try:
            runs = decode_runs_note(data)
        except UnreadableState as exc:
            raise CorruptState(RUNS_REF, run_commit, _reason(exc)) from None
        return next((run for run in reversed(runs) if run.get("run_id") == run_id), runs[-1] if runs else None)

    def readable_runs(self) -> tuple[list[dict[str, Any]], list[CorruptState]]:
        """Every run record of every readable runs note, and a CorruptState for each note that is not."""
        runs: list[dict[str, Any]] = []
        unreadable: list[CorruptState] = []
        try:
            notes = self.git.notes(RUNS_REF)
        except StoreError as exc:
            return [], [CorruptState(RUNS_REF, None, str(exc))]
        for commit, blob in notes:
            try:
                runs += decode_runs_note(self.git.read_blob(blob))
            except UnreadableState as exc:
                unreadable.append(CorruptState(RUNS_REF, commit, _reason(exc)))
        return runs, unreadable


def _reason(exc: Exception) -> str:
    """What a decoder said, without the location the caller names itself."""
    return str(exc).splitlines()[0].split(" is ", 1)[-1] if " note" in str(exc) else str(exc).splitlines()[0]


def one_of(kept: Memory, copy: Memory, committed: Callable[[str], int]) -> Memory:
    """One memory from two identical entries: the later-committed one, answering to both's IDs."""
    newer = copy if copy.commit != kept.commit and committed(copy.commit) > committed(kept.commit) else kept
    own = {newer.id, newer.upstream_id}
    aliases = tuple(dict.fromkeys(i for m in (kept, copy) for i in m.positional_ids() if i not in own))
    return newer.model_copy(update={"aliases": aliases})
