"""What each memory's content says (events/quality.py traits), cached by memory key across runs.

A memory key hashes the memory's content, so its traits never change:
computing them once per memory, not once per run, keeps a warm run over
100,000 memories from re-reading every body. One JSON file under
`<git common dir>/memactors/`, machine-local; a missing, corrupt or
old-version file is an empty cache, never an error. Without a directory the
cache lives in memory only (one process).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from memactors.events.memory import Memory
from memactors.events.quality import ContentTraits, content_traits

TRAITS_FILE = "content-traits.json"
#: Bumped whenever what `content_traits` computes changes, so old answers are not reused.
TRAITS_VERSION = 4
_FIELDS = ContentTraits._fields
#: The JSON types of a row as `save` writes it (a share of 0 or 1 may come back as an int).
_ROWS = {(str, bool, bool, bool, bool, share, int, str, bool) for share in (float, int)}


class TraitsCache:
    """`ContentReader` for the actors. Not thread-safe: one run at a time uses it."""

    def __init__(self, directory: Path | None = None) -> None:
        self.path = directory / TRAITS_FILE if directory is not None else None
        self._known: dict[str, ContentTraits] | None = None
        self._used: set[str] = set()
        self._dirty = False

    def traits(self, memories: Sequence[Memory]) -> dict[str, ContentTraits]:
        known = self._load()
        found: dict[str, ContentTraits] = {}
        for memory in memories:
            traits = known.get(memory.key)
            if traits is None:
                traits = known[memory.key] = content_traits(summary=memory.summary, body=memory.body,
                                                            tags=memory.tags)
                self._dirty = True
            found[memory.key] = traits
        self._used.update(found)
        return found

    def save(self) -> None:
        """Keep what runs since loading used (the file tracks the store); atomic, silent on a full disk."""
        if self.path is None or self._known is None or not self._used:
            return
        if not self._dirty and self._used >= self._known.keys():
            return
        rows = {key: list(t) for key, t in self._known.items() if key in self._used}
        tmp = self.path.with_name(f".{self.path.name}.tmp{os.getpid()}")
        try:
            self.path.parent.mkdir(exist_ok=True)  # never parents: a vanished repository is not recreated
            tmp.write_text(json.dumps({"version": TRAITS_VERSION, "fields": _FIELDS, "traits": rows},
                                      ensure_ascii=False, separators=(",", ":")))
            os.replace(tmp, self.path)
        except OSError:
            tmp.unlink(missing_ok=True)
            return
        self._known = {key: t for key, t in self._known.items() if key in self._used}
        self._dirty = False

    def _load(self) -> dict[str, ContentTraits]:
        if self._known is not None:
            return self._known
        self._known = {}
        if self.path is None:
            return self._known
        try:
            document = json.loads(self.path.read_text())
            if document.get("version") == TRAITS_VERSION and tuple(document.get("fields", ())) == _FIELDS:
                self._known = {key: ContentTraits._make(row) for key, row in document["traits"].items()
                               if tuple(map(type, row)) in _ROWS}
        except (OSError, ValueError, TypeError, AttributeError, KeyError):  # pydantic's errors are ValueErrors
            self._known = {}
        return self._known
