"""Configuration from the environment (`MEMACTORS_*`, plus upstream's notes base)."""

from __future__ import annotations

from datetime import datetime, timezone, tzinfo
from typing import Literal, NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from memactors.events.quality import QualityPolicy
from memactors.events.retention import DEFAULT_IMPORTANCE, RetentionPolicy


class Settings(BaseSettings):
    """Every tunable, read once per command (docs/reference/settings.md is generated from these fields)."""

    model_config = SettingsConfigDict(env_prefix="MEMACTORS_", extra="ignore")

    retention_half_life_days: float = Field(30.0, gt=0,
        description="recency halves every this many days, from the later of creation and last access")
    retention_weight_recency: float = Field(0.4, ge=0, description="weight of recency in the retention score")
    retention_weight_activation: float = Field(0.2, ge=0,
        description="weight of activation, ln(1+uses)/ln(1+saturation)")
    retention_weight_importance: float = Field(0.4, ge=0, description="weight of the namespace's importance")
    retention_activation_saturation: int = Field(20, ge=1, description="uses at which activation reaches 1")
    retention_superseded_factor: float = Field(0.2, ge=0, le=1,
        description="retention multiplier for a memory a newer one replaces")
    retention_partial_superseded_factor: float = Field(0.7, ge=0, le=1,
        description="retention multiplier for a memory a newer one replaces in part")
    retention_summarized_half_life_factor: float = Field(0.5, gt=0, le=1,
        description="a member of a summary ages this much faster (its half-life times this): the summary "
                    "carries what it said")
    tier_hot_threshold: float = Field(0.6, ge=0, le=1, description="retention score at or above which a memory is hot")
    tier_warm_threshold: float = Field(0.3, ge=0, le=1,
        description="retention score at or above which a memory is warm")
    tier_cold_threshold: float = Field(0.1, ge=0, le=1,
        description="retention score at or above which a memory is cold; below it, archived")
    importance: dict[str, float] = Field(default_factory=dict,
        description='JSON object overriding per-namespace importance, e.g. {"progress": 0.3}')
    default_importance: float = Field(0.5, ge=0, le=1, description="importance of a namespace the defaults do not list")
    timezone: str | None = Field(None,
        description="your time zone (e.g. Europe/Berlin) for relative dates, cron schedules and the daily cap; "
                    "default the system's")
    recency_clock: Literal["store", "wall"] = Field("store",
        description="store: recency counts from the store's newest memory; wall: from now")
    quality_auto_captured: float = Field(0.85, ge=0, le=1,
        description="quality factor of a memory tagged auto-captured")
    quality_cut: float = Field(0.35, ge=0, le=1,
        description="quality factor of a summary and body cut from a transcript")
    quality_unreadable: float = Field(0.3, ge=0, le=1,
        description="quality factor of a memory with no complete sentence")
    quality_echo: float = Field(0.1, ge=0, le=1,
        description="quality factor of a memory holding a copy of injected context")
    quality_markup_weight: float = Field(0.7, ge=0, le=1,
        description="quality lost per share of markup (code, tables, rules)")
    quality_min_words: int = Field(3, ge=1, description="distinct words a memory needs for full information")
    cluster_threshold: float = Field(0.6, gt=0, le=1, description="cosine at which memories join a cluster")
    pair_threshold: float = Field(0.5, gt=0, le=1,
        description="cosine at which two same-namespace neighbours are judged as a pair")
    max_cluster_size: int = Field(20, ge=3, description="larger clusters are split")
    knn_crossover: int = Field(40_000, ge=2, description="memories above which pynndescent replaces exact kNN")
    embeddings: str = Field("local", pattern="^(local|openai|none)$",
        description="local (MiniLM on onnxruntime), openai (any /v1/embeddings endpoint) or none (tiers only, "
                    "no clustering)")
    lock_wait_seconds: float = Field(10.0, ge=0, description="seconds a write waits for a lock another process holds")
    llm_timeout: float = Field(60.0, gt=0, description="seconds one LLM request may take, for every provider")
    llm_deadline: float = Field(600.0, gt=0, description="seconds of LLM work per run; then the rest is offline")
    max_cost_usd: float | None = Field(None, ge=0,
        description="cap on each run's LLM spend in USD (also consolidate --max-cost-usd); none: no cap")
    max_cost_usd_per_day: float | None = Field(None, ge=0,
        description="cap on a calendar day's LLM spend in USD, every run together; none: no cap")
    claude_concurrency: int = Field(1, ge=1, le=16,
        description="claude CLI processes at once (the claude-code provider)")
    capture_review_min: float = Field(0.7, ge=0, le=1,
        description="confidence from which a proposed memory waits for review (below it, dropped)")
    capture_auto_min: float = Field(0.9, ge=0, le=1,
        description="confidence from which an LLM-made proposal is captured at once (with capture_auto)")
    capture_auto: bool = Field(False,
        description="true: capture LLM-made proposals at or above capture_auto_min without review")
    capture_weights: dict[str, float] = Field(default_factory=dict,
        description='JSON object overriding the proposal confidence weights, e.g. {"novelty": 0.3}')
    automemory: bool = Field(False,
        description="on: every consolidate imports Claude Code's auto memory before its run and exports after it")
    sync_personal: bool = Field(False,
        description="on: sync also pushes the personal namespace (auto memory of type user)")
    notes_base: str = Field(
        "refs/notes/mem",
        validation_alias=AliasChoices("MEMORY_PLUGIN_GIT_NAMESPACE", "MEMACTORS_NOTES_BASE"),
        description="base of the memory refs, as git-notes-memory reads it",
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

class Variable(NamedTuple):
    """An environment variable read without the Settings model, as the settings reference lists it."""

    name: str
    type: str
    default: str
    meaning: str


#: What is read where Settings is not: by the hooks (standard library only, no pydantic), by the LLM and
#: embeddings configuration, and upstream's own names. The settings reference lists them beside Settings.
READ_ELSEWHERE = (
    Variable("MEMACTORS_CONTEXT_TOKENS", "int", "2000", "token budget of the SessionStart block (at 4 characters "
             "per token, never over 10,000 characters)"),
    Variable("MEMACTORS_CONTEXT_WEIGHT_RELEVANCE", "float", "0.4", "SessionStart priority: weight of relevance to "
             "the working directory and recently changed files"),
    Variable("MEMACTORS_CONTEXT_WEIGHT_RECENCY", "float", "0.2", "SessionStart priority: weight of recency"),
    Variable("MEMACTORS_CONTEXT_WEIGHT_ACTIVATION", "float", "0.1", "SessionStart priority: weight of activation"),
    Variable("MEMACTORS_CONTEXT_WEIGHT_RETENTION", "float", "0.3", "SessionStart priority: weight of retention"),
    Variable("MEMACTORS_CONTEXT_MIN_QUALITY", "float", "0.5", "memories below this quality never enter the "
             "SessionStart block"),
    Variable("MEMACTORS_CONTEXT_KEY_ITEMS", "int", "8", "decisions and learnings the SessionStart block carries "
             "first, when the store has them"),
    Variable("MEMACTORS_SURFACING", "on | off", "on", "off silences memactors surface"),
    Variable("MEMACTORS_SURFACING_MAX", "int", "20", "memories memactors surface shows per session at most"),
    Variable("MEMACTORS_HOOKS", "on | off", "on", "off makes every memactors hook command a no-op (set for "
             "memactors' own claude sub-sessions)"),
    Variable("MEMACTORS_EMBEDDINGS_MODEL", "str", "text-embedding-3-small", "model of the openai embeddings"),
    Variable("MEMACTORS_EMBEDDINGS_BASE_URL", "URL", "the openai SDK's", "endpoint of the openai embeddings "
             "(any /v1/embeddings)"),
    Variable("MEMACTORS_CLAUDE_COMMAND", "path", "claude on PATH", "the claude executable of the claude-code "
             "provider"),
    Variable("MEMORY_CONSOLIDATION_LLM_PROVIDER", "anthropic | claude-code | openai | lmstudio | ollama | offline",
             "offline", "the LLM provider (else MEMORY_LLM_PROVIDER); nothing leaves the machine until one is named"),
    Variable("MEMORY_LLM_PROVIDER", "as above", "none", "upstream's provider name, read when the one above is unset"),
    Variable("MEMORY_CONSOLIDATION_LLM_MODEL", "str", "the provider's", "the primary provider's model"),
    Variable("MEMORY_CONSOLIDATION_LLM_BASE_URL", "URL", "the provider's", "the primary provider's endpoint"),
    Variable("MEMORY_CONSOLIDATION_LLM_FALLBACK", "provider", "none", "a second provider tried when the first is "
             "unavailable; then offline"),
    Variable("ANTHROPIC_API_KEY", "secret", "none", "the key of the anthropic provider"),
    Variable("OPENAI_API_KEY", "secret", "none", "the key of the openai provider and of openai embeddings"),
    Variable("CLAUDE_CONFIG_DIR", "path", "~/.claude", "where Claude Code keeps sessions and auto memory"),
)
