"""How `sync` merges each ref: memory notes entry by entry, state records by ID, three-way against the last
shared state; whether a ref fast-forwards, is pushed as it is or gets a merge commit keeping both parents."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import StrEnum
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

from memactors.adapters.git.doctor import rebuild_note
from memactors.adapters.git.memory_store import (
    EDGES_REF,
    META_REF,
    RUNS_REF,
    STATE_REFS,
    SUMMARIES_REF,
)
from memactors.adapters.git.notes_merge import (
    STATE_KINDS,
    StateKind,
    apply_resolutions,
    entry_texts,
    line_sort_damage,
    merge_memory_note,
    merge_runs_note,
    started,
    three_way,
)
from memactors.adapters.git.state_codec import UnreadableState, decode_runs_note, unsorted_documents
from memactors.adapters.git.store import GitStore, StoreError
from memactors.events.edge import Edge
from memactors.events.metadata import MemoryMeta

#: Where fetched refs land: `refs/notes/X` of remote R is `refs/memactors/remotes/R/notes/X`.
TRACKING_ROOT = "refs/memactors/remotes"


class SyncError(StoreError):
    """A sync or setup that cannot proceed; the one-line message says why and that nothing local was lost."""


class RefOutcome(StrEnum):
    UP_TO_DATE = "up-to-date"  # both sides held the same commit
    FETCHED = "fetched"  # local fast-forwarded to the remote's commit
    PUSHED = "pushed"  # the remote fast-forwarded to ours
    MERGED = "merged"  # both had news: a merge commit, kept locally and pushed
    REFUSED = "refused"  # left alone: see `detail`


class RefSync(BaseModel):
    """One ref's sync. Commits are None where the ref does not exist; counts are entries (memory refs) or records."""

    model_config = ConfigDict(frozen=True)

    ref: str
    outcome: RefOutcome
    local_before: str | None
    remote_before: str | None
    local_after: str | None
    added_locally: int = 0
    pushed: int = 0
    remote_notes_rebuilt: int = 0
    detail: str | None = None


@dataclass(frozen=True)
class _Remote:
    argument: str  # what git fetch/push get: a remote name or a URL
    label: str  # a ref-safe name for the tracking namespace

    def tracking(self, ref: str) -> str:
        return f"{TRACKING_ROOT}/{self.label}/{ref.removeprefix('refs/')}"


@dataclass
class _Plan:
    """How one ref gets merged: computed first, written only when every ref could be planned."""

    ref: str
    local: str | None
    remote: str | None
    outcome: RefOutcome = RefOutcome.UP_TO_DATE
    changes: dict[str, bytes | None] = field(default_factory=dict)  # relative to `local`
    build: bool = False  # a merge commit on `local` with `remote` as second parent
    fast_forward: bool = False  # local moves to `remote`
    push: bool = False
    keep_layout: bool = False
    message: str = ""
    added_locally: int = 0
    pushed: int = 0
    rebuilt: int = 0
    lost: int = 0
    detail: str | None = None
    new_commit: str | None = None

    def decide(self, git: GitStore, same_as_local: bool, same_as_remote: bool) -> None:
        """Fast-forward, push or merge, from what the merged tree equals and how the histories relate."""
        local, remote = self.local, self.remote
        if local == remote:
            self.outcome = RefOutcome.UP_TO_DATE
        elif remote is None:
            self.outcome, self.push = RefOutcome.PUSHED, True
        elif same_as_remote and (local is None or git.repo.descendant_of(remote, local)):
            self.outcome, self.fast_forward = RefOutcome.FETCHED, True
        elif local is not None and same_as_local and git.repo.descendant_of(local, remote):
            self.outcome, self.push = RefOutcome.PUSHED, True
        else:
            self.outcome, self.build, self.push = RefOutcome.MERGED, True, True

    @property
    def after(self) -> str | None:
        if self.fast_forward:
            return self.remote
        if self.build:
            return self.new_commit
        return self.local

    def result(self, dry_run: bool) -> RefSync:
        return RefSync(
            ref=self.ref, outcome=self.outcome, local_before=self.local, remote_before=self.remote,
            local_after=self.local if dry_run else self.after, added_locally=self.added_locally,
            pushed=self.pushed if self.push else 0, remote_notes_rebuilt=self.rebuilt, detail=self.detail,
        )


def _count(data: bytes) -> int:
    return len(entry_texts(data))


def _plan_memory(git: GitStore, ref: str, local: str | None, remote: str | None, label: str) -> _Plan:
    plan = _Plan(ref, local, remote, keep_layout=True,
                 message=f"Notes merged by 'memactors sync' from {label}\n")
    if local == remote:
        return plan
    local_notes = dict(git.notes_at(local)) if local else {}
    remote_notes = dict(git.notes_at(remote)) if remote else {}
    same_as_remote = True
    for commit, remote_blob in remote_notes.items():
        local_blob = local_notes.get(commit)
        if local_blob == remote_blob:
            continue
        theirs = git.read_blob(remote_blob)
        if line_sort_damage(theirs):
            # Damage someone pushed: rebuild it from the remote's own history (the damaged
            # version stays there, as a parent of our merge) rather than spread it.
            rebuilt = rebuild_note(git, remote, commit)
            if rebuilt is None:
                plan.outcome = RefOutcome.REFUSED
                plan.detail = (f"{label}'s note on {commit[:12]} was line-sorted by a merge and cannot be rebuilt "
                               "from its history; run `memactors doctor` in the clone that pushed it")
                return plan
            theirs, same_as_remote = rebuilt, False
            plan.rebuilt += 1
        if local_blob is None:
            plan.changes[commit] = theirs
            plan.added_locally += _count(theirs)
            continue
        mine = git.read_blob(local_blob)
        if line_sort_damage(mine):
            plan.outcome = RefOutcome.REFUSED
            plan.detail = (f"the local note on {commit[:12]} was line-sorted by a merge; "
                           "run `memactors doctor --repair`, then sync again")
            return plan
        merged = merge_memory_note(mine, theirs)
        kept, had_mine, had_theirs = entry_texts(merged), entry_texts(mine), entry_texts(theirs)
        plan.lost += len((had_mine | had_theirs) - kept)
        plan.added_locally += len(kept - had_mine)
        plan.pushed += len(kept - had_theirs)
        if merged != mine:
            plan.changes[commit] = merged
        if merged != theirs:
            same_as_remote = False
    for commit, local_blob in local_notes.items():
        if commit not in remote_notes:
            same_as_remote = False
            plan.pushed += _count(git.read_blob(local_blob))
    plan.decide(git, same_as_local=not plan.changes, same_as_remote=same_as_remote)
    if plan.fast_forward:
        plan.changes = {}
    return plan


T = TypeVar("T")


P = TypeVar("P")


def _side(which: str, label: str) -> str:
    return {"local": "the local", "base": "the last shared"}.get(which, f"{label}'s")


class _RemoteUnreadable(SyncError):
    """The remote's version of a state note cannot be read."""


def _unreadable(which: str, label: str, ref: str, exc: Exception) -> SyncError:
    message = f"{_side(which, label)} {ref}: {str(exc).splitlines()[0]}; nothing was merged"
    return _RemoteUnreadable(message) if which == "remote" else SyncError(message)


def _decoded_rebuilding(decode: Callable[[str, bytes], list[T]], commit: str, data: bytes,
                        which: str) -> tuple[list[T], bool]:
    """A state note's records, and whether they were rebuilt from a remote note a line sort scrambled.

    Damage someone pushed (or that history holds) is read back from its record lines, as `doctor
    --repair` would, and merged rather than refused or spread; local damage raises, for `doctor
    --repair` to mend in place.
    """
    try:
        return decode(commit, data), False
    except (UnreadableState, ValueError):
        documents = unsorted_documents(data) if which != "local" else None
        if documents is None:
            raise
    return decode(commit, documents), True


def _over_unreadable(git: GitStore, ref: str, local: str | None, remote: str | None,
                     plan: Callable[[], P], ours: Callable[[_Plan], P]) -> P:
    """`plan()`; or, when the remote's notes cannot be read but our history already holds them (a
    `doctor --repair` made on top of the damage it pushed), a push of ours, wrapped by `ours`."""
    try:
        return plan()
    except _RemoteUnreadable:
        if not (local and remote and local != remote and git.repo.descendant_of(local, remote)):
            raise
    pushing = _Plan(ref, local, remote, detail="replaces the remote's unreadable version, which it descends from")
    pushing.decide(git, same_as_local=True, same_as_remote=False)
    return ours(pushing)


def _records(git: GitStore, kind: StateKind[T], ref: str, tip: str | None, which: str,
             label: str) -> tuple[dict[str, T], dict[str, str], dict[str, dict[str, T]], dict[str, str]]:
    """(records by ID, commit of each, records by commit, blob of each commit) of one side; refuses unreadable notes.

    A remote note rebuilt from line-sort damage has no blob: its bytes are never taken as they are.
    """
    records: dict[str, T] = {}
    where: dict[str, str] = {}
    by_commit: dict[str, dict[str, T]] = defaultdict(dict)
    blobs: dict[str, str] = {}
    if tip is None:
        return records, where, by_commit, blobs
    for commit, blob in git.notes_at(tip):
        try:
            decoded, rebuilt = _decoded_rebuilding(kind.decode, commit, git.read_blob(blob), which)
        except (UnreadableState, ValueError) as exc:
            raise _unreadable(which, label, ref, exc) from None
        if not rebuilt:
            blobs[commit] = blob
        by_commit[commit] = {}
        for record in decoded:
            rid = kind.rid(record)
            records[rid], where[rid] = record, commit
            by_commit[commit][rid] = record
    return records, where, by_commit, blobs


def _plan_keyed(git: GitStore, ref: str, local: str | None, remote: str | None, label: str,
                edges: Mapping[str, Edge] | None = None) -> tuple[_Plan, dict[str, Any]]:
    """A state ref of records keyed by ID; returns the plan and the merged records (for edges -> meta)."""
    kind = STATE_KINDS[ref]
    plan = _Plan(ref, local, remote, message=f"memactors sync: merged {label}\n")
    if local == remote and ref != EDGES_REF:
        return plan, {}
    mine, mine_at, mine_by, _ = _records(git, kind, ref, local, "local", label)
    if local == remote:
        return plan, mine  # the edges as they stand: metadata merges re-apply their resolutions
    theirs, theirs_at, theirs_by, theirs_blobs = _records(git, kind, ref, remote, "remote", label)
    plan.rebuilt = len(theirs_by.keys() - theirs_blobs.keys())
    ahead = _ahead(git, local, remote, plan.rebuilt)
    if ahead is not None:
        merged = dict(theirs if ahead == "remote" else mine)
    else:
        base: dict[str, Any] = {}
        found = git.repo.merge_base(local, remote) if local and remote else None
        if found is not None:
            base = _records(git, kind, ref, str(found), "base", label)[0]
        merged = three_way(base, mine, theirs, kind.both)
    if ref == META_REF and edges is not None:
        merged = apply_resolutions(merged, edges.values())
    placed: dict[str, dict[str, Any]] = defaultdict(dict)
    for rid, record in merged.items():
        placed[_placement(record, rid, (mine, mine_at), (theirs, theirs_at))][rid] = record
    same_as_remote = not plan.rebuilt  # their damaged bytes are never taken: merge, and the remote gets the mend
    for commit in placed.keys() | mine_by.keys() | theirs_by.keys():
        now, before, there = placed.get(commit, {}), mine_by.get(commit, {}), theirs_by.get(commit, {})
        if now != there:
            same_as_remote = False
        if now == before:
            continue
        if now == there and commit in theirs_blobs:
            plan.changes[commit] = git.read_blob(theirs_blobs[commit])  # their bytes: both sides converge
        else:
            plan.changes[commit] = kind.encode(list(now.values())) if now else None
    plan.added_locally = sum(1 for rid, record in merged.items() if mine.get(rid) != record)
    plan.pushed = sum(1 for rid, record in merged.items() if theirs.get(rid) != record)
    plan.decide(git, same_as_local=not plan.changes, same_as_remote=same_as_remote)
    if plan.fast_forward:
        plan.changes = {}
    return plan, merged


def _ahead(git: GitStore, local: str | None, remote: str | None, rebuilt: int) -> str | None:
    """"remote" or "local" when that side's history contains the other's, else None.

    Such a side already holds everything the other wrote and its later runs' decisions over it
    (a summary deleted, a supersession withdrawn): it is taken as it stands, not merged record by
    record, so clones that sync in turn converge on one commit. A remote with notes rebuilt from
    line-sort damage is merged instead, so that the mend travels back.
    """
    if local is None or remote is None:
        return "remote" if local is None and not rebuilt else "local" if remote is None else None
    if not rebuilt and git.repo.descendant_of(remote, local):
        return "remote"
    if git.repo.descendant_of(local, remote):
        return "local"
    return None


def _placement(record: Any, rid: str, *sides: tuple[Mapping[str, Any], Mapping[str, str]]) -> str:
    """The commit a merged record hangs on, the same whichever side merges: metadata on its memory's
    commit; another record where a side holding it as merged keeps it, else the first such commit."""
    if isinstance(record, MemoryMeta):
        return record.commit
    holding = [at[rid] for records, at in sides if records.get(rid) == record and rid in at]
    return min(holding or [at[rid] for _, at in sides if rid in at])


def _newest_run(git: GitStore, tip: str | None) -> tuple[datetime, str] | None:
    """(start, commit of its note) of the run a runs-ref tip names in its Run-Commit trailer."""
    if tip is None:
        return None
    message = git.repo[tip].message
    run_commit = next((line.split(":", 1)[1].strip() for line in message.splitlines()
                       if line.startswith("Run-Commit:")), None)
    blob = git.note_blob_at(tip, run_commit) if run_commit else None
    if run_commit is None or blob is None:
        return None
    try:
        runs = decode_runs_note(git.read_blob(blob))
    except UnreadableState:
        return None
    return (max((started(run) for run in runs), default=datetime.min.replace(tzinfo=timezone.utc)), run_commit)


def _plan_runs(git: GitStore, local: str | None, remote: str | None, label: str) -> _Plan:
    plan = _Plan(RUNS_REF, local, remote)
    if local == remote:
        return plan
    mine = dict(git.notes_at(local)) if local else {}
    theirs = dict(git.notes_at(remote)) if remote else {}

    def runs_of(blob: str, which: str, commit: str) -> bytes:
        data = git.read_blob(blob)
        try:
            runs, rebuilt = _decoded_rebuilding(STATE_KINDS[RUNS_REF].decode, commit, data, which)
        except UnreadableState as exc:
            raise _unreadable(which, label, f"{RUNS_REF} on {commit[:12]}", exc) from None
        if not rebuilt:
            return data
        plan.rebuilt += 1
        return STATE_KINDS[RUNS_REF].encode(runs)

    same_as_remote = True
    descends = _ahead(git, local, remote, 0)  # history alone; a rebuilt remote note below makes it a merge
    for commit, blob in theirs.items():
        if mine.get(commit) == blob:
            continue
        their_data = runs_of(blob, "remote", commit)
        if commit not in mine:
            plan.changes[commit] = their_data
            plan.added_locally += len(decode_runs_note(their_data))
            continue
        my_data = runs_of(mine[commit], "local", commit)
        ahead = descends if descends == "local" or not plan.rebuilt else None
        merged = (their_data if ahead == "remote" else my_data if ahead == "local"
                  else merge_runs_note(my_data, their_data))
        count = lambda data: {str(r.get("run_id")) for r in decode_runs_note(data)}  # noqa: E731
        plan.added_locally += len(count(merged) - count(my_data))
        plan.pushed += len(count(merged) - count(their_data))
        if merged != my_data:
            plan.changes[commit] = merged
        if merged != their_data:
            same_as_remote = False
    for commit, blob in mine.items():
        if commit not in theirs:
            same_as_remote = False
            plan.pushed += len(decode_runs_note(runs_of(blob, "local", commit)))
    same_as_remote = same_as_remote and not plan.rebuilt
    # `memactors status` finds the last run through the tip's Run-Commit trailer: keep the newest one.
    newest = max((n for n in (_newest_run(git, local), _newest_run(git, remote)) if n), default=None)
    trailer = f"\nRun-Commit: {newest[1]}\n" if newest else ""
    plan.message = f"memactors sync: merged {label}\n{trailer}"
    plan.decide(git, same_as_local=not plan.changes, same_as_remote=same_as_remote)
    if plan.fast_forward:
        plan.changes = {}
    return plan


def _plan_all(git: GitStore, remote: _Remote, local_only: Iterable[str] = ()) -> list[_Plan]:
    base = git.notes_base
    private = {f"{base}/{namespace}" for namespace in local_only}
    local_memory = set(git.memory_refs().values()) - private
    prefix = remote.tracking(base) + "/"
    remote_memory = {base + "/" + name[len(prefix):] for name in git.repo.references
                     if name.startswith(prefix)} - private
    plans = [
        _plan_memory(git, ref, git.tip(ref), git.tip(remote.tracking(ref)), remote.argument)
        for ref in sorted(local_memory | remote_memory)
    ]
    tips = {ref: (git.tip(ref), git.tip(remote.tracking(ref))) for ref in STATE_REFS}
    label = remote.argument

    def keyed(ref: str, edges: Mapping[str, Edge] | None = None) -> tuple[_Plan, dict[str, Any]]:
        local = tips[ref][0]
        return _over_unreadable(
            git, ref, *tips[ref], lambda: _plan_keyed(git, ref, *tips[ref], label, edges=edges),
            lambda plan: (plan, _records(git, STATE_KINDS[ref], ref, local, "local", label)[0]))

    edges_plan, merged_edges = keyed(EDGES_REF)
    meta_plan, _ = keyed(META_REF, merged_edges)
    summaries_plan, _ = keyed(SUMMARIES_REF)
    runs_plan = _over_unreadable(git, RUNS_REF, *tips[RUNS_REF], lambda: _plan_runs(git, *tips[RUNS_REF], label),
                                 lambda plan: plan)
    return plans + [meta_plan, summaries_plan, edges_plan, runs_plan]
