"""Proposing memories from Claude Code sessions: read new turns, propose, compare, screen, route.

`SessionCapture` is the one operation behind `memactors extract`, the
transcripts the hooks queue (read by the daemon after each run and by
`memactors consolidate`), and backfill. For every transcript it reads only
the lines past its cursor, proposes memories (an LLM when one is configured,
else the conservative offline proposer), redacts secrets, compares each with
the most similar memories already kept (a copy is dropped, a replacement is
proposed as an update naming what it replaces), screens it (high and critical
are blocked and listed; with an LLM, a second screen that fails closed), and
routes it by confidence: at or above `auto_min` captured at once (LLM-made
only, and only when enabled), at or above `review_min` queued for review,
below dropped. Nothing reaches `refs/notes/mem/*` except an approval or that
opt-in auto capture.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from memactors.actors.algorithms.change_claim import replaced_in
from memactors.actors.algorithms.llm_call import ask
from memactors.actors.algorithms.session_prompts import (
    PROPOSE_SYSTEM,
    SCREEN_SYSTEM,
    check_proposals,
    check_screen,
    propose_prompt,
    screen_prompt,
)
from memactors.actors.algorithms.session_proposals import (
    RawProposal,
    SessionTurn,
    fit_summary,
    foreign,
    novelty_of,
    propose,
)
from memactors.actors.ports import Clock, Embedder, StructuredLLM
from memactors.adapters.claude.review_queue import QueueState, ReviewQueue
from memactors.adapters.claude.transcript import TranscriptRead, read_transcript
from memactors.adapters.claude.transcript_queue import Cursors, done, queued
from memactors.adapters.models.redaction import redact
from memactors.events.candidate import (
    DEFAULT_WEIGHTS,
    Action,
    Candidate,
    ConfidenceFactors,
    ProposedMemories,
    ScreenVerdicts,
    candidate_id,
    normalised,
)
from memactors.events.chatter import chatter
from memactors.events.report import TokenUsage
from memactors.events.threat import Threat, ThreatLevel, screen

#: A kept memory this relevant to a proposal already says it (copies and close paraphrases).
KNOWN_RELEVANCE = 0.86
#: How many similar kept memories a proposal is compared with (and an LLM is shown).
SIMILAR = 5
ORIGIN_TAG = "proposed"


@dataclass
class CaptureReport:
    """What one extraction did; `candidates` are those queued, captured or blocked this time."""

    transcripts: int = 0
    lines_read: int = 0
    skipped_lines: int = 0
    turns: int = 0
    proposals: int = 0
    queued: int = 0
    captured: list[str] = field(default_factory=list)
    known: int = 0
    dropped: int = 0
    blocked: int = 0
    withdrawn: int = 0
    redactions: int = 0
    unread_foreign: int = 0  # turns the offline reader left unread: not in English
    waiting: list[str] = field(default_factory=list)  # transcripts whose last line is not finished
    provider: str = "offline"
    usage: TokenUsage = field(default_factory=TokenUsage)
    errors: list[str] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "transcripts": self.transcripts, "lines_read": self.lines_read, "skipped_lines": self.skipped_lines,
            "turns": self.turns, "proposals": self.proposals, "queued": self.queued, "captured": self.captured,
            "known": self.known, "dropped": self.dropped, "blocked": self.blocked, "withdrawn": self.withdrawn,
            "redactions": self.redactions, "unread_foreign": self.unread_foreign, "waiting": self.waiting,
            "provider": self.provider,
            "usage": self.usage.model_dump(mode="json"), "errors": self.errors,
            "candidates": [c.model_dump(mode="json") for c in self.candidates],
        }


@dataclass(frozen=True)
class Routing:
    """Where a candidate goes by its confidence; `auto` must be switched on (and never applies offline)."""

    review_min: float = 0.7
    auto_min: float = 0.9
    auto: bool = False
    weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))


def _same(a: str, b: str) -> bool:
    """The same statement, whatever its case, spacing and final stop."""
    return normalised(a).rstrip(".!") == normalised(b).rstrip(".!")


def routing_from(settings: Any) -> Routing:
    """The routing the settings ask for (MEMACTORS_CAPTURE_REVIEW_MIN, _AUTO_MIN, _AUTO, _WEIGHTS)."""
    weights = {**DEFAULT_WEIGHTS, **{k: v for k, v in settings.capture_weights.items() if k in DEFAULT_WEIGHTS}}
    return Routing(review_min=settings.capture_review_min, auto_min=settings.capture_auto_min,
                   auto=settings.capture_auto, weights=weights)


@dataclass(frozen=True)
class _Similar:
    id: str
    summary: str
    text: str
    relevance: float
    replaced: bool


class SessionCapture:
    """Reads transcripts into proposals; `store` is a MemoryStore (writes only on auto capture)."""

    def __init__(self, store: Any, clock: Clock, *, embedder: Embedder | None = None,
                 llm: StructuredLLM | None = None, routing: Routing = Routing(),
                 llm_deadline: float | None = None) -> None:
        self.store = store
        self.clock = clock
        self.embedder = embedder
        self.llm = llm
        self.routing = routing
        self.llm_deadline = llm_deadline
        self.common_dir: Path = store.git.common_dir
        self.queue = ReviewQueue(self.common_dir)
        self._index: Any = None
        self._index_loaded = False

    # --- entry points ---------------------------------------------------------------------

    async def read_queued(self) -> CaptureReport:
        """Every transcript the hooks queued; each queue file goes once its turns are stored."""
        report = CaptureReport()
        for queue_file, doc in await trio.to_thread.run_sync(queued, self.common_dir):
            seen_at = time.time()
            path = Path(doc["transcript_path"])
            if not path.is_file():
                report.errors.append(f"queued transcript {path} is gone")
                await trio.to_thread.run_sync(done, queue_file, seen_at)
                continue
            await self._transcript(path, report, dry_run=False)
            await trio.to_thread.run_sync(done, queue_file, seen_at)
        return report

    async def read_paths(self, paths: Sequence[Path], *, dry_run: bool = False) -> CaptureReport:
        """The given transcripts (past their cursors); `dry_run` proposes and reports, stores nothing."""
        report = CaptureReport()
        for path in paths:
            await self._transcript(path, report, dry_run=dry_run)
        return report

    # --- one transcript -------------------------------------------------------------------

    async def _transcript(self, path: Path, report: CaptureReport, *, dry_run: bool) -> None:
        key = str(path.resolve())
        cursors = await trio.to_thread.run_sync(Cursors, self.common_dir)
        try:
            read: TranscriptRead = await trio.to_thread.run_sync(read_transcript, path, cursors.offset(key))
        except OSError as exc:
            report.errors.append(f"cannot read {path}: {exc.strerror or exc}")
            return
        report.transcripts += 1
        if read.waiting:
            report.waiting.append(str(path))
        report.lines_read += read.lines_read
        report.skipped_lines += read.skipped
        report.turns += len(read.turns)
        candidates = await self._candidates(read, key, report)
        if dry_run:
            report.candidates += candidates
            return
        now = self.clock.now()

        def store(state: QueueState) -> list[Candidate]:
            if read.path_uuids:  # proposals from a branch the conversation left are withdrawn
                kept = [c for c in state.pending
                        if c.transcript != key or not c.uuids or set(c.uuids) <= read.path_uuids]
                report.withdrawn += len(state.pending) - len(kept)
                state.pending = kept
            routed: list[Candidate] = []
            for candidate in candidates:
                if state.known(candidate.content_hash) is not None:
                    report.known += 1
                    continue
                if candidate.threat.level.blocks:
                    state.blocked.append(candidate)
                    report.blocked += 1
                    routed.append(candidate)
                elif self._auto(candidate):
                    routed.append(candidate)  # captured below, outside the lock's critical path
                elif candidate.confidence >= self.routing.review_min:
                    state.pending.append(candidate)
                    report.queued += 1
                    routed.append(candidate)
                else:
                    report.dropped += 1
            return routed

        routed = await trio.to_thread.run_sync(self.queue.update, store, now)
        for candidate in routed:
            if not candidate.threat.level.blocks and self._auto(candidate):
                await self._capture_now(candidate, report)
        report.candidates += routed
        cursors.advance(key, read.end_offset)
        await trio.to_thread.run_sync(cursors.save)

    def _auto(self, candidate: Candidate) -> bool:
        return (self.routing.auto and candidate.provider != "offline"
                and candidate.confidence >= self.routing.auto_min)

    async def _capture_now(self, candidate: Candidate, report: CaptureReport) -> None:
        from memactors.adapters.git.capture_writer import CaptureRefused

        try:
            memory_id = await trio.to_thread.run_sync(approve_into_store, self.store, candidate, ("auto-approved",))
        except (CaptureRefused, OSError, ValueError) as exc:
            report.errors.append(f"could not capture {candidate.id}: {exc}")
            return
        report.captured.append(memory_id)

        def remember(state: QueueState) -> None:
            state.decided[candidate.content_hash] = "approved"

        await trio.to_thread.run_sync(self.queue.update, remember, self.clock.now())

    # --- proposing ------------------------------------------------------------------------

    async def _candidates(self, read: TranscriptRead, transcript: str, report: CaptureReport) -> list[Candidate]:
        if not read.turns:
            return []
        turns = [SessionTurn(t.uuid, t.role, t.text, t.line, t.source) for t in read.turns]
        raw: list[tuple[RawProposal, float | None, str | None]] = []  # (proposal, model novelty, replaces id)
        provider = "offline"
        if self.llm is not None:
            proposed = await self._ask_llm(turns, report)
            if proposed is not None:
                raw, provider = proposed
        if provider == "offline":
            raw = [(p, None, None) for p in propose(turns)]
            # the offline cues are English: say what was left unread, so nobody mistakes it for nothing said
            report.unread_foreign += sum(1 for t in turns if t.source not in ("answer", "plan") and foreign(t.text))
        report.provider = provider
        report.proposals += len(raw)
        by_uuid = {t.uuid: t for t in read.turns}
        out: list[Candidate] = []
        now = self.clock.now()
        for proposal, model_novelty, replaces in raw:
            summary, hidden_a = redact(proposal.summary)
            content, hidden_b = redact(proposal.content)
            report.redactions += hidden_a + hidden_b
            similar = await self._similar(summary)
            best = max((s.relevance for s in similar), default=0.0)
            action, replaced = Action.ADD, None
            if replaces is not None:
                replaced = next((s for s in similar if s.id == replaces), None)
            else:
                replaced = next((s for s in similar if not s.replaced
                                 and replaced_in(summary, content, s.summary, s.text) is not None), None)
            if replaced is not None:
                action = Action.UPDATE
            elif best >= KNOWN_RELEVANCE or any(_same(s.summary, summary) for s in similar):
                report.known += 1
                continue
            novelty = novelty_of(best) if action is Action.ADD else 1.0
            if model_novelty is not None:
                novelty = min(novelty, model_novelty)
            factors = ConfidenceFactors(relevance=proposal.relevance, actionability=proposal.actionability,
                                        novelty=novelty, specificity=proposal.specificity,
                                        coherence=proposal.coherence)
            turn = by_uuid.get(proposal.uuid)
            out.append(Candidate(
                id=candidate_id(summary, content), namespace=proposal.namespace, summary=summary, content=content,
                session_id=(turn.session_id if turn else "") or read.session_id, transcript=transcript,
                lines=(proposal.line, proposal.line), uuids=(proposal.uuid,) if proposal.uuid else (),
                source=proposal.source, quote=redact(proposal.quote)[0],
                factors=factors, confidence=factors.confidence(self.routing.weights), action=action,
                replaces=replaced.id if replaced else None, replaces_summary=replaced.summary if replaced else None,
                threat=screen(summary, content), provider=provider, proposed_at=now,
                redacted=hidden_a + hidden_b))
        if self.llm is not None and provider != "offline" and out:
            out = await self._llm_screen(out, report)
        return out

    async def _ask_llm(self, turns: Sequence[SessionTurn], report: CaptureReport
                       ) -> tuple[list[tuple[RawProposal, float | None, str | None]], str] | None:
        assert self.llm is not None
        spoken = [(t.role, redact(t.text)[0], t.source) for t in turns]
        similar = await self._similar(" ".join(text for role, text, _ in spoken if role == "user")[-2000:]
                                      or spoken[-1][1][-2000:], limit=8)
        prompt = propose_prompt(spoken, [(s.summary, s.text) for s in similar])
        asked = await ask(self.llm, PROPOSE_SYSTEM, prompt, ProposedMemories, check_proposals(len(similar)),
                          deadline=self._deadline())
        report.usage += asked.usage
        if asked.answer is None:
            report.errors.append(f"proposed offline: {asked.why}")
            return None
        anchor = turns[-1]
        out: list[tuple[RawProposal, float | None, str | None]] = []
        for memory in asked.answer.memories:
            summary = fit_summary(memory.summary)
            if summary is None or chatter(summary) is not None:
                continue  # cut, or the agent narrating: never a memory, whoever proposes it
            replaces = similar[int(memory.replaces[1:]) - 1].id if memory.replaces else None
            out.append((RawProposal(namespace=memory.namespace, summary=summary, content=memory.content.strip(),
                                    line=anchor.line, uuid=anchor.uuid, relevance=memory.relevance,
                                    actionability=memory.actionability, specificity=memory.specificity,
                                    coherence=memory.coherence, cue="llm"), memory.novelty, replaces))
        return out, f"{asked.provider}:{asked.model}" if asked.model else asked.provider

    async def _llm_screen(self, candidates: list[Candidate], report: CaptureReport) -> list[Candidate]:
        """The model's screen on top of the patterns'; no answer blocks them all (fails closed)."""
        assert self.llm is not None
        asked = await ask(self.llm, SCREEN_SYSTEM, screen_prompt([(c.summary, c.content) for c in candidates]),
                          ScreenVerdicts, check_screen(len(candidates)), deadline=self._deadline())
        report.usage += asked.usage
        if asked.answer is None:
            report.errors.append(f"screen unavailable, proposals held back: {asked.why}")
            held = Threat(level=ThreatLevel.HIGH, pattern="LLM screen unavailable (fails closed)")
            return [c if c.threat.level.blocks else c.model_copy(update={"threat": held}) for c in candidates]
        verdicts = {v.index: v for v in asked.answer.verdicts}
        out: list[Candidate] = []
        for i, candidate in enumerate(candidates):
            verdict = verdicts[i]
            if verdict.level.rank > candidate.threat.level.rank:
                candidate = candidate.model_copy(update={"threat": Threat(
                    level=verdict.level, pattern=f"LLM screen: {verdict.reason[:120]}")})
            out.append(candidate)
        return out

    def _deadline(self) -> float | None:
        return trio.current_time() + self.llm_deadline if self.llm_deadline else None

    # --- the store ------------------------------------------------------------------------

    async def _similar(self, text: str, *, limit: int = SIMILAR) -> list[_Similar]:
        if not self._index_loaded:
            self._index = await trio.to_thread.run_sync(self._load_index)
            self._index_loaded = True
        if self._index is None or not text.strip():
            return []
        from memactors.adapters.reading.recall import search, semantic

        index = self._index
        embedder = self.embedder if semantic(index, self.embedder) else None
        hits = await trio.to_thread.run_sync(
            lambda: search(index, text[:2000], mode="exhaustive", limit=limit, embedder=embedder))
        return [_Similar(id=h.entry.id, summary=h.entry.summary, text=h.entry.excerpt, relevance=h.relevance,
                         replaced=bool(h.entry.superseded_by))
                for h in hits if h.entry.kind.value == "memory"]

    def _load_index(self) -> Any:
        from memactors.adapters.reading.read_cache import ReadCache, ReadModelMissing

        try:
            return ReadCache(self.common_dir).load()
        except ReadModelMissing:
            return None


def approve_into_store(store: Any, candidate: Candidate, extra_tags: Sequence[str] = ()) -> str:
    """Capture `candidate` exactly as `memactors capture` writes, tagged with its origin; returns the new ID.

    An update names what it replaces in its body ("Replaces: ...") and in `relates_to`, so every
    reader (and the next consolidation's judge) sees the supersession the user approved.
    """
    from memactors.adapters.git.capture_writer import write_memory

    content = candidate.content
    relates: tuple[str, ...] = ()
    if candidate.action is Action.UPDATE and candidate.replaces:
        relates = (candidate.replaces,)
        if candidate.replaces_summary:
            content = f"{content}\n\nReplaces: {candidate.replaces_summary}".strip()
    tags = [ORIGIN_TAG, *extra_tags]
    if candidate.session_id:
        tags.append(f"session:{candidate.session_id[:8]}")
    return write_memory(store, candidate.namespace, candidate.summary, content, tags=tags, relates_to=relates)

