"""Benchmark: semantic consolidation (embed, cluster, summarize, judge) offline and with an LLM.

Run by hand: `python bench/semantic_bench.py [--sizes 1000,10000] [--llm-latency 0.3] [--json]`.

- consolidate N memories offline from a cold process state (empty parse and
  vector caches) and warm (a second run with nothing new);
- consolidate 1,000 memories against the local fake OpenAI server (tests/fake_openai.py)
  answering every call after `--llm-latency` seconds: LLM calls and tokens per 1,000;
  then ten more captures: what the incremental run pays, against a `--full` run;
- kNN + clustering alone on the 10,000 embedded vectors: exact blocked numpy
  versus pynndescent (its numba compile is timed separately);
- `--providers`: the same 1,000 memories through each structured-output mode against
  local stand-ins answering after `--llm-latency`: openai (json_schema), anthropic
  (forced tool call, tests/fake_openai.py in Anthropic mode) and claude-code (one
  subprocess per request, tests/fake_claude.py on PATH, at concurrency 1 and 4);
  the CLI provider's own overhead per call (stand-in answering at once, minus a bare
  `python -c pass` start); and the real Claude Code CLI from the npm registry:
  every flag we pass present in `claude --help`, and its start-up time to its
  logged-out envelope (it cannot log in here).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pygit2
import trio
from pydantic import SecretStr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memactors.actors.algorithms.clustering import components, neighbour_pairs  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.note_format import append_entry, serialize_entry  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.models.embeddings import LocalMiniLM  # noqa: E402
from memactors.adapters.models.llm_chain import LLMChain, build_chain  # noqa: E402
from memactors.adapters.models.llm_config import ProviderConfig  # noqa: E402
from memactors.adapters.models.openai_compatible import OpenAICompatibleLLM  # noqa: E402
from memactors.adapters.models.vector_cache import CachedEmbedder  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, Services, consolidate, tune_gc  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402
from tests.cooperative_model import PAIR, cooperative  # noqa: E402
from tests.fake_claude import install as install_fake_claude  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)
SUBJECTS = ["the session store", "payment webhooks", "the search index", "CI caching", "log shipping",
            "the upload service", "rate limiting", "database migrations", "feature flags", "the job queue",
            "TLS certificates", "the mobile API", "image thumbnails", "email delivery", "the audit log"]
ASPECTS = ["timeouts", "retries", "memory use", "error handling", "configuration", "monitoring", "tests",
           "ownership", "latency", "costs", "security review", "documentation", "alerts", "backups"]
PHRASES = ["{s}: {a} need a fix", "Fixed {a} in {s}", "{a} of {s} are now covered", "Learned how {s} handles {a}",
           "Decided how {s} deals with {a}", "{s} {a}: blocked on review", "Plan for {a} in {s}"]


def build_store(path: Path, size: int, seed: int = 3) -> None:
    """Varied memories: subjects x aspects, restated a few times each (the 5-40 entries per fact of real stores)."""
    rng = random.Random(seed)
    repo = pygit2.init_repository(str(path), initial_head="main")
    sig = pygit2.Signature("Bench", "bench@example.com")
    builder = repo.TreeBuilder()
    builder.insert("f", repo.create_blob(b"x"), pygit2.GIT_FILEMODE_BLOB)
    tree = builder.write()
    commits, parent = [], []
    for i in range(max(1, size // 8)):
        oid = repo.create_commit("refs/heads/main", sig, sig, f"c{i}", tree, parent)
        parent = [oid]
        commits.append(str(oid))
    notes: dict[str, dict[str, bytes]] = defaultdict(dict)
    for i in range(size):
        when = NOW - timedelta(days=180 * (size - i) / size, minutes=rng.randint(0, 300))
        namespace, entry = new_entry(rng, when)
        commit = commits[min(len(commits) - 1, i * len(commits) // size)]
        notes[namespace][commit] = append_entry(notes[namespace].get(commit), entry)
    git = GitStore(path)
    for namespace, by_commit in notes.items():
        ref = f"refs/notes/mem/{namespace}"
        git.move_refs({ref: git.build_notes_commit(None, by_commit, "bench")}, {ref: None}, "bench")


def new_entry(rng: random.Random, when: datetime) -> tuple[str, str]:
    """(namespace, entry) of one synthetic memory: a subject x aspect fact, some of them replacing decisions."""
    subject, aspect = rng.choice(SUBJECTS), rng.choice(ASPECTS)
    namespace = rng.choice(["decisions", "learnings", "progress", "blockers", "patterns", "research", "reviews"])
    summary = rng.choice(PHRASES).format(s=subject, a=aspect)
    summary = summary[0].upper() + summary[1:]
    body = (f"Ticket {rng.randint(100, 9999)}: {aspect} in {subject} came up again. "
            f"Owner {rng.choice(['ana', 'bo', 'cy', 'di'])}; next step {rng.choice(['patch', 'test', 'wait'])}.")
    if namespace == "decisions" and rng.random() < 0.3:
        summary = f"Switch {subject} {aspect} handling to the new approach"
        body = f"Replaces the earlier decision on {aspect} for {subject}. " + body
    return namespace, serialize_entry({"type": namespace, "timestamp": when.isoformat(), "summary": summary[:100]},
                                      body)


def add_memories(path: Path, count: int, seed: int) -> None:
    """`count` new memories on the newest commit, one notes commit per namespace (as captures would leave them)."""
    rng, git = random.Random(seed), GitStore(path)
    head = str(git.repo.head.target)
    for i in range(count):
        namespace, entry = new_entry(rng, NOW + timedelta(minutes=i))
        ref = f"refs/notes/mem/{namespace}"
        tip = git.tip(ref)
        existing = git.note_blob_at(tip, head) if tip else None
        data = append_entry(git.read_blob(existing) if existing else None, entry)
        git.move_refs({ref: git.build_notes_commit(tip, {head: data}, "bench capture")}, {ref: tip}, "bench")


def judge_pairs(server: FakeOpenAI, since: int) -> int:
    """Pairs the judge sent to the fake server in requests from `since` on."""
    return sum(len(PAIR.findall(r["messages"][-1]["content"])) for r in server.chat_requests()[since:]
               if r["response_format"]["json_schema"]["name"] == "JudgeAnswer")


def run(path: Path, model: LocalMiniLM, llm=None, **options):
    store = MemoryStore(GitStore(path))
    embedder = CachedEmbedder(model, store.git.common_dir / "memactors" / "vectors")
    services = Services(store=store, settings=Settings(), clock=FixedClock(NOW), embedder=embedder, llm=llm)
    start = time.perf_counter()
    report = trio.run(lambda: consolidate(services, RunOptions(trigger="bench", **options)))
    return time.perf_counter() - start, report


def llm_chain(base_url: str) -> LLMChain:
    config = ProviderConfig(name="openai", model="gpt-5-nano", base_url=base_url, api_key=SecretStr("sk-bench"))
    return LLMChain([OpenAICompatibleLLM(config, concurrency=4, requests_per_second=0, timeout=30)])


def provider_chain(mode: str, base_url: str = "", concurrency: int = 1) -> LLMChain:
    """A chain of one provider in `mode`, as `build_chain` makes it from the environment."""
    env = {"MEMORY_CONSOLIDATION_LLM_PROVIDER": mode, "MEMORY_CONSOLIDATION_LLM_BASE_URL": base_url,
           "OPENAI_API_KEY": "sk-bench", "ANTHROPIC_API_KEY": "sk-ant-bench"}
    if mode == "claude-code":
        env.pop("MEMORY_CONSOLIDATION_LLM_BASE_URL")
    chain = build_chain(env, timeout=60, requests_per_second=0, cli_concurrency=concurrency)
    assert chain is not None
    return chain


def provider_modes(model: LocalMiniLM, tmp: Path, latency: float) -> dict[str, dict[str, object]]:
    """1,000 memories consolidated through each structured-output mode against local stand-ins."""
    rows: dict[str, dict[str, object]] = {}
    bin_dir = tmp / "bin"
    install_fake_claude(bin_dir)
    os.environ["PATH"] = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    os.environ["FAKE_CLAUDE_LATENCY"] = str(latency)
    cases = [("openai", "openai", 4), ("anthropic", "anthropic", 4), ("claude-code", "claude-code", 1),
             ("claude-code x4", "claude-code", 4)]
    for name, mode, concurrency in cases:
        path = tmp / f"providers-{name.replace(' ', '')}"
        build_store(path, 1000, seed=5)
        server_mode = "anthropic" if mode == "anthropic" else "openai"
        with FakeOpenAI(latency=latency, responder=cooperative, mode=server_mode) as server:
            seconds, report = run(path, model, llm=provider_chain(mode, server.base_url, concurrency))
        usage = report.token_usage
        rows[name] = {"seconds": seconds, "llm_calls": usage.llm_calls, "failed": usage.llm_failed,
                      "tokens_in": usage.tokens_in, "tokens_out": usage.tokens_out, "cost_usd": usage.cost_usd,
                      "providers": dict(report.providers), "errors": report.errors[:2]}
        print(f"... {name}: {seconds:.1f} s, {usage.llm_calls} calls", file=sys.stderr)
    os.environ["FAKE_CLAUDE_LATENCY"] = "0"
    rows["claude-code overhead"] = cli_overhead()
    return rows


def cli_overhead(calls: int = 20) -> dict[str, object]:
    """What one claude-code request costs beyond the CLI's own work: the stand-in answers at once, and a bare
    `python -c pass` start (the stand-in is a Python script) is subtracted."""
    from memactors.adapters.models.claude_cli import ClaudeCodeLLM
    from memactors.adapters.models.llm_config import provider_config
    from tests.adapters.models.test_claude_cli import LinkCheck

    config = provider_config("claude-code", {})
    assert config is not None

    async def timed() -> list[float]:
        llm, seconds = ClaudeCodeLLM(config, timeout=30), []
        for _ in range(calls):
            start = time.perf_counter()
            await llm.complete("Answer in shape.", 'Set status to "ok" and echo to pong.', LinkCheck)
            seconds.append(time.perf_counter() - start)
        return seconds

    per_call = sorted(trio.run(timed))
    bare = sorted(_timed([sys.executable, "-S", "-c", "pass"]) for _ in range(calls))
    stand_in = sorted(_timed([sys.executable, "-c", "import json, subprocess, tests.cooperative_model"],
                             cwd=str(Path(__file__).resolve().parents[1])) for _ in range(calls))
    return {"calls": calls, "per_call_p50_ms": 1000 * per_call[calls // 2],
            "stand_in_start_p50_ms": 1000 * stand_in[calls // 2],
            "overhead_p50_ms": 1000 * (per_call[calls // 2] - stand_in[calls // 2]),
            "python_bare_start_p50_ms": 1000 * bare[calls // 2]}


def _timed(argv: list[str], **options: object) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, **options)  # type: ignore[call-overload]
    return time.perf_counter() - start


def real_claude_cli(tmp: Path, given: str | None) -> dict[str, object]:
    """The real CLI (from npm unless `given`): the flags we pass exist, and how long it takes to start."""
    from memactors.adapters.models.claude_cli import QUIET_FLAGS

    command = given
    if command is None:
        npm = shutil.which("npm")
        if npm is None:
            return {"skipped": "npm is not on PATH"}
        prefix = tmp / "npm"
        done = subprocess.run([npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(prefix),
                               "@anthropic-ai/claude-code"], capture_output=True, text=True)
        if done.returncode != 0:
            return {"skipped": f"npm install failed: {done.stderr.strip()[:200]}"}
        command = str(prefix / "node_modules" / ".bin" / "claude")
    version = subprocess.run([command, "--version"], capture_output=True, text=True).stdout.strip()
    help_text = subprocess.run([command, "--help"], capture_output=True, text=True).stdout
    ours = ["-p", "--output-format", "--json-schema", "--system-prompt", "--model",
            *(flag for flag in QUIET_FLAGS if flag.startswith("--"))]
    missing = [flag for flag in ours if not re.search(rf"(^|[\s,]){re.escape(flag)}([\s,]|$)", help_text, re.M)]
    home, empty = tmp / "claude-home", tmp / "claude-cwd"
    home.mkdir(exist_ok=True)
    empty.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "MEMACTORS_HOOKS": "off"}
    argv = [command, "-p", "--output-format", "json", "--model", "haiku", "--json-schema", '{"type": "object"}',
            "--system-prompt", "x", *QUIET_FLAGS]
    starts, envelope = [], ""
    for _ in range(10):
        start = time.perf_counter()
        out = subprocess.run(argv, input="ping", capture_output=True, text=True, cwd=empty, env=env)
        starts.append(time.perf_counter() - start)
        envelope = out.stdout.strip()[:160]
    starts.sort()
    return {"version": version, "flags_checked": len(ours), "flags_missing": missing,
            "logged_out_start_p50_ms": 1000 * starts[5], "logged_out_start_max_ms": 1000 * starts[-1],
            "envelope": envelope}


def clustering_only(vectors: np.ndarray, threshold: float) -> dict[str, float]:
    start = time.perf_counter()
    exact = neighbour_pairs(vectors, threshold, crossover=10**9)
    components(len(vectors), exact)
    exact_s = time.perf_counter() - start
    start = time.perf_counter()
    from pynndescent import NNDescent

    NNDescent(vectors[:200], metric="cosine", n_neighbors=5, random_state=0)  # numba compile
    compile_s = time.perf_counter() - start
    start = time.perf_counter()
    approx = neighbour_pairs(vectors, threshold, crossover=2)
    components(len(vectors), approx)
    approx_s = time.perf_counter() - start
    recall = len({(i, j) for i, j, _ in approx} & {(i, j) for i, j, _ in exact}) / max(1, len(exact))
    return {"exact_s": exact_s, "pynndescent_compile_s": compile_s, "pynndescent_s": approx_s,
            "pynndescent_pair_recall": recall}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--llm-latency", type=float, default=0.3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--providers", action="store_true", help="also run each LLM provider mode (see above)")
    parser.add_argument("--claude-cli", metavar="PATH", help="the real `claude` to check (default: npm install it)")
    args = parser.parse_args()
    tune_gc()
    model = LocalMiniLM()
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",") if s.strip()):
            path = Path(tmp) / f"s{size}"
            build_store(path, size)
            cold, report = run(path, model)
            warm, again = run(path, model)
            results[f"offline_{size}"] = {
                "cold_s": cold, "warm_noop_s": warm, "memories": report.memories_processed,
                "clusters": report.clusters_found, "summaries": report.summaries_created,
                "supersessions": report.supersessions_detected, "warm_persisted": again.persisted}
            print(f"... offline {size}: cold {cold:.1f} s, warm {warm:.1f} s", file=sys.stderr)
            if size == 10_000:
                store = MemoryStore(GitStore(path))
                memories = store.scan(None).memories
                cache = CachedEmbedder(model, store.git.common_dir / "memactors" / "vectors")
                from memactors.actors.algorithms.clustering import embedding_text

                vectors = cache.embed([embedding_text(m) for m in memories])
                results["clustering_10000"] = clustering_only(vectors, Settings().cluster_threshold)
        if args.providers:
            results.update(provider_modes(model, Path(tmp), args.llm_latency))
            results["claude cli (real)"] = real_claude_cli(Path(tmp), args.claude_cli)
        path = Path(tmp) / "llm"
        build_store(path, 1000, seed=5)
        with FakeOpenAI(latency=args.llm_latency, responder=cooperative) as server:
            seconds, report = run(path, model, llm=llm_chain(server.base_url))
            usage = report.token_usage
            results["llm_1000"] = {"seconds": seconds, "latency_per_call_s": args.llm_latency,
                                   "llm_calls": usage.llm_calls, "tokens_in": usage.tokens_in,
                                   "tokens_out": usage.tokens_out, "memories": report.memories_processed,
                                   "judge_pairs": judge_pairs(server, 0),
                                   "calls_per_10_memories": 10 * usage.llm_calls / max(1, report.memories_processed),
                                   "errors": report.errors[:3]}
            # Ten captures later: what an incremental run pays, against `--full` re-judging everything.
            add_memories(path, 10, seed=11)
            for name, full in (("llm_1000_plus_10", False), ("llm_1000_plus_10_full", True)):
                since = len(server.chat_requests())
                seconds, report = run(path, model, llm=llm_chain(server.base_url), full=full)
                usage = report.token_usage
                results[name] = {"seconds": seconds, "llm_calls": usage.llm_calls, "tokens_in": usage.tokens_in,
                                 "judge_pairs": judge_pairs(server, since),
                                 "summaries": report.summaries_created, "errors": report.errors[:3]}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for name, row in results.items():
        print(name, json.dumps({k: round(v, 2) if isinstance(v, float) else v for k, v in row.items()}))
    print("targets: 1,000 cold offline < 60 s; 1,000 with a 300 ms LLM < 90 s; 10,000 clustered < 60 s after "
          "embedding; at most one LLM call per 10 memories")


if __name__ == "__main__":
    main()
