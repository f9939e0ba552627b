"""`memactors sync`: fetch a remote's memory and state refs, merge them structurally, push the result.

Transport is the git CLI (fetch into our own tracking namespace
`refs/memactors/remotes/<remote>/...`, fast-forward-only atomic pushes);
merging happens in the object database (notes_merge), and every local ref
moves in one compare-and-swap transaction, so a sync killed midway leaves
each local ref at its old or its new commit. Merge commits keep both
parents: history is kept and the other clone's next sync fast-forwards.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import pygit2
from pydantic import BaseModel, ConfigDict

from memactors.adapters.doctor import git_of, rebuild_note
from memactors.adapters.git_store import GitStore, RefsMoved, StoreError
from memactors.adapters.memory_store import (
    EDGES_REF,
    META_REF,
    RUNS_REF,
    STATE_REFS,
    SUMMARIES_REF,
    MemoryStore,
)
from memactors.adapters.notes_merge import (
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
from memactors.adapters.repo_lock import RepoLock
from memactors.adapters.state_codec import UnreadableState, decode_runs_note, unsorted_documents
from memactors.events.edge import Edge
from memactors.events.metadata import MemoryMeta

#: Where fetched refs land: `refs/notes/X` of remote R is `refs/memactors/remotes/R/notes/X`.
TRACKING_ROOT = "refs/memactors/remotes"
#: Fetch-merge-push rounds before giving up on a remote that keeps moving.
MAX_ATTEMPTS = 5
#: Per-ref strategy for a plain `git notes merge` into our JSON refs: stop and ask, never line-sort.
STATE_MERGE_STRATEGY = "manual"
GIT_TIMEOUT_SECONDS = 600
_RETRYABLE = ("fetch first", "non-fast-forward", "stale info", "atomic push failed",
              "atomic transaction failed", "failed to update ref", "failed to lock", "already exists")


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


class SyncReport(BaseModel):
    """What a sync did (or, with `dry_run`, would do).

    `entries_*` count memory entries, `records_*` state records (summaries,
    edges, metadata, runs) that one side gained. `entries_lost` is checked
    on every merged note and is always 0 (a merge that would lose one is
    refused). `attempts` counts fetch-merge-push rounds, `retries` the
    rounds repeated because the remote or a local ref moved meanwhile.
    """

    model_config = ConfigDict(frozen=True)

    remote: str
    dry_run: bool
    refs: list[RefSync]
    entries_added_locally: int = 0
    entries_pushed: int = 0
    records_added_locally: int = 0
    records_pushed: int = 0
    remote_notes_rebuilt: int = 0
    entries_lost: int = 0
    attempts: int = 1
    retries: int = 0
    pushed: bool = False
    errors: list[str] = []

    @property
    def changed(self) -> bool:
        return any(r.outcome not in (RefOutcome.UP_TO_DATE, RefOutcome.REFUSED) for r in self.refs)


# --- git CLI -------------------------------------------------------------------------------


def _run_git(git: GitStore, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            ["git", "--git-dir", str(git.git_dir), *args],
            capture_output=True, text=True, env=env, timeout=GIT_TIMEOUT_SECONDS,
        )
    except FileNotFoundError:
        raise SyncError("the git command is not installed; sync needs it to talk to remotes") from None
    except subprocess.TimeoutExpired:
        raise SyncError(f"git {args[0]} took over {GIT_TIMEOUT_SECONDS} s; nothing changed locally") from None
    if check and done.returncode != 0:
        raise SyncError(f"git {args[0]} failed: {_last_line(done.stderr)}")
    return done


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("hint:")]
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (fatal or lines or ["no message"])[0]


@dataclass(frozen=True)
class _Remote:
    argument: str  # what git fetch/push get: a remote name or a URL
    label: str  # a ref-safe name for the tracking namespace

    def tracking(self, ref: str) -> str:
        return f"{TRACKING_ROOT}/{self.label}/{ref.removeprefix('refs/')}"


def _resolve_remote(git: GitStore, remote: str) -> _Remote:
    remote = remote.strip()
    if not remote:
        raise SyncError("no remote given")
    names = set(git.repo.remotes.names())
    if remote in names:
        return _Remote(remote, remote)
    as_path = Path(remote).expanduser()
    if "://" in remote or re.match(r"^[\w.-]+@[\w.-]+:", remote) or as_path.exists():
        url = str(as_path.resolve()) if as_path.exists() else remote
        return _Remote(url, "url-" + hashlib.sha1(url.encode()).hexdigest()[:12])
    known = ", ".join(sorted(names)) or "none"
    raise SyncError(
        f"no remote named {remote!r} (remotes: {known}); add one with `git remote add {remote} URL`; nothing changed"
    )


def _fetch(git: GitStore, remote: _Remote) -> None:
    base = git.notes_base
    specs = [
        f"+{base}/*:{remote.tracking(base)}/*",
        f"+refs/notes/mem-*:{remote.tracking('refs/notes/mem-')}*",
    ]
    done = _run_git(git, "fetch", "--quiet", "--prune", "--no-tags", "--no-write-fetch-head",
                    remote.argument, *specs, check=False)
    if done.returncode != 0:
        raise SyncError(f"cannot fetch from {remote.argument}: {_last_line(done.stderr)}; nothing changed locally")


@dataclass(frozen=True)
class _PushResult:
    ok: bool
    retry: bool
    message: str


def _push(git: GitStore, remote: _Remote, pushes: Mapping[str, str]) -> _PushResult:
    specs = [f"{commit}:{ref}" for ref, commit in sorted(pushes.items())]
    # No `+`: every push is fast-forward only, so nothing on the remote can be overwritten;
    # --atomic: the remote's refs move together or not at all.
    done = _run_git(git, "push", "--porcelain", "--atomic", remote.argument, *specs, check=False)
    if done.returncode == 0:
        return _PushResult(True, False, "")
    rejected = [line.split("\t") for line in done.stdout.splitlines() if line.startswith("!\t")]
    reasons = [parts[2] for parts in rejected if len(parts) >= 3]
    if reasons and all(any(key in reason for key in _RETRYABLE) for reason in reasons):
        return _PushResult(False, True, "; ".join(sorted(set(reasons))))
    detail = "; ".join(sorted(set(reasons))) or _last_line(done.stderr)
    return _PushResult(False, False, f"{detail} ({_last_line(done.stderr)})" if reasons else detail)


# --- planning ------------------------------------------------------------------------------


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
    for commit, blob in theirs.items():
        if mine.get(commit) == blob:
            continue
        their_data = runs_of(blob, "remote", commit)
        if commit not in mine:
            plan.changes[commit] = their_data
            plan.added_locally += len(decode_runs_note(their_data))
            continue
        my_data = runs_of(mine[commit], "local", commit)
        ahead = _ahead(git, local, remote, plan.rebuilt)
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


def _plan_all(git: GitStore, remote: _Remote) -> list[_Plan]:
    base = git.notes_base
    local_memory = set(git.memory_refs().values())
    prefix = remote.tracking(base) + "/"
    remote_memory = {base + "/" + name[len(prefix):] for name in git.repo.references if name.startswith(prefix)}
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


# --- the command ---------------------------------------------------------------------------


def _apply(git: GitStore, plans: list[_Plan]) -> None:
    """Build merge commits and move every local ref in one compare-and-swap transaction."""
    updates: dict[str, str] = {}
    expected: dict[str, str | None] = {}
    for plan in plans:
        if plan.outcome is RefOutcome.REFUSED:
            continue
        if plan.build:
            plan.new_commit = git.build_notes_commit(
                plan.local, plan.changes, plan.message, keep_layout=plan.keep_layout,
                extra_parents=[plan.remote] if plan.remote else [],
            )
            updates[plan.ref] = plan.new_commit
        elif plan.fast_forward and plan.remote is not None:
            updates[plan.ref] = plan.remote
        if plan.ref in updates or plan.local is not None:
            expected[plan.ref] = plan.local
    if updates:
        try:
            git.move_refs(updates, expected, "memactors: sync")
        except pygit2.GitError as exc:  # a ref locked by another git process: nothing moved
            raise SyncError(
                f"cannot update local refs ({str(exc).rstrip(': ')}); if no git or memactors process is running, "
                "a killed one left that .lock file behind: remove it and retry; nothing changed locally"
            ) from None
        if any(ref in updates for ref in STATE_REFS):
            git.ensure_rewrite_refs(list(STATE_REFS))


def sync(
    target: GitStore | MemoryStore | str | os.PathLike[str],
    remote: str = "origin",
    *,
    dry_run: bool = False,
    max_attempts: int = MAX_ATTEMPTS,
) -> SyncReport:
    """Fetch `remote`'s memory and state refs, merge them into ours entry by entry, push the result.

    Holds the repository lock (RepositoryBusy while a run holds it). Raises
    SyncError, with local refs untouched, for a missing or unreachable remote
    or a state note it cannot read. A dry run fetches into the tracking
    refs only: no local memory or state ref moves, nothing is pushed.
    """
    git = git_of(target)
    with RepoLock(git.common_dir):
        where = _resolve_remote(git, remote)
        added_entries = added_records = rebuilt = 0
        retries = 0
        for attempt in range(1, max_attempts + 1):
            _fetch(git, where)
            plans = _plan_all(git, where)
            lost = sum(plan.lost for plan in plans)
            if lost:  # cannot happen by construction; never publish a merge that would
                raise SyncError(f"a merge would lose {lost} entries; nothing changed (please report this)")
            errors = [f"{plan.ref}: {plan.detail}" for plan in plans if plan.outcome is RefOutcome.REFUSED]
            if not dry_run:
                try:
                    _apply(git, plans)
                except RefsMoved:
                    retries += 1  # a capture landed meanwhile: merge again from the new local tips
                    continue
                added_entries += sum(p.added_locally for p in plans if p.ref not in STATE_REFS and p.after != p.local)
                added_records += sum(p.added_locally for p in plans if p.ref in STATE_REFS and p.after != p.local)
                rebuilt += sum(p.rebuilt for p in plans if p.after != p.local)
            else:
                added_entries = sum(p.added_locally for p in plans if p.ref not in STATE_REFS
                                    and p.outcome in (RefOutcome.FETCHED, RefOutcome.MERGED))
                added_records = sum(p.added_locally for p in plans if p.ref in STATE_REFS
                                    and p.outcome in (RefOutcome.FETCHED, RefOutcome.MERGED))
                rebuilt = sum(p.rebuilt for p in plans)
            pushes = {p.ref: p.after for p in plans if p.push and p.after is not None}
            pushed_ok = False
            if pushes and not dry_run:
                outcome = _push(git, where, pushes)
                if outcome.retry:
                    retries += 1  # someone pushed meanwhile: fetch, merge and push again
                    continue
                if not outcome.ok:
                    raise SyncError(
                        f"{where.argument} refused the push: {outcome.message}; "
                        "the merge is kept locally, nothing is lost"
                    )
                pushed_ok = True
                _remember_pushed(git, where, pushes)
            return SyncReport(
                remote=where.argument,
                dry_run=dry_run,
                refs=[plan.result(dry_run) for plan in plans],
                entries_added_locally=added_entries,
                entries_pushed=sum(p.pushed for p in plans if p.push and p.ref not in STATE_REFS),
                records_added_locally=added_records,
                records_pushed=sum(p.pushed for p in plans if p.push and p.ref in STATE_REFS),
                remote_notes_rebuilt=rebuilt,
                entries_lost=0,
                attempts=attempt,
                retries=retries,
                pushed=pushed_ok,
                errors=errors,
            )
        raise SyncError(
            f"{where.argument} or the local refs kept moving: gave up after {max_attempts} attempts; "
            "everything merged so far is kept locally, run sync again"
        )


def _remember_pushed(git: GitStore, remote: _Remote, pushes: Mapping[str, str]) -> None:
    """Point the tracking refs at what the remote now holds, so a dry run right after says up-to-date."""
    tracking = {remote.tracking(ref): commit for ref, commit in pushes.items()}
    try:
        git.move_refs(tracking, {ref: git.tip(ref) for ref in tracking}, "memactors: sync pushed")
    except (RefsMoved, StoreError, pygit2.GitError):
        pass  # the next fetch corrects them


# --- setup ---------------------------------------------------------------------------------


def _config_values(git: GitStore, key: str) -> list[str]:
    done = _run_git(git, "config", "--local", "--get-all", key, check=False)
    return done.stdout.splitlines() if done.returncode == 0 else []


def _config_get(git: GitStore, key: str) -> str | None:
    done = _run_git(git, "config", "--get", key, check=False)  # any scope: what git will act on
    return done.stdout.strip() if done.returncode == 0 else None


def setup_remote(
    repo_path: GitStore | MemoryStore | str | os.PathLike[str], remote: str = "origin", *, dry_run: bool = False
) -> list[str]:
    """Configure `remote` so plain `git push`/`git fetch` carry our state refs; one line per setting.

    Adds a fetch refspec into our tracking refs, a fast-forward-only push
    refspec, `notes.rewriteRef` and a per-ref `manual` merge strategy for
    each state ref. Warns, changing nothing, when a repository-wide
    `cat_sort_uniq` setting puts the memory notes at risk. Idempotent.
    """
    git = git_of(repo_path)
    if remote not in set(git.repo.remotes.names()):
        known = ", ".join(sorted(git.repo.remotes.names())) or "none"
        raise SyncError(f"no remote named {remote!r} (remotes: {known}); add one with `git remote add {remote} URL`")
    where = _Remote(remote, remote)
    verb = "would add" if dry_run else "added"
    lines: list[str] = []

    def add(key: str, value: str, why: str = "") -> None:
        if value in _config_values(git, key):
            lines.append(f"{key}: {value} already set")
            return
        if not dry_run:
            _run_git(git, "config", "--local", "--add", key, value)
        lines.append(f"{key}: {verb} {value}{why}")

    add(f"remote.{remote}.fetch", f"+refs/notes/mem-*:{where.tracking('refs/notes/mem-')}*")
    if not _config_values(git, f"remote.{remote}.push"):
        # A configured push refspec replaces push.default: keep plain `git push` pushing the current branch.
        add(f"remote.{remote}.push", "HEAD", " (any push refspec replaces push.default; this keeps "
            "plain `git push` pushing the current branch)")
    add(f"remote.{remote}.push", "refs/notes/mem-*:refs/notes/mem-*",
        " (fast-forward only: a diverged ref is rejected, never overwritten; `memactors sync` merges it)")
    for ref in STATE_REFS:
        add("notes.rewriteRef", ref)
    for ref in STATE_REFS:
        key = f"notes.{ref.removeprefix('refs/notes/')}.mergeStrategy"
        current = _config_get(git, key)
        if current == STATE_MERGE_STRATEGY:
            lines.append(f"{key}: {current} already set")
            continue
        if not dry_run:
            _run_git(git, "config", "--local", key, STATE_MERGE_STRATEGY)
        lines.append(f"{key}: {'would set' if dry_run else 'set'} {STATE_MERGE_STRATEGY} (was {current or 'unset'}; "
                     "`git notes merge` stops instead of line-sorting JSON)")
    base = git.notes_base
    if not any(spec.lstrip("+").startswith(f"{base}/") for spec in _config_values(git, f"remote.{remote}.push")):
        lines.append(f"note: plain `git push` does not carry the memory notes ({base}/*), left as is: "
                     "git-notes-memory's own sync setup adds them, or run `memactors sync`")
    lines += _risk_warnings(git)
    return lines


def _risk_warnings(git: GitStore) -> list[str]:
    """Warnings, changing nothing, about settings that line-sort memory notes."""
    warnings: list[str] = []
    strategy = _config_get(git, "notes.mergeStrategy")
    if strategy == "cat_sort_uniq":
        at_risk = [
            ref for ref in sorted(git.memory_refs().values())
            if _config_get(git, f"notes.{ref.removeprefix('refs/notes/')}.mergeStrategy") in (None, "cat_sort_uniq")
        ] or [f"{git.notes_base}/*"]
        warnings.append(
            f"warning: notes.mergeStrategy=cat_sort_uniq (left unchanged): a `git notes merge` of diverged memory "
            f"notes ({', '.join(at_risk)}) sorts their lines together and destroys every entry's front matter; "
            "merge them with `memactors sync`, find damage with `memactors doctor`"
        )
    mode = _config_get(git, "notes.rewriteMode")
    if mode == "cat_sort_uniq":
        warnings.append(
            "warning: notes.rewriteMode=cat_sort_uniq (left unchanged): squashing commits that carry memory notes "
            "line-sorts them together; `memactors doctor` finds the damage"
        )
    return warnings
