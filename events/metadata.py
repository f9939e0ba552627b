"""Per-memory consolidation metadata: the inputs of retention and the tier."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from memactors.events.tier import Tier

META_SCHEMA_VERSION = 1


class MemoryMeta(BaseModel):
    """What `refs/notes/mem-meta` stores for one memory.

    Inputs only (creation, last access, activation count, supersession,
    consolidation, the cluster it was last seen in) plus the tier last
    assigned; the retention score is
    derived on read. `commit` is where the record hangs: the commit of the
    memory it describes.
    """

    model_config = ConfigDict(frozen=True)

    key: str
    id: str
    namespace: str
    commit: str
    created: datetime
    last_access: datetime | None = None
    activation_count: int = 0
    superseded_by: str | None = None
    consolidated_into: str | None = None
    cluster_id: str | None = None
    tier: Tier


def _latest(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None or b is None:
        return a if b is None else b
    return max(a, b)


def merge_meta(local: MemoryMeta, remote: MemoryMeta) -> MemoryMeta:
    """One memory's metadata from two records of it, field by field.

    Highest activation count, latest last access, earliest creation; a
    supersession or consolidation from either side (local first). Tier and
    placement stay local: the next run recomputes the tier.
    """
    return local.model_copy(
        update={
            "created": min(local.created, remote.created),
            "last_access": _latest(local.last_access, remote.last_access),
            "activation_count": max(local.activation_count, remote.activation_count),
            "superseded_by": local.superseded_by or remote.superseded_by,
            "consolidated_into": local.consolidated_into or remote.consolidated_into,
            "cluster_id": local.cluster_id or remote.cluster_id,
        }
    )
