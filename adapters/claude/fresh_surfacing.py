"""Memories captured since the last run, for the per-turn surfacing hook (adapters/claude/surface_hook.py).

Each turn compares the memory refs' tips with those the surfacing index was built from: a few ref
files, nothing else, when nothing was captured since. When something was, the new entries are read
once with git and the standard library (adapters/claude/fresh_notes.py: bounded), judged as the
SessionStart hook judges them, linked to files as a run links them (actors/algorithms/file_signal.py),
and kept in `<common dir>/memactors/surfacing-fresh.json` until the refs move again or a run rewrites
the index — so later turns read one small JSON file.
"""

from __future__ import annotations

import json
import os

from memactors.adapters.claude.note_tips import NOTES_PREFIX, git, memory_refs, memory_tips
from memactors.adapters.reading.surfacing_index import MIN_QUALITY, FreshSubject, index_state, known_titles

TYPE_CHECKING = False  # typing costs the hook milliseconds on every tool call
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

CACHE_FILE = "surfacing-fresh.json"
CACHE_VERSION = 1
#: Paths of HEAD's tree read to recognise the paths a memory names; a larger tree is cut here.
MAX_TREE_FILES = 200_000


def fresh_subjects(db: sqlite3.Connection, common: str) -> list[FreshSubject]:
    """The readable memories captured since the run that wrote the surfacing index `db`, newest first, copies
    of a memory the index holds left out; [] when nothing was captured since, or the index predates recorded
    tips. Raises OSError when git cannot say."""
    run_id, recorded = index_state(db)
    if recorded is None:
        return []
    current = memory_tips(common, memory_refs(common, tuple(recorded)))
    if not any(tip != recorded.get(ref) for ref, tip in current.items()):
        return []
    path = os.path.join(common, "memactors", CACHE_FILE)
    cached = _read(path)
    if cached is not None and cached.get("run_id") == run_id and cached.get("tips") == current:
        return [FreshSubject(**m) for m in cached.get("memories", [])]
    found = _judged(db, common, recorded, current)
    _write(path, {"version": CACHE_VERSION, "run_id": run_id, "tips": current,
                  "memories": [{name: getattr(m, name) for name in FreshSubject.__slots__} for m in found]})
    return found


def _judged(db: sqlite3.Connection, common: str, recorded: dict[str, str], current: dict[str, str]
            ) -> list[FreshSubject]:
    """Read, judge and link the entries written since `recorded` (the slow path: once per move of the refs)."""
    from memactors.actors.algorithms.file_signal import Subject, file_links
    from memactors.adapters.claude.fresh_notes import fresh_memories

    namespaces = tuple(ref[len(NOTES_PREFIX):] for ref in current)
    found = fresh_memories(common, {"memory_tips": recorded}, namespaces, with_text=True, current=current)
    known = known_titles(db)
    chosen = [c for c in found.candidates if c["quality"] >= MIN_QUALITY
              and (c["namespace"], c["title"].lower()) not in known]
    if not chosen:
        return []
    commits = list(dict.fromkeys(c["id"].split(":")[1] for c in chosen))
    subjects = [Subject(row=i, commit=c["id"].split(":")[1], text=f"{c['title']}\n{c['text']}", tags=tuple(c["tags"]))
                for i, c in enumerate(chosen)]
    links = file_links(subjects, _changed_files(common, commits), _head_files(common))
    files: list[dict[str, float]] = [{} for _ in chosen]
    for file, rows in links.items():
        for row, weight in rows:
            files[row][file] = round(weight, 6)
    return [FreshSubject(id=c["id"], namespace=c["namespace"], date=c["timestamp"][:10], title=c["title"],
                         text=c["text"], tags=" ".join((c["namespace"], *c["tags"])), files=files[i])
            for i, c in enumerate(chosen)]


def _changed_files(common: str, commits: list[str]) -> dict[str, list[str]]:
    """commit -> the paths it changed (against its first parent)."""
    out = git(common, "log", "--no-walk=unsorted", "--name-only", "--format=%x01%H", *commits, "--")
    changed: dict[str, list[str]] = {}
    commit = ""
    for line in out.decode("utf-8", "replace").splitlines():
        if line.startswith("\x01"):
            commit = line[1:].strip()
            changed[commit] = []
        elif line.strip() and commit:
            changed[commit].append(line.strip())
    return changed


def _head_files(common: str) -> list[str]:
    """HEAD's paths (to recognise those a memory names); [] on an unborn branch."""
    try:
        out = git(common, "ls-tree", "-r", "--name-only", "-z", "HEAD")
    except OSError:
        return []
    return [p for p in out.decode("utf-8", "replace").split("\0") if p][:MAX_TREE_FILES]


def _read(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as handle:
            found = json.load(handle)
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) and found.get("version") == CACHE_VERSION else None


def _write(path: str, document: dict[str, Any]) -> None:
    """Write `document` through a temporary file and a rename (parallel hooks each write a whole file)."""
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(document, handle, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
