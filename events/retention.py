"""Retention scoring and tier assignment, pure and configurable."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field

from memactors.events.metadata import MemoryMeta
from memactors.events.quality import QualityPolicy
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

    score = (w_r * recency + w_a * activation + w_i * importance, clamped to
    [0, 1]) * quality, then multiplied by `superseded_factor` for superseded
    memories (`partial_superseded_factor` for memories replaced in part); a member of a summary ages
    faster (`summarized_half_life_factor` times the half-life), and so does a memory whose branch was deleted
    without merging (`abandoned_half_life_factor`). Quality (events/quality.py) multiplies the whole score rather
    than importance alone: only then is a cut, auto-captured fragment
    (quality <= 0.85 * 0.35 ~ 0.30) never HOT, nor above COLD, however fresh
    and used it is, where a multiplier on importance would still let recency
    and activation (0.6 of the weight) carry it to HOT. `recency_clock` says what "now" recency is measured from: the
    newest memory of the store (`store`, so a dormant project keeps its
    tiers) or the wall clock (`wall`).
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
    #: retention of a memory replaced in part only (the rest of it still holds)
    partial_superseded_factor: float = Field(0.7, ge=0, le=1)
    #: a member of a summary ages this much faster (its half-life times this): the summary carries it
    summarized_half_life_factor: float = Field(0.5, gt=0, le=1)
    #: a memory whose commit's branch was deleted without merging ages this much faster: abandoned work
    abandoned_half_life_factor: float = Field(0.5, gt=0, le=1)
    hot_threshold: float = 0.6
    warm_threshold: float = 0.3
    cold_threshold: float = 0.1
    quality: QualityPolicy = Field(default_factory=QualityPolicy)
    recency_clock: Literal["store", "wall"] = "store"


class RetentionScore(BaseModel):
    """A score with the factors it came from, for `show` and `status`."""

    model_config = ConfigDict(frozen=True)

    score: float
    recency: float
    activation: float
    importance: float
    superseded: bool
    quality: float = 1.0


def _clamp(value: float) -> float:
    if value != value:  # NaN
        return 0.0
    return 1.0 if value > 1.0 else 0.0 if value < 0.0 else value


def reference_time(policy: RetentionPolicy, wall: datetime, timestamps: Iterable[datetime]) -> datetime:
    """The "now" recency counts from: the newest memory's time on the store clock (never after `wall`;
    `wall` for an empty store), `wall` on the wall clock. Recall uses do not move the store clock."""
    if policy.recency_clock == "wall":
        return wall
    newest = max(timestamps, default=None)
    return wall if newest is None or newest > wall else newest


def factors(
    policy: RetentionPolicy,
    *,
    namespace: str,
    created: datetime,
    last_access: datetime | None,
    activation_count: int,
    superseded: bool,
    now: datetime,
    quality: float = 1.0,
    partially_superseded: bool = False,
    summarized: bool = False,
    abandoned: bool = False,
) -> tuple[float, float, float, float]:
    """(score, recency, activation, importance), each in [0, 1], for one memory at `now`."""
    anchor = created if last_access is None or last_access < created else last_access
    age_days = (now - anchor).total_seconds() / 86400.0
    half_life = (policy.half_life_days * (policy.summarized_half_life_factor if summarized else 1.0)
                 * (policy.abandoned_half_life_factor if abandoned else 1.0))
    recency = _clamp(0.5 ** (max(0.0, age_days) / half_life))
    activation = _clamp(
        math.log1p(max(0, activation_count)) / math.log1p(policy.activation_saturation)
    )
    importance = _clamp(policy.importance.get(namespace, policy.default_importance))
    total = _clamp(
        policy.weight_recency * recency
        + policy.weight_activation * activation
        + policy.weight_importance * importance
    ) * _clamp(quality)
    if superseded:
        total = _clamp(total * policy.superseded_factor)
    elif partially_superseded:
        total = _clamp(total * policy.partial_superseded_factor)
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
    quality: float = 1.0,
    partially_superseded: bool = False,
    summarized: bool = False,
    abandoned: bool = False,
) -> RetentionScore:
    """Retention in [0, 1] for one memory at `now` (aware datetimes), with its factors."""
    total, recency, activation, importance = factors(
        policy, namespace=namespace, created=created, last_access=last_access,
        activation_count=activation_count, superseded=superseded, now=now, quality=quality,
        partially_superseded=partially_superseded, summarized=summarized, abandoned=abandoned,
    )
    return RetentionScore(
        score=total, recency=recency, activation=activation, importance=importance, superseded=superseded,
        quality=_clamp(quality),
    )


def scores(
    policy: RetentionPolicy,
    *,
    namespaces: Sequence[str],
    anchors: NDArray[np.float64],
    activation_counts: NDArray[np.float64],
    superseded: NDArray[np.bool_],
    now: datetime,
    quality: NDArray[np.float64] | None = None,
    partially_superseded: NDArray[np.bool_] | None = None,
    summarized: NDArray[np.bool_] | None = None,
    abandoned: NDArray[np.bool_] | None = None,
) -> NDArray[np.float64]:
    """`factors(...)[0]` for many memories at once; `anchors` are POSIX seconds of the later of
    creation and last access. Same formula, vectorised for runs over 100k memories."""
    age_days = np.maximum(0.0, (now.timestamp() - anchors) / 86400.0)
    half_life = np.full(len(anchors), policy.half_life_days, dtype=np.float64)
    if summarized is not None:
        half_life = np.where(summarized, half_life * policy.summarized_half_life_factor, half_life)
    if abandoned is not None:
        half_life = np.where(abandoned, half_life * policy.abandoned_half_life_factor, half_life)
    recency = np.clip(0.5 ** (age_days / half_life), 0.0, 1.0)
    activation = np.clip(
        np.log1p(np.maximum(0.0, activation_counts)) / math.log1p(policy.activation_saturation), 0.0, 1.0
    )
    weights = {ns: _clamp(policy.importance.get(ns, policy.default_importance)) for ns in set(namespaces)}
    importance = np.fromiter((weights[ns] for ns in namespaces), dtype=np.float64, count=len(namespaces))
    total = np.clip(
        policy.weight_recency * recency + policy.weight_activation * activation + policy.weight_importance * importance,
        0.0, 1.0,
    )
    if quality is not None:
        total = total * np.clip(np.nan_to_num(quality, nan=0.0), 0.0, 1.0)
    if partially_superseded is not None:
        total = np.where(partially_superseded & ~superseded,
                         np.clip(total * policy.partial_superseded_factor, 0.0, 1.0), total)
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


def fold_uses(prior: MemoryMeta | None, uses: tuple[datetime, ...]) -> tuple[datetime | None, int]:
    """(last access, activation count) once recorded uses are added.

    Only uses after the recorded last access count: a log a crashed run
    already folded is not counted twice.
    """
    last = prior.last_access if prior else None
    count = prior.activation_count if prior else 0
    fresh = [t for t in uses if last is None or t > last]
    if fresh:
        count += len(fresh)
        last = max(fresh) if last is None else max(last, *fresh)
    return last, count
