"""The review queue's decisions: list the proposed memories, approve, reject or edit them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from memactors.adapters.claude.review_reminder import waiting_phrase
from memactors.adapters.operations.errors import UsageError
from memactors.adapters.operations.checks import MAX_CONTENT_BYTES, MAX_SUMMARY_CHARS
from memactors.adapters.operations.outcome import EXIT_ERRORS, Outcome
from memactors.adapters.operations.store import load_settings, open_store


def _queue(repo: Path):
    from memactors.adapters.claude.review_queue import ReviewQueue
    from memactors.adapters.system.clock import SystemClock

    store = open_store(repo, load_settings())
    return store, ReviewQueue(store.git.common_dir), SystemClock().now()


def _check_filters(namespaces: Sequence[str] | None, min_confidence: float) -> None:
    from memactors.events.memory import KNOWN_NAMESPACES

    if not 0 <= min_confidence <= 1:
        raise UsageError("--min-confidence must be between 0 and 1")
    for ns in namespaces or ():
        if ns not in KNOWN_NAMESPACES:
            raise UsageError(f"unknown namespace {ns!r}; use one of: {', '.join(KNOWN_NAMESPACES)}")


def _wanted(candidate, namespaces: Sequence[str] | None, min_confidence: float) -> bool:
    return (not namespaces or candidate.namespace in namespaces) and candidate.confidence >= min_confidence


def line(c) -> str:
    mark = " BLOCKED (" + c.threat.pattern + ")" if c.threat.level.blocks else ""
    update = f"  [replaces {c.replaces_summary!r}]" if c.replaces else ""
    return f"{c.id}  {c.confidence:.2f}  {c.namespace:<10} {c.summary}{update}{mark}"


#: How review names where a proposal was said.
SOURCES = {"user": "the user said", "assistant": "the agent said", "answer": "the user's answer to a question",
            "plan": "a plan the user approved", "rejection": "the user's reason for rejecting a tool call",
            "queued": "typed while the agent worked"}


def listing(repo: Path, *, namespaces: Sequence[str] | None = None, min_confidence: float = 0.0,
            blocked: bool = False) -> Outcome:
    """The proposals waiting (or, `blocked`, those the screen blocked), most confident first."""
    _check_filters(namespaces, min_confidence)
    _, queue, now = _queue(repo)
    state = queue.load(now)
    shown = [c for c in (state.blocked if blocked else state.pending) if _wanted(c, namespaces, min_confidence)]
    shown.sort(key=lambda c: -c.confidence)
    if blocked:
        text = [f"{len(shown)} blocked proposals (never captured; shown so you can see what was tried)"]
        text += [f"  {c.id}  {c.threat.level.value:<8} {c.threat.pattern}: {c.summary}" for c in shown]
    else:
        text = [waiting_phrase(len(shown)) if shown else "no proposed memories wait for review"]
        for c in shown:
            text.append(f"  {line(c)}")
            if c.content and c.content != c.summary:
                text.append(f"      {c.content[:160]}")
            where = f" ({SOURCES.get(c.source, c.source)})" if c.source else ""
            text.append(f"      from session {c.session_id[:8] or '?'} line {c.lines[0]}{where}; "
                        + ", ".join(f"{k} {v:.2f}" for k, v in c.factors.model_dump().items()))
            if c.quote and c.quote.rstrip(".") not in f"{c.summary} {c.content}":
                text.append(f"      said: \"{c.quote[:160]}\"")
        if shown:
            text.append("decide with: memactors review --approve ID... | --reject ID... | --edit ID --summary ...")
    return Outcome([c.model_dump(mode="json") for c in shown], "\n".join(text))


def resolve_ids(ids: Sequence[str], candidates) -> tuple[list[Any], list[str]]:
    """(the candidates `ids` name, by id or unique prefix of at least 4 characters; the ids naming none)."""
    found, unknown = [], []
    for wanted in ids:
        wanted = wanted.strip()
        matches = [c for c in candidates if c.id == wanted or (len(wanted) >= 4 and c.id.startswith(wanted))]
        if len(matches) == 1:
            if matches[0] not in found:
                found.append(matches[0])
        else:
            unknown.append(wanted)
    return found, unknown


def approve(repo: Path, ids: Sequence[str] = (), *, every: bool = False, namespaces: Sequence[str] | None = None,
            min_confidence: float = 0.0) -> Outcome:
    """Capture the proposals `ids` names (or, `every`, all that pass the filters) exactly as `capture` writes;
    code 1 when an id names none or a capture was refused."""
    from memactors.adapters.git.capture_writer import CaptureRefused
    from memactors.adapters.runtime.session_capture import approve_into_store

    _check_filters(namespaces, min_confidence)
    store, queue, now = _queue(repo)
    state = queue.load(now)
    if every:
        chosen, unknown = [c for c in state.pending if _wanted(c, namespaces, min_confidence)], []
    else:
        chosen, unknown = resolve_ids(ids, state.pending)
        blocked, _ = resolve_ids(unknown, state.blocked)
        if blocked:
            raise UsageError(f"{blocked[0].id} is blocked ({blocked[0].threat.pattern}) and cannot be approved")
    captured: list[dict[str, str]] = []
    errors: list[str] = []
    store.git.check_writable()
    for candidate in chosen:
        try:
            memory_id = approve_into_store(store, candidate)
        except CaptureRefused as exc:
            errors.append(f"{candidate.id}: not captured: {exc}")
            continue
        captured.append({"candidate": candidate.id, "id": memory_id, "summary": candidate.summary})
        _settle(queue, candidate, "approved", now)
    lines = [f"captured {len(captured)}"] + [f"  {c['id']}  {c['summary']}" for c in captured]
    lines += [f"  unknown: {u} (see `memactors review`)" for u in unknown] + [f"  {e}" for e in errors]
    if captured:
        lines.append("the next `memactors consolidate` (or the daemon) consolidates them")
    return Outcome({"captured": captured, "unknown": unknown, "errors": errors}, "\n".join(lines),
                   EXIT_ERRORS if unknown or errors else 0)


def _settle(queue, candidate, decision: str, now: datetime) -> None:
    def settle(state) -> None:
        state.pending = [c for c in state.pending if c.id != candidate.id]
        state.decided[candidate.content_hash] = decision

    queue.update(settle, now)


def reject(repo: Path, ids: Sequence[str]) -> Outcome:
    """Drop the proposals `ids` names and remember them, so they are never proposed again."""
    _, queue, now = _queue(repo)
    rejected: list[str] = []
    unknown: list[str] = []

    def drop(state) -> None:
        chosen, missing = resolve_ids(ids, state.pending)
        unknown.extend(missing)
        for candidate in chosen:
            state.decided[candidate.content_hash] = "rejected"
            rejected.append(candidate.id)
        state.pending = [c for c in state.pending if c.id not in rejected]

    queue.update(drop, now)
    text = [f"rejected {len(rejected)} (never proposed again)"] + [f"  unknown: {u}" for u in unknown]
    return Outcome({"rejected": rejected, "unknown": unknown}, "\n".join(text), EXIT_ERRORS if unknown else 0)


def edit(repo: Path, candidate: str, *, summary: str | None = None, namespace: str | None = None,
         content: str | None = None) -> Outcome:
    """Change a waiting proposal (it gets a new id); screened again. Code 1 when no proposal has that id."""
    from memactors.events.candidate import candidate_id
    from memactors.events.memory import KNOWN_NAMESPACES
    from memactors.events.threat import screen

    if summary is None and namespace is None and content is None:
        raise UsageError("--edit needs --summary, --set-namespace or --content")
    changes: dict[str, Any] = {}
    if summary is not None:
        summary = " ".join(summary.split())
        if not summary or len(summary) > MAX_SUMMARY_CHARS:
            raise UsageError(f"--summary must be one line of 1..{MAX_SUMMARY_CHARS} characters")
        changes["summary"] = summary
    if namespace is not None:
        if namespace not in KNOWN_NAMESPACES:
            raise UsageError(f"unknown namespace {namespace!r}; use one of: {', '.join(KNOWN_NAMESPACES)}")
        changes["namespace"] = namespace
    if content is not None:
        if len(content.encode()) > MAX_CONTENT_BYTES:
            raise UsageError(f"--content is over {MAX_CONTENT_BYTES} bytes")
        changes["content"] = content
    _, queue, now = _queue(repo)
    edited: list[Any] = []

    def change(state) -> None:
        chosen, _ = resolve_ids([candidate], state.pending)
        if not chosen:
            return
        old = chosen[0]
        new = old.model_copy(update=changes)
        new = new.model_copy(update={"id": candidate_id(new.summary, new.content),
                                     "threat": screen(new.summary, new.content)})
        if new.threat.level.blocks:
            raise UsageError(f"the edited proposal was not saved: {new.threat.pattern} ({new.threat.level.value})")
        state.pending = [new if c.id == old.id else c for c in state.pending]
        edited.append(new)

    queue.update(change, now)
    if not edited:
        return Outcome(None, f"no proposal {candidate!r} waits (see `memactors review`)", EXIT_ERRORS)
    new = edited[0]
    return Outcome({"edited": new.model_dump(mode="json")},
                   f"edited: {line(new)}\napprove with: memactors review --approve {new.id}")
