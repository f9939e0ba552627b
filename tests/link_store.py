"""The labelled link store (tests/link_facts.py) written into a real repository.

Each day has a busy commit (it changes app/settings.py and the README) that the day's memories hang on, several
per note as `git notes append` leaves them; a memory with `files` hangs on its own commit that changed exactly
those files, as a progress note captured right after the work does. `keys[note_id]` is the memory's stable key.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pygit2

from memactors.adapters.git.note_format import append_entry, parse_note, serialize_entry
from memactors.adapters.git.store import GitStore
from tests.link_facts import NOTES, LinkNote

START = datetime(2026, 10, 5, 9, 0, tzinfo=timezone.utc)
NOW = START + timedelta(days=16)


@dataclass
class LinkStore:
    path: Path
    now: datetime = NOW
    keys: dict[str, str] = field(default_factory=dict)

    def note_of(self) -> dict[str, str]:
        return {key: note for note, key in self.keys.items()}


def _commit(repo: pygit2.Repository, parent: list, message: str, files: dict[str, bytes]) -> pygit2.Oid:
    """A commit on main whose tree is the parent's with `files` written (nested paths made)."""
    sig = pygit2.Signature("Dev", "dev@example.com")
    base = repo[parent[0]].tree if parent else None
    contents: dict[str, bytes] = {}
    if base is not None:
        def walk(tree: pygit2.Tree, prefix: str) -> None:
            for entry in tree:
                path = f"{prefix}{entry.name}"
                if entry.type_str == "tree":
                    walk(repo[entry.id], path + "/")
                else:
                    contents[path] = repo[entry.id].data
        walk(base, "")
    contents.update(files)
    return repo.create_commit("refs/heads/main", sig, sig, message, _tree(repo, contents), parent)


def _tree(repo: pygit2.Repository, contents: dict[str, bytes]) -> pygit2.Oid:
    builder = repo.TreeBuilder()
    folders: dict[str, dict[str, bytes]] = defaultdict(dict)
    for path, data in contents.items():
        head, _, rest = path.partition("/")
        if rest:
            folders[head][rest] = data
        else:
            builder.insert(head, repo.create_blob(data), pygit2.GIT_FILEMODE_BLOB)
    for name, inner in folders.items():
        builder.insert(name, _tree(repo, inner), pygit2.GIT_FILEMODE_TREE)
    return builder.write()


def build_link_store(path: Path, notes: tuple[LinkNote, ...] = NOTES) -> LinkStore:
    """Write `notes` into a new repository at `path`."""
    repo = pygit2.init_repository(str(path), initial_head="main")
    store = LinkStore(path=path)
    written: dict[str, dict[str, bytes]] = defaultdict(dict)
    parent: list = []
    by_day: dict[int, list[LinkNote]] = defaultdict(list)
    for note in notes:
        by_day[int(note.day)].append(note)
    for day in sorted(by_day):
        busy = _commit(repo, parent, f"day {day}", {"README.md": f"shop, day {day}\n".encode(),
                                                    "app/settings.py": f"VERSION = {day}\n".encode()})
        parent = [busy]
        for index, note in enumerate(by_day[day]):
            commit = busy
            if note.files:
                commit = _commit(repo, parent, note.summary, {f: f"# {note.id}\n".encode() for f in note.files})
                parent = [commit]
            when = START + timedelta(days=note.day, minutes=10 * index)
            front: dict[str, object] = {"type": note.namespace, "timestamp": when.isoformat(), "summary": note.summary}
            if note.tags:
                front["tags"] = list(note.tags)
            entry = serialize_entry(front, note.body)
            written[note.namespace][str(commit)] = append_entry(written[note.namespace].get(str(commit)), entry)
            store.keys[note.id] = parse_note(note.namespace, str(commit), append_entry(None, entry)).memories[0].key
    git = GitStore(path)
    for namespace, by_commit in written.items():
        ref = f"refs/notes/mem/{namespace}"
        git.move_refs({ref: git.build_notes_commit(None, by_commit, "capture")}, {ref: None}, "capture")
    return store


__all__ = ["NOW", "START", "LinkStore", "build_link_store"]
