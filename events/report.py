"""What a run did, as printed by `consolidate --json` and stored in `refs/notes/mem-runs`."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

RUN_SCHEMA_VERSION = 1


class TokenUsage(BaseModel):
    """LLM spend of one run (zero until an LLM provider is configured).

    `llm_calls` counts every request sent, `llm_failed` those of them that got no answer
    (timeouts, refused connections, 5xx past retries); answers replayed from the checkpoint count 0.
    """

    model_config = ConfigDict(frozen=True)

    llm_calls: int = 0
    llm_failed: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            llm_calls=self.llm_calls + other.llm_calls,
            llm_failed=self.llm_failed + other.llm_failed,
            tokens_in=self.tokens_in + other.tokens_in,
            tokens_out=self.tokens_out + other.tokens_out,
            cost_usd=round(self.cost_usd + other.cost_usd, 6),
        )


class RunReport(BaseModel):
    """One consolidation run, complete or not.

    `phase` is where the run ended: `completed`, `dry_run` or `failed`.
    `tier_transitions` counts `"<from>-><to>"` moves, `new` as the source
    for memories seen for the first time. `supersessions_detected` counts
    memories this run marked superseded (exact duplicates included), as the
    metadata it wrote records them. `persisted` is False when the
    run changed nothing (and then wrote nothing, not even this record).
    """

    model_config = ConfigDict(frozen=True)

    schema_version: int = RUN_SCHEMA_VERSION
    run_id: str
    trigger: str
    started_at: datetime
    completed_at: datetime | None = None
    phase: str
    namespaces: tuple[str, ...] | None = None
    head: str | None = None
    memories_processed: int = 0
    memories_skipped: dict[str, int] = Field(default_factory=dict)
    parse_warnings: dict[str, int] = Field(default_factory=dict)
    clusters_found: int = 0
    pairs_found: int = 0
    duplicates_collapsed: int = 0
    memories_embedded: int = 0
    summaries_created: int = 0
    supersessions_detected: int = 0
    contradictions_flagged: int = 0
    edges_written: int = 0
    prompt_injections_flagged: int = 0
    providers: dict[str, int] = Field(default_factory=dict)
    fallbacks: list[str] = Field(default_factory=list)
    tier_counts: dict[str, int] = Field(default_factory=dict)
    tier_transitions: dict[str, int] = Field(default_factory=dict)
    errors: list[str] = Field(default_factory=list)
    token_usage: TokenUsage = Field(default_factory=TokenUsage)
    duration_seconds: float = 0.0
    persisted: bool = False
    #: the offline judge's rules the run's verdicts came from (0: no judge ran, or a version before rules)
    judge_rules: int = 0
    refs_updated: list[str] = Field(default_factory=list)
    inbox_events: int = 0
    #: the stages a setting turned off for this run -> that setting as the user said it (e.g. "forgetting":
    #: "MEMACTORS_FORGETTING_ENABLED=false"); empty when every stage ran
    stages_off: dict[str, str] = Field(default_factory=dict)
