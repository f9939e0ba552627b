"""`memactors context`: the Claude Code SessionStart hook. Standard library only.

Reads what the last run precomputed (`<git common dir>/memactors/context.json`,
see adapters/read_cache.py), ranks it for this session and prints
`{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": ...}}`
holding exactly one `<memory_consolidated_summaries>` block. No model, no
kNN, no LLM, no third-party import: it must start, read and render in a
few tens of milliseconds. Whatever goes wrong, it prints valid hook JSON
(without a block), says why on stderr and exits 0.

Candidates are readable summaries and the best standing, readable memories
of any tier (a 40-day-old decision is never HOT on an active store but may
be the most important thing to know); memories below the quality threshold
(`MEMACTORS_CONTEXT_MIN_QUALITY`, 0.5: cut transcript windows, code, echoes)
never enter. Priority of a candidate for the session:
`w_relevance·relevance + w_recency·recency + w_activation·activation + w_retention·score`,
where relevance is the share of its terms found in the working directory
and the recently changed files, recency decays with the retention
half-life from its later of capture and last use, counted from the store's
newest memory (`MEMACTORS_RECENCY_CLOCK=store`, the default, as the run's
tiers are) or from now (`wall`), activation is `ln(1+uses)/ln(21)`, and
score is its retention (quality included) at the last run. The key
decisions and learnings (`MEMACTORS_CONTEXT_KEY_ITEMS`, 8) are chosen
first, the rest by priority; every item is one line: title, date, what it
replaces.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memactors.events.terms import overlap, terms

TAG = "memory_consolidated_summaries"
BLOCK_VERSION = 2
CONTEXT_VERSION = 2
#: What a session most needs to know first: what was decided and what was learned.
KEY_NAMESPACES = ("decisions", "learnings")
#: The block's group for undecided conflicts (never a namespace name: it holds a space).
UNDECIDED = "undecided conflicts"
CONTEXT_FILE = "context.json"
#: Claude Code drops additional context over this many characters.
CLAUDE_CONTEXT_CAP = 10_000
#: A rough, conservative token count for English prose and code identifiers.
CHARS_PER_TOKEN = 4
_BLOCK = re.compile(rf"<{TAG}\b[^>]*>.*?</{TAG}>\n?", re.DOTALL)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class ContextSettings:
    """`MEMACTORS_CONTEXT_*` (and the retention half-life), read without pydantic."""

    budget_tokens: int = 2000
    weight_relevance: float = 0.4
    weight_recency: float = 0.2
    weight_activation: float = 0.1
    weight_retention: float = 0.3
    half_life_days: float = 30.0
    min_quality: float = 0.5
    key_items: int = 8
    recency_clock: str = "store"

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> tuple[ContextSettings, list[str]]:
        """Settings from `env`, and a note per value that was invalid (its default is used instead)."""
        values: dict[str, Any] = {}
        notes: list[str] = []
        sources = {
            "budget_tokens": ("MEMACTORS_CONTEXT_TOKENS", int, 1),
            "weight_relevance": ("MEMACTORS_CONTEXT_WEIGHT_RELEVANCE", float, 0),
            "weight_recency": ("MEMACTORS_CONTEXT_WEIGHT_RECENCY", float, 0),
            "weight_activation": ("MEMACTORS_CONTEXT_WEIGHT_ACTIVATION", float, 0),
            "weight_retention": ("MEMACTORS_CONTEXT_WEIGHT_RETENTION", float, 0),
            "half_life_days": ("MEMACTORS_RETENTION_HALF_LIFE_DAYS", float, 1e-9),
            "min_quality": ("MEMACTORS_CONTEXT_MIN_QUALITY", float, 0),
            "key_items": ("MEMACTORS_CONTEXT_KEY_ITEMS", int, 0),
        }
        for field, (name, kind, minimum) in sources.items():
            raw = env.get(name)
            if raw is None or raw.strip() == "":
                continue
            try:
                value = kind(raw)
                if not value >= minimum or (kind is float and not math.isfinite(value)):
                    raise ValueError
                values[field] = value
            except ValueError:
                notes.append(f"{name}={raw!r} is not a valid value; using the default")
        clock = env.get("MEMACTORS_RECENCY_CLOCK", "").strip()
        if clock in ("store", "wall"):
            values["recency_clock"] = clock
        elif clock:
            notes.append(f"MEMACTORS_RECENCY_CLOCK={clock!r} is not store or wall; using store")
        return cls(**values), notes

    @property
    def budget_chars(self) -> int:
        return min(self.budget_tokens * CHARS_PER_TOKEN, CLAUDE_CONTEXT_CAP)


def escape(text: str) -> str:
    """Memory text as inert block content: no tag (ours or any other) can open or close in it."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def inject(existing: str | None, block: str) -> str:
    """`existing` context with its consolidated-summaries block replaced by `block` (one block, always).

    Everything outside our blocks is kept as it was; an empty `block`
    removes ours. With no block yet, `block` is appended after a blank line.
    """
    text = existing or ""
    match = _BLOCK.search(text)
    if match is None:
        if not block:
            return text
        return f"{text.rstrip()}\n\n{block}" if text.strip() else block
    replacement = block + ("\n" if match.group().endswith("\n") else "") if block else ""
    return text[: match.start()] + replacement + _BLOCK.sub("", text[match.end():])


def priority(candidate: Mapping[str, Any], session: frozenset[str], settings: ContextSettings, now: float) -> float:
    """How much this session needs a candidate (see the module docstring)."""
    age_days = max(0.0, (now - float(candidate.get("anchor", now))) / 86400.0)
    recency = 0.5 ** (age_days / settings.half_life_days)
    uses = max(0, int(candidate.get("activation_count", 0)))
    activation = min(1.0, math.log1p(uses) / math.log1p(20))
    relevance = overlap(candidate.get("terms", ()), session) if session else 0.0
    return (settings.weight_relevance * relevance + settings.weight_recency * recency
            + settings.weight_activation * activation + settings.weight_retention * float(candidate.get("score", 0)))


def _flat(text: Any, limit: int) -> str:
    text = _SPACE.sub(" ", str(text)).strip()
    return escape(text if len(text) <= limit else text[: limit - 1].rstrip() + "…")


def _line(candidate: Mapping[str, Any]) -> str:
    """One readable line: date, title, and what it replaces."""
    day = str(candidate.get("timestamp", ""))[:10]
    notes = []
    if candidate.get("kind") == "summary":
        notes.append(f"{candidate.get('sources', 0)} memories")
    replaced = candidate.get("supersedes") or candidate.get("superseded_facts") or []
    if replaced:
        notes.append("replaces: " + "; ".join(_flat(r, 80) for r in replaced[:2]))
    tail = f" ({'; '.join(notes)})" if notes else ""
    return f"- [{day}] {_flat(candidate.get('title') or candidate.get('summary', ''), 100)}{tail}"


def _group(candidate: Mapping[str, Any]) -> str:
    return "summary" if candidate.get("kind") == "summary" else str(candidate.get("namespace", "other"))


def _usable(candidate: Any, settings: ContextSettings) -> bool:
    if not isinstance(candidate, dict) or not str(candidate.get("title", "")).strip():
        return False
    return candidate.get("kind") == "summary" or float(candidate.get("quality", 0)) >= settings.min_quality


def render_block(document: Mapping[str, Any], session: frozenset[str], settings: ContextSettings, *,
                 now: float, max_chars: int, shown: list[str] | None = None) -> str:
    """One block of the best candidates that fits in `max_chars` ('' when nothing fits or nothing is there);
    the IDs of what it holds are appended to `shown` when given.

    The key decisions and learnings come first (up to `settings.key_items`),
    then every other candidate by priority; one line each, no title twice.
    Shown grouped: summaries, then decisions and learnings, then the rest.
    """
    if settings.recency_clock == "store" and isinstance(document.get("reference_time"), (int, float)):
        now = min(now, float(document["reference_time"]))
    candidates = [c for c in document.get("candidates", []) if _usable(c, settings)]
    by_id = {c.get("id"): c for c in candidates}
    pairs = [(by_id[a], by_id[b]) for a, b in _pairs(document) if a in by_id and b in by_id]
    undecided = {id(c) for pair in pairs for c in pair}
    candidates = [c for c in candidates if id(c) not in undecided]
    ranked = sorted(candidates, key=lambda c: -priority(c, session, settings, now))
    key = [c for c in ranked if c.get("kind") != "summary" and c.get("namespace") in KEY_NAMESPACES]
    first = key[: settings.key_items]
    order = first + [c for c in ranked if not any(c is f for f in first)]
    opening = (f'<{TAG} version="{BLOCK_VERSION}" generated_at="{escape(str(document.get("generated_at", "")))}">\n'
               "Consolidated project memory from memactors: the key decisions and learnings, then summaries of "
               "related memories and other memories that matter now. \"replaces:\" names what no longer holds; "
               "do not act on it.\n")
    closing = f"</{TAG}>"
    if not (order or pairs) or len(opening) + len(closing) > max_chars:
        return ""
    chosen: list[tuple[Mapping[str, Any], str]] = []
    used = len(opening) + len(closing)
    groups: set[str] = set()
    titles: set[str] = set()
    for first_side, second_side in pairs:  # a question the agent must put to the user, before anything else
        line = _conflict_line(first_side, second_side)
        cost = len(line) + 1 + (0 if UNDECIDED in groups else len(_heading(UNDECIDED)) + 1)
        if used + cost > max_chars:
            continue
        used += cost
        groups.add(UNDECIDED)
        chosen.append(({"id": first_side.get("id"), "namespace": UNDECIDED, "also": second_side.get("id")}, line))
        # a summary led by either side would state it again as current
        titles.update(_SPACE.sub(" ", str(c.get("title", ""))).strip().casefold() for c in (first_side, second_side))
    for candidate in order:
        title = _SPACE.sub(" ", str(candidate.get("title", ""))).strip().casefold()
        if title in titles:
            continue
        line = _line(candidate)
        group = _group(candidate)
        cost = len(line) + 1 + (0 if group in groups else len(_heading(group)) + 1)
        if used + cost > max_chars:
            continue  # a shorter, lower-ranked item may still fit
        used += cost
        groups.add(group)
        titles.add(title)
        chosen.append((candidate, line))
    if not chosen:
        return ""
    if shown is not None:
        shown += [str(i) for c, _line in chosen for i in (c.get("id"), c.get("also")) if i]
    body: list[str] = []
    shown = [UNDECIDED, "summary", *[g for g in KEY_NAMESPACES if g in groups],
             *sorted(groups - {UNDECIDED, "summary", *KEY_NAMESPACES})]
    for group in shown:
        lines = [line for c, line in chosen if _group(c) == group]
        if lines:
            body.append(_heading(group))
            body += lines
    return opening + "\n".join(body) + "\n" + closing


def _heading(group: str) -> str:
    if group == UNDECIDED:
        return "## Undecided: these contradict each other; ask the user which holds before acting on either"
    return "## Summaries" if group == "summary" else f"## {escape(group)}"


def _pairs(document: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The undecided conflicts the run recorded (pairs of memory ids)."""
    raw = document.get("conflicts")
    return [(str(p[0]), str(p[1])) for p in raw if isinstance(p, list) and len(p) == 2] if isinstance(raw, list) else []


def _conflict_line(first: Mapping[str, Any], second: Mapping[str, Any]) -> str:
    """One undecided conflict: both sides with their dates, newer first."""
    newer, older = sorted((first, second), key=lambda c: str(c.get("timestamp", "")), reverse=True)
    return (f"- [{str(newer.get('timestamp', ''))[:10]}] {_flat(newer.get('title', ''), 90)} -- or -- "
            f"[{str(older.get('timestamp', ''))[:10]}] {_flat(older.get('title', ''), 90)}")


def session_terms(cwd: Path) -> frozenset[str]:
    """Terms of the working directory (relative to its work tree) and of recently changed files."""
    paths: list[str] = []
    for args in (["rev-parse", "--show-prefix"], ["log", "-n", "10", "--name-only", "--format="],
                 ["status", "--porcelain", "--untracked-files=no"]):
        try:
            out = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, timeout=2,
                                 check=False).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        paths += [line[3:] if args[0] == "status" else line for line in out.splitlines() if line.strip()]
    return frozenset(terms(" ".join(paths), limit=400))


def load_document(common_dir: Path) -> dict[str, Any]:
    """The precomputed candidates; raises ValueError with a one-line reason when unusable."""
    try:
        document = json.loads((common_dir / "memactors" / CONTEXT_FILE).read_text())
    except FileNotFoundError:
        raise ValueError("no consolidated state yet: run `memactors consolidate` (or `memactors run`)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"the context cache cannot be read ({type(exc).__name__}); "
                         "`memactors consolidate` rebuilds it") from None
    if not isinstance(document, dict) or document.get("version") != CONTEXT_VERSION:
        raise ValueError("the context cache is from another memactors version; `memactors consolidate` rebuilds it")
    return document


def _remember(common: Path, hook: Mapping[str, Any], shown: list[str], notes: list[str]) -> None:
    """What the block showed, so surfacing never repeats it this session; compaction or /clear starts afresh."""
    from memactors.adapters.claude.session_seen import SessionSeen

    try:
        with SessionSeen(common, str(hook["session_id"])).locked(reset=hook.get("source") in ("compact", "clear")) \
                as seen:
            seen.add(f"session-start:{hook.get('source', '')}", shown, "session-start")
    except OSError as exc:
        notes.append(f"could not record what was shown ({exc.strerror or exc}); surfacing may repeat it")


def review_reminder(common_dir: Path, now: float) -> str:
    """One line when proposed memories wait for review ('' otherwise); reads the queue file, nothing more."""
    from memactors.adapters.claude.review_reminder import waiting_count, waiting_phrase

    waiting = waiting_count(common_dir, now)
    return f"{waiting_phrase(waiting)}: memactors review" if waiting else ""


def hook_output(context: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}})


def session_start(raw_input: str | None, repo: Path | None, env: Mapping[str, str], *,
                  budget_tokens: int | None = None, now: float | None = None) -> tuple[str, list[str]]:
    """The hook's whole job: (the block, or '' , and notes for stderr). Never raises."""
    from memactors.adapters.claude.inbox import find_common_dir  # standard library only, like this module

    notes: list[str] = []
    hook: Any = None
    try:
        where = repo
        if raw_input is not None:
            hook = json.loads(raw_input) if raw_input.strip() else None
            if not isinstance(hook, dict):
                raise ValueError("the hook input is empty or not a JSON object")
            if where is None and isinstance(hook.get("cwd"), str):
                where = Path(hook["cwd"])
        where = where or Path.cwd()
        common = find_common_dir(where)
        if common is None:
            raise ValueError(f"{where} is not inside a git repository")
        settings, notes = ContextSettings.from_env(env)
        if budget_tokens is not None:
            settings = ContextSettings(**{**settings.__dict__, "budget_tokens": budget_tokens})
        clock = time.time() if now is None else now
        reminder = review_reminder(common, clock)
        try:
            document = load_document(common)
        except ValueError:
            if not reminder:
                raise
            document = {}
        shown: list[str] = []
        budget = settings.budget_chars - (len(reminder) + 1 if reminder else 0)
        block = render_block(document, session_terms(where), settings, now=clock, max_chars=budget, shown=shown)
        if reminder:
            block = (block[:-len(f"</{TAG}>")] if block else f'<{TAG} version="{BLOCK_VERSION}">\n') \
                + reminder + f"\n</{TAG}>"
        if not block:
            notes.append("nothing to show yet: no readable summaries or memories")
        if isinstance(hook, dict) and hook.get("session_id"):
            _remember(common, hook, shown, notes)
        return block, notes
    except (ValueError, OSError) as exc:
        return "", [*notes, str(exc)]
