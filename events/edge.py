"""Relationships between memories (and summaries), as stored in `refs/notes/mem-edges`."""

from __future__ import annotations

import hashlib
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

EDGE_SCHEMA_VERSION = 1


class EdgeType(StrEnum):
    SUPERSEDES = "supersedes"
    CONSOLIDATES = "consolidates"
    SUBSUMES = "subsumes"
    REFERENCES = "references"
    CONTRADICTS = "contradicts"


class Edge(BaseModel):
    """`source` -> `target` of `edge_type`, by stable key (summaries as `summary:<id>`).

    `source_id`/`target_id` are the human IDs at the time of writing (the
    spec's fields); keys are what later runs match on. `resolution` is set
    on `contradicts` edges once the user decided (`keep:<key>` or `both`).
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
