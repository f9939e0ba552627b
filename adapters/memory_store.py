"""The actors' ports over a git repository: read memories and state, commit a run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memactors.actors.ports import ScanOutcome, StateChange, StateConflict
from memactors.adapters.git_store import GitStore, RefsMoved, StoreError
from memactors.adapters.note_format import parse_note
from memactors.adapters.parse_cache import ParseCache
from memactors.adapters.state_codec import (
    UnreadableState,
    decode_edges_note,
    decode_meta_note,
    decode_runs_note,
    decode_summaries_note,
    encode_edges_note,
    encode_meta_note,
    encode_runs_note,
    encode_summaries_note,
)
from memactors.events.memory import Memory
from memactors.events.metadata import MemoryMeta
from memactors.events.state import StateSnapshot

META_REF = "refs/notes/mem-meta"
SUMMARIES_REF = "refs/notes/mem-summaries"
EDGES_REF = "refs/notes/mem-edges"
RUNS_REF = "refs/notes/mem-runs"
#: Our refs; mem-runs last: it is the record of a run that completed.
STATE_REFS = (META_REF, SUMMARIES_REF, EDGES_REF, RUNS_REF)


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
        """Raise StoreError naming the first memory or state ref that cannot be read."""
        for ref in list(self.git.memory_refs().values()) + list(STATE_REFS):
            tip = self.git.tip(ref)
            if tip is not None:
                self.git.notes(ref)

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
            tip = self.git.tip(ref)
            if tip is not None:
                outcome.tips[ref] = tip
            for commit, blob in sorted(self.git.notes(ref)):
                parse = None if reparse else self.cache.get(namespace, blob, commit)
                if parse is None:
                    parse = parse_note(namespace, commit, self.git.read_blob(blob))
                    self.cache.put(namespace, blob, commit, parse)
                outcome.skipped.update(parse.skipped)
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

    def load_state(self) -> StateSnapshot:
        tips = {ref: self.git.tip(ref) for ref in STATE_REFS}
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
        for commit, blob in self.git.notes(ref):
            try:
                records = decode(commit, self.git.read_blob(blob))
            except (UnreadableState, ValueError) as exc:
                raise StoreError(f"{ref}: {exc}") from None
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
        existing = self._note_at(runs_tip, change.run_commit)
        updates[RUNS_REF] = self.git.build_notes_commit(
            runs_tip, {change.run_commit: encode_runs_note(existing, change.report)}, message
        )
        try:
            self.git.move_refs(updates, expected_tips, f"memactors: run {run_id}")
        except RefsMoved as exc:
            raise StateConflict(str(exc)) from None
        self.git.ensure_rewrite_refs(list(STATE_REFS))
        return [ref for ref in STATE_REFS if ref in updates]

    def _note_at(self, tip: str | None, commit: str) -> bytes | None:
        if tip is None:
            return None
        tree = self.git._tree_of(tip)
        path = self.git.note_path(tree, commit)
        return None if path is None else self.git.read_blob(str(tree[path].id))

    def last_run(self) -> dict[str, Any] | None:
        """The record of the newest persisted run, found through the tip commit's trailer."""
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
            return None
        try:
            runs = decode_runs_note(data)
        except UnreadableState as exc:
            raise StoreError(f"{RUNS_REF}: {exc}") from None
        return next((run for run in reversed(runs) if run.get("run_id") == run_id), runs[-1] if runs else None)


def one_of(kept: Memory, copy: Memory, committed: Callable[[str], int]) -> Memory:
    """One memory from two identical entries: the later-committed one, answering to both's IDs."""
    newer = copy if copy.commit != kept.commit and committed(copy.commit) > committed(kept.commit) else kept
    own = {newer.id, newer.upstream_id}
    aliases = tuple(dict.fromkeys(i for m in (kept, copy) for i in m.positional_ids() if i not in own))
    return newer.model_copy(update={"aliases": aliases})
