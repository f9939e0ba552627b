"""Per-memory consolidation metadata: the inputs of retention and the tier."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

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
    #: the user's word on the memory's tier: "pinned" (hot whatever its retention) or "archived"; None with
    #: `pinned_at` set is an undo (the latest word wins when clones merge)
    pin: Literal["pinned", "archived"] | None = None
    pinned_at: datetime | None = None


def _latest(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None or b is None:
        return a if b is None else b
    return max(a, b)


def _latest_word(a: MemoryMeta, b: MemoryMeta) -> dict[str, object]:
    """The user's latest pin or archive (or undo) of the two records."""
    said = [m for m in (a, b) if m.pinned_at is not None]
    if not said:
        return {"pin": None, "pinned_at": None}
    latest = max(said, key=lambda m: (m.pinned_at, m.pin or ""))
    return {"pin": latest.pin, "pinned_at": latest.pinned_at}


def merge_meta(local: MemoryMeta, remote: MemoryMeta) -> MemoryMeta:
    """One memory's metadata from two records of it, field by field; the same whichever side is local.

    Highest activation count, latest last access, earliest creation; a
    supersession or consolidation from either side; the user's latest pin or archive. Where both sides hold
    different values (tier, placement, two supersessions), the record that
    sorts last by its JSON decides: arbitrary but total, so two clones that
    merge each other's records converge. The next run recomputes the tier.
    """
    first, second = sorted((local, remote), key=lambda m: m.model_dump_json(), reverse=True)
    return first.model_copy(
        update={
            "created": min(first.created, second.created),
            "last_access": _latest(first.last_access, second.last_access),
            "activation_count": max(first.activation_count, second.activation_count),
            "superseded_by": first.superseded_by or second.superseded_by,
            "consolidated_into": first.consolidated_into or second.consolidated_into,
            "cluster_id": first.cluster_id or second.cluster_id,
            **_latest_word(first, second),
        }
    )
