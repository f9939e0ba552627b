"""Retention scoring and tier assignment (DESIGN.md §4), pure and configurable."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field

from memactors.events.tier import Tier

DEFAULT_IMPORTANCE: dict[str, float] = {
    "decisions": 1.0,
    "learnings": 0.9,
    "patterns": 0.85,
    "retrospective": 0.8,
    "inception": 0.7,
    "blockers": 0.7,
    "research": 0.6,
    "elicitation": 0.6,
    "progress": 0.5,
    "reviews": 0.5,
}


class RetentionPolicy(BaseModel):
    """Every weight and threshold of the retention score.

    score = w_r * recency + w_a * activation + w_i * importance, clamped to
    [0, 1], then multiplied by `superseded_factor` for superseded memories.
    """

    model_config = ConfigDict(frozen=True)

    weight_recency: float = Field(0.4, ge=0)
    weight_activation: float = Field(0.2, ge=0)
    weight_importance: float = Field(0.4, ge=0)
    half_life_days: float = Field(30.0, gt=0)
    activation_saturation: int = Field(20, ge=1)
    importance: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_IMPORTANCE))
    default_importance: float = Field(0.5, ge=0, le=1)
    superseded_factor: float = Field(0.2, ge=0, le=1)
    hot_threshold: float = 0.6
    warm_threshold: float = 0.3
    cold_threshold: float = 0.1


class RetentionScore(BaseModel):
    """A score with the factors it came from, for `show` and `status`."""

    model_config = ConfigDict(frozen=True)

    score: float
    recency: float
    activation: float
    importance: float
    superseded: bool


def _clamp(value: float) -> float:
    if value != value:  # NaN
        return 0.0
    return 1.0 if value > 1.0 else 0.0 if value < 0.0 else value


def factors(
    policy: RetentionPolicy,
    *,
    namespace: str,
    created: datetime,
    last_access: datetime | None,
    activation_count: int,
    superseded: bool,
    now: datetime,
) -> tuple[float, float, float, float]:
    """(score, recency, activation, importance), each in [0, 1], for one memory at `now`."""
    anchor = created if last_access is None or last_access < created else last_access
    age_days = (now - anchor).total_seconds() / 86400.0
    recency = _clamp(0.5 ** (max(0.0, age_days) / policy.half_life_days))
    activation = _clamp(
        math.log1p(max(0, activation_count)) / math.log1p(policy.activation_saturation)
    )
    importance = _clamp(policy.importance.get(namespace, policy.default_importance))
    total = _clamp(
        policy.weight_recency * recency
        + policy.weight_activation * activation
        + policy.weight_importance * importance
    )
    if superseded:
        total = _clamp(total * policy.superseded_factor)
    return total, recency, activation, importance


def score(
    policy: RetentionPolicy,
    *,
    namespace: str,
    created: datetime,
    last_access: datetime | None,
    activation_count: int,
    superseded: bool,
    now: datetime,
) -> RetentionScore:
    """Retention in [0, 1] for one memory at `now` (aware datetimes), with its factors."""
    total, recency, activation, importance = factors(
        policy, namespace=namespace, created=created, last_access=last_access,
        activation_count=activation_count, superseded=superseded, now=now,
    )
    return RetentionScore(
        score=total, recency=recency, activation=activation, importance=importance, superseded=superseded
    )


def scores(
    policy: RetentionPolicy,
    *,
    namespaces: Sequence[str],
    anchors: NDArray[np.float64],
    activation_counts: NDArray[np.float64],
    superseded: NDArray[np.bool_],
    now: datetime,
) -> NDArray[np.float64]:
    """`factors(...)[0]` for many memories at once; `anchors` are POSIX seconds of the later of
    creation and last access. Same formula, vectorised for runs over 100k memories."""
    age_days = np.maximum(0.0, (now.timestamp() - anchors) / 86400.0)
    recency = np.clip(0.5 ** (age_days / policy.half_life_days), 0.0, 1.0)
    activation = np.clip(
        np.log1p(np.maximum(0.0, activation_counts)) / math.log1p(policy.activation_saturation), 0.0, 1.0
    )
    weights = {ns: _clamp(policy.importance.get(ns, policy.default_importance)) for ns in set(namespaces)}
    importance = np.fromiter((weights[ns] for ns in namespaces), dtype=np.float64, count=len(namespaces))
    total = np.clip(
        policy.weight_recency * recency + policy.weight_activation * activation + policy.weight_importance * importance,
        0.0, 1.0,
    )
    total = np.where(superseded, np.clip(total * policy.superseded_factor, 0.0, 1.0), total)
    return np.nan_to_num(total, nan=0.0)


def tier_for(policy: RetentionPolicy, value: float) -> Tier:
    """The tier a score falls in: HOT >= hot, WARM >= warm, COLD >= cold, else ARCHIVED."""
    if value >= policy.hot_threshold:
        return Tier.HOT
    if value >= policy.warm_threshold:
        return Tier.WARM
    if value >= policy.cold_threshold:
        return Tier.COLD
    return Tier.ARCHIVED
