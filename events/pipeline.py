"""The events of one consolidation run, in pipeline order.

RunRequested -> MemoriesScanned -> ClustersFormed -> (ClustersSummarized,
SupersessionsJudged, LinksFound) -> MemoriesTiered -> RunCompleted | RunFailed. Each carries the `run_id` it belongs to so
actors that join several of them can match them up.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from memactors.events.cluster import Cluster
from memactors.events.edge import Edge
from memactors.events.memory import Memory
from memactors.events.metadata import MemoryMeta
from memactors.events.report import RunReport, TokenUsage
from memactors.events.state import StateSnapshot
from memactors.events.summary import Summary
from memactors.events.verdict import Verdict


class Event(BaseModel):
    """Base of everything that travels on the bus: frozen, routed by type."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)


class RunEvent(Event):
    """An event that belongs to one run."""

    run_id: str


def new_run_id(moment: datetime) -> str:
    """Sortable by time, unique across processes."""
    return f"{moment:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


class RunRequested(RunEvent):
    """Someone (CLI, a trigger) asked for a consolidation run."""

    trigger: str
    started_at: datetime
    namespaces: tuple[str, ...] | None = None
    dry_run: bool = False
    full: bool = False


class MemoriesScanned(RunEvent):
    """The store was read: every parsable memory in scope and the prior state.

    `memory_tips` are the memory refs read (ref -> commit); `activations` the
    uses recall recorded since (memory key -> times), which the tierer folds
    into last access and activation count; `unreadable_refs` the memory refs
    skipped whole (ref -> why, and how to fix it); `newest` the newest
    memory's time in the whole store (even when the scan covers some
    namespaces only): the store clock recency counts from; `prior_judge_rules` the offline judge's rules
    the last persisted run recorded; `abandoned` the keys of memories whose commits sit only on branches
    deleted without merging (the tierer ages them faster).
    """

    request: RunRequested
    memories: tuple[Memory, ...]
    newest: datetime | None = None
    skipped: dict[str, int]
    warnings: dict[str, int]
    prior: StateSnapshot
    head: str | None
    memory_tips: dict[str, str] = {}
    activations: dict[str, tuple[datetime, ...]] = {}
    unreadable_refs: dict[str, str] = {}
    #: the judge rules the last persisted run recorded (0: none, or a run before rules were recorded)
    prior_judge_rules: int = 0
    abandoned: frozenset[str] = frozenset()


class ClustersFormed(RunEvent):
    """Duplicates collapsed and memories grouped by meaning (never by time).

    `duplicate_of` maps each redundant exact duplicate to its canonical
    memory; `clusters` hold canonical memories only.
    """

    clusters: tuple[Cluster, ...]
    duplicate_of: dict[str, str]
    embedded: int = 0


class ClustersSummarized(RunEvent):
    """Summaries of the touched clusters of three or more memories."""

    summaries: tuple[Summary, ...]
    usage: TokenUsage = TokenUsage()
    fallbacks: tuple[str, ...] = ()
    injections_flagged: int = 0


class SupersessionsJudged(RunEvent):
    """Which memories this run found superseded: key -> key of the newer memory.

    `verdicts` holds every pair judged (compatible ones included).
    `withdrawn_edges` are ids of earlier verdict edges that an at least as
    confident verdict of this run overturned; `no_longer_superseded` the
    memories such an edge had marked superseded and no verdict now marks.
    """

    superseded_by: dict[str, str]
    verdicts: tuple[Verdict, ...] = ()
    withdrawn_edges: tuple[str, ...] = ()
    no_longer_superseded: tuple[str, ...] = ()
    usage: TokenUsage = TokenUsage()
    fallbacks: tuple[str, ...] = ()


class LinksFound(RunEvent):
    """Links worth following (events/edge.py LINK_TYPES) this run found: from evidence the store holds and from
    the LLM judge's typed answers. `withdrawn` are ids of links an earlier run found offline that the evidence no
    longer shows (set only by runs over the whole store)."""

    links: tuple[Edge, ...] = ()
    withdrawn: tuple[str, ...] = ()


class MemoriesTiered(RunEvent):
    """New metadata for every memory in scope, with tier counts and moves.

    `scores[i]` is the retention score `metas[i]` was tiered by, with
    recency counted from `reference_time` (the store clock's or the wall
    clock's "now").
    """

    metas: tuple[MemoryMeta, ...]
    scores: tuple[float, ...] = ()
    reference_time: datetime | None = None
    tier_counts: dict[str, int]
    tier_transitions: dict[str, int]


class RunCompleted(RunEvent):
    """The run ended and its report is final (persisted or not)."""

    report: RunReport


class RunFailed(RunEvent):
    """The run could not finish. `conflict` means the store moved under it: retry.

    `needs_user`, when set, is the one line to show: the failure is one no retry fixes (a corrupt
    state note, a read-only repository) until the user acts.
    """

    actor: str
    error: str
    conflict: bool = False
    needs_user: str | None = None
