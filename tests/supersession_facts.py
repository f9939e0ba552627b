"""Labelled supersessions for the offline judge: what replaced what, written before the judge was tuned.

Each topic is a decision (or learning) and the newer memory that replaces it, in the many ways people write a
change ("switch from", "moved off", "no longer", "dropped", "replaced by", "instead of", "now uses", "reverted
to"), with the question a developer asks about it. Traps are newer memories that share the older one's words and
replace nothing: an addition, a change of something else, a plan or a question, a rejected option, a change in
another scope, progress notes of other tasks. Progress chains are one task's later state. Every third topic and
trap is held out (`held_out`): tune on the rest, report both.

Days count from the store's first day; a copy re-captures the same text later, as real stores do.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Note:
    """One memory as written: namespace, day, summary, body, extra tags, copies (re-captures, in days after)."""

    id: str
    namespace: str
    day: float
    summary: str
    body: str = ""
    tags: tuple[str, ...] = ()
    recaptured: tuple[float, ...] = ()


@dataclass(frozen=True)
class Replacement:
    """`new` replaces `old`; `question` is how a developer asks for the current answer."""

    id: str
    question: str
    old: Note
    new: Note
    held_out: bool = False


@dataclass(frozen=True)
class Trap:
    """`new` shares words with `old` and replaces nothing: both stand."""

    id: str
    old: Note
    new: Note
    why: str
    held_out: bool = False


@dataclass(frozen=True)
class Chain:
    """Progress of one task: each later note supersedes the earlier ones (no question asked)."""

    id: str
    notes: tuple[Note, ...]
    held_out: bool = False


def _d(id: str, day: float, summary: str, body: str = "", ns: str = "decisions", **kw: object) -> Note:
    return Note(id=id, namespace=ns, day=day, summary=summary, body=body, **kw)  # type: ignore[arg-type]


_REPLACEMENTS = [
    ("lint", "what linter do we use",
     _d("lint-old", 0, "Use flake8 for linting", "All Python code is checked with flake8 in CI.", recaptured=(2, 9)),
     _d("lint-new", 4, "Switch linting from flake8 to ruff", "Ruff replaces flake8: 50x faster, same rules plus isort.")),
    ("db", "which database do we use now",
     _d("db-old", 1, "Use PostgreSQL for the main database", "JSONB columns for the event payloads.", recaptured=(6,)),
     _d("db-new", 12, "Moved off PostgreSQL to SQLite for the single-user build",
        "The desktop build has one user; a file database removes the server. SQLite is now the main database.")),
    ("deps", "what do we use for dependency management",
     _d("deps-old", 0, "Use Poetry for dependency management", "Lock file committed; contributors run poetry install."),
     _d("deps-new", 9, "Dependency management is now uv instead of Poetry",
        "uv resolves in a second and reads the same pyproject. Poetry is gone from CI.")),
    ("ci", "where does CI run",
     _d("ci-old", 0, "Run CI on GitHub Actions", "Workflows live in .github/workflows."),
     _d("ci-new", 15, "CI moved from GitHub Actions to a self-hosted Buildkite agent",
        "Builds need the GPU box; Actions runners cannot reach it.")),
    ("queue", "what runs our background jobs",
     _d("queue-old", 2, "Background jobs run with cron", "A crontab on the app server triggers the scripts."),
     _d("queue-new", 11, "Replace cron jobs with a Celery worker queue",
        "Retries and visibility; cron gave us neither.")),
    ("fmt", "which formatter do we use",
     _d("fmt-old", 0, "Format code with black", "line-length 100"),
     _d("fmt-new", 6, "We no longer use black; ruff format does the formatting",
        "One tool for lint and format. Same style, line length 100.")),
    ("bundler", "what bundles the frontend",
     _d("bundler-old", 1, "Use Webpack to bundle the frontend", "webpack.config.js at the root of web/."),
     _d("bundler-new", 14, "Replaced Webpack with Vite for the frontend build", "Dev server starts in 300 ms.")),
    ("payments", "which payment provider do we use",
     _d("payments-old", 3, "Use Stripe Checkout for payments", "Hosted checkout page, no card data on our side."),
     _d("payments-new", 20, "Payments switched to Paddle",
        "Paddle is merchant of record and handles VAT. Stripe Checkout was dropped for new customers and old ones.")),
    ("auth", "how are session tokens issued",
     _d("auth-old", 2, "Session tokens are JWTs with a 15-minute expiry", "Signed with the RS256 key in the vault."),
     _d("auth-new", 18, "Switch session tokens from JWT to opaque tokens in Redis",
        "Revocation needs server-side state; JWTs cannot be revoked before expiry.")),
    ("logs", "what format are the logs in",
     _d("logs-old", 0, "Logs are plain text", "One line per event, human readable."),
     _d("logs-new", 7, "Changed the log format from plain text to structured JSON",
        "Loki parses JSON fields; grep still works with jq.")),
    ("cache", "what do we use for caching responses",
     _d("cache-old", 1, "Cache responses in an in-process LRU", "functools.lru_cache around the fetchers."),
     _d("cache-new", 10, "Response caching moved to Redis; the in-process LRU is gone",
        "Two workers each had their own LRU and served stale data.")),
    ("tests", "which test framework do we use",
     _d("tests-old", 0, "Use unittest for the test suite", "Standard library only."),
     _d("tests-new", 5, "Migrated the test suite from unittest to pytest", "Fixtures and parametrize cut 40% of code.")),
    ("uploads", "where are uploads stored",
     _d("uploads-old", 2, "Store uploads on the local disk", "Under /var/lib/app/uploads."),
     _d("uploads-new", 16, "Store uploads in S3 instead of on local disk", "The second app server could not see them.")),
    ("py", "which Python version runs in production",
     _d("py-old", 0, "Production runs Python 3.10", "The base image is python:3.10-slim."),
     _d("py-new", 21, "Upgraded production from Python 3.10 to 3.12", "Base image python:3.12-slim; 15% faster.")),
    ("api", "is the public API REST or GraphQL",
     _d("api-old", 1, "Use REST for the public API", "OpenAPI spec generated from the routes."),
     _d("api-new", 25, "Public API: REST -> GraphQL", "Clients fetch nested data in one round trip.")),
    ("deploy", "how do we deploy",
     _d("deploy-old", 0, "Deploy to a single VM with systemd", "One unit file per service."),
     _d("deploy-new", 30, "Deployment migrated from the systemd VM to Kubernetes",
        "Helm chart in deploy/; the VM is decommissioned.")),
    ("search", "what powers full-text search",
     _d("search-old", 3, "Full-text search uses SQLite FTS5", "bm25 ranking, porter tokenizer."),
     _d("search-new", 22, "Switched full-text search from FTS5 to OpenSearch", "Needed fuzzy matching and facets.")),
    ("http", "which HTTP client library do we use",
     _d("http-old", 1, "Use requests for outgoing HTTP calls", "Session per service client."),
     _d("http-new", 13, "httpx replaces requests for all outgoing HTTP",
        "Async support and HTTP/2; requests is removed from the dependencies.")),
    ("orm", "which ORM do we use",
     _d("orm-old", 2, "Use the Django ORM for data access", "Models in app/models.py."),
     _d("orm-new", 19, "Dropped the Django ORM in favour of SQLAlchemy 2.0",
        "We left Django for FastAPI; SQLAlchemy is now the data layer.")),
    ("secrets", "where do we keep secrets",
     _d("secrets-old", 0, "Secrets live in a .env file on each server", "Copied by hand at deploy time."),
     _d("secrets-new", 17, "Secrets are no longer kept in .env files: everything comes from HashiCorp Vault",
        "Rotation without redeploys.")),
    ("monitor", "what do we use for error tracking",
     _d("monitor-old", 4, "Use Rollbar for error tracking", "Project token in settings."),
     _d("monitor-new", 23, "Error tracking: replaced Rollbar with Sentry", "Sentry's performance traces came free.")),
    ("node", "which Node version do we build with",
     _d("node-old", 1, "Build the frontend with Node 16", "nvmrc pins 16."),
     _d("node-new", 12, "Bumped the frontend build from Node 16 to Node 20", "Node 16 is end of life.")),
    ("pkgmgr", "which package manager does the frontend use",
     _d("pkgmgr-old", 1, "The frontend uses npm", "package-lock.json committed."),
     _d("pkgmgr-new", 8, "Frontend switched from npm to pnpm", "Installs are 3x faster; pnpm-lock.yaml replaces "
        "package-lock.json.")),
    ("typecheck", "which type checker do we run",
     _d("typecheck-old", 2, "Type-check with mypy in CI", "strict mode for the core package."),
     _d("typecheck-new", 27, "We now type-check with pyright instead of mypy", "Faster and catches more narrowing "
        "bugs.")),
    ("retry", "how do we retry failed calls",
     _d("retry-old", 3, "Retry failed calls with a hand-written loop", "Three attempts, sleep 1 s between."),
     _d("retry-new", 14, "Replace the hand-written retry loop with tenacity",
        "Exponential backoff with jitter; the loop is deleted.")),
    ("config", "what format is the config file",
     _d("config-old", 0, "The config file is INI", "Parsed with configparser."),
     _d("config-new", 11, "Config moved from INI to TOML", "tomllib is in the standard library since 3.11.")),
    ("docs", "what builds the documentation",
     _d("docs-old", 2, "Build the docs with Sphinx", "reStructuredText under docs/."),
     _d("docs-new", 24, "Docs: switched from Sphinx to MkDocs Material", "Markdown everywhere, one less syntax.")),
    ("branch", "what branching model do we follow",
     _d("branch-old", 0, "Use git-flow with develop and release branches", "Releases cut from develop."),
     _d("branch-new", 18, "Abandoned git-flow for trunk-based development",
        "Short-lived branches merged to main daily; the develop branch is deleted.")),
    ("embed", "which embedding model do we use",
     _d("embed-old", 1, "Use all-MiniLM-L6-v2 for embeddings", "384 dimensions, normalised.", ns="decisions"),
     _d("embed-new", 26, "Switched the embedding model from all-MiniLM-L6-v2 to bge-small-en",
        "Better recall on code identifiers at the same size.")),
    ("ctx", "how long is the SessionStart context",
     _d("ctx-old", 3, "Cap the SessionStart context at 4000 tokens", "Enough for the last week of decisions."),
     _d("ctx-new", 15, "Cut the SessionStart context budget from 4000 to 1500 tokens",
        "Shorter context kept the agent focused.")),
    ("worker", "how does the indexer run",
     _d("worker-old", 2, "Run the indexer in a background thread of the hook", "Started on SessionStart."),
     _d("worker-new", 20, "The indexer no longer runs in a hook thread: it is a separate process",
        "A crashed hook no longer interrupts an index write.")),
    ("sched", "what schedules the nightly report",
     _d("sched-old", 4, "The nightly report is scheduled with APScheduler inside the web app", ""),
     _d("sched-new", 28, "Moved the nightly report from APScheduler to a Kubernetes CronJob",
        "The web app restarts killed the scheduler.")),
    ("date", "which date library do we use",
     _d("date-old", 1, "Use Arrow for date handling", "arrow.get everywhere."),
     _d("date-new", 16, "Stopped using Arrow; dates are plain datetime with zoneinfo",
        "One less dependency, and zoneinfo is standard.")),
    ("pool", "what is the database connection pool size",
     _d("pool-old", 5, "Database connection pool size is 20", "Tuned under the load test."),
     _d("pool-new", 29, "Raised the database connection pool size from 20 to 50", "Peak traffic doubled.")),
    ("proxy", "what reverse proxy do we use",
     _d("proxy-old", 0, "Nginx is the reverse proxy in front of the app", ""),
     _d("proxy-new", 21, "Caddy instead of Nginx as the reverse proxy", "Automatic TLS certificates.")),
    ("revert", "which serializer do we use for the cache",
     _d("revert-old", 6, "Serialize cache entries with msgpack", "Smaller than JSON."),
     _d("revert-new", 19, "Reverted the cache serializer from msgpack to JSON",
        "msgpack broke the debugging tools; size was not the bottleneck.")),
    ("lock", "how do we lock the repository during a run",
     _d("lock-old", 3, "Lock the repository with a PID file", "Stale PID files are removed on start."),
     _d("lock-new", 17, "fcntl advisory locks replace the PID file for the repository lock",
        "The kernel releases them when a process dies.")),
    ("notes", "how do we fetch git notes",
     _d("notes-old", 2, "Fetch notes with refs/notes/*:refs/notes/*", "Plain refspec in the sync config."),
     _d("notes-new", 23, "Use the + prefix in the notes refspec (+refs/notes/*:refs/notes/*) instead of the plain one",
        "Without + a diverged notes ref is rejected as non-fast-forward.")),
    ("feature", "how do we manage feature flags",
     _d("feature-old", 5, "Feature flags are environment variables", "FLAG_* read at startup."),
     _d("feature-new", 31, "Feature flags moved to Unleash", "Toggling no longer needs a redeploy; the FLAG_* "
        "environment variables are deprecated.")),
    ("learn-hook", "does the hook need a timeout",
     _d("learn-hook-old", 4, "The PostToolUse hook needs no timeout", "It only appends a line.", ns="learnings"),
     _d("learn-hook-new", 22, "The PostToolUse hook does need a timeout after all: it blocked for 40 s on a "
        "locked index", "Turns out appending waits on the index lock; we set a 5 s timeout.", ns="learnings")),
    ("container", "which container runtime do developers use",
     _d("container-old", 1, "Developers run the stack with Docker Desktop", ""),
     _d("container-new", 24, "Docker Desktop dropped: developers now run the stack with Podman",
        "Licensing; podman compose reads the same file.")),
    ("cdn", "which CDN serves static files",
     _d("cdn-old", 3, "Static files are served by CloudFront", "Bucket behind an origin access identity."),
     _d("cdn-new", 30, "Static files now go through Cloudflare, not CloudFront", "Cheaper egress.")),
    ("i18n", "how are translations stored",
     _d("i18n-old", 2, "Translations are stored as gettext .po files", ""),
     _d("i18n-new", 26, "Translations migrated off gettext .po files to Fluent", "Plurals and genders per language.")),
    ("mail", "which service sends email",
     _d("mail-old", 5, "Transactional email goes through Mailgun", ""),
     _d("mail-new", 27, "Mailgun -> Postmark for transactional email", "Deliverability to Outlook doubled.")),
    ("state-store", "where is consolidation state kept",
     _d("state-old", 0, "Keep consolidation state in a JSON file under .memory/", ""),
     _d("state-new", 13, "Consolidation state is kept in git notes under refs/notes/mem-meta now, replacing the "
        "JSON file under .memory/", "It syncs with the repository.")),
]

_TRAPS = [
    ("precommit-add", _d("t-pc-old", 0.2, "Use pre-commit to run the hooks before each commit", ""),
     _d("t-pc-new", 3, "pre-commit hook versions are pinned in .pre-commit-config.yaml", "Bumped monthly."),
     "an addition about the same tool"),
    ("db-other", _d("t-db-old", 1.2, "The job scheduler takes a lock before each run", ""),
     _d("t-db-new", 12.5, "Switched the scheduler's clock source from time.time to time.monotonic",
        "Wall clock jumps made jobs fire twice."), "a change of something else in the same component"),
    ("redis-client", _d("t-redis-old", 2, "Use Redis for the session cache", "Keys expire after 30 minutes."),
     _d("t-redis-new", 14, "Switched the Redis client from the sync API to redis.asyncio",
        "The handlers are async now."), "the client API changed, Redis stays"),
    ("pytest-style", _d("t-pytest-old", 5.5, "Use pytest for the test suite", "Run with pytest -q."),
     _d("t-pytest-new", 9, "Use pytest fixtures instead of setUp methods in new tests", ""),
     "instead of names something the older never asserted"),
    ("py-drop", _d("t-pydrop-old", 0, "Dropped Python 3.8 support", "It is end of life."),
     _d("t-pydrop-new", 20, "Dropped Python 3.9 support", "Also end of life now."),
     "two drops of different versions"),
    ("celery-plan", _d("t-celery-old", 11.5, "Celery workers run on the worker node", "Four processes."),
     _d("t-celery-new", 25, "We might replace Celery with RQ later if the broker keeps failing", ""),
     "a plan, not a change"),
    ("poetry-q", _REPLACEMENTS[2][2],
     _d("t-poetry-new", 4, "Should we switch from Poetry to uv? Worth measuring install times first.", ""),
     "a question, not a decision"),
    ("sentry-rejected", _d("t-sentry-old", 3, "Use Sentry for frontend error reporting", ""),
     _d("t-sentry-new", 21, "Considered replacing Sentry with Honeybadger for the frontend; rejected, Sentry stays",
        "Honeybadger lacks source map upload."), "a rejected option"),
    ("requests-scope", _d("t-req-old", 1, "The webhook load-test script fires 500 concurrent calls", ""),
     _d("t-req-new", 18, "Replaced requests with aiohttp in the webhook load-test script",
        "The script needs 500 concurrent calls."), "an addition: the older never named requests"),
    ("sqlite-wal", _d("t-wal-old", 2, "SQLite runs in WAL mode", "Readers never block the writer."),
     _d("t-wal-new", 15, "SQLite busy_timeout is 5 seconds", "Instead of failing at once, writers wait."),
     "an addition whose instead-of is about behaviour, not the older claim"),
    ("vite-port", _d("t-vite-old", 14.5, "The Vite dev server runs on port 5173", ""),
     _d("t-vite-new", 22, "Moved the API proxy config into vite.config.ts", "It was in a separate proxy.js."),
     "a move of a config file, the dev server stands"),
    ("docker-base", _d("t-docker-old", 0, "Base image is python:3.12-slim", ""),
     _d("t-docker-new", 19, "Switched the CI cache from actions/cache to the Buildkite cache plugin", ""),
     "a switch with no shared claim"),
    ("token-expiry", _d("t-tok-old", 3, "Refresh tokens expire after 30 days", ""),
     _d("t-tok-new", 12, "Access tokens expire after 15 minutes", "Refresh tokens are untouched."),
     "a sibling fact"),
    ("k8s-ns", _d("t-k8s-old", 30.5, "Each environment gets its own Kubernetes namespace", ""),
     _d("t-k8s-new", 33, "Migrated the staging database to a managed instance", "Namespaces unchanged."),
     "migrate of another thing"),
    ("ruff-rules", _d("t-ruff-old", 4.5, "Ruff runs with the isort rules enabled", ""),
     _d("t-ruff-new", 10, "Ruff also runs the pyupgrade rules now", "Added UP to select."),
     "an addition with now"),
    ("vault-path", _d("t-vault-old", 17.5, "Vault secrets live under secret/app/<env>", ""),
     _d("t-vault-new", 26, "No longer print secret names in deploy logs", "They leaked the layout."),
     "no longer about something else"),
    ("s3-lifecycle", _d("t-s3-old", 16.5, "Uploads in S3 are kept forever", ""),
     _d("t-s3-new", 28, "S3 access logs moved to a separate bucket", "Instead of mixing them with uploads."),
     "moved, but not the uploads"),
    ("json-logs", _d("t-jlog-old", 7.5, "Structured JSON logs include the request id", ""),
     _d("t-jlog-new", 18, "JSON logs now also include the user id", ""), "an addition with now"),
    ("graphql-auth", _d("t-gql-old", 25.5, "GraphQL resolvers check permissions per field", ""),
     _d("t-gql-new", 31, "Dropped the unused REST health endpoint /v1/ping", "The load balancer uses /healthz."),
     "dropped something that no memory asserted"),
    ("pnpm-ws", _d("t-pnpm-old", 8.5, "pnpm workspaces hold the web and admin apps", ""),
     _d("t-pnpm-new", 20, "pnpm store is cached between CI runs", ""), "a sibling fact"),
    ("pyright-strict", _d("t-pyright-old", 27.5, "pyright runs in strict mode on the core package", ""),
     _d("t-pyright-new", 32, "pyright basic mode for the tests folder instead of strict",
        "Fixtures are too dynamic."), "a scope exception, the core stays strict"),
    ("tenacity-cfg", _d("t-ten-old", 14.5, "Tenacity retries stop after 5 attempts", ""),
     _d("t-ten-new", 24, "Tenacity wait is exponential with a 30 s cap", ""), "a sibling setting"),
    ("toml-name", _d("t-toml-old", 11.2, "The config file is config.toml in the project root", ""),
     _d("t-toml-new", 21, "Environment variables override config.toml values", "APP_ prefix."), "an addition"),
    ("mkdocs-theme", _d("t-mk-old", 24.5, "MkDocs Material is the docs theme", ""),
     _d("t-mk-new", 29, "Docs deploy to GitHub Pages on every tag", ""), "a sibling fact"),
    ("trunk-rel", _d("t-trunk-old", 18.5, "Trunk-based development with daily merges to main", ""),
     _d("t-trunk-new", 26, "Releases are tagged from main every two weeks", ""), "consistent with trunk"),
    ("bge-dims", _d("t-bge-old", 26.5, "bge-small-en vectors have 384 dimensions", ""),
     _d("t-bge-new", 30, "Vectors are stored as float16 instead of float32", "Half the index size."),
     "instead of names something no older memory asserts"),
    ("ctx-sections", _d("t-ctx-old", 15.5, "The SessionStart context lists decisions first", ""),
     _d("t-ctx-new", 22, "The SessionStart context also lists open blockers", ""), "an addition"),
    ("proc-logs", _d("t-proc-old", 20.5, "The indexer process writes its own log file", ""),
     _d("t-proc-new", 27, "The indexer process restarts on crash with a 2 s backoff", ""), "a sibling fact"),
    ("cron-k8s", _d("t-cron-old", 28.5, "The nightly report CronJob runs at 02:00 UTC", ""),
     _d("t-cron-new", 33, "The weekly digest CronJob runs on Mondays at 06:00 UTC", ""),
     "another job, same shape"),
    ("zoneinfo", _d("t-zone-old", 16.5, "All timestamps are stored in UTC", ""),
     _d("t-zone-new", 23, "Timestamps are displayed in the user's time zone", "Stored ones stay UTC."),
     "display, not storage"),
    ("pool-timeout", _d("t-pt-old", 29.5, "The pool's checkout timeout is 10 seconds", ""),
     _d("t-pt-new", 32, "The read replica has its own pool of 10 connections", ""), "another pool"),
    ("caddy-tls", _d("t-caddy-old", 21.5, "Caddy renews certificates automatically", ""),
     _d("t-caddy-new", 30, "Caddy serves a maintenance page while deploys run", ""), "a sibling fact"),
    ("json-size", _d("t-jsize-old", 19.5, "Cache entries are capped at 1 MB", ""),
     _d("t-jsize-new", 25, "Cache keys are prefixed with the schema version", ""), "a sibling fact"),
    ("fcntl-nfs", _d("t-fcntl-old", 17.5, "The repository lock is taken before any write", ""),
     _d("t-fcntl-new", 24, "fcntl locks do not work on NFS; we document that the repository must be local",
        "No longer supported: repositories on network mounts."), "a learning, not a replacement"),
    ("refspec-fetch", _d("t-ref-old", 23.5, "Sync fetches notes before it pushes", ""),
     _d("t-ref-new", 28, "Sync pushes with --force-with-lease instead of --force", ""),
     "instead of names a flag no older memory asserts"),
    ("unleash-sdk", _d("t-unl-old", 31.5, "Unleash flags are evaluated server-side", ""),
     _d("t-unl-new", 34, "The Unleash SDK caches flags for 15 seconds", ""), "a sibling fact"),
    ("hook-timeout", _d("t-hook-old", 22.5, "Hooks log to .memory/hooks.log", "", ns="learnings"),
     _d("t-hook-new", 29, "Hook timeouts are reported in the doctor output", "", ns="learnings"), "a sibling fact"),
    ("podman-compose", _d("t-pod-old", 24.5, "The compose file is compose.yaml at the root", ""),
     _d("t-pod-new", 31, "Podman needs the docker.io prefix on image names",
        "Short names are no longer resolved by default."), "no longer about something else"),
    ("cf-cache", _d("t-cf-old", 30.5, "Cloudflare caches static files for one year", ""),
     _d("t-cf-new", 34, "HTML pages are never cached at the edge", ""), "a sibling fact"),
    ("fluent-files", _d("t-flu-old", 26.5, "Fluent files live in locales/<lang>/main.ftl", ""),
     _d("t-flu-new", 32, "Missing Fluent strings fall back to English", ""), "a sibling fact"),
    ("postmark-stream", _d("t-pm-old", 27.5, "Postmark uses a separate message stream for password resets", ""),
     _d("t-pm-new", 33, "Marketing email goes through a different provider than Postmark",
        "Transactional streams must stay clean."), "another kind of email"),
    ("meta-ref", _d("t-meta-old", 13.5, "refs/notes/mem-meta is never merged with cat_sort_uniq", ""),
     _d("t-meta-new", 26, "Moved the summary notes to refs/notes/mem-summaries",
        "Metadata stays under refs/notes/mem-meta."), "moved something else, the older claim stands"),
    ("refspec-spec", _d("t-spec-old", 23.5, "Confirmed: the + prefix in the refspec is the standard solution for "
                        "diverged notes", "", ns="learnings"),
     _d("t-spec-new", 25, "Approved specification for 'Fix Git Notes Fetch Refspec'",
        "Replaces the draft; implementation starts with Task 4.1."), "an approval replaces a draft, not the finding"),
    ("rest-scope", _REPLACEMENTS[14][2],
     _d("t-rest-new", 9, "Replaced the GitHub REST calls with GraphQL queries in the release script", ""),
     "REST changed in another scope: the public API stays REST"),
    ("requests-other-scope", _REPLACEMENTS[17][2], _d("t-req2-new", 8,
     "Replaced requests with aiohttp in the crawler benchmark", "Only the benchmark; the app keeps requests."),
     "requests changed in another scope"),
    ("python-version", _d("t-py38", 0.3, "CI tests Python 3.8 to 3.12", ""),
     _d("t-py-up", 21.5, "Upgraded the docs builder from Python 3.8 to 3.11", ""),
     "another thing upgraded from a version the older names in a range"),
]

_CHAINS = [
    ("task-fts", (_d("p-fts-1", 3, "Started Task 2.1: add the FTS5 index to the recall path", ns="progress"),
                  _d("p-fts-2", 3.5, "Task 2.1 in progress: FTS5 table created, ranking not wired yet",
                     ns="progress"),
                  _d("p-fts-3", 4, "Completed Task 2.1: the FTS5 index serves recall, 14 tests pass",
                     ns="progress"))),
    ("task-trace", (_d("p-tr-1", 6, "Started Task 2.2: instrument RecallService with tracing spans", ns="progress"),
                    _d("p-tr-2", 7, "Completed Task 2.2: RecallService is instrumented", ns="progress"))),
    ("task-hooks", (_d("p-hk-1", 9, "Started Phase 3: hook latency budget", ns="progress"),
                    _d("p-hk-2", 12, "Phase 3 done: every hook answers in under 100 ms", ns="progress"))),
    ("task-sync", (_d("p-sy-1", 14, "Working on Task 4.1: fix the notes refspec in sync", ns="progress"),
                   _d("p-sy-2", 15, "Finished Task 4.1: sync uses the + refspec and fetches diverged notes",
                      ns="progress"))),
]

#: Progress notes of other tasks: their later notes replace nothing (pairs listed as traps by the builder).
_OTHER_PROGRESS = [
    _d("p-other-1", 8, "Completed Task 2.3: added proactive memory search guidance to SessionStart templates",
       ns="progress"),
    _d("p-other-2", 16, "Ready to begin implementation with Task 5.1", ns="progress"),
    _d("p-other-3", 10, "Completed all Phase 2 tasks", ns="progress"),
]

#: What auto-capture leaves around those statements: headings, table rows, narration, lead-ins, code, cuts.
NOISE = (
    _d("n-1", 4.1, "Let me switch to the ruff config to check which rules replace flake8:", "", ns="progress",
       tags=("auto-captured", "pre-compact")),
    _d("n-2", 4.2, "| flake8 | replaced | ruff |", "| Tool | Status | Successor |\n|------|--------|-----------|\n"
       "| flake8 | replaced | ruff |", ns="decisions", tags=("auto-captured", "pre-compact")),
    _d("n-3", 12.1, "Migration Plan", "## Migration Plan\n\n1. dump PostgreSQL\n2. load SQLite", ns="decisions",
       tags=("auto-captured", "pre-compact")),
    _d("n-4", 12.2, "Now I understand the migration from PostgreSQL. (4 memories)", "", ns="learnings",
       tags=("auto-captured", "pre-compact")),
    _d("n-5", 9.1, "Here is how we moved off Poetry:", "", ns="decisions", tags=("auto-captured", "pre-compact")),
    _d("n-6", 15.1, "...we decided to move CI from GitHub Actions because the GPU box is not reachable from the "
       "hosted...", "...we decided to move CI from GitHub Actions because the GPU box is not reachable from the "
       "hosted runners and...", ns="decisions", tags=("auto-captured", "pre-compact")),
    _d("n-7", 11.1, "else:", "```python\n    else:\n        cache = LRU(maxsize=512)  # replaced by redis\n```",
       ns="decisions", tags=("auto-captured", "post-tool-use", "file:app/cache.py")),
    _d("n-8", 20.1, "Done! The switch to Paddle is complete, but note:", "", ns="progress",
       tags=("auto-captured", "pre-compact")),
    _d("n-9", 18.1, "2026-01-19T10:42:11Z", "2026-01-19T10:42:11Z switch tokens", ns="decisions",
       tags=("auto-captured", "pre-compact")),
    _d("n-10", 22.1, "[ ] Replace FTS5 with OpenSearch in the staging config", "", ns="progress",
       tags=("auto-captured", "pre-compact")),
    _d("n-11", 6.1, "Summary of decision", "", ns="decisions", tags=("auto-captured", "pre-compact")),
    _d("n-12", 25.1, "What Went Well", "## What Went Well\n\n- GraphQL instead of REST", ns="retrospective",
       tags=("auto-captured", "pre-compact")),
    _d("n-13", 13.1, "I found 2 active projects. Since you just completed the httpx move, let me check requests.",
       "", ns="progress", tags=("auto-captured", "pre-compact")),
    _d("n-14", 24.1, "for future reference", "", ns="learnings", tags=("auto-captured", "pre-compact")),
    _d("n-15", 27.1, "Let me check the existing mypy configuration to understand the pattern:", "", ns="progress",
       tags=("auto-captured", "pre-compact")),
    _d("n-16", 19.1, "The key insight", "", ns="learnings", tags=("auto-captured", "pre-compact")),
    _d("n-17", 30.1, "Defense in Depth", "## Defense in Depth", ns="patterns", tags=("auto-captured", "pre-compact")),
    _d("n-18", 21.1, "Purpose |", "| Purpose | Tool |\n| proxy | Nginx -> Caddy |", ns="decisions",
       tags=("auto-captured", "pre-compact")),
)


#: Edges from a note meant as noise that turned out to state the replacement itself: "What Went Well" with the
#: bullet "GraphQL instead of REST" (found on the first run, counted right since: its body is a claim).
ALSO_RIGHT = frozenset({("n-12", "api-old")})


#: What a developer calls the replaced and the new thing of a topic, for "when did we drop X?" and "when did we
#: switch to Y?" (the answer: the day the replacement was first captured).
CHANGE_NAMES = {
    "lint": ("flake8", "ruff"), "db": ("PostgreSQL", "SQLite"), "deps": ("Poetry", "uv"),
    "ci": ("GitHub Actions", "Buildkite"), "queue": ("cron", "Celery"), "fmt": ("black", "ruff format"),
    "bundler": ("Webpack", "Vite"), "payments": ("Stripe Checkout", "Paddle"), "auth": ("JWTs", "opaque tokens"),
    "logs": ("plain text logs", "structured JSON logs"), "cache": ("the in-process LRU", "Redis"),
    "tests": ("unittest", "pytest"), "uploads": ("local disk uploads", "S3"), "py": ("Python 3.10", "Python 3.12"),
    "api": ("REST", "GraphQL"), "deploy": ("the systemd VM", "Kubernetes"), "search": ("FTS5", "OpenSearch"),
    "http": ("requests", "httpx"), "orm": ("the Django ORM", "SQLAlchemy"), "secrets": (".env files", "Vault"),
    "monitor": ("Rollbar", "Sentry"), "pkgmgr": ("npm", "pnpm"), "typecheck": ("mypy", "pyright"),
    "config": ("INI config", "TOML config"), "docs": ("Sphinx", "MkDocs"), "branch": ("git-flow", "trunk-based development"),
    "sched": ("APScheduler", "a Kubernetes CronJob"), "date": ("Arrow", "zoneinfo"), "proxy": ("Nginx", "Caddy"),
    "revert": ("msgpack", "JSON for the cache"), "lock": ("the PID file", "fcntl locks"),
    "container": ("Docker Desktop", "Podman"), "cdn": ("CloudFront", "Cloudflare"), "i18n": ("gettext", "Fluent"),
    "mail": ("Mailgun", "Postmark"),
}


def replacements() -> list[Replacement]:
    return [Replacement(id, q, old, new, held_out=i % 3 == 2) for i, (id, q, old, new) in enumerate(_REPLACEMENTS)]


def traps() -> list[Trap]:
    out = [Trap(id, old, new, why, held_out=i % 3 == 2) for i, (id, old, new, why) in enumerate(_TRAPS)]
    # a finished task is not replaced by a note about another task, whatever its words
    a, b, c = _OTHER_PROGRESS
    out += [Trap("progress-other-a", _CHAINS[1][1][1], a, "different tasks"),
            Trap("progress-other-b", c, b, "a plan does not replace what was finished", held_out=True),
            Trap("progress-other-c", _CHAINS[0][1][2], a, "different tasks")]
    return out


def chains() -> list[Chain]:
    return [Chain(id, notes, held_out=i % 3 == 2) for i, (id, notes) in enumerate(_CHAINS)]


def all_notes() -> list[Note]:
    seen: dict[str, Note] = {}
    for r in replacements():
        seen[r.old.id], seen[r.new.id] = r.old, r.new
    for t in traps():
        seen[t.old.id], seen[t.new.id] = t.old, t.new
    for c in chains():
        for n in c.notes:
            seen[n.id] = n
    for n in (*_OTHER_PROGRESS, *NOISE):
        seen[n.id] = n
    return list(seen.values())


__all__ = ["ALSO_RIGHT", "CHANGE_NAMES", "Chain", "NOISE", "Note", "Replacement", "Trap", "all_notes", "chains", "replacements", "traps"]
