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
