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
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

import pygit2
from pydantic import BaseModel, ConfigDict

from memactors.adapters.git.doctor import git_of
from memactors.adapters.git.git_cli import last_line, run_git
from memactors.adapters.git.memory_store import (
    STATE_REFS,
    MemoryStore,
)
from memactors.adapters.git.repo_lock import RepoLock
from memactors.adapters.git.store import GitStore, RefLocked, RefsMoved, StoreError
from memactors.adapters.git.sync_plan import RefOutcome, RefSync, SyncError, _Plan, _plan_all, _Remote

#: Fetch-merge-push rounds before giving up on a remote that keeps moving.
MAX_ATTEMPTS = 5




_RETRYABLE = ("fetch first", "non-fast-forward", "stale info", "atomic push failed",
              "atomic transaction failed", "failed to update ref", "failed to lock", "already exists")


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


_STALE_LOCK_ADVICE = ("if no git or memactors process is running, a killed one left that .lock file behind: "
                      "remove it and retry; nothing changed locally")


def _fetch(git: GitStore, remote: _Remote) -> None:
    base = git.notes_base
    specs = [
        f"+{base}/*:{remote.tracking(base)}/*",
        f"+refs/notes/mem-*:{remote.tracking('refs/notes/mem-')}*",
    ]
    done = run_git(git, "fetch", "--quiet", "--prune", "--no-tags", "--no-write-fetch-head",
                    remote.argument, *specs, check=False)
    if done.returncode != 0:
        reason = last_line(done.stderr)
        if ".lock" in done.stderr and "File exists" in done.stderr:  # a killed fetch left its lock file
            raise SyncError(f"cannot fetch from {remote.argument} ({reason}); {_STALE_LOCK_ADVICE}")
        raise SyncError(f"cannot fetch from {remote.argument}: {reason}; nothing changed locally")


@dataclass(frozen=True)
class _PushResult:
    ok: bool
    retry: bool
    message: str


def _push(git: GitStore, remote: _Remote, pushes: Mapping[str, str]) -> _PushResult:
    specs = [f"{commit}:{ref}" for ref, commit in sorted(pushes.items())]
    # No `+`: every push is fast-forward only, so nothing on the remote can be overwritten;
    # --atomic: the remote's refs move together or not at all.
    done = run_git(git, "push", "--porcelain", "--atomic", remote.argument, *specs, check=False)
    if done.returncode == 0:
        return _PushResult(True, False, "")
    rejected = [line.split("\t") for line in done.stdout.splitlines() if line.startswith("!\t")]
    reasons = [parts[2] for parts in rejected if len(parts) >= 3]
    if reasons and all(any(key in reason for key in _RETRYABLE) for reason in reasons):
        return _PushResult(False, True, "; ".join(sorted(set(reasons))))
    detail = "; ".join(sorted(set(reasons))) or last_line(done.stderr)
    return _PushResult(False, False, f"{detail} ({last_line(done.stderr)})" if reasons else detail)


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
            raise SyncError(f"cannot update local refs ({str(exc).rstrip(': ')}); {_STALE_LOCK_ADVICE}") from None
        except RefLocked as exc:  # held past the wait: the lock's path and what to do, as a sync error
            raise SyncError(f"cannot update local refs: {exc}") from None
        if any(ref in updates for ref in STATE_REFS):
            git.ensure_rewrite_refs(list(STATE_REFS))


def sync(
    target: GitStore | MemoryStore | str | os.PathLike[str],
    remote: str = "origin",
    *,
    dry_run: bool = False,
    max_attempts: int = MAX_ATTEMPTS,
    lock_wait: float = 0.0,
    local_only: Collection[str] = (),
) -> SyncReport:
    """Fetch `remote`'s memory and state refs, merge them into ours entry by entry, push the result.

    Holds the repository lock, waiting up to `lock_wait` seconds for a run in
    progress (then RepositoryBusy naming the holder). Raises
    SyncError, with local refs untouched, for a missing or unreachable remote
    or a state note it cannot read. A dry run fetches into the tracking
    refs only: no local memory or state ref moves, nothing is pushed. Namespaces in `local_only` (the
    personal one, unless the user shares it) are neither pushed nor taken from the remote.
    """
    git = git_of(target)
    with RepoLock(git.common_dir, role="sync", wait=lock_wait):
        where = _resolve_remote(git, remote)
        added_entries = added_records = rebuilt = 0
        retries = 0
        for attempt in range(1, max_attempts + 1):
            _fetch(git, where)
            plans = _plan_all(git, where, local_only)
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
