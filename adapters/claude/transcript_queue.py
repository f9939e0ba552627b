"""Which session transcripts have new turns to read, and how far each was read.

Standard library only: the Stop, PreCompact and SessionEnd hooks call
`queue_transcript` on their <= 100 ms path. A queued transcript is one small
file under `<git common dir>/memactors/transcripts/queued/`, named for the
transcript (a session's repeated Stop hooks overwrite one file: coalesced);
it is removed only after its new turns were read and their proposals stored,
so a crash re-reads rather than loses. The cursor (`cursors.json`) keeps the
byte offset each transcript was read to, so no line is read twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

_DIR = ("memactors", "transcripts")


def _root(common_dir: Path) -> Path:
    return common_dir.joinpath(*_DIR)


def _name(transcript: str) -> str:
    return hashlib.sha256(transcript.encode("utf-8", "surrogatepass")).hexdigest()[:20] + ".json"


def _replace_json(path: Path, doc: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc))
    os.replace(tmp, path)


def queue_transcript(common_dir: Path, transcript: str, session_id: str = "", event: str = "") -> Path:
    """Note that `transcript` has new turns (a hook fired); returns the queue file."""
    path = _root(common_dir) / "queued" / _name(transcript)
    _replace_json(path, {"transcript_path": transcript, "session_id": session_id, "event": event, "at": time.time()})
    return path


def queued(common_dir: Path) -> list[tuple[Path, dict[str, Any]]]:
    """(queue file, what the hook said) for every queued transcript, oldest first; unreadable files skipped."""
    folder = _root(common_dir) / "queued"
    if not folder.is_dir():
        return []
    found: list[tuple[float, Path, dict[str, Any]]] = []
    for path in folder.glob("*.json"):
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and isinstance(doc.get("transcript_path"), str):
            found.append((float(doc.get("at") or 0), path, doc))
    return [(path, doc) for _, path, doc in sorted(found, key=lambda item: item[0])]


def done(queue_file: Path, seen_at: float) -> None:
    """Remove `queue_file` unless a hook queued the transcript again after `seen_at` (then it stays queued)."""
    try:
        doc = json.loads(queue_file.read_text())
        if float(doc.get("at") or 0) > seen_at:
            return
        queue_file.unlink()
    except (OSError, ValueError):
        pass


class Cursors:
    """Byte offsets read so far, by transcript path; `save` writes them atomically."""

    def __init__(self, common_dir: Path) -> None:
        self.path = _root(common_dir) / "cursors.json"
        try:
            doc = json.loads(self.path.read_text())
        except (OSError, ValueError):
            doc = {}
        self.offsets: dict[str, int] = {str(k): int(v) for k, v in doc.items()
                                        if isinstance(v, int)} if isinstance(doc, dict) else {}

    def offset(self, transcript: str) -> int:
        return self.offsets.get(transcript, 0)

    def advance(self, transcript: str, offset: int) -> None:
        self.offsets[transcript] = offset

    def save(self) -> None:
        _replace_json(self.path, self.offsets)
