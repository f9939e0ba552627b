"""Configuration from the environment (`MEMACTORS_*`, plus upstream's notes base)."""

from __future__ import annotations

from datetime import datetime, timezone, tzinfo
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from memactors.events.quality import QualityPolicy
from memactors.events.retention import DEFAULT_IMPORTANCE, RetentionPolicy


class Settings(BaseSettings):
    """Every tunable, read once per command. See README "Configuration"."""

    model_config = SettingsConfigDict(env_prefix="MEMACTORS_", extra="ignore")

    retention_half_life_days: float = Field(30.0, gt=0)
    retention_weight_recency: float = Field(0.4, ge=0)
    retention_weight_activation: float = Field(0.2, ge=0)
    retention_weight_importance: float = Field(0.4, ge=0)
    retention_activation_saturation: int = Field(20, ge=1)
    retention_superseded_factor: float = Field(0.2, ge=0, le=1)
    retention_partial_superseded_factor: float = Field(0.7, ge=0, le=1)
    retention_summarized_half_life_factor: float = Field(0.5, gt=0, le=1)
    tier_hot_threshold: float = Field(0.6, ge=0, le=1)
    tier_warm_threshold: float = Field(0.3, ge=0, le=1)
    tier_cold_threshold: float = Field(0.1, ge=0, le=1)
    importance: dict[str, float] = Field(default_factory=dict)
    default_importance: float = Field(0.5, ge=0, le=1)
    timezone: str | None = None
    recency_clock: Literal["store", "wall"] = "store"
    quality_auto_captured: float = Field(0.85, ge=0, le=1)
    quality_cut: float = Field(0.35, ge=0, le=1)
    quality_unreadable: float = Field(0.3, ge=0, le=1)
    quality_echo: float = Field(0.1, ge=0, le=1)
    quality_markup_weight: float = Field(0.7, ge=0, le=1)
    quality_min_words: int = Field(3, ge=1)
    cluster_threshold: float = Field(0.6, gt=0, le=1)
    pair_threshold: float = Field(0.5, gt=0, le=1)
    max_cluster_size: int = Field(20, ge=3)
    knn_crossover: int = Field(40_000, ge=2)
    embeddings: str = Field("local", pattern="^(local|openai|none)$")
    lock_wait_seconds: float = Field(10.0, ge=0)
    llm_timeout: float = Field(60.0, gt=0)
    llm_deadline: float = Field(600.0, gt=0)
    max_cost_usd: float | None = Field(None, ge=0)
    max_cost_usd_per_day: float | None = Field(None, ge=0)
    claude_concurrency: int = Field(1, ge=1, le=16)
    capture_review_min: float = Field(0.7, ge=0, le=1)
    capture_auto_min: float = Field(0.9, ge=0, le=1)
    capture_auto: bool = False
    capture_weights: dict[str, float] = Field(default_factory=dict)
    automemory: bool = False
    sync_personal: bool = False
    notes_base: str = Field(
        "refs/notes/mem",
        validation_alias=AliasChoices("MEMORY_PLUGIN_GIT_NAMESPACE", "MEMACTORS_NOTES_BASE"),
    )

    def zone(self) -> tzinfo:
        """The user's time zone: MEMACTORS_TIMEZONE, else the system's. ValueError names a bad one."""
        if not self.timezone:
            return datetime.now().astimezone().tzinfo or timezone.utc
        try:
            return ZoneInfo(self.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"MEMACTORS_TIMEZONE={self.timezone!r} is not a time zone (e.g. Europe/Berlin)") from None

    def retention_policy(self) -> RetentionPolicy:
        return RetentionPolicy(
            weight_recency=self.retention_weight_recency,
            weight_activation=self.retention_weight_activation,
            weight_importance=self.retention_weight_importance,
            half_life_days=self.retention_half_life_days,
            activation_saturation=self.retention_activation_saturation,
            importance={**DEFAULT_IMPORTANCE, **self.importance},
            default_importance=self.default_importance,
            superseded_factor=self.retention_superseded_factor,
            partial_superseded_factor=self.retention_partial_superseded_factor,
            summarized_half_life_factor=self.retention_summarized_half_life_factor,
            hot_threshold=self.tier_hot_threshold,
            warm_threshold=self.tier_warm_threshold,
            cold_threshold=self.tier_cold_threshold,
            quality=QualityPolicy(
                auto_captured=self.quality_auto_captured, cut=self.quality_cut, unreadable=self.quality_unreadable,
                echo=self.quality_echo, markup_weight=self.quality_markup_weight, min_words=self.quality_min_words,
            ),
            recency_clock=self.recency_clock,
        )
