"""Writing one memory exactly as git-notes-memory does: appended to HEAD's note in `refs/notes/mem/<ns>`.

The one way anything of ours adds a memory (`memactors capture`, an approved
proposal): same front matter, layout and positional ID as upstream, and
refused before writing when the entry would not read back as that memory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

from memactors.adapters.git.note_format import (
    append_entry,
    read_back_problem,
    serialize_entry,
    upstream_next_index,
)
from memactors.adapters.system.clock import SystemClock


class CaptureRefused(ValueError):
    """The entry would not read back as one memory; nothing was written. The message says why."""


def write_memory(store: Any, namespace: str, summary: str, content: str = "", *, tags: Sequence[str] = (),
                 relates_to: Sequence[str] = (), spec: str | None = None, phase: str | None = None,
                 now: datetime | None = None, announce: Callable[[], object] | None = None) -> str:
    """Append the memory to HEAD's note of `namespace` and return its ID (`ns:<sha>:<index>`).

    `store` is a MemoryStore; `announce` is called once the entry passed its read-back check, just
    before writing. Raises CaptureRefused (nothing written) or StoreError (the repository refused).
    """
    stamp = (now or SystemClock().now()).astimezone(timezone.utc).isoformat()
    front: dict[str, Any] = {"type": namespace, "timestamp": stamp, "summary": summary}
    if spec:
        front["spec"] = spec
    if phase:
        front["phase"] = phase
    if tags:
        front["tags"] = list(tags)
    if relates_to:
        front["relates_to"] = list(relates_to)
    entry = serialize_entry(front, content)
    problem = read_back_problem(namespace, entry, summary, list(tags), content)
    if problem is not None:
        raise CaptureRefused(problem)
    if announce is not None:
        announce()
    assigned: list[int] = []

    def new_note(existing: bytes | None) -> bytes:
        assigned.append(upstream_next_index(existing))
        return append_entry(existing, entry)

    store.git.check_writable()
    commit = store.git.append_memory_note(namespace, new_note)
    return f"{namespace}:{commit}:{assigned[-1]}"
