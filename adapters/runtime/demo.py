"""A realistic sample memory store, for `memactors demo` and for benchmarks.

Months of captures over a commit history, in git-notes-memory's layout:
repeated captures of the same fact, exact duplicate entries, decisions
later replaced, and a few broken entries of the kinds real stores hold.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pygit2

from memactors.adapters.git.note_format import append_entry, serialize_entry
from memactors.adapters.git.store import GitStore

_TOPICS = ["auth", "storage", "api", "ci", "search", "billing", "frontend", "deploy", "cache", "logging"]
_SUBJECTS = {
    "auth": ("session tokens", "JWT with 15-minute expiry", "opaque tokens in Redis"),
    "storage": ("the primary database", "SQLite", "PostgreSQL 16"),
    "api": ("the public API style", "REST with JSON", "GraphQL"),
    "ci": ("the CI runner", "GitHub Actions", "a self-hosted Buildkite agent"),
    "search": ("full-text search", "SQLite FTS5", "OpenSearch"),
    "billing": ("payment provider", "Stripe Checkout", "Paddle"),
    "frontend": ("the UI framework", "server-rendered templates", "React with Vite"),
    "deploy": ("deployment target", "a single VM with systemd", "Kubernetes"),
    "cache": ("response caching", "in-process LRU", "Redis with 5-minute TTL"),
    "logging": ("log format", "plain text", "structured JSON logs"),
}
_TEMPLATES = {
    "decisions": ("Use {old} for {subject}", "We chose {old} for {subject}: simplest thing that works today."),
    "learnings": ("{topic}: retries must be idempotent",
                  "Learned while debugging {topic}: a retried request ran twice because the handler was not idempotent."),
    "blockers": ("{topic} blocked on missing credentials",
                 "Cannot finish {topic} work until the staging credentials for {subject} are provisioned."),
    "progress": ("{topic}: milestone {n} done", "Finished milestone {n} of the {topic} work; tests green."),
    "patterns": ("Wrap {topic} calls in a circuit breaker",
                 "Pattern: every outbound {topic} call goes through a breaker with jittered retries."),
    "research": ("Compared options for {subject}", "Benchmarked {old} against {new} for {subject}."),
    "reviews": ("Review of {topic} module", "Reviewer asked for smaller functions and more tests in {topic}."),
    "retrospective": ("Retro: {topic} sprint", "Went well: pairing. To improve: smaller PRs for {topic}."),
    "inception": ("Project goal for {topic}", "The {topic} component must serve 100 requests per second."),
    "elicitation": ("User need in {topic}", "Users want {subject} to just work without configuration."),
}
_WEIGHTS = {"decisions": 18, "learnings": 16, "progress": 20, "blockers": 8, "patterns": 8,
            "research": 8, "reviews": 8, "retrospective": 5, "inception": 4, "elicitation": 5}


@dataclass
class DemoStore:
    """What was built: counts a newcomer can check against the report."""

    commits: int
    entries: int
    months: int
    duplicates: int
    stale_decisions: int
    broken: int
    repeats: int = 0
    contradictions: int = 0


def _entry(namespace: str, moment: datetime, summary: str, body: str, tags: list[str]) -> str:
    front = {"type": namespace, "timestamp": moment.isoformat(), "summary": summary[:100], "tags": tags}
    return serialize_entry(front, body)


def build_demo_repository(path: Path, now: datetime, *, count: int = 300, seed: int = 7,
                          months: int = 6) -> DemoStore:
    """Create a repository at `path` holding about `count` memory entries; returns what it holds."""
    rng = random.Random(seed)
    path.mkdir(parents=True, exist_ok=True)
    repo = pygit2.init_repository(str(path), initial_head="main")
    start = now - timedelta(days=30 * months)
    n_commits = max(3, min(count // 4, 5000))
    commits: list[tuple[str, datetime]] = []
    parent: list[pygit2.Oid] = []
    for i in range(n_commits):
        moment = start + (now - start) * (i + 1) / (n_commits + 1)
        sig = pygit2.Signature("Demo Developer", "dev@example.com", int(moment.timestamp()), 0)
        blob = repo.create_blob(f"change {i}\n".encode())
        builder = repo.TreeBuilder()
        builder.insert("CHANGELOG", blob, pygit2.GIT_FILEMODE_BLOB)
        oid = repo.create_commit("refs/heads/main", sig, sig, f"change {i}", builder.write(), parent)
        parent = [oid]
        commits.append((str(oid), moment))

    notes: dict[str, dict[str, bytes]] = defaultdict(dict)
    stats = DemoStore(commits=n_commits, entries=0, months=months, duplicates=0, stale_decisions=0, broken=0)

    def add(namespace: str, commit: str, text: str | bytes) -> None:
        data = text if isinstance(text, bytes) else None
        if data is not None:  # raw bytes: a broken note written by some other tool
            existing = notes[namespace].get(commit)
            notes[namespace][commit] = (existing + b"\n" if existing else b"") + data
        else:
            notes[namespace][commit] = append_entry(notes[namespace].get(commit), text)
        stats.entries += 1

    namespaces = list(_WEIGHTS)
    weights = [_WEIGHTS[n] for n in namespaces]
    replaced_topics = set(rng.sample(_TOPICS, k=min(4, len(_TOPICS))))
    last_entry: str | None = None
    last_place: tuple[str, str] | None = None
    said: set[tuple[str, str, str]] = set()
    for i in range(count):
        index = min(n_commits - 1, int(i * n_commits / count))
        commit, commit_time = commits[index]
        moment = (commit_time + timedelta(minutes=rng.randint(1, 600))).replace(microsecond=0)
        roll = rng.random()
        if last_entry is not None and last_place is not None and roll < 0.04:
            add(*last_place, last_entry)  # a hook that fired twice: an exact duplicate entry
            stats.duplicates += 1
            continue
        namespace = rng.choices(namespaces, weights)[0]
        topic = rng.choice(_TOPICS)
        subject, old, new = _SUBJECTS[topic]
        summary_t, body_t = _TEMPLATES[namespace]
        fields = {"topic": topic, "subject": subject, "old": old, "new": new, "n": rng.randint(1, 5)}
        summary, body = summary_t.format(**fields), body_t.format(**fields)
        fact = (namespace, summary, body)  # before a repeat adds a sentence: it still holds the fact whole
        if namespace == "decisions" and topic in replaced_topics and i > count // 2:
            summary = f"Switch {subject} from {old} to {new}"
            body = f"Replaces the earlier decision to use {old}: {new} handles our load; {old} did not."
            stats.stale_decisions += 1
        elif roll < 0.2:
            body += "\n\nSame fact captured again in a later session."  # near-duplicate, new timestamp
        entry = _entry(namespace, moment, summary, body, [topic])
        if fact in said:
            stats.repeats += 1  # the same fact captured again at another time: a copy for consolidation
        said.add(fact)
        add(namespace, commit, entry)
        last_entry, last_place = entry, (namespace, commit)

    # The hazards real stores hold, each once: originals must survive them untouched.
    commit = commits[-1][0]
    add("scratch", commit, b"just some text someone put in a note\n")
    add("learnings", commit, "---\ntype: learnings\nsummary: no timestamp here\n---\n\nbody\n")
    add("patterns", commit, _entry("patterns", now - timedelta(days=2), "Fence rule in markdown",
                                   "Split sections with a rule:\n\n---\n\nlike that.", ["docs"]))
    stats.broken += 2
    # a decision taken back a few days later: a conflict to try `memactors conflicts` and `resolve` on
    middle = commits[len(commits) // 2][0]
    add("decisions", middle, _entry("decisions", now - timedelta(days=20), "Use Redis for session caching",
                                    "Fast and simple for the login flow.", ["cache"]))
    add("decisions", middle, _entry("decisions", now - timedelta(days=17), "Do not use Redis for session caching",
                                    "It loses sessions on restart.", ["cache"]))
    stats.contradictions += 1

    git = GitStore(path)
    for namespace, by_commit in sorted(notes.items()):
        ref = f"refs/notes/mem/{namespace}"
        new_commit = git.build_notes_commit(None, by_commit, "Notes added by 'git notes append'\n")
        git.move_refs({ref: new_commit}, {ref: None}, "demo store")
    # the work tree and index as a clone would have them: `git status` clean, not every file deleted
    repo.checkout_head(strategy=pygit2.enums.CheckoutStrategy.FORCE)
    return stats


def utc(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=timezone.utc)
