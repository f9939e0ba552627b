"""The events of one consolidation run, in pipeline order.

RunRequested -> MemoriesScanned -> [SupersessionsJudged] -> MemoriesTiered
-> RunCompleted | RunFailed. Each carries the `run_id` it belongs to so
actors that join several of them can match them up.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from memactors.events.memory import Memory
from memactors.events.metadata import MemoryMeta
from memactors.events.report import RunReport
from memactors.events.state import StateSnapshot


class Event(BaseModel):
    """Base of everything that travels on the bus: frozen, routed by type."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)


class RunEvent(Event):
    """An event that belongs to one run."""

    run_id: str


class RunRequested(RunEvent):
    """Someone (CLI, a trigger) asked for a consolidation run."""

    trigger: str
    started_at: datetime
    namespaces: tuple[str, ...] | None = None
    dry_run: bool = False
    full: bool = False


class MemoriesScanned(RunEvent):
    """The store was read: every parsable memory in scope and the prior state."""

    request: RunRequested
    memories: tuple[Memory, ...]
    skipped: dict[str, int]
    warnings: dict[str, int]
    prior: StateSnapshot
    head: str | None


class SupersessionsJudged(RunEvent):
    """Which memories this run found superseded: key -> key of the newer memory."""

    superseded_by: dict[str, str]


class MemoriesTiered(RunEvent):
    """New metadata for every memory in scope, with tier counts and moves."""

    metas: tuple[MemoryMeta, ...]
    tier_counts: dict[str, int]
    tier_transitions: dict[str, int]


class RunCompleted(RunEvent):
    """The run ended and its report is final (persisted or not)."""

    report: RunReport


class RunFailed(RunEvent):
    """The run could not finish. `conflict` means the store moved under it: retry."""

    actor: str
    error: str
    conflict: bool = False
