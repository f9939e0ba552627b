"""What a cluster of memories amounts to, as stored in `refs/notes/mem-summaries`."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

SUMMARY_SCHEMA_VERSION = 1


class DecisionFact(BaseModel):
    model_config = ConfigDict(frozen=True)

    decision: str
    rationale: str = ""
    outcome: str = ""


class Summary(BaseModel):
    """One cluster's summary. `source_keys` are exactly the cluster's members.

    `provider` is `offline` for the extractive summarizer, else the LLM
    provider that wrote it; `confidence` is in [0, 1].
    """

    model_config = ConfigDict(frozen=True)

    id: str
    cluster_id: str
    text: str
    key_facts: tuple[str, ...] = ()
    decisions: tuple[DecisionFact, ...] = ()
    superseded_facts: tuple[str, ...] = ()
    source_keys: tuple[str, ...]
    source_ids: tuple[str, ...] = ()
    earliest: datetime
    latest: datetime
    confidence: float = Field(ge=0, le=1)
    provider: str
    model: str
    created_at: datetime
    run_id: str
    fallback_reason: str | None = None
