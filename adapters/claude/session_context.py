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
score is its retention (quality included) at the last run; a memory whose
commit is not merged into HEAD has it all multiplied by the `penalty` the
run stored (adapters/git/branches.py `UNMERGED_PENALTY`) and its line names
its branch ("from feature/x, not merged"). The key
decisions and learnings (`MEMACTORS_CONTEXT_KEY_ITEMS`, 8) are chosen
first, the rest by priority; every item is one line: title, date, what it
replaces. Parallel memories — one statement for several areas, differing only
in the area's word or leading label ("frontend: retries must be idempotent",
"billing: retries must be idempotent", ...) — fold into one line naming the
areas. Decisions, learnings and blockers captured since the last run (read from
their notes with git, bounded: adapters/claude/fresh_notes.py) come first,
marked "new since the last run".
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
#: How a memory captured since the last run is marked (the run has not judged it yet).
NEW_MARK = "new since the last run"
#: Memories captured since the last run that the block carries, newest first, before anything else.
FRESH_ITEMS = 8
#: Parallel memories (one statement for several areas) fold into one line from this many areas on; two suffice
#: when each leads with its area as a label ("billing: ...").
MIN_FOLD = 3
MIN_FOLD_LABELLED = 2
#: Areas a folded line names before "… N areas".
FOLD_NAMES = 3
#: Titles longer than this many words are never compared word by word (the cost stays linear in the candidates).
MAX_FOLD_WORDS = 24
#: A leading label of one to three words: "full-text search: results are ranked by BM25".
_LABEL = re.compile(r"^([^\W\d_][\w./+-]*(?: [\w./+-]+){1,2}): (\S.*)$")
#: A word that can name an area: starts with a letter, holds no digit (a number, a version or a count is no area).
_AREA = re.compile(r"[^\W\d_][^\W\d]*(?:[./+-][^\W\d]+)*")
#: Words that never name an area: two statements differing only in one of them say different things.
_NOT_AN_AREA = frozenset(
    "a an the this that these those not no never always only also all any each every some do does did don't doesn't "
    "must should shall can cannot can't will won't may might use uses avoid drop keep add remove stop start enable "
    "disable prefer allow forbid require is are was were be been and or but to of in on at for with from by into "
    "before after without".split())


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
            + settings.weight_activation * activation + settings.weight_retention * float(candidate.get("score", 0))
            ) * _penalty(candidate)


def _penalty(candidate: Mapping[str, Any]) -> float:
    """The run's rank factor for a memory not merged into HEAD (its `penalty`), else 1."""
    try:
        value = float(candidate.get("penalty", 1.0))
    except (TypeError, ValueError):
        return 1.0
    return value if 0.0 <= value <= 1.0 else 1.0


def _flat(text: Any, limit: int) -> str:
    text = _SPACE.sub(" ", str(text)).strip()
    return escape(text if len(text) <= limit else text[: limit - 1].rstrip() + "…")


def _line(candidate: Mapping[str, Any]) -> str:
    """One readable line: date, title, what it replaces, and whether it is new since the last run."""
    day = str(candidate.get("timestamp", ""))[:10]
    notes = []
    if candidate.get("kind") == "summary":
        notes.append(f"{candidate.get('sources', 0)} memories")
    replaced = candidate.get("supersedes") or candidate.get("superseded_facts") or []
    if replaced:
        notes.append("replaces: " + "; ".join(_flat(r, 80) for r in replaced[:2]))
    if candidate.get("fresh"):
        notes.append(NEW_MARK)
    if candidate.get("branch"):
        notes.append(_flat(candidate["branch"], 80))
    tail = f" ({'; '.join(notes)})" if notes else ""
    return f"- [{day}] {_flat(candidate.get('title') or candidate.get('summary', ''), 100)}{tail}"


def _title_key(candidate: Mapping[str, Any]) -> str:
    return _SPACE.sub(" ", str(candidate.get("title", ""))).strip().casefold()


def _is_area(word: str) -> bool:
    return len(word) > 1 and word.casefold() not in _NOT_AN_AREA and _AREA.fullmatch(word) is not None


def _slots(candidate: Mapping[str, Any]) -> list[tuple[tuple, str]]:
    """(the statement with one area word left out, that word) for each place an area word may stand.

    The key holds the group, the place (a word position, or "label" for a leading label of several words),
    whether the word is a leading label ("billing: ...") and the words around it. A word that is no label
    counts only in lower case, as areas and components are named ("logging blocked on ...", "Wrap api calls
    ..."): an imperative ("Run the tests ...") or a named product ("Use SQLite for ...", "Use PostgreSQL for
    ...": two choices for one area) is no area. A memory that replaces another never folds: what it replaces
    is its own line's news."""
    if candidate.get("supersedes") or candidate.get("superseded_facts"):
        return []
    title = _SPACE.sub(" ", str(candidate.get("title", ""))).strip()
    tokens = title.split(" ")
    if not 3 <= len(tokens) <= MAX_FOLD_WORDS:
        return []
    group = _group(candidate)
    low = [t.casefold() for t in tokens]
    found: list[tuple[tuple, str]] = []
    for at, token in enumerate(tokens):
        labelled = at == 0 and token.endswith(":")
        word = token[:-1] if labelled else token
        if not _is_area(word) or (not labelled and not word[0].islower()):
            continue
        found.append(((group, at, labelled, tuple(low[:at]), tuple(low[at + 1:])), word))
    label = _LABEL.match(title)
    if label and ":" not in label.group(1) and len(label.group(2).split()) >= 2:
        found.append(((group, "label", True, (), tuple(label.group(2).casefold().split())), label.group(1)))
    return found


@dataclass(frozen=True)
class _Unit:
    """One line's worth: a candidate, or parallel candidates folded (their area words, and where the word stood)."""

    members: tuple[Mapping[str, Any], ...]
    slot: tuple | None = None
    areas: tuple[str, ...] = ()

    @property
    def lead(self) -> Mapping[str, Any]:
        return self.members[0]


def fold(candidates: list[Mapping[str, Any]]) -> list[_Unit]:
    """`candidates` (best first) as lines: parallel ones — the same statement for several areas, differing only
    in the area's word or leading label — folded into one unit at the place of the best of them.

    The statements that share the most areas fold first; a candidate folds once. Two statements differing in
    a number, a function word or a capitalised word that is no label are different statements and stay apart."""
    by_slot: dict[tuple, list[tuple[int, str]]] = {}
    for position, candidate in enumerate(candidates):
        for key, word in _slots(candidate):
            by_slot.setdefault(key, []).append((position, word))
    shared = [(key, members) for key, members in by_slot.items() if len(members) >= MIN_FOLD_LABELLED]
    shared.sort(key=lambda item: (-len({w.casefold() for _, w in item[1]}), item[1][0][0]))
    folded_at: dict[int, int] = {}
    folds: list[_Unit] = []
    for key, members in shared:
        free = [(position, word) for position, word in members if position not in folded_at]
        areas = list(dict.fromkeys(word for _, word in free).keys())
        if len({a.casefold() for a in areas}) < (MIN_FOLD_LABELLED if key[2] else MIN_FOLD):
            continue
        for position, _ in free:
            folded_at[position] = len(folds)
        folds.append(_Unit(tuple(candidates[p] for p, _ in free), key, tuple(areas)))
    units: list[_Unit] = []
    placed: set[int] = set()
    for position, candidate in enumerate(candidates):
        which = folded_at.get(position)
        if which is None:
            units.append(_Unit((candidate,)))
        elif which not in placed:
            placed.add(which)
            units.append(folds[which])
    return units


def _fold_line(unit: _Unit) -> str:
    """A folded unit's line: the newest date, the statement without its area, then the areas (the first
    `FOLD_NAMES` and how many when there are more), the memories a summary holds, and whether it is new."""
    lead = unit.lead
    tokens = _SPACE.sub(" ", str(lead.get("title", ""))).strip().split(" ")
    at = unit.slot[1] if unit.slot else 0
    if at == "label":
        statement = str(_LABEL.match(" ".join(tokens)).group(2))  # type: ignore[union-attr]
    elif at == 0:
        statement = " ".join(tokens[1:])
    else:
        statement = " ".join([*tokens[:at], "…", *tokens[at + 1:]])
    seen: dict[str, str] = {}
    for area in unit.areas:
        seen.setdefault(area.casefold(), area)
    areas = list(seen.values())
    named = areas if len(areas) <= FOLD_NAMES + 1 else [*areas[:FOLD_NAMES], f"… {len(areas)} areas"]
    notes = [", ".join(_flat(a, 40) for a in named)]
    if lead.get("kind") == "summary":
        notes.append(f"{sum(int(m.get('sources', 0) or 0) for m in unit.members)} memories")
    if lead.get("fresh"):
        notes.append(NEW_MARK)
    day = max(str(m.get("timestamp", "")) for m in unit.members)[:10]
    return f"- [{day}] {_flat(statement, 100)} ({'; '.join(notes)})"


def _group(candidate: Mapping[str, Any]) -> str:
    return "summary" if candidate.get("kind") == "summary" else str(candidate.get("namespace", "other"))


def _usable(candidate: Any, settings: ContextSettings) -> bool:
    if not isinstance(candidate, dict) or not str(candidate.get("title", "")).strip():
        return False
    return candidate.get("kind") == "summary" or float(candidate.get("quality", 0)) >= settings.min_quality


def render_block(document: Mapping[str, Any], session: frozenset[str], settings: ContextSettings, *,
                 now: float, max_chars: int, shown: list[str] | None = None) -> str:
    """One block of the best candidates that fits in `max_chars` ('' when nothing fits or nothing is there);
    the IDs of what it holds (every memory of a folded line) are appended to `shown` when given.

    Memories captured since the last run (candidates marked `fresh`, newest first) come first, up to
    `FRESH_ITEMS`, unless the run already knows their title; then the key decisions and learnings (up to
    `settings.key_items`), then every other candidate by priority; one line each, parallel memories folded
    into one line (see `fold`), no title twice. Shown grouped: summaries, then decisions and learnings, then
    the rest.
    """
    if settings.recency_clock == "store" and isinstance(document.get("reference_time"), (int, float)):
        now = min(now, float(document["reference_time"]))
    candidates = [c for c in document.get("candidates", []) if _usable(c, settings)]
    stored = [c for c in candidates if not c.get("fresh")]
    by_id = {c.get("id"): c for c in stored}
    known = {_title_key(c) for c in stored}
    fresh = [c for c in candidates if c.get("fresh") and c.get("id") not in by_id and _title_key(c) not in known]
    pairs = [(by_id[a], by_id[b]) for a, b in _pairs(document) if a in by_id and b in by_id]
    undecided = {id(c) for pair in pairs for c in pair}
    # a summary or line led by either side of an undecided conflict would state it again as current
    titles = {_title_key(c) for pair in pairs for c in pair}
    stored = [c for c in stored if id(c) not in undecided and _title_key(c) not in titles]
    ranked = fold(sorted(stored, key=lambda c: -priority(c, session, settings, now)))
    key = [u for u in ranked if u.lead.get("kind") != "summary" and u.lead.get("namespace") in KEY_NAMESPACES]
    first = key[: settings.key_items]
    order = (fold(sorted(fresh, key=lambda c: -float(c.get("anchor", 0))))[:FRESH_ITEMS] + first
             + [u for u in ranked if not any(u is f for f in first)])
    opening = (f'<{TAG} version="{BLOCK_VERSION}" generated_at="{escape(str(document.get("generated_at", "")))}">\n'
               "Consolidated project memory from memactors: the key decisions and learnings, then summaries of "
               "related memories and other memories that matter now. \"replaces:\" names what no longer holds; "
               "do not act on it.\n")
    closing = f"</{TAG}>"
    if not (order or pairs) or len(opening) + len(closing) > max_chars:
        return ""
    chosen: list[tuple[Mapping[str, Any], str, list[str]]] = []
    used = len(opening) + len(closing)
    groups: set[str] = set()
    for first_side, second_side in pairs:  # a question the agent must put to the user, before anything else
        line = _conflict_line(first_side, second_side)
        cost = len(line) + 1 + (0 if UNDECIDED in groups else len(_heading(UNDECIDED)) + 1)
        if used + cost > max_chars:
            continue
        used += cost
        groups.add(UNDECIDED)
        chosen.append(({"namespace": UNDECIDED}, line, [str(first_side.get("id")), str(second_side.get("id"))]))
    for unit in order:
        names = [_title_key(m) for m in unit.members]
        if len(unit.members) == 1 and names[0] in titles:
            continue
        line = _line(unit.lead) if len(unit.members) == 1 else _fold_line(unit)
        group = _group(unit.lead)
        cost = len(line) + 1 + (0 if group in groups else len(_heading(group)) + 1)
        if used + cost > max_chars:
            continue  # a shorter, lower-ranked item may still fit
        used += cost
        groups.add(group)
        titles.update(names)
        chosen.append((unit.lead, line, [str(m.get("id")) for m in unit.members if m.get("id")]))
    if not chosen:
        return ""
    for i, (candidate, line, ids) in enumerate(chosen):  # a decision's rationale, in whatever budget is left
        why = candidate.get("rationale") if len(ids) == 1 else None
        extra = f"\n  Rationale: {_flat(why, 160)}" if why else ""
        if extra and used + len(extra) <= max_chars:
            chosen[i] = (candidate, line + extra, ids)
            used += len(extra)
    if shown is not None:
        shown += [i for _c, _line, ids in chosen for i in ids if i]
    body: list[str] = []
    listed = [UNDECIDED, "summary", *[g for g in KEY_NAMESPACES if g in groups],
              *sorted(groups - {UNDECIDED, "summary", *KEY_NAMESPACES})]
    for group in listed:
        lines = [line for c, line, _ids in chosen if _group(c) == group]
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


def with_fresh(common_dir: Path, document: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """`document` with the decisions, learnings and blockers captured since its run as candidates marked `fresh`
    (adapters/claude/fresh_notes.py: git and the standard library, a bounded read); a note when git could not
    say, or when more were written than the hook reads."""
    if not isinstance(document.get("memory_tips"), dict):
        return document  # no run yet, or a cache from before runs recorded what they read
    from memactors.adapters.claude.fresh_notes import fresh_memories

    try:
        found = fresh_memories(common_dir, document)
    except OSError as exc:
        notes.append(f"memories captured since the last run are not shown ({exc})")
        return document
    if found.more:
        notes.append("more memories were captured since the last run than the block reads: "
                     "`memactors consolidate` takes them all in")
    if not found.candidates:
        return document
    return {**document, "candidates": [*found.candidates, *document.get("candidates", [])]}


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
        document = with_fresh(common, document, notes)
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
