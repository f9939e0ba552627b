"""What one Claude Code session has already been shown from memory. Standard library only.

One small file per session under `<git common dir>/memactors/surfaced/`,
one JSON line per showing (the SessionStart block's memories, then each
surfacing: the hook event it answered and the IDs it showed). Read and
appended under an exclusive `flock`, so parallel tool calls (and a plugin
and a settings hook answering the same event) never show a memory twice.
Compaction starts the list afresh (the model no longer sees what was
shown); SessionEnd appends the session's lines to `surfaced.log` in one
write and removes the file; files a session never ended are removed after
`EXPIRY_SECONDS`. This is not the activation log: a memory shown is not a
memory used, so surfacing never feeds its own ranking.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

SEEN_DIR = "surfaced"
LOG_FILE = "surfaced.log"
EXPIRY_SECONDS = 24 * 3600
_SAFE = re.compile(r"^[A-Za-z0-9_-]{1,80}$")


@dataclass
class Seen:
    """The session's showings so far (read under the lock); `add` records one more."""

    ids: set[str] = field(default_factory=set)
    events: set[str] = field(default_factory=set)
    shown: int = 0
    _handle: object = None

    def add(self, event: str, ids: Iterable[str], kind: str) -> None:
        ids = list(ids)
        record = {"at": round(time.time(), 3), "event": event, "kind": kind, "ids": ids}
        self._handle.write(json.dumps(record) + "\n")  # type: ignore[attr-defined]
        self._handle.flush()  # type: ignore[attr-defined]
        self.ids.update(ids)
        self.events.add(event)
        self.shown += len(ids)


class SessionSeen:
    """The seen-list of session `session_id` in the repository whose common dir is `common_dir`."""

    def __init__(self, common_dir: Path, session_id: str) -> None:
        self.directory = common_dir / "memactors" / SEEN_DIR
        name = session_id if _SAFE.match(session_id) else hashlib.sha256(session_id.encode()).hexdigest()[:32]
        self.path = self.directory / f"{name}.jsonl"

    @contextlib.contextmanager
    def locked(self, *, reset: bool = False) -> Iterator[Seen]:
        """The list under an exclusive lock; `reset` forgets it first (after compaction)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        fresh = not self.path.exists()
        with open(self.path, "a+", encoding="utf-8") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                if reset:
                    handle.truncate(0)
                handle.seek(0)
                seen = Seen(_handle=handle)
                for line in handle.read().splitlines():
                    try:
                        record = json.loads(line)
                        seen.ids.update(str(i) for i in record.get("ids", []))
                        seen.events.add(str(record.get("event", "")))
                        seen.shown += len(record.get("ids", [])) if record.get("kind") != "session-start" else 0
                    except (ValueError, AttributeError, TypeError):
                        continue  # a torn line costs that line only
                handle.seek(0, os.SEEK_END)
                yield seen
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
        if fresh:
            self.prune()

    def end(self) -> None:
        """SessionEnd: one append of the session's showings to the log, then forget them."""
        try:
            lines = self.path.read_text(encoding="utf-8")
        except OSError:
            return
        session = self.path.stem
        try:
            with open(self.directory.parent / LOG_FILE, "a", encoding="utf-8") as log:
                log.write("".join(f'{{"session":"{session}",{line[1:]}\n' for line in lines.splitlines()
                                  if line.startswith("{")))
            self.path.unlink()
        except OSError:
            pass

    def prune(self) -> None:
        """Remove the lists of sessions that never ended (older than EXPIRY_SECONDS)."""
        cutoff = time.time() - EXPIRY_SECONDS
        try:
            for path in self.directory.glob("*.jsonl"):
                if path != self.path and path.stat().st_mtime < cutoff:
                    path.unlink(missing_ok=True)
        except OSError:
            pass
