"""What each run changed, read from our state refs' history: every run writes one commit per ref, named
`memactors run <run-id>`, so a run's changes are that commit's notes against its parent's."""

from __future__ import annotations

from collections.abc import Iterator

import pygit2

from memactors.adapters.git.store import GitStore

#: How far back along a state ref a run (or a memory's history) is looked for: bounded work on a long history.
MAX_WALK = 400
_PREFIX = "memactors run "


def run_commits(git: GitStore, ref: str, limit: int = MAX_WALK) -> Iterator[tuple[str, str | None, str | None]]:
    """(run id or None for a commit no run wrote, the commit, its first parent) along `ref`, newest first."""
    tip = git.tip(ref)
    seen = 0
    while tip is not None and seen < limit:
        try:
            commit = git.repo[tip]
        except (KeyError, ValueError):
            return
        if not isinstance(commit, pygit2.Commit):
            return
        first_line = commit.message.splitlines()[0] if commit.message else ""
        parent = str(commit.parent_ids[0]) if commit.parent_ids else None
        yield (first_line[len(_PREFIX):].strip() if first_line.startswith(_PREFIX) else None), str(commit.id), parent
        tip, seen = parent, seen + 1


def changed_notes(git: GitStore, ref: str, run_id: str) -> list[tuple[str, bytes | None, bytes | None]] | None:
    """(annotated commit, note before, note after) of every note the run's commit on `ref` changed; None when
    no commit of that run is within reach on `ref` (the run wrote nothing there, or long ago)."""
    for found, commit, parent in run_commits(git, ref):
        if found == run_id:
            after = dict(git.notes_at(commit))
            before = dict(git.notes_at(parent)) if parent else {}
            changes = []
            for annotated in sorted(set(after) | set(before)):
                if after.get(annotated) != before.get(annotated):
                    changes.append((annotated, _read(git, before.get(annotated)), _read(git, after.get(annotated))))
            return changes
    return None


def note_history(git: GitStore, ref: str, annotated: str, limit: int = MAX_WALK) -> list[tuple[str | None, bytes]]:
    """(run id, note) for each commit of `ref` that changed the note on `annotated`, newest first."""
    history: list[tuple[str | None, bytes]] = []
    last: str | None = None
    versions: list[tuple[str | None, str | None]] = []
    for run_id, commit, _ in run_commits(git, ref, limit):
        versions.append((run_id, git.note_blob_at(commit, annotated)))
    # oldest first: a version is recorded where the blob changed
    for run_id, blob in reversed(versions):
        if blob is not None and blob != last:
            history.append((run_id, git.read_blob(blob)))
        last = blob
    return list(reversed(history))


def _read(git: GitStore, blob: str | None) -> bytes | None:
    return git.read_blob(blob) if blob else None
