"""`memactors sync --setup`: refspecs, notes.rewriteRef and merge strategies so plain git push / fetch carry
our refs and never line-sort them; warnings about a repository-wide `cat_sort_uniq`."""

from __future__ import annotations

import os

from memactors.adapters.git.doctor import git_of
from memactors.adapters.git.memory_store import (
    STATE_REFS,
    MemoryStore,
)
from memactors.adapters.git.store import GitStore

#: Per-ref strategy for a plain `git notes merge` into our JSON refs: stop and ask, never line-sort.
STATE_MERGE_STRATEGY = "manual"
from memactors.adapters.git.git_cli import run_git
from memactors.adapters.git.sync_plan import SyncError, _Remote


def _config_values(git: GitStore, key: str) -> list[str]:
    done = run_git(git, "config", "--local", "--get-all", key, check=False)
    return done.stdout.splitlines() if done.returncode == 0 else []


def _config_get(git: GitStore, key: str) -> str | None:
    done = run_git(git, "config", "--get", key, check=False)  # any scope: what git will act on
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
            run_git(git, "config", "--local", "--add", key, value)
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
            run_git(git, "config", "--local", key, STATE_MERGE_STRATEGY)
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
