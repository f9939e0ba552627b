"""A store that looks like what git-notes-memory really writes, with the truth about every entry.

Modelled on the plugin's published capture code (studied, not copied):
- explicit captures (`/capture`): a one-line summary and a structured body,
  the same capture repeated with only the timestamp changed;
- the PreCompact hook: it scans the whole transcript at each compaction for
  signal phrases ("we decided to", "turns out", "fixed the", ...) and block
  markers (`▶ decision ───` ... `───`), and captures the best few, tagged
  `auto-captured`, `pre-compact`. An inline signal's content is a window of
  about 100 characters either side of the phrase, cut at words, with `...`
  where it was cut; its summary is that window cut to 97 characters plus
  `...`. A block's summary is the block itself, markers included, cut the
  same way; its content is the block's title and body. Later compactions
  rescan the grown transcript, so the same captures recur with new
  timestamps, and a window cut by the transcript's end recurs longer;
- file-scoped captures (`auto-captured`, `post-tool-use`, `file:<path>`):
  windows of code around a signal in an edited file;
- transcripts hold what real ones hold: tables, code, Claude Code's
  `★ Insight ───` boxes, and escaped copies of injected memory context.
Many memories hang on one commit, some notes are copied to rewritten commits.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pygit2

from memactors.adapters.git.note_format import append_entry, parse_note, serialize_entry
from memactors.adapters.git.store import GitStore
from tests.realistic_facts import BY_ID, FACTS, Fact

#: The dormant store: written over eight days, then left alone for a year.
DORMANT_START = datetime(2025, 1, 6, 9, 0, tzinfo=timezone.utc)
DORMANT_NOW = datetime(2026, 1, 12, 9, 0, tzinfo=timezone.utc)
#: The active store: the same project spread over 64 days up to yesterday.
ACTIVE_NOW = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)

_BLOCK_LABEL = {"decisions": "decision", "learnings": "learned", "blockers": "blocker", "progress": "progress",
                "patterns": "pattern", "research": "remember"}
_SIGNALS: tuple[tuple[str, str, float], ...] = (
    # (pattern, namespace, confidence)
    (r"(?i)\b(?:I|we)\s+(?:decided|chose|opted)\s+(?:to|for|on)\b", "decisions", 0.90),
    (r"(?i)\bthe decision (?:is|was) to\b", "decisions", 0.88),
    (r"(?i)\bwe went with\b", "decisions", 0.80),
    (r"(?i)\bturns out\b", "learnings", 0.85),
    (r"(?i)\bkey (?:insight|learning)[:\s]", "learnings", 0.92),
    (r"(?i)\b(?:I|we)\s+(?:learned|realized|discovered)\b", "learnings", 0.90),
    (r"(?i)\bblocked (?:by|on)\b", "blockers", 0.92),
    (r"(?i)\b(?:fixed|resolved|solved) (?:the|this|that|it)\b", "progress", 0.92),
    (r"(?i)\bimplemented\b", "progress", 0.88),
    (r"(?i)\bpattern[:\s]", "patterns", 0.90),
    (r"(?i)\bimportant[:\s]", "learnings", 0.75),
)
_BLOCK = re.compile(r"▶\s+(\w+)\s+─+(?:[ \t]+([^\n]+))?\n(.*?)^─+$", re.MULTILINE | re.DOTALL)
_CODE_FILES = ("src/memplugin/capture.py", "src/memplugin/index.py", "src/memplugin/hooks/session_start.py",
               "src/memplugin/sync.py", "tests/test_capture.py")


@dataclass(frozen=True)
class Truth:
    """What an entry really is: the fact it carries (None: noise), how it was written, whether it is explicit."""

    fact: str | None
    kind: str  # explicit | block | inline | code | echo | narration
    namespace: str

    @property
    def explicit(self) -> bool:
        return self.kind == "explicit"


@dataclass
class RealisticStore:
    path: Path
    now: datetime
    truth: dict[str, Truth] = field(default_factory=dict)  # memory key -> truth
    entries: int = 0  # entries written, copies on rewritten commits included


@dataclass(frozen=True)
class _Paragraph:
    text: str
    fact: str | None
    kind: str  # prose | block | code | table | insight | echo


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _paragraphs_for(fact: Fact, rng: random.Random) -> list[_Paragraph]:
    """How a session talks about a fact: prose with a signal phrase, often a block, sometimes a box or table."""
    point, why = fact.point.rstrip("."), fact.why
    lead = {"decisions": f"After comparing the options we decided on this. {point}.",
            "learnings": f"Turns out {_lower_first(point)}.",
            "blockers": f"We are blocked by this: {_lower_first(point)}.",
            "progress": f"Implemented the change. {point}.",
            "patterns": f"Pattern: {_lower_first(point)}.",
            "research": f"Key insight: {_lower_first(point)}."}[fact.namespace]
    out = [_Paragraph(f"{fact.context} {lead} {why}", fact.id, "prose")]
    if rng.random() < 0.6:
        rule = "─" * rng.randint(30, 50)
        out.append(_Paragraph(f"▶ {_BLOCK_LABEL[fact.namespace]} {rule}\n{fact.summary}\n{point}. {why}\n"
                              f"{'─' * 48}", fact.id, "block"))
    if fact.namespace == "learnings" and rng.random() < 0.5:
        out.append(_Paragraph("`★ Insight ─────────────────────────────────────`\n"
                              f"- Key insight: {_lower_first(point)}.\n- {why}\n"
                              "`─────────────────────────────────────────────────`", fact.id, "insight"))
    if fact.namespace == "decisions" and rng.random() < 0.35:
        out.append(_Paragraph("| Option | Outcome | Notes |\n|--------|---------|-------|\n"
                              f"| current | we went with it | {point[:60]} |\n"
                              f"| previous | rejected | {fact.context[:50]} |", fact.id, "table"))
    return out


#: What the agent says about its own work, and structure with no claim: real stores capture these as blocks.
NARRATION = (
    ("progress", "Let me check the existing context builder to understand the pattern:"),
    ("learnings", "Now I understand the tracing system."),
    ("progress", "Done! The rebase completed, but note:"),
    ("progress", "I found 2 active projects. Since you just completed the sync work, let me look at capture next."),
    ("progress", "Perfect! All 214 tests pass now."),
    ("decisions", "Here's what I changed:"),
    ("patterns", "Defense in Depth"),
    ("retrospective", "What Went Well"),
    ("patterns", "Optimizations"),
    ("decisions", "Summary of what was done"),
    ("learnings", "The key insight"),
    ("progress", "[ ] Multi-layer secret detection for captured text"),
    ("learnings", "for future reference"),
)


def _narration_paragraph(rng: random.Random) -> _Paragraph:
    """A block the agent opened around its own narration, a bare heading or a checklist line."""
    namespace, line = rng.choice(NARRATION)
    label = _BLOCK_LABEL.get(namespace, "remember")
    return _Paragraph(f"▶ {label} {'─' * rng.randint(30, 50)}\n{line}\n{'─' * 48}", None, "narration")


def _code_paragraph(fact: Fact, path: str) -> _Paragraph:
    name = re.sub(r"\W+", "_", fact.id)
    code = (f"```python\n# {path}\ndef {name}(config: Config) -> None:\n"
            f"    # Important: {_lower_first(fact.point.rstrip('.'))}\n"
            f"    service = get_default_service(config)\n    service.run(namespace=\"{fact.namespace}\", "
            f"limit=config.limit)\n```")
    return _Paragraph(code, fact.id, "code")


def _echo_paragraph(facts: list[Fact], rng: random.Random) -> _Paragraph:
    """An escaped copy of context a hook injected earlier: memories of memories."""
    sha = "%040x" % rng.getrandbits(160)
    inner = "".join(
        f'\\n  <memory id=\\"{f.namespace}:{sha[:7]}:{i}\\" namespace=\\"{f.namespace}\\" relevance=\\"0.8{i}\\">'
        f"\\n    <summary>{f.summary}</summary>\\n    <preview>We decided to keep it: "
        f"{_lower_first(f.point)[:80]}</preview>\\n  </memory>"
        for i, f in enumerate(facts))
    text = ('{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": '
            f'"<memory_context project=\\"memplugin\\" total=\\"{len(facts)}\\">{inner}\\n</memory_context>"}}}}')
    return _Paragraph(text, None, "echo")


def _window(text: str, start: int, end: int, width: int = 100) -> str:
    """The plugin's context window: `width` characters either side, cut at words, `...` where cut."""
    lo, hi = max(0, start - width), min(len(text), end + width)
    if lo > 0:
        space = text.find(" ", lo)
        lo = space + 1 if 0 <= space < start else lo
    if hi < len(text):
        space = text.rfind(" ", end, hi)
        hi = space if space > end else hi
    out = text[lo:hi].strip()
    return ("..." if lo > 0 else "") + out + ("..." if hi < len(text) else "")


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= 100 else text[:97] + "..."


def _signals(paragraphs: list[_Paragraph]) -> list[tuple[float, int, str, str, str, _Paragraph]]:
    """(confidence, position, namespace, summary, content, paragraph) of every signal in the transcript."""
    text, spans, offset = "", [], 0
    for p in paragraphs:
        spans.append((offset, offset + len(p.text), p))
        text += p.text + "\n\n"
        offset = len(text)
    text = text.rstrip("\n")
    found, covered = [], []

    def owner(pos: int) -> _Paragraph:
        return next(p for lo, hi, p in spans if lo <= pos <= hi)

    for match in _BLOCK.finditer(text):
        label, title, body = match.group(1), (match.group(2) or "").strip(), match.group(3).strip()
        namespace = next((ns for ns, lab in _BLOCK_LABEL.items() if lab == label), "learnings")
        content = f"{title}\n{body}" if title else body
        found.append((0.99, match.start(), namespace, _cut(match.group(0)), content, owner(match.start())))
        covered.append((match.start(), match.end()))
    for pattern, namespace, confidence in _SIGNALS:
        for match in re.finditer(pattern, text):
            if any(lo <= match.start() < hi for lo, hi in covered):
                continue
            context = _window(text, match.start(), match.end())
            summary = match.group(0).strip()
            summary = context if len(summary) < 20 else summary
            found.append((confidence, match.start(), namespace, _cut(summary), context, owner(match.start())))
    return found


def new_repository(path: Path, readme: bytes) -> tuple[pygit2.Repository, pygit2.Signature, pygit2.Oid]:
    """A new repository at `path` on branch main, the signature its commits use, and a tree holding a README."""
    repo = pygit2.init_repository(str(path), initial_head="main")
    builder = repo.TreeBuilder()
    builder.insert("README.md", repo.create_blob(readme), pygit2.GIT_FILEMODE_BLOB)
    return repo, pygit2.Signature("Dev", "dev@example.com"), builder.write()


def build_realistic_store(path: Path, *, dormant: bool = True, seed: int = 14, scale: int = 1) -> RealisticStore:
    """Write the store into a new repository at `path`; `scale` multiplies the sessions (and entries)."""
    rng = random.Random(seed)
    chatter = random.Random(seed + 1)  # its own stream: the rest of the store stays as it was
    start = DORMANT_START if dormant else ACTIVE_NOW - timedelta(days=64)
    day_length = timedelta(days=1) if dormant else timedelta(days=8)
    store = RealisticStore(path=path, now=DORMANT_NOW if dormant else ACTIVE_NOW)
    repo, sig, tree = new_repository(path, b"memplugin\n")
    notes: dict[str, dict[str, bytes]] = defaultdict(dict)
    parent: list[pygit2.Oid] = []
    commits: list[str] = []

    def write(namespace: str, front: dict, body: str, commit: str, truth: Truth) -> None:
        entry = serialize_entry(front, body)
        notes[namespace][commit] = append_entry(notes[namespace].get(commit), entry)
        for memory in parse_note(namespace, commit, append_entry(None, entry)).memories:
            store.truth[memory.key] = truth  # the key as a reader computes it (YAML folds some summaries)
        store.entries += 1

    sessions_per_day = 4 * scale
    for day in range(8):
        for session in range(sessions_per_day):
            when = start + day * day_length + timedelta(hours=1 + 2.5 * session / scale, minutes=rng.randint(0, 50))
            oid = repo.create_commit("refs/heads/main", sig, sig, f"work {day}.{session}", tree, parent)
            parent = [oid]
            commit = str(oid)
            commits.append(commit)
            known = [f for f in FACTS if f.day <= day]
            today = [f for f in FACTS if f.day == day]
            talked = rng.sample(today, k=min(len(today), rng.randint(1, 3))) + rng.sample(known, k=2)
            transcript: list[_Paragraph] = []
            narration_after: dict[int, _Paragraph] = {}
            if rng.random() < 0.5:
                transcript.append(_echo_paragraph(rng.sample(known, k=min(3, len(known))), rng))
            for fact in talked:
                transcript += _paragraphs_for(fact, rng)
                if chatter.random() < 0.4:  # said after this paragraph (see `spoken` below)
                    narration_after[len(transcript)] = _narration_paragraph(chatter)
                if rng.random() < 0.3:
                    transcript.append(_Paragraph(f"Ran the tests: {rng.randint(40, 400)} passed in "
                                                 f"{rng.uniform(1, 20):.2f}s. Moving on to the next item.", None,
                                                 "prose"))
            # explicit captures of today's facts, and repeats of older ones with a new timestamp
            for fact in talked:
                copies = rng.choice((0, 0, 1)) if fact.day < day else rng.choice((1, 1, 2, 3, 5))
                for c in range(copies):
                    stamp = (when + timedelta(minutes=3 + 7 * c, seconds=rng.randint(0, 59))).isoformat()
                    write(fact.namespace, {"type": fact.namespace, "timestamp": stamp, "summary": fact.summary},
                          fact.body(), commit, Truth(fact.id, "explicit", fact.namespace))
            # compactions: each rescans the transcript so far and captures its best few signals
            cuts = sorted(rng.sample(range(1, len(transcript) + 1), k=min(len(transcript), rng.randint(2, 4))))
            for n, upto in enumerate(cuts):
                # the transcript as spoken, the agent's narration included; the cuts fall where they did without it
                spoken = [p for i, paragraph in enumerate(transcript[:upto])
                          for p in (paragraph, *([narration_after[i + 1]] if i + 1 in narration_after else []))]
                best = sorted(_signals(spoken), key=lambda s: (-s[0], s[1]))[:6]
                stamp = when + timedelta(minutes=40 + 15 * n)
                for i, (_, _, namespace, summary, content, paragraph) in enumerate(best):
                    kind = {"block": "block", "echo": "echo", "code": "code", "narration": "narration"}.get(
                        paragraph.kind, "inline")
                    front = {"type": namespace, "timestamp": (stamp + timedelta(seconds=i)).isoformat(),
                             "summary": summary, "tags": ["auto-captured", "pre-compact"]}
                    write(namespace, front, content, commit, Truth(paragraph.fact, kind, namespace))
            # file-scoped captures from edited code
            for fact in rng.sample(talked, k=min(3, len(talked))):
                path_ = rng.choice(_CODE_FILES)
                code = _code_paragraph(fact, path_)
                for _, _, namespace, summary, content, _ in _signals([code])[:1]:
                    front = {"type": namespace, "timestamp": (when + timedelta(minutes=25)).isoformat(),
                             "summary": summary, "tags": ["auto-captured", "post-tool-use", f"file:{path_}"]}
                    write(namespace, front, content, commit, Truth(fact.id, "code", namespace))
    # a rebase copied some notes to rewritten commits (same entries, new commit)
    for commit in rng.sample(commits, k=max(1, len(commits) // 10)):
        oid = repo.create_commit(None, sig, sig, f"rebased {commit[:7]}", tree, [])
        for namespace in notes:
            if commit in notes[namespace]:
                notes[namespace][str(oid)] = notes[namespace][commit]
                store.entries += notes[namespace][commit].count(b"\n---\ntype:") + 1
    git = GitStore(path)
    for namespace, by_commit in notes.items():
        ref = f"refs/notes/mem/{namespace}"
        git.move_refs({ref: git.build_notes_commit(None, by_commit, "capture")}, {ref: None}, "capture")
    return store


def fact_of(store: RealisticStore, key: str) -> str | None:
    truth = store.truth.get(key)
    return truth.fact if truth else None


def current_facts(namespaces: tuple[str, ...] = ("decisions", "learnings")) -> set[str]:
    """Facts in `namespaces` that no newer fact replaces: what the SessionStart block should carry."""
    replaced = {f.replaces for f in FACTS if f.replaces}
    return {f.id for f in FACTS if f.namespace in namespaces and f.id not in replaced}


__all__ = ["BY_ID", "FACTS", "RealisticStore", "Truth", "build_realistic_store", "current_facts", "fact_of",
           "new_repository"]
