"""Parsed notes cached by note blob id, so a rescan parses only notes that changed.

One JSON file under git's common dir; machine-local, never shared. A
missing, corrupt or old-version file is an empty cache, never an error.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

from memactors.adapters.note_format import NoteParse
from memactors.events.memory import Memory

CACHE_VERSION = 2
_FIELDS = ("key", "index", "upstream_index", "summary", "body", "spec", "phase", "status")


class ParseCache:
    """Maps (namespace, blob id) to the parse of that note.

    `get` rebuilds memories for the commit asked for (one blob may hang on
    several commits). `save` writes atomically and keeps only the entries
    used since `load`, so the file tracks the store's size.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._entries: dict[str, Any] = {}
        self._used: set[str] = set()
        self._dirty = False
        self.hits = 0
        self.misses = 0
        try:
            doc = json.loads(path.read_bytes())
            if isinstance(doc, dict) and doc.get("version") == CACHE_VERSION:
                self._entries = doc["notes"]
        except (OSError, ValueError, KeyError, TypeError):
            self._entries = {}

    def get(self, namespace: str, blob: str, commit: str) -> NoteParse | None:
        slot = f"{namespace}:{blob}"
        raw = self._entries.get(slot)
        if raw is None:
            self.misses += 1
            return None
        self.hits += 1
        self._used.add(slot)
        parse = NoteParse(skipped=Counter(raw["s"]), warnings=Counter(raw["w"]))
        for row in raw["m"]:
            fields = dict(zip(_FIELDS, row[: len(_FIELDS)]))
            parse.memories.append(
                Memory(
                    namespace=namespace,
                    commit=commit,
                    timestamp=datetime.fromisoformat(row[-3]),
                    tags=tuple(row[-2]),
                    relates_to=tuple(row[-1]),
                    **fields,
                )
            )
        return parse

    def put(self, namespace: str, blob: str, parse: NoteParse) -> None:
        slot = f"{namespace}:{blob}"
        self._used.add(slot)
        self._dirty = True
        self._entries[slot] = {
            "m": [
                [getattr(m, f) for f in _FIELDS] + [m.timestamp.isoformat(), list(m.tags), list(m.relates_to)]
                for m in parse.memories
            ],
            "s": dict(parse.skipped),
            "w": dict(parse.warnings),
        }

    def save(self) -> None:
        """Write the cache if anything changed; failures leave the old file (it is only a cache)."""
        unused = set(self._entries) - self._used
        if not self._dirty and not unused:
            return
        for slot in unused:
            del self._entries[slot]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_text(json.dumps({"version": CACHE_VERSION, "notes": self._entries}))
            os.replace(tmp, self.path)
            self._dirty = False
        except OSError:
            pass
