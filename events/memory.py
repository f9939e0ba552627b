"""A memory as read from a git-notes-memory store, and how it is identified."""

from __future__ import annotations

import hashlib
from datetime import datetime

from pydantic import BaseModel, ConfigDict

#: The namespaces git-notes-memory 0.12 knows; any other found under the base is accepted too.
KNOWN_NAMESPACES: tuple[str, ...] = (
    "inception",
    "elicitation",
    "research",
    "decisions",
    "progress",
    "blockers",
    "reviews",
    "learnings",
    "retrospective",
    "patterns",
)


def memory_key(namespace: str, timestamp: str, summary: str, body: str) -> str:
    """The stable identity of a memory: survives rebases and index drift.

    Positional IDs (`ns:sha:index`) move when notes are rewritten to new
    commits or when a body holds a `---` line; this hash does not.
    """
    digest = hashlib.sha256()
    for part in (namespace, timestamp, summary, body.strip()):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    return digest.hexdigest()[:32]


class Memory(BaseModel):
    """One entry of a memory note, parsed as far as was safe.

    `id` is the positional ID counting entries of the note from 0;
    `upstream_id` is the ID git-notes-memory assigned at capture, which
    drifts from `id` once an earlier body holds a `---` line. `aliases` are
    the positional IDs of identical copies elsewhere (a rebase copies notes
    to the new commits and leaves the old ones). All of them resolve.
    """

    model_config = ConfigDict(frozen=True)

    key: str
    namespace: str
    commit: str
    index: int
    upstream_index: int
    timestamp: datetime
    summary: str
    body: str = ""
    tags: tuple[str, ...] = ()
    spec: str | None = None
    phase: str | None = None
    status: str | None = None
    relates_to: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.namespace}:{self.commit}:{self.index}"

    @property
    def upstream_id(self) -> str:
        return f"{self.namespace}:{self.commit}:{self.upstream_index}"

    def answers_to(self, memory_id: str) -> bool:
        """True when `memory_id` names this memory in any accepted form.

        Accepted: the full or 7-char short sha form of either positional
        ID or of an alias, or the stable key itself.
        """
        if memory_id == self.key:
            return True
        parts = memory_id.split(":")
        if len(parts) != 3 or parts[0] != self.namespace or len(parts[1]) < 7:
            return False
        sha, index = parts[1].lower(), parts[2]
        return any(commit.startswith(sha) and own_index == index
                   for _, commit, own_index in (known.split(":") for known in self.positional_ids()))

    def positional_ids(self) -> tuple[str, ...]:
        """Every positional ID this entry answers to: its own, git-notes-memory's, its aliases."""
        own = (self.id,) if self.upstream_index == self.index else (self.id, self.upstream_id)
        return own + self.aliases

    def commits(self) -> set[str]:
        """The commits this entry hangs on: its own and its aliases'."""
        return {known.split(":")[1] for known in self.positional_ids()}
