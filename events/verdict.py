"""The supersession judge's answer for one newer/older pair."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class Relation(StrEnum):
    """How a newer memory relates to an older one in the same cluster."""

    SUPERSEDES = "supersedes"        # the newer replaces the older (full or partial)
    SUBSUMES = "subsumes"            # one fully contains the other: the lesser is redundant
    COMPATIBLE = "compatible"        # both stand
    CONTRADICTORY = "contradictory"  # both cannot be true: the user decides
    AMBIGUOUS = "ambiguous"          # the judge cannot tell: the user decides


class Verdict(BaseModel):
    """`newer` vs `older` (stable keys). For SUBSUMES, `container` is the key that holds the other."""

    model_config = ConfigDict(frozen=True)

    newer: str
    older: str
    relation: Relation
    partial: bool = False
    container: str | None = None
    reason: str = ""
    confidence: float = Field(0.5, ge=0, le=1)
    provider: str = "offline"
    #: for a compatible pair, how the newer relates to the older when the LLM said (a LINK_TYPES value)
    link: str | None = None
