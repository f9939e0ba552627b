"""A project whose memories hang on commits that touched files, for surfacing: labelled, as a user would ask.

Built with the git CLI as git-notes-memory leaves a store: explicit captures
hang on the commit that was HEAD when they were made — sometimes the commit
that did the work (a focused commit of one to three files), often not: a
long session leaves dozens of memories, auto-captured fragments among them,
on one commit; a reformat touches a hundred files; CHANGELOG.md changes in
almost every commit. Some memories name the file they are about in their
text, some carry the plugin's `file:` tags, one decision replaces another.

`LABELS` says, per file opened, per failed command and per prompt, which
memories a developer would want to see then (by key); an empty list means
nothing should be said. Keys ending in `*` are tuning cases (the constants
were chosen looking at them); the others are held out.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from tests.conftest import entry, git

START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)

FILES = [
    "src/billing/webhooks.py", "src/billing/invoices.py", "src/billing/stripe_client.py",
    "src/auth/session.py", "src/auth/tokens.py", "src/auth/middleware.py",
    "src/search/index.py", "src/search/query.py", "src/search/ranking.py",
    "src/db/models.py", "src/db/pool.py", "migrations/0007_add_invoice_index.sql", "migrations/0008_sessions.sql",
    "src/api/routes.py", "src/api/errors.py", "src/jobs/queue.py", "src/jobs/retry.py",
    "ci/pipeline.yml", "docker/Dockerfile", "pyproject.toml", "README.md", "CHANGELOG.md",
    "tests/test_webhooks.py", "tests/test_session.py", "tests/test_search.py", "frontend/src/Login.tsx",
    "frontend/src/api.ts", "frontend/package.json", "scripts/deploy.sh", "config/settings.toml",
]


@dataclass
class Memory:
    key: str
    namespace: str
    summary: str
    body: str = ""
    tags: list[str] = field(default_factory=list)


@dataclass
class Step:
    """One commit (the files it changes) and the memories captured while it was HEAD."""

    message: str
    files: list[str]
    memories: list[Memory] = field(default_factory=list)


def _fragments(n: int, topic: str) -> list[Memory]:
    """Auto-captured transcript windows: cut mid-sentence, no decision in them."""
    cuts = ["...and then the test for", "...so I looked at the", "...which means we need to check the",
            "...the output shows that", "...let me run the"]
    return [Memory(f"fragment-{topic}-{i}", "progress", f"{cuts[i % len(cuts)]} {topic} again and", 
                   f"{cuts[(i + 1) % len(cuts)]} {topic}... ───") for i in range(n)]


STEPS: list[Step] = [
    Step("billing: idempotent webhook handling", ["src/billing/webhooks.py", "tests/test_webhooks.py"], [
        Memory("webhook-idempotency", "decisions", "Use the Stripe event id as idempotency key for webhooks",
               "Stripe retries deliveries; we store the event id and skip duplicates. Charged twice before."),
    ]),
    Step("billing: invoice index", ["migrations/0007_add_invoice_index.sql", "src/billing/invoices.py"], [
        Memory("invoice-index", "learnings", "Invoice listing was slow without an index on customer_id",
               "Added a composite index (customer_id, created_at); listing went from 2 s to 40 ms."),
    ]),
    Step("auth: JWT sessions", ["src/auth/session.py", "src/auth/tokens.py", "tests/test_session.py"], [
        Memory("jwt-sessions", "decisions", "Sessions use JWT with 15-minute expiry and refresh tokens",
               "Server-side sessions did not scale across regions."),
    ]),
    Step("auth: middleware order", ["src/auth/middleware.py"], [
        Memory("middleware-order", "blockers", "Auth middleware must run before the rate limiter",
               "Requests were rate-limited by IP before the user was known; fixed the order."),
    ]),
    Step("db: pool size", ["src/db/pool.py", "config/settings.toml"], [
        Memory("pool-size", "learnings", "Database pool exhaustion came from leaked connections in jobs",
               "sqlalchemy.exc.TimeoutError: QueuePool limit of size 5 overflow 10 reached; jobs never closed "
               "their sessions. Use a context manager for every job session."),
    ]),
    Step("ci: cache pip", ["ci/pipeline.yml"], [
        Memory("ci-cache", "decisions", "CI caches the pip download directory keyed on pyproject.toml",
               "Cut CI from 9 to 4 minutes."),
        Memory("ci-libgit2", "blockers", "CI image lacked libgit2: pygit2 failed to import",
               "ImportError: libgit2.so.1.7: cannot open shared object file. Installed libgit2-dev in the "
               "Dockerfile."),
    ]),
    Step("search: ranking tweaks", ["src/search/ranking.py", "src/search/query.py", "tests/test_search.py"], [
        Memory("search-bm25", "decisions", "Search ranks with BM25 over title and body, title weighted 3x",
               "Plain TF-IDF ranked long bodies first."),
    ]),
    # a long session: HEAD stayed on one commit while much was captured, about all sorts of things
    Step("search: index rebuild command", ["src/search/index.py", "CHANGELOG.md", "README.md"], [
        Memory("search-rebuild", "learnings", "Rebuilding the search index needs the write lock held throughout",
               "Concurrent writers corrupted the index while src/search/index.py rebuilt it."),
        Memory("frontend-login", "decisions", "The login form posts to /api/session and stores no token in "
               "localStorage", "XSS could read localStorage; the cookie is httpOnly."),
        Memory("deploy-script", "blockers", "scripts/deploy.sh failed on missing AWS_REGION",
               "Error: You must specify a region. Set AWS_REGION in the deploy environment."),
        Memory("queue-retry", "learnings", "Job retries need exponential backoff with jitter",
               "Fixed-interval retries in src/jobs/retry.py hammered the API after an outage."),
        Memory("api-errors", "patterns", "API errors are returned as problem+json with a stable type URI",
               "See src/api/errors.py."),
        *_fragments(22, "search"),
    ]),
    Step("style: reformat with ruff", FILES[:-3] + [f"src/generated/model_{i}.py" for i in range(80)], [
        Memory("ruff", "decisions", "Code is formatted with ruff format, line length 120",
               "One formatter for everyone; black and isort dropped."),
        Memory("ruff-note", "progress", "Reformatted the whole tree with ruff", "No functional change."),
    ]),
    Step("billing: stripe client timeouts", ["src/billing/stripe_client.py", "CHANGELOG.md"], [
        Memory("stripe-timeout", "blockers", "Stripe API calls hung without a client timeout",
               "requests.exceptions.ReadTimeout after 600 s; set timeout=10 and retry idempotent calls."),
    ]),
    Step("auth: switch sessions to opaque tokens", ["src/auth/session.py", "src/auth/tokens.py",
                                                    "migrations/0008_sessions.sql", "CHANGELOG.md"], [
        Memory("opaque-sessions", "decisions", "Sessions switch from JWT to opaque tokens stored in Postgres",
               "Replaces the JWT sessions decision: we need server-side revocation."),
    ]),
    Step("docs", ["README.md", "CHANGELOG.md"], []),
    Step("frontend: api client", ["frontend/src/api.ts", "frontend/package.json", "CHANGELOG.md"], [
        Memory("fetch-credentials", "learnings", "The frontend fetch calls need credentials: 'include'",
               "Without it the session cookie was not sent to /api; see frontend/src/api.ts."),
    ]),
    Step("jobs: queue visibility timeout", ["src/jobs/queue.py", "CHANGELOG.md"], [
        Memory("visibility-timeout", "learnings", "Queue visibility timeout must exceed the longest job",
               "Jobs ran twice when the timeout was shorter than the export job."),
        *_fragments(8, "queue"),
    ]),
    Step("chore: bump deps", ["pyproject.toml", "frontend/package.json", "CHANGELOG.md"], []),
    Step("api: routes", ["src/api/routes.py", "CHANGELOG.md"], [
        Memory("tagged-routes", "progress", "Edited routes", "...", tags=["file:src/api/routes.py"]),
    ]),
]

LABELS: dict[str, dict[str, list[str]]] = {
    "files": {
        "src/billing/webhooks.py*": ["webhook-idempotency"],
        "src/auth/session.py*": ["opaque-sessions"],
        "src/search/index.py*": ["search-rebuild"],
        "CHANGELOG.md*": [],
        "src/generated/model_3.py*": [],
        "README.md*": [],
        "src/billing/invoices.py": ["invoice-index"],
        "migrations/0007_add_invoice_index.sql": ["invoice-index"],
        "src/auth/middleware.py": ["middleware-order"],
        "src/db/pool.py": ["pool-size"],
        "ci/pipeline.yml": ["ci-cache", "ci-libgit2"],
        "src/search/ranking.py": ["search-bm25"],
        "src/billing/stripe_client.py": ["stripe-timeout"],
        "src/jobs/retry.py": ["queue-retry"],
        "src/jobs/queue.py": ["visibility-timeout"],
        "frontend/src/api.ts": ["fetch-credentials"],
        "scripts/deploy.sh": ["deploy-script"],
        "src/api/errors.py": ["api-errors"],
        "pyproject.toml": [],
        "frontend/package.json": [],
        "src/api/routes.py": [],
        "tests/test_search.py": ["search-bm25"],
        "frontend/src/Login.tsx": ["frontend-login"],
    },
    "errors": {
        "ImportError: libgit2.so.1.7: cannot open shared object file: No such file or directory*": ["ci-libgit2"],
        "sqlalchemy.exc.TimeoutError: QueuePool limit of size 5 overflow 10 reached, connection timed out*":
            ["pool-size"],
        "FAILED tests/test_api.py::test_create - AssertionError: assert 404 == 201*": [],
        "Error: You must specify a region. You can also configure your region by running aws configure": [
            "deploy-script"],
        "requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='api.stripe.com', port=443): Read timed out.": [
            "stripe-timeout"],
        "npm ERR! code ERESOLVE npm ERR! ERESOLVE unable to resolve dependency tree": [],
        "fatal: not a git repository (or any of the parent directories): .git": [],
        "ModuleNotFoundError: No module named 'yaml'": [],
    },
    "prompts": {
        "Why do webhook retries not charge customers twice?*": ["webhook-idempotency"],
        "Let's add a new column to the users table*": [],
        "how do sessions work now, still JWT?*": ["opaque-sessions"],
        "What does the search ranking weight?": ["search-bm25"],
        "Jobs keep running twice, any idea?": ["visibility-timeout"],
        "Please fix the typo in the README": [],
        "write a unit test for the invoice total": [],
        "why is the frontend not sending the session cookie": ["fetch-credentials"],
        "refactor the rate limiter": [],
    },
}


@dataclass(frozen=True)
class SurfacingStore:
    path: Path
    ids: dict[str, str]  # memory key -> its ID in the store
    now: datetime


def build_surfacing_store(path: Path) -> SurfacingStore:
    """The repository at `path` (created), with STEPS as its history and their memories as notes."""
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    git(path, "config", "user.name", "Dev")
    git(path, "config", "user.email", "dev@example.com")
    for name in FILES:
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(f"# {name}\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial import")
    ids: dict[str, str] = {}
    when = START
    for number, step in enumerate(STEPS):
        for name in step.files:
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            with (path / name).open("a") as handle:
                handle.write(f"# change {number}\n")
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", step.message)
        sha = git(path, "rev-parse", "HEAD").stdout.strip()
        counts: dict[str, int] = {}
        for memory in step.memories:
            when += timedelta(hours=3)
            git(path, "notes", f"--ref=refs/notes/mem/{memory.namespace}", "append", "-m",
                entry(memory.namespace, memory.summary, memory.body, when=when, tags=memory.tags or None), sha)
            index = counts.get(memory.namespace, 0)
            counts[memory.namespace] = index + 1
            ids[memory.key] = f"{memory.namespace}:{sha}:{index}"
        when += timedelta(days=1)
    return SurfacingStore(path=path, ids=ids, now=when)


@dataclass
class Outcome:
    """What surfacing said for one labelled query: shown IDs, and the relevant ones."""

    kind: str
    query: str
    tuning: bool
    shown: list[str]
    relevant: set[str]

    @property
    def hits(self) -> int:
        return sum(1 for i in self.shown if i in self.relevant)


def hook_for(kind: str, query: str, store: SurfacingStore, session: str) -> dict:
    """The hook JSON Claude Code sends for a labelled query (fields as Claude Code 2.1 builds them)."""
    base = {"session_id": session, "transcript_path": str(store.path / ".t.jsonl"), "cwd": str(store.path),
            "permission_mode": "default"}
    if kind == "files":
        return {**base, "hook_event_name": "PostToolUse", "tool_name": "Read",
                "tool_input": {"file_path": str(store.path / query)}, "tool_response": {"type": "text"},
                "tool_use_id": f"toolu_{session}", "duration_ms": 3}
    if kind == "errors":
        return {**base, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
                "tool_input": {"command": "make test", "description": "run the tests"},
                "tool_use_id": f"toolu_{session}", "error": f"Exit code 1\n{query}", "is_interrupt": False,
                "duration_ms": 1200}
    return {**base, "hook_event_name": "UserPromptSubmit", "prompt": query}


def evaluate(store: SurfacingStore, respond) -> list[Outcome]:
    """Every labelled query through `respond(hook) -> hook JSON text or ''`, each in a session of its own."""
    import json
    import re

    outcomes = []
    for kind, queries in LABELS.items():
        for number, (labelled, keys) in enumerate(queries.items()):
            query = labelled.rstrip("*")
            answer = respond(hook_for(kind, query, store, f"eval-{kind}-{number}"))
            context = json.loads(answer)["hookSpecificOutput"]["additionalContext"] if answer else ""
            shown = re.findall(r"\(([a-z]+:[0-9a-f]{40}:\d+)\)$", context, re.M)
            outcomes.append(Outcome(kind, query, labelled.endswith("*"), shown, {store.ids[k] for k in keys}))
    return outcomes


def scores(outcomes: list[Outcome]) -> dict[str, float | int]:
    """Precision of what was shown, silence where nothing is relevant, answers where something is."""
    shown = sum(len(o.shown) for o in outcomes)
    empty = [o for o in outcomes if not o.relevant]
    wanted = [o for o in outcomes if o.relevant]
    return {"queries": len(outcomes), "shown": shown,
            "precision": sum(o.hits for o in outcomes) / shown if shown else 1.0,
            "silent_when_nothing_relevant": sum(not o.shown for o in empty) / len(empty) if empty else 1.0,
            "answered_when_relevant": sum(o.hits > 0 for o in wanted) / len(wanted) if wanted else 1.0}
