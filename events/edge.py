"""Relationships between memories (and summaries), as stored in `refs/notes/mem-edges`."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

#: Notes holding a link (the types of LINK_TYPES) say 2, so a memactors that does not know links says "upgrade
#: memactors" instead of misreading them; notes without one still say 1 and stay readable by it.
EDGE_SCHEMA_VERSION = 2
LINKLESS_SCHEMA_VERSION = 1


class EdgeType(StrEnum):
    SUPERSEDES = "supersedes"
    CONSOLIDATES = "consolidates"
    SUBSUMES = "subsumes"
    REFERENCES = "references"
    CONTRADICTS = "contradicts"
    # links worth following: found from evidence, typed by the LLM judge, or set by the user
    RELATES_TO = "relates_to"
    DEPENDS_ON = "depends_on"
    IMPLEMENTS = "implements"
    EXTENDS = "extends"
    SUPPORTS = "supports"


LINK_TYPES = frozenset({EdgeType.RELATES_TO, EdgeType.DEPENDS_ON, EdgeType.IMPLEMENTS, EdgeType.EXTENDS,
                        EdgeType.SUPPORTS})
#: `resolution` of a link the user added (`memactors link`): runs never withdraw it.
ADDED = "added"
#: `resolution` of a link the user removed: no longer shown or followed, and never found again for that pair.
REMOVED = "removed"


class Edge(BaseModel):
    """`source` -> `target` of `edge_type`, by stable key (summaries as `summary:<id>`).

    `source_id`/`target_id` are the human IDs at the time of writing (the
    spec's fields); keys are what later runs match on. `resolution` is set
    on `contradicts` edges once the user decided (`keep:<key>` or `both`), and on links the user added or
    removed (`added`, `removed`). `found_by` says what found a link: `offline`, the LLM provider, or `user`.
    """

    model_config = ConfigDict(frozen=True)

    source_key: str
    target_key: str
    source_id: str
    target_id: str
    edge_type: EdgeType
    weight: float = Field(1.0, ge=0, le=1)
    reason: str = ""
    partial: bool = False
    created_at: datetime
    consolidation_run_id: str
    resolution: str | None = None
    found_by: str | None = None

    @property
    def in_force(self) -> bool:
        """False for a link the user removed: readers neither show nor follow it."""
        return self.resolution != REMOVED

    @property
    def is_link(self) -> bool:
        return self.edge_type in LINK_TYPES

    @property
    def id(self) -> str:
        return edge_id(self.source_key, self.target_key, self.edge_type)


def edge_id(source_key: str, target_key: str, edge_type: str) -> str:
    return hashlib.sha256(f"{source_key}\0{target_key}\0{edge_type}".encode()).hexdigest()[:16]


def merge_edge(local: Edge, remote: Edge) -> Edge:
    """One edge from two records of it, the same whichever side is local: a user's decision
    (`resolution`) from either wins; otherwise (or between two decisions) the later written, then
    the one that sorts last by its JSON."""
    return max((local, remote), key=lambda e: (e.resolution is not None, e.created_at,
                                                e.consolidation_run_id, e.model_dump_json()))


def note_schema_version(edges: Iterable[Edge]) -> int:
    """The schema version a note holding `edges` is written with (see EDGE_SCHEMA_VERSION)."""
    return EDGE_SCHEMA_VERSION if any(e.is_link for e in edges) else LINKLESS_SCHEMA_VERSION


def replaced_in_part(edges: Iterable[Edge], withdrawn: Collection[str] = ()) -> frozenset[str]:
    """Keys of the memories a newer one replaces in part (a partial supersession in force, not withdrawn)."""
    return frozenset(e.target_key for e in edges if e.edge_type is EdgeType.SUPERSEDES and e.partial and e.in_force
                     and e.id not in withdrawn)
