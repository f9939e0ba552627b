"""What recall and the SessionStart context read: the consolidated state, flattened once per run.

The persister builds a `ReadModel` after every completed run over the whole
store; an adapter stores it under git's common dir, so `recall` and
`context` never scan notes, run the clusterer or call a model to answer.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from memactors.events.tier import Tier

READ_MODEL_VERSION = 2


class EntryKind(StrEnum):
    MEMORY = "memory"
    SUMMARY = "summary"


class IndexedEntry(BaseModel):
    """One memory or summary as recall and context show it.

    `score` is the retention score the run computed (summaries: their best
    live member's); `tier` is the run's tier (summaries live in WARM).
    `superseded_by`/`superseded_by_text` name the newer memory, `supersedes`
    the summary lines of what this one replaced, `superseded_facts` what a
    summary records as no longer true. `terms` are the entry's words and
    path parts, for matching it to a session's changed files.
    """

    model_config = ConfigDict(frozen=True)

    kind: EntryKind
    id: str
    key: str
    namespace: str
    tier: Tier
    score: float
    timestamp: datetime
    last_access: datetime | None = None
    activation_count: int = 0
    summary: str
    title: str = ""
    readable: bool = True
    quality: float = 1.0
    copy_of: str | None = None
    copies: int = 1
    first_seen: datetime | None = None
    last_seen: datetime | None = None
    excerpt: str = ""
    tags: tuple[str, ...] = ()
    superseded_by: str | None = None
    superseded_by_text: str | None = None
    supersedes: tuple[str, ...] = ()
    superseded_facts: tuple[str, ...] = ()
    consolidated_into: str | None = None
    sources: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()
    fresh: bool = False  # written since the last run: read from the notes at query time, no tier yet


class ReadModel(BaseModel):
    """Every entry of the store after a run, and the texts their vectors are made from.

    `embedding_texts[i]` belongs to `entries[i]` (the memories' texts are the
    clusterer's, so their vectors come from the cache). `memory_tips` are the
    memory refs as scanned: a reader compares them to tell whether memories
    arrived since. `reference_time` is the "now" the run's recency counted from. `conflicts` are the
    contradictions no one has decided yet (the SessionStart block shows each once, as a question for the user).
    """

    model_config = ConfigDict(frozen=True)

    version: int = READ_MODEL_VERSION
    run_id: str
    generated_at: datetime
    reference_time: datetime | None = None
    memory_tips: dict[str, str]
    entries: tuple[IndexedEntry, ...]
    embedding_texts: tuple[str, ...]
    conflicts: tuple[tuple[str, str], ...] = ()  # undecided contradictions: pairs of memory ids
