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
import json
import os
import re
import time

try:
    import fcntl
except ImportError:  # not POSIX: parallel hooks may then, rarely, repeat a memory
    fcntl = None  # type: ignore[assignment]

TYPE_CHECKING = False  # typing, pathlib and dataclasses cost the hook milliseconds to import
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import IO

SEEN_DIR = "surfaced"
LOG_FILE = "surfaced.log"
EXPIRY_SECONDS = 24 * 3600
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


class Seen:
    """The session's showings so far (read under the lock); `add` records one more."""

    def __init__(self, handle: IO[str]) -> None:
        self.ids: set[str] = set()
        self.events: set[str] = set()
        self.shown = 0
        self._handle = handle

    def add(self, event: str, ids: Iterable[str], kind: str) -> None:
        ids = list(ids)
        record = {"at": round(time.time(), 3), "event": event, "kind": kind, "ids": ids}
        self._handle.write(json.dumps(record) + "\n")
        self._handle.flush()
        self.ids.update(ids)
        self.events.add(event)
        if kind != "session-start":
            self.shown += len(ids)


def _filled(seen: Seen, text: str) -> Seen:
    for line in text.splitlines():
        try:
            record = json.loads(line)
            ids = [str(i) for i in record.get("ids", [])]
        except (ValueError, AttributeError, TypeError):
            continue  # a torn line costs that line only
        seen.ids.update(ids)
        seen.events.add(str(record.get("event", "")))
        if record.get("kind") != "session-start":
            seen.shown += len(ids)
    return seen


class SessionSeen:
    """The seen-list of session `session_id` in the repository whose common dir is `common_dir`."""

    def __init__(self, common_dir: str | os.PathLike[str], session_id: str) -> None:
        self.directory = os.path.join(os.fspath(common_dir), "memactors", SEEN_DIR)
        name = _UNSAFE.sub("_", session_id)[:100] or "_"
        self.path = os.path.join(self.directory, f"{name}.jsonl")

    @contextlib.contextmanager
    def locked(self, *, reset: bool = False) -> Iterator[Seen]:
        """The list under an exclusive lock; `reset` forgets it first (after compaction)."""
        os.makedirs(self.directory, exist_ok=True)
        fresh = not os.path.exists(self.path)
        with open(self.path, "a+", encoding="utf-8") as handle:
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                if reset:
                    handle.truncate(0)
                handle.seek(0)
                seen = _filled(Seen(handle), handle.read())
                handle.seek(0, os.SEEK_END)
                yield seen
            finally:
                if fcntl is not None:
                    fcntl.flock(handle, fcntl.LOCK_UN)
        if fresh:
            self.prune()

    def peek(self) -> Seen:
        """The list as it stands, read without a lock and without creating anything (nothing may be added)."""
        try:
            with open(self.path, encoding="utf-8") as handle:
                return _filled(Seen(None), handle.read())
        except OSError:
            return Seen(None)

    def end(self) -> None:
        """SessionEnd: one append of the session's showings to the log, then forget them."""
        try:
            with open(self.path, encoding="utf-8") as handle:
                lines = handle.read()
        except OSError:
            return
        session = os.path.basename(self.path)[: -len(".jsonl")]
        try:
            with open(os.path.join(os.path.dirname(self.directory), LOG_FILE), "a", encoding="utf-8") as log:
                log.write("".join(f'{{"session":"{session}",{line[1:]}\n' for line in lines.splitlines()
                                  if line.startswith("{")))
            os.unlink(self.path)
        except OSError:
            pass

    def prune(self) -> None:
        """Remove the lists of sessions that never ended (older than EXPIRY_SECONDS)."""
        cutoff = time.time() - EXPIRY_SECONDS
        try:
            for name in os.listdir(self.directory):
                path = os.path.join(self.directory, name)
                if name.endswith(".jsonl") and path != self.path and os.stat(path).st_mtime < cutoff:
                    os.unlink(path)
        except OSError:
            pass
