"""The labelled supersession store (tests/supersession_facts.py) written into a real repository.

Memories of a day hang on that day's commit, several per note as `git notes append` leaves them; a re-captured
memory is the same text with a later timestamp on a later commit. `keys[note_id]` lists the stable keys of a
note's copies, first copy first.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memactors.adapters.git.note_format import append_entry, parse_note, serialize_entry
from memactors.adapters.git.store import GitStore
from tests.realistic_store import new_repository
from tests.supersession_facts import Note, all_notes

START = datetime(2026, 9, 1, 9, 0, tzinfo=timezone.utc)
#: The store is read five days after its last memory.
NOW = START + timedelta(days=40)


@dataclass
class SupersessionStore:
    path: Path
    now: datetime = NOW
    keys: dict[str, list[str]] = field(default_factory=dict)

    def note_of(self) -> dict[str, str]:
        """Stable key -> the note id it is a copy of."""
        return {key: note for note, keys in self.keys.items() for key in keys}


def _front(note: Note, when: datetime) -> dict[str, object]:
    front: dict[str, object] = {"type": note.namespace, "timestamp": when.isoformat(), "summary": note.summary}
    if note.tags:
        front["tags"] = list(note.tags)
    return front


def build_supersession_store(path: Path, notes: list[Note] | None = None) -> SupersessionStore:
    """Write `notes` (default: every labelled note) into a new repository at `path`."""
    notes = all_notes() if notes is None else notes
    store = SupersessionStore(path=path)
    repo, sig, tree = new_repository(path, b"shop\n")
    captures = sorted(((n.day + later, n) for n in notes for later in (0.0, *n.recaptured)), key=lambda c: c[0])
    by_day: dict[int, list[tuple[float, Note]]] = defaultdict(list)
    for day, note in captures:
        by_day[int(day)].append((day, note))
    written: dict[str, dict[str, bytes]] = defaultdict(dict)
    parent: list = []
    for day in sorted(by_day):
        oid = repo.create_commit("refs/heads/main", sig, sig, f"day {day}", tree, parent)
        parent, commit = [oid], str(oid)
        for moment, note in by_day[day]:
            entry = serialize_entry(_front(note, START + timedelta(days=moment)), note.body)
            written[note.namespace][commit] = append_entry(written[note.namespace].get(commit), entry)
            key = parse_note(note.namespace, commit, append_entry(None, entry)).memories[0].key
            store.keys.setdefault(note.id, []).append(key)
    git = GitStore(path)
    for namespace, by_commit in written.items():
        ref = f"refs/notes/mem/{namespace}"
        git.move_refs({ref: git.build_notes_commit(None, by_commit, "capture")}, {ref: None}, "capture")
    return store


__all__ = ["NOW", "START", "SupersessionStore", "build_supersession_store"]
