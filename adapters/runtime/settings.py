"""Configuration from the environment (`MEMACTORS_*`, plus upstream's notes base)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime, timezone, tzinfo
from typing import Literal, NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field, ValidationError, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from memactors.events.quality import QualityPolicy
from memactors.events.retention import DEFAULT_IMPORTANCE, RetentionPolicy


class Settings(BaseSettings):
    """Every tunable, read once per command (docs/reference/settings.md is generated from these fields)."""

    model_config = SettingsConfigDict(env_prefix="MEMACTORS_", extra="ignore", populate_by_name=True)

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
    retention_abandoned_half_life_factor: float = Field(0.5, gt=0, le=1,
        description="a memory whose commit's branch was deleted without merging ages this much faster (its "
                    "half-life times this)")
    tier_hot_threshold: float = Field(0.6, ge=0, le=1,
        validation_alias=AliasChoices("MEMACTORS_HOT_THRESHOLD", "MEMACTORS_TIER_HOT_THRESHOLD"),
        description="retention score at or above which a memory is hot")
    tier_warm_threshold: float = Field(0.3, ge=0, le=1,
        validation_alias=AliasChoices("MEMACTORS_WARM_THRESHOLD", "MEMACTORS_TIER_WARM_THRESHOLD"),
        description="retention score at or above which a memory is warm")
    tier_cold_threshold: float = Field(0.1, ge=0, le=1,
        validation_alias=AliasChoices("MEMACTORS_ARCHIVE_THRESHOLD", "MEMACTORS_TIER_COLD_THRESHOLD"),
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
        description="on: every consolidate and daemon run imports Claude Code's auto memory before it and "
        "exports after it")
    sync_personal: bool = Field(False,
        description="on: sync also pushes the personal namespace (auto memory of type user)")
    notes_base: str = Field(
        "refs/notes/mem",
        validation_alias=AliasChoices("MEMORY_PLUGIN_GIT_NAMESPACE", "MEMACTORS_NOTES_BASE"),
        description="base of the memory refs, as git-notes-memory reads it",
    )

    # --- the stages of a run, each with its switch (the names issue 38 gives them) ---------------------------
    consolidation_enabled: bool = Field(True,
        description="false: runs neither cluster, summarize nor judge supersession (and find no links, which need "
                    "the clusters); the summaries, clusters and verdicts earlier runs wrote stay as they are")
    forgetting_enabled: bool = Field(True,
        description="false: runs move no memory between tiers (a memory seen first enters hot), so nothing fades "
                    "to cold or archived; retention still ranks recall, pin and archive still apply")
    surfacing_enabled: bool = Field(True,
        validation_alias=AliasChoices("MEMACTORS_SURFACING_ENABLED", "MEMACTORS_SURFACING"),
        description="false (or MEMACTORS_SURFACING=off): memactors surface says nothing and runs do not build "
                    "its index")
    linking_enabled: bool = Field(True,
        description="false: runs discover no links between memories; links found earlier, and those you added "
                    "or removed, stay")
    implicit_capture_enabled: bool = Field(True,
        description="false: the Stop, PreCompact and SessionEnd hooks queue no session transcript and runs read "
                    "none into review proposals; memactors extract still reads the ones you name")
    interval_hours: float = Field(24.0, gt=0,
        description="hours between the daemon's scheduled full runs (memactors run --schedule-hours overrides it)")

    @model_validator(mode="after")
    def _tiers_in_order(self) -> Settings:
        """The hot threshold above the warm one, the warm one above the archive threshold."""
        hot, warm, archive = self.tier_hot_threshold, self.tier_warm_threshold, self.tier_cold_threshold
        for (upper, high), (lower, low) in ((("tier_hot_threshold", hot), ("tier_warm_threshold", warm)),
                                            (("tier_warm_threshold", warm), ("tier_cold_threshold", archive))):
            if not high > low:
                raise ValueError(f"{variable_of(upper)}={high:g} must be above {variable_of(lower)}={low:g} "
                                 "(allowed: 0 <= archive < warm < hot <= 1)")
        return self

    def stages_off(self) -> dict[str, str]:
        """Each stage a run skips -> the setting that turned it off, as a report says it."""
        off = {stage: said(f"{stage}_enabled", "false") for stage in STAGES if not getattr(self, f"{stage}_enabled")}
        if "consolidation" in off and "linking" not in off:
            off["linking"] = f"{off['consolidation']}: links need its clusters"
        return {stage: off[stage] for stage in STAGES if stage in off}

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
            abandoned_half_life_factor=self.retention_abandoned_half_life_factor,
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


#: The stages of a run a setting can turn off, in the order a report lists them.
STAGES = ("consolidation", "forgetting", "surfacing", "linking", "implicit_capture")

def names_of(field: str) -> tuple[str, ...]:
    """The environment variables a Settings field is read from, its documented name first."""
    info = Settings.model_fields[field]
    choices = getattr(info.validation_alias, "choices", None)
    if choices:
        return tuple(str(choice) for choice in choices)
    if isinstance(info.validation_alias, str):
        return (info.validation_alias,)
    return (f"{Settings.model_config.get('env_prefix', '')}{field}".upper(),)


def variable_of(field: str, environ: Mapping[str, str] | None = None) -> str:
    """The variable the user set for `field` (the first of its names in the environment), else its documented name."""
    env = {k.upper() for k in (os.environ if environ is None else environ)}
    names = names_of(field)
    return next((name for name in names if name.upper() in env), names[0])


def said(field: str, value: str) -> str:
    """`NAME=value` as the user set `field` (`value` when it came from elsewhere, say a default or a keyword)."""
    name = variable_of(field)
    return f"{name}={os.environ.get(name, value)}"


def _field_named(loc: object) -> str | None:
    """The Settings field an error location names (a field name or one of its variables)."""
    if loc in Settings.model_fields:
        return str(loc)
    return next((f for f in Settings.model_fields if str(loc).upper() in names_of(f)), None)


def _allowed(field: str) -> str:
    """A field's bounds in words, e.g. "from 0 to 1" or "more than 0", or "" when it has none."""
    bounds = {name: getattr(m, name) for m in Settings.model_fields[field].metadata
              for name in ("ge", "gt", "le", "lt") if getattr(m, name, None) is not None}
    if "ge" in bounds and "le" in bounds:
        return f"from {bounds['ge']:g} to {bounds['le']:g}"
    words = {"ge": "at least", "gt": "more than", "le": "at most", "lt": "less than"}
    return " and ".join(f"{words[name]} {bounds[name]:g}" for name in ("ge", "gt", "le", "lt") if name in bounds)


def configuration_error(exc: ValidationError) -> str:
    """One line for invalid settings: the variable as the user set it, its value, and what is allowed."""
    first = exc.errors()[0]
    message = str(first["msg"]).removeprefix("Value error, ")
    field = _field_named(first["loc"][0]) if first["loc"] else None
    if field is None:
        return f"invalid configuration: {message}"
    inner = ".".join(str(part) for part in first["loc"][1:])
    shown = f" ({inner}={first.get('input')})" if inner else f"={first.get('input')}"
    if str(first["type"]).startswith(("greater_than", "less_than")) and _allowed(field):
        message = f"must be {_allowed(field)}"
    elif first["type"] == "bool_parsing":
        message = "must be true or false (also on/off, yes/no, 1/0)"
    elif first["type"] == "float_parsing" and _allowed(field):
        message = f"not a number; must be {_allowed(field)}"
    return f"invalid configuration {variable_of(field)}{shown}: {message}"
