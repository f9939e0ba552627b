"""Relative dates resolved against a memory's own timestamp, and the answers built on them (`recall --reason`)."""

from __future__ import annotations

from datetime import date, datetime, timezone

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator, model_validator


class TemporalResolution(BaseModel):
    """One relative date phrase in one memory, resolved in the user's zone; a span has `resolved_end`."""

    model_config = ConfigDict(frozen=True)

    original_text: str
    memory_id: str
    memory_timestamp: AwareDatetime
    resolved_date: date
    resolved_end: date | None = None
    confidence: float = Field(ge=0, le=1)

    @model_validator(mode="after")
    def _span_is_ordered(self) -> TemporalResolution:
        if self.resolved_end is not None and self.resolved_end < self.resolved_date:
            raise ValueError("resolved_end is before resolved_date")
        return self


class Alternative(BaseModel):
    """Another candidate answer to a date question: a different memory, or a different date."""

    model_config = ConfigDict(frozen=True)

    answer: str
    resolved_date: date
    resolved_end: date | None = None
    confidence: float = Field(ge=0, le=1)
    source_memory_ids: tuple[str, ...] = ()


class ReasonedAnswer(BaseModel):
    """An answer to a recall question with the memories and resolutions it rests on."""

    model_config = ConfigDict(frozen=True)

    question: str
    answer: str
    confidence: float = Field(ge=0, le=1)
    reasoning: str
    temporal_resolutions: tuple[TemporalResolution, ...] = ()
    source_memory_ids: tuple[str, ...] = ()
    alternatives: tuple[Alternative, ...] = ()
    provider: str = "offline"


class Evidence(BaseModel):
    """A recalled memory handed to the answer composer; callers pass them ranked best first."""

    model_config = ConfigDict(frozen=True)

    memory_id: str
    text: str
    timestamp: datetime
    relevance: float = Field(ge=0, le=1)
    #: The memories written just before and after it in its note (in a logged conversation, the turn it may answer
    #: and the reply that may retell it); empty at the note's ends.
    before: str = ""
    after: str = ""
    #: The memories written before it in its note, nearest first (`before` the first of them), each with the moment
    #: it was written: in a logged conversation, the story a speaker's turn may go on with.
    earlier: tuple[tuple[str, datetime], ...] = ()

    @field_validator("timestamp")
    @classmethod
    def _naive_is_utc(cls, value: datetime) -> datetime:
        # Upstream stamps UTC; a naive value has merely lost its zone on the way here.
        return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value
