"""Parsed notes cached by note blob id, so a rescan parses only notes that changed.

One JSON file under git's common dir, validated in one pass by pydantic;
machine-local, never shared. A missing, corrupt or old-version file is an
empty cache, never an error.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, TypeAdapter, ValidationError

from memactors.adapters.git.note_format import NoteParse
from memactors.events.memory import Memory

CACHE_VERSION = 3


class _CachedNote(BaseModel):
    m: list[Memory]
    s: dict[str, int]
    w: dict[str, int]


class _CacheFile(BaseModel):
    version: int
    notes: dict[str, _CachedNote]


_FILE = TypeAdapter(_CacheFile)


class ParseCache:
    """Maps (namespace, blob id, commit) to the parse of that note.

    `save` writes atomically and keeps only the entries used since
    loading, so the file tracks the store's size. The file is read on first
    use, so a command that opens the store but parses no note (recall) never
    pays for it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._loaded: dict[str, _CachedNote] | None = None
        self._used: set[str] = set()
        self._dirty = False
        self.hits = 0
        self.misses = 0

    @property
    def _entries(self) -> dict[str, _CachedNote]:
        if self._loaded is None:
            self._loaded = {}
            try:
                loaded = _FILE.validate_json(self.path.read_bytes())
                if loaded.version == CACHE_VERSION:
                    self._loaded = loaded.notes
            except (OSError, ValueError, ValidationError):
                pass
        return self._loaded

    def get(self, namespace: str, blob: str, commit: str) -> NoteParse | None:
        slot = f"{namespace}:{blob}:{commit}"
        cached = self._entries.get(slot)
        if cached is None:
            self.misses += 1
            return None
        self.hits += 1
        self._used.add(slot)
        return NoteParse(memories=list(cached.m), skipped=Counter(cached.s), warnings=Counter(cached.w))

    def put(self, namespace: str, blob: str, commit: str, parse: NoteParse) -> None:
        slot = f"{namespace}:{blob}:{commit}"
        self._used.add(slot)
        self._dirty = True
        self._entries[slot] = _CachedNote(m=parse.memories, s=dict(parse.skipped), w=dict(parse.warnings))

    def save(self) -> None:
        """Write the cache if anything changed; failures leave the old file (it is only a cache)."""
        if self._loaded is None:  # never used: nothing to write, nothing to drop
            return
        unused = set(self._entries) - self._used
        if not self._dirty and not unused:
            return
        for slot in unused:
            del self._entries[slot]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_bytes(_FILE.dump_json(_CacheFile(version=CACHE_VERSION, notes=self._entries)))
            os.replace(tmp, self.path)
            self._dirty = False
        except OSError:
            pass
