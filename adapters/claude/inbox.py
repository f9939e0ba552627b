"""The durable hook inbox: one JSON file per event under git's common dir.

Standard library only: hooks import this on a path that must finish in
well under 100 ms. Files are written to a temporary name and renamed, so a
reader never sees half an event; they are removed only after the run they
triggered completed, so no event is lost when nobody is listening.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memactors.adapters.claude.git_dirs import common_dir_of

INBOX_KINDS = ("commit", "stop", "session-end", "consolidate")
#: Kinds whose sender waits for the run's report in `answers/` (a `memactors consolidate` handed to the daemon).
REQUEST_KINDS = ("consolidate",)
#: Answers nobody collected (the sender stopped waiting) go after this long.
ANSWER_TTL_SECONDS = 24 * 3600.0
log = logging.getLogger("memactors.inbox")


def find_common_dir(start: Path) -> Path | None:
    """git's common dir for `start` (work tree, worktree, `.git` dir or bare repository), without git."""
    found = common_dir_of(str(start))
    return Path(found) if found is not None else None


@dataclass(frozen=True)
class InboxEvent:
    """One dropped event: what happened, when, and what the hook said."""

    path: Path
    kind: str
    at: float
    payload: dict[str, Any]


class Inbox:
    """`<common dir>/memactors/inbox`: `drop` appends, `pending` reads in order, `ack` removes.

    A file that cannot be read as an event is moved to `inbox/corrupt/`
    and reported once by `pending`, never retried; one that cannot even be
    moved (disk full, read-only) is logged once and ignored by this instance.
    """

    def __init__(self, common_dir: Path) -> None:
        self.directory = common_dir / "memactors" / "inbox"
        self.corrupt_directory = self.directory / "corrupt"
        self.answers_directory = common_dir / "memactors" / "answers"
        self._unmovable: set[Path] = set()

    def drop(self, kind: str, payload: dict[str, Any] | None = None) -> Path:
        if kind not in INBOX_KINDS:
            raise ValueError(f"unknown event kind {kind!r}")
        self.directory.mkdir(parents=True, exist_ok=True)
        now = time.time()
        name = f"{time.time_ns():020d}-{os.getpid()}-{secrets.token_hex(3)}.json"
        tmp = self.directory / f".{name}.tmp"
        tmp.write_text(json.dumps({"kind": kind, "at": now, "payload": payload or {}}))
        target = self.directory / name
        os.replace(tmp, target)
        return target

    def pending(self) -> tuple[list[InboxEvent], list[Path]]:
        """(events in arrival order, files just moved aside as corrupt)."""
        if not self.directory.is_dir():
            return [], []
        events: list[InboxEvent] = []
        corrupt: list[Path] = []
        for path in sorted(self.directory.glob("*.json")):
            if path in self._unmovable:
                continue
            try:
                doc = json.loads(path.read_text())
                kind, at, payload = doc["kind"], float(doc["at"]), doc.get("payload") or {}
                if kind not in INBOX_KINDS or not isinstance(payload, dict):
                    raise ValueError(kind)
            except FileNotFoundError:
                continue  # acked by another reader meanwhile
            except (OSError, ValueError, KeyError, TypeError):
                moved = self.corrupt_directory / path.name
                try:
                    self.corrupt_directory.mkdir(exist_ok=True)
                    os.replace(path, moved)
                    corrupt.append(moved)
                except FileNotFoundError:
                    pass  # acked by another reader meanwhile
                except OSError as exc:
                    self._unmovable.add(path)
                    log.warning("corrupt inbox file %s could not be moved aside (%s); ignoring it", path, exc)
                continue
            events.append(InboxEvent(path=path, kind=kind, at=at, payload=payload))
        return events, corrupt

    def answer_path(self, event_path: Path | str) -> Path:
        """Where the report for the request dropped as `event_path` appears."""
        return self.answers_directory / Path(event_path).name

    def answer(self, event_path: Path | str, document: dict[str, Any]) -> None:
        """Leave `document` (a run's report) for the sender of a request; stale answers are swept."""
        self.answers_directory.mkdir(parents=True, exist_ok=True)
        target = self.answer_path(event_path)
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_text(json.dumps(document))
        os.replace(tmp, target)
        cutoff = time.time() - ANSWER_TTL_SECONDS
        for old in self.answers_directory.glob("*.json"):
            try:
                if old.stat().st_mtime < cutoff:
                    old.unlink()
            except OSError:
                pass

    def ack(self, events: list[InboxEvent]) -> None:
        self.ack_paths([str(event.path) for event in events])

    def ack_paths(self, paths: list[str] | tuple[str, ...]) -> None:
        """Remove every file of `paths` that can be; then raise the first OSError, if any."""
        failed: OSError | None = None
        for path in paths:
            try:
                Path(path).unlink()
            except FileNotFoundError:
                pass
            except OSError as exc:
                failed = failed or exc
        if failed is not None:
            raise failed
