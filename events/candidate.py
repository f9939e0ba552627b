"""A memory proposed from a session: what it says, where it came from, how sure we are, what it risks.

Candidates live on one machine (the review queue), never in shared refs,
until a user approves one; approval captures it like `memactors capture`.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from enum import Enum

from memactors.events.threat import Threat, ThreatLevel
from pydantic import BaseModel, ConfigDict, Field

#: The factors' weights (they sum to 1); configurable through MEMACTORS_CAPTURE_WEIGHTS.
DEFAULT_WEIGHTS: dict[str, float] = {
    "relevance": 0.25, "actionability": 0.30, "novelty": 0.20, "specificity": 0.15, "coherence": 0.10,
}


class ConfidenceFactors(BaseModel):
    """Each in 0..1: does it matter to this project, does it tell what to do, is it new, is it concrete,
    does it read as one complete statement."""

    model_config = ConfigDict(frozen=True)

    relevance: float = Field(ge=0.0, le=1.0)
    actionability: float = Field(ge=0.0, le=1.0)
    novelty: float = Field(ge=0.0, le=1.0)
    specificity: float = Field(ge=0.0, le=1.0)
    coherence: float = Field(ge=0.0, le=1.0)

    def confidence(self, weights: dict[str, float] = DEFAULT_WEIGHTS) -> float:
        total = sum(weights.values()) or 1.0
        return round(sum(getattr(self, name) * weight for name, weight in weights.items()) / total, 4)


class Action(str, Enum):
    """What a candidate does to the store: a new memory, or one replacing an existing memory."""

    ADD = "add"
    UPDATE = "update"


class Candidate(BaseModel):
    """One proposed memory. `replaces` (for an update) is the id of the memory it supersedes."""

    model_config = ConfigDict(frozen=True)

    id: str
    namespace: str
    summary: str = Field(max_length=100)
    content: str = ""
    session_id: str = ""
    transcript: str = ""
    lines: tuple[int, int] = (0, 0)
    uuids: tuple[str, ...] = ()
    source: str = ""  # where in the session it was said: user, assistant, answer, plan, rejection, queued
    quote: str = ""  # the words it came from
    factors: ConfidenceFactors
    confidence: float
    action: Action = Action.ADD
    replaces: str | None = None
    replaces_summary: str | None = None
    threat: Threat = Threat()
    provider: str = "offline"
    proposed_at: datetime
    redacted: int = 0

    @property
    def content_hash(self) -> str:
        return content_hash(self.summary, self.content)


def normalised(text: str) -> str:
    return " ".join(text.casefold().split())


def content_hash(summary: str, content: str) -> str:
    """What makes two candidates the same proposal (and what a rejection remembers)."""
    return hashlib.sha256(f"{normalised(summary)}\x00{normalised(content)}".encode()).hexdigest()[:24]


def candidate_id(summary: str, content: str) -> str:
    return "c-" + content_hash(summary, content)[:10]


class ProposedMemory(BaseModel):
    """One memory as an LLM proposes it from a session's new turns."""

    namespace: str
    summary: str
    content: str
    relevance: float = Field(ge=0.0, le=1.0)
    actionability: float = Field(ge=0.0, le=1.0)
    novelty: float = Field(ge=0.0, le=1.0)
    specificity: float = Field(ge=0.0, le=1.0)
    coherence: float = Field(ge=0.0, le=1.0)
    replaces: str | None = Field(default=None, description="id of an existing memory this one replaces, or null")


class ProposedMemories(BaseModel):
    """The LLM's answer: memories worth keeping 30 days from now (often none)."""

    memories: list[ProposedMemory]


class ScreenVerdict(BaseModel):
    index: int
    level: ThreatLevel
    reason: str


class ScreenVerdicts(BaseModel):
    """The LLM's screen of proposed memories for injected instructions."""

    verdicts: list[ScreenVerdict]
