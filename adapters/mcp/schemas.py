"""What each MCP tool answers, as pydantic models: the tools' output schemas, and the shape every answer is
validated against before it leaves the server.

Every answer is compact: texts are cut (with "…") and a list that would make the answer longer than the
promised size is shortened from its end, its `left_out` saying how many were dropped. Ids are full
(`<namespace>:<40-hex commit>:<index>`); every tool that takes an id also takes the short form
`<namespace>:<first 7 of the commit>:<index>`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Tier = Literal["hot", "warm", "cold", "archived"]


class Answer(BaseModel):
    """The base of every tool's answer: a frozen document."""

    model_config = ConfigDict(frozen=True)


class Listed(Answer):
    """An answer holding a list that may have been shortened to fit."""

    left_out: int = Field(0, description="How many items of the list were left out to keep the answer short.")


# --- recall -------------------------------------------------------------------------------------------------


class Hit(Answer):
    id: str = Field(description="The memory's id (or summary:<id> for a summary); pass it to show or graph.")
    kind: Literal["memory", "summary"]
    namespace: str | None = None
    tier: Tier | None = Field(None, description="Its tier; null when it is new since the last run.")
    title: str
    timestamp: str = Field(description="When it was captured (ISO 8601).")
    relevance: float = Field(description="How well it matches the query, 0..1.")
    excerpt: str | None = Field(None, description="The passage that best matches the query ('…' where cut).")
    superseded_by: str | None = Field(None, description="Set when it was replaced: do not act on it.")
    superseded_by_summary: str | None = Field(None, description="What replaced it, in a line.")
    new_since_last_run: bool = Field(False, description="Captured after the last consolidation run (no tier yet).")
    branch: str | None = Field(None, description="Set when its commit is not merged into HEAD (not in its history, "
                                                 "and HEAD does not hold its change by rebase or squash): the "
                                                 "branches that hold it, or that its branch was deleted.")
    copies: int | None = Field(None, description="How many times the same capture is stored.")
    first_seen: str | None = None
    last_seen: str | None = None
    key_facts: str | None = Field(None, description="A summary's key facts.")
    superseded_facts: list[str] = Field(default_factory=list, description="A summary's facts that no longer hold.")


class Alternative(Answer):
    answer: str
    confidence: float
    source_memory_ids: list[str] = Field(default_factory=list)


class DateAnswer(Answer):
    """A date question's answer: the chosen date, why, and the memories it rests on."""

    answer: str | None = Field(description="The date (or span), or null when the memories do not say.")
    confidence: float
    reasoning: str
    source_memory_ids: list[str] = Field(default_factory=list)
    alternatives: list[Alternative] = Field(default_factory=list)


class Citation(Answer):
    id: str = Field(description="The memory's id (or summary:<id>); pass it to show or graph.")
    title: str = ""
    timestamp: str | None = Field(None, description="When it was captured (ISO 8601).")
    quote: str = Field("", description="What the answer quotes of it (empty when an LLM composed the answer).")
    replaced_by: str | None = Field(None, description="Set when a newer memory replaced it.")


class ComposedAnswer(Answer):
    """An answer to the question composed from the memories (recall with answer: true)."""

    text: str = Field(description="The answer, each statement followed by the [id] of the memory it rests on; "
                                  "'The memories do not say.' when none answers.")
    answered: bool = Field(description="False when the memories do not say.")
    citations: list[Citation] = Field(default_factory=list, description="The memories the answer rests on, "
                                                                        "in its order.")
    reasoning: str = Field(description="Which memories were used and why, in a sentence or three.")
    confidence: float = Field(description="0..1.")
    provider: str = Field(description="'offline' (quoted), or the LLM provider that composed it.")
    left_out: list[str] = Field(default_factory=list, description="Ids of replaced memories not used.")


class RecallAnswer(Listed):
    """Every recall answers in this one envelope."""

    query: str
    results: list[Hit] = Field(description="Best first. Empty when nothing is relevant.")
    nothing_relevant: bool = Field(False, description="True when no memory answers the query.")
    date_answer: DateAnswer | None = Field(None, description="Set for a date question ('when did we ...').")
    answer: ComposedAnswer | None = Field(None, description="Set when asked for (answer: true): the answer "
                                                            "composed from the memories, citing them.")
    notes: list[str] = Field(default_factory=list, description="What the store said while answering.")


# --- show ---------------------------------------------------------------------------------------------------


class Shown(Answer):
    """One memory, or one summary (kind "summary")."""

    kind: Literal["memory", "summary"]
    id: str
    namespace: str | None = None
    tier: str | None = None
    timestamp: str | None = Field(None, description="When it was captured (a summary: its latest member).")
    title: str
    summary: str = Field("", description="The one-line summary as captured.")
    body: str = Field("", description="The memory's text (a summary: its text); cut at 600 characters.")
    tags: list[str] = Field(default_factory=list)
    retention: float | None = Field(None, description="0..1; the tier follows from it.")
    superseded_by: str | None = Field(None, description="The id of what replaced it: do not act on it.")
    copy_of: str | None = Field(None, description="The capture this one repeats.")
    replaces: list[str] = Field(default_factory=list, description="Ids of the memories it replaced.")
    conflicts: list[str] = Field(default_factory=list, description="Contradictions with it, decided or not.")
    summarized_in: str | None = None
    next_tier: str | None = Field(None, description="The tier the next run gives it, when that changes.")
    branch: str | None = Field(None, description="Set when its commit is not merged into HEAD (not in its history, "
                               "and HEAD does not hold its change by rebase or squash): the branches that hold it, "
                               "or that its branch was deleted.")
    branches: list[str] = Field(default_factory=list, description="The branches whose history holds its commit, "
                                "HEAD's branch first (at most 10; branches_count counts them all).")
    branches_count: int | None = None
    key_facts: list[str] = Field(default_factory=list)
    superseded_facts: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list, description="A summary's members.")


# --- capture, link, resolve, review ----------------------------------------------------------------------------


class Captured(Answer):
    id: str = Field(description="The new memory's id; recall finds it at once.")
    namespace: str
    summary: str


class LinkEdge(Answer):
    edge_id: str
    source_id: str
    target_id: str
    edge_type: str
    reason: str = ""


class Linked(Answer):
    action: Literal["add", "remove"]
    edges: list[LinkEdge] = Field(description="The links added, or those marked removed.")


class Resolved(Answer):
    conflict_id: str
    resolution: str = Field(description="'keep:<key>' or 'both'.")
    applies: str = Field(description="When it takes effect.")
    changed_from: str | None = Field(None, description="The earlier decision this one replaced (with change).")


class Proposal(Answer):
    id: str = Field(description="Pass it to approve, reject or edit.")
    namespace: str
    summary: str
    content: str = ""
    confidence: float
    replaces: str | None = Field(None, description="The memory this proposal would update, when it would.")
    replaces_summary: str | None = None


class Reviewed(Listed):
    action: Literal["list", "approve", "reject", "edit"]
    proposals: list[Proposal] = Field(default_factory=list, description="Waiting proposals (list), or the edited one.")
    captured: list[str] = Field(default_factory=list, description="Ids of the memories approved proposals became.")
    rejected: list[str] = Field(default_factory=list)
    unknown: list[str] = Field(default_factory=list, description="Ids that name no waiting proposal.")
    errors: list[str] = Field(default_factory=list)


# --- graph, status, tiers, conflicts, context ----------------------------------------------------------------


class Node(Answer):
    id: str
    kind: str
    hop: int = Field(description="Links from the root.")
    tier: str | None = None
    title: str
    timestamp: str | None = None
    superseded_by: str | None = None


class GraphEdge(Answer):
    source_id: str
    target_id: str
    edge_type: str
    reason: str = ""
    resolution: str | None = None


class Graph(Listed):
    root: str
    depth: int
    truncated: bool = Field(description="True when the walk stopped at its node limit.")
    nodes: list[Node]
    edges: list[GraphEdge]


class LastRun(Answer):
    run_id: str
    completed_at: str | None = None
    trigger: str | None = None
    memories_processed: int = 0
    supersessions_detected: int = 0
    summaries_created: int = 0
    contradictions_flagged: int = 0


class Status(Answer):
    repository: str
    memories: int
    namespaces: dict[str, dict[str, int]] = Field(description="Memories per namespace and tier.")
    tier_counts: dict[str, int]
    skipped: dict[str, int] = Field(default_factory=dict, description="Entries that could not be read, by reason.")
    last_run: LastRun | None = None


class TierItem(Answer):
    id: str
    namespace: str
    title: str
    score: float = Field(description="Retention, 0..1.")
    timestamp: str


class Tiers(Listed):
    tier_counts: dict[str, int]
    tiers: dict[str, list[TierItem]]


class Side(Answer):
    id: str
    title: str
    timestamp: str | None = None
    body: str = ""


class Conflict(Answer):
    conflict_id: str
    reason: str
    newer: Side
    older: Side


class Conflicts(Listed):
    conflicts: list[Conflict]


class Context(Answer):
    block: str = Field(description="The block the SessionStart hook injects (empty before the first run).")
    notes: list[str] = Field(default_factory=list)
