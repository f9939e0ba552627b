"""What the realistic store's project knows: the facts its captures are made from.

A Claude Code memory plugin (git notes, a SQLite index, hooks), the kind of
project whose own store the real measurements came from. Each fact is what a
developer explicitly captured (`/capture`): a one-line summary and a
structured body. `replaces` names the older fact a newer decision overturns.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Fact:
    id: str
    namespace: str
    summary: str
    context: str
    point: str
    why: str
    replaces: str | None = None
    #: the day (0-based, of the store's week) it was first captured
    day: int = 0

    def body(self) -> str:
        """The structured body an explicit capture carries."""
        if self.namespace == "decisions":
            return (f"## Context\n{self.context}\n\n## Decision\n{self.point}\n\n## Rationale\n{self.why}\n\n"
                    "## Consequences\nRevisit if the constraint above changes.")
        if self.namespace == "learnings":
            return f"## What happened\n{self.context}\n\n## Learning\n{self.point}\n\n## Why it matters\n{self.why}"
        if self.namespace == "blockers":
            return f"## Problem\n{self.context}\n\n## Impact\n{self.point}\n\n## Next step\n{self.why}"
        return f"## Summary\n{self.context}\n\n## Details\n{self.point}\n\n## Notes\n{self.why}"


FACTS: tuple[Fact, ...] = (
    Fact("index-sqlite", "decisions", "Use SQLite with sqlite-vec for the memory index",
         "The index must work offline, ship inside a pip package and answer in milliseconds.",
         "We store the search index in a local SQLite database with the sqlite-vec extension for vectors.",
         "No server to run, a single file under .memory/, and vector search in the same query as the filters.",
         day=0),
    Fact("index-location", "decisions", "Keep the index in .memory/index.db inside the repository",
         "Each project needs its own index and users clone repositories to many places.",
         "The index lives in .memory/index.db at the repository root and is ignored by git.",
         "It follows the clone, and deleting the folder simply triggers a rebuild from the notes.", day=0),
    Fact("storage-notes", "decisions", "Store memories as git notes under refs/notes/mem",
         "Memories must travel with the code and survive without any external service.",
         "Every memory is a git note under refs/notes/mem/<namespace>, attached to the commit that was HEAD.",
         "Notes are versioned, can be pushed and fetched, and never touch the working tree.", day=0),
    Fact("embed-model", "decisions", "Use all-MiniLM-L6-v2 for embeddings",
         "We need embeddings that run on a laptop CPU without a network call.",
         "Embeddings come from all-MiniLM-L6-v2 with 384 dimensions, normalised before storage.",
         "It is small enough to load in under a second and good enough for short technical notes.", day=1),
    Fact("deps-poetry", "decisions", "Use Poetry for dependency management",
         "The project needs a lock file and reproducible installs for contributors.",
         "We manage dependencies and the lock file with Poetry.",
         "It was the tool most contributors already knew.", day=0),
    Fact("deps-uv", "decisions", "Switch dependency management from Poetry to uv",
         "Poetry installs took over a minute in CI and the resolver stalled on the onnx wheels.",
         "We replaced Poetry with uv: uv.lock is the lock file and `uv sync` installs everything.",
         "CI installs dropped from 70 seconds to 6, and uv resolves the onnx wheels without help.",
         replaces="deps-poetry", day=5),
    Fact("lint-flake8", "decisions", "Lint with flake8 and sort imports with isort",
         "We want a consistent style checked in CI.",
         "flake8 checks style and isort sorts imports, both run in the pre-commit hook.",
         "Both are widely known and have editor plugins.", day=0),
    Fact("lint-ruff", "decisions", "Replace flake8 and isort with ruff",
         "Two linters disagreed about import order and the pre-commit hook took 9 seconds.",
         "ruff now does linting and import sorting; flake8 and isort were removed from the project.",
         "One tool, one config section in pyproject.toml, and the hook runs in under a second.",
         replaces="lint-flake8", day=6),
    Fact("hook-budget", "decisions", "Hooks must finish within 100 milliseconds",
         "Hooks run on every prompt and tool call, and a slow hook makes the whole agent feel sluggish.",
         "Every hook has a budget of 100 ms; anything slower moves to a background process.",
         "Users noticed delays above roughly 150 ms per prompt.", day=1),
    Fact("context-4000", "decisions", "Cap the SessionStart context at 4000 tokens",
         "The injected memory context competes with the user's own instructions.",
         "The SessionStart hook injects at most 4000 tokens of memory context.",
         "It leaves most of the window for the task itself.", day=1),
    Fact("context-2000", "decisions", "Lower the SessionStart context budget to 2000 tokens",
         "At 4000 tokens the agent quoted old memories back instead of reading the code.",
         "The SessionStart memory context is now capped at 2000 tokens, most relevant first.",
         "Shorter context kept the agent focused and cut the first-turn latency.", replaces="context-4000", day=6),
    Fact("indexer-thread", "decisions", "Run the indexer in a background thread",
         "Reindexing blocked the capture command for several seconds.",
         "The indexer runs in a background thread of the capture process.",
         "It was the smallest change that unblocked capture.", day=2),
    Fact("indexer-subprocess", "decisions", "Run the indexer as a detached subprocess instead of a thread",
         "The background thread died with the capture process, leaving the index half written.",
         "Indexing now runs in a detached subprocess that outlives the hook that started it.",
         "A crashed or finished hook no longer interrupts an index write.", replaces="indexer-thread", day=7),
    Fact("otel-export", "decisions", "Export metrics and traces with OpenTelemetry over OTLP",
         "We need to see hook latency and capture counts across users who opt in.",
         "Metrics and traces are exported with the OpenTelemetry SDK over OTLP/HTTP, off by default.",
         "OTLP works with every backend people already run, and the SDK is optional at install time.", day=3),
    Fact("yaml-front-matter", "decisions", "Use YAML front matter for memory entries",
         "Entries need structured fields and a free-form body in one note.",
         "Each entry is YAML front matter between --- lines followed by a markdown body.",
         "It is readable in `git notes show` and parsers exist everywhere.", day=0),
    Fact("namespaces-ten", "decisions", "Keep exactly ten memory namespaces",
         "Users invented overlapping namespaces and recall got worse.",
         "There are ten fixed namespaces, from inception to patterns; anything else is rejected at capture.",
         "A fixed list keeps recall filters and importance weights meaningful.", day=2),
    Fact("sync-strategy", "decisions", "Merge memory notes with the cat_sort_uniq strategy",
         "Two machines appending notes to the same commit produced merge conflicts on fetch.",
         "notes.mergeStrategy is set to cat_sort_uniq for the memory refs.",
         "It merged without user action in every case we tried at the time.", day=4),
    Fact("learn-notes-append", "learnings", "git notes append adds a blank line between entries",
         "Entries captured on the same commit ran together in our first parser.",
         "git notes append separates the old note and the new text with a blank line and strips trailing spaces.",
         "Parsers must split on the --- delimiters, not on blank lines.", day=1),
    Fact("learn-rewrite-ref", "learnings", "Notes follow rebased commits only with notes.rewriteRef",
         "After a rebase, memories seemed to disappear from recall.",
         "git copies notes to rewritten commits only when notes.rewriteRef names the notes refs.",
         "The install step must set notes.rewriteRef, or rebases orphan memories.", day=2),
    Fact("learn-wal", "learnings", "SQLite needs WAL mode for concurrent hook writes",
         "Two hooks writing the index at the same time failed with database is locked.",
         "Switching the connection to journal_mode=WAL lets readers and one writer work at once.",
         "Hooks fire concurrently, so every connection opens in WAL mode.", day=3),
    Fact("learn-sqlite-vec-load", "learnings", "sqlite-vec must be loaded on every new connection",
         "Vector queries failed with no such function after a reconnect.",
         "Extensions are per connection, so sqlite-vec has to be loaded each time a connection opens.",
         "The connection factory now loads it; never open a raw connection elsewhere.", day=3),
    Fact("learn-cold-start", "learnings", "Importing the embedding model costs about 800 ms",
         "The SessionStart hook took almost a second on a warm laptop.",
         "Most of that time was importing the model library, not running the model.",
         "Hooks must not import the model at all; precompute what they need.", day=4),
    Fact("learn-otel-labels", "learnings", "Resource attributes on metric labels duplicated every series",
         "Dashboards showed each counter twice with slightly different labels.",
         "Copying resource attributes into metric labels created a second series per attribute.",
         "Keep service identity in the resource only, never in metric labels.", day=4),
    Fact("learn-yaml-colon", "learnings", "Summaries with a colon break unquoted YAML",
         "Captures with summaries like 'Fix: retry' failed to parse later.",
         "A colon followed by a space inside an unquoted YAML value starts a mapping and breaks the entry.",
         "Always let the YAML library quote values; never format front matter by hand.", day=2),
    Fact("learn-transcript-jsonl", "learnings", "Claude Code transcripts are JSONL with one event per line",
         "The pre-compact hook read the transcript as a single JSON document and crashed.",
         "The transcript file is JSON Lines: one message or tool event per line.",
         "Read it line by line and skip lines that fail to parse.", day=5),
    Fact("learn-hook-stdout", "learnings", "Anything a hook prints to stdout must be valid JSON",
         "A stray debug print made Claude Code ignore the hook's context.",
         "Claude Code parses hook stdout as JSON, so any extra line discards the whole output.",
         "Log to stderr or a file, never to stdout, from hook code.", day=5),
    Fact("learn-batch-embed", "learnings", "Batching embeddings made reindexing ten times faster",
         "Reindexing 4000 memories took over three minutes.",
         "Embedding in batches of 64 instead of one text at a time cut reindexing to about 18 seconds.",
         "Always batch model calls; per-item calls are dominated by overhead.", day=6),
    Fact("pattern-service-registry", "patterns", "Services are created through a lazy registry",
         "Capture, recall and sync services were constructed in many places with different settings.",
         "Each service has one get_default_service() that builds it lazily from config and caches it.",
         "Tests reset the registry between cases.", day=2),
    Fact("pattern-frozen-models", "patterns", "Domain models are frozen dataclasses",
         "Mutable memory objects were changed in place by the indexer.",
         "Memory, CaptureResult and friends are frozen dataclasses; changes build new instances.",
         "Frozen models are safe to share between threads and cache.", day=3),
    Fact("pattern-hook-fail-open", "patterns", "Hooks fail open and never block the agent",
         "An exception in a hook stopped the session from starting.",
         "Every hook catches all errors, prints an empty valid result and exits 0.",
         "Losing a memory injection is better than blocking the user's session.", day=1),
    Fact("blocker-ci-macos", "blockers", "macOS CI cannot load sqlite-vec from the system Python",
         "The macOS runners' Python is built without loadable SQLite extensions.",
         "Vector tests fail on macOS CI with not authorized.",
         "Use the python.org build or pysqlite3 on macOS runners.", day=4),
    Fact("blocker-onnx-arm", "blockers", "onnxruntime wheels missing for Linux on ARM with Python 3.13",
         "Installing on a Graviton box with Python 3.13 found no onnxruntime wheel.",
         "Embeddings cannot run there; capture works but recall falls back to text search.",
         "Pin Python 3.12 on ARM until upstream publishes wheels.", day=6),
    Fact("progress-recall-cmd", "progress", "Recall command supports namespace filters",
         "The /recall command returned memories from every namespace.",
         "Added --namespace and --limit options to recall, with tests for each.",
         "Documented in the README under Recall.", day=2),
    Fact("progress-otel-fix", "progress", "Fixed the OTEL duplicate label issue by removing resource attributes",
         "Dashboards showed duplicated series after the metrics rollout.",
         "Removed resource attributes from metric labels; every counter now has one series.",
         "Verified in the local collector and the staging dashboard.", day=5),
    Fact("progress-sync", "progress", "Implemented memory sync with remote push and fetch",
         "Memories stayed on the machine that captured them.",
         "sync now pushes and fetches refs/notes/mem/* and reindexes what arrived.",
         "Works with GitHub and plain SSH remotes.", day=5),
    Fact("research-vector-db", "research", "Compared sqlite-vec, LanceDB and Chroma for local vectors",
         "We needed local vector search without a server.",
         "sqlite-vec was the smallest and fit our SQLite index; LanceDB was fast but large; Chroma needed a service.",
         "sqlite-vec chosen, see the index decision.", day=0),
    Fact("research-summaries", "research", "Memory summaries from the transcript are too noisy to use",
         "We tried generating summaries from raw transcript windows at pre-compact.",
         "Windows of 200 characters around a signal rarely hold a whole sentence.",
         "Prefer explicit captures and block markers for anything shown to users.", day=6),
)

BY_ID: dict[str, Fact] = {f.id: f for f in FACTS}
