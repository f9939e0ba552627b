"""Benchmark: `memactors context` (the SessionStart hook) and `memactors recall`, each a cold process.

Run by hand: `python bench/recall_bench.py [--sizes 1000,10000] [--runs 30] [--json]`.

For each size, builds the semantic benchmark's synthetic store, consolidates it
once (local MiniLM, offline summaries), then times fresh processes exactly as
Claude Code and a user start them:
- baseline: `python -c pass` (the floor of any cold process on this machine);
- `memactors context` with SessionStart hook JSON on stdin;
- `memactors recall QUERY --no-track` (loads the embedding model for the query);
- `memactors recall QUERY --reason --no-track` (adds date resolution);
- `memactors recall QUERY --no-track` again after `--fresh` memories (default 50) were captured since the run:
  they are read from the notes and searched at query time (`recall_fresh`, and its ratio to `recall`).
Reports p50/p95 in milliseconds and each p50 as a ratio to the baseline's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.semantic_bench import NOW, build_store  # noqa: E402
from memactors.adapters.git.capture_writer import write_memory  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate, tune_gc  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402

QUERIES = ["how do we handle retries in payment webhooks", "what did we decide about the job queue",
           "latency of the search index", "who owns TLS certificates"]


def timed(command: list[str], runs: int, stdin: str | None = None) -> dict[str, float]:
    seconds = []
    env = {**os.environ, "MEMACTORS_TIMEZONE": "UTC"}
    for i in range(runs):
        start = time.perf_counter()
        done = subprocess.run(command if "{q}" not in command[-1] else [*command[:-1], QUERIES[i % len(QUERIES)]],
                              input=stdin, capture_output=True, text=True, env=env)
        seconds.append(time.perf_counter() - start)
        if done.returncode not in (0, 1):
            raise SystemExit(f"{command}: exit {done.returncode}: {done.stderr.strip()}")
    seconds.sort()
    return {"p50_ms": 1000 * statistics.median(seconds), "p95_ms": 1000 * seconds[max(0, int(0.95 * runs) - 1)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--fresh", type=int, default=50, help="memories captured after the run for recall_fresh")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    tune_gc()
    cli = [sys.executable, "-m", "memactors.adapters.cli"]
    results: dict[str, object] = {"machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
                                  f"Python {platform.python_version()}"}
    with tempfile.TemporaryDirectory() as tmp:
        baseline = timed([sys.executable, "-c", "pass"], args.runs)
        results["baseline_python"] = baseline
        for size in (int(s) for s in args.sizes.split(",")):
            path = Path(tmp) / f"s{size}"
            build_store(path, size)
            store = MemoryStore(GitStore(path))
            services = build_services(store, Settings(), FixedClock(NOW + timedelta(days=1)))
            start = time.perf_counter()
            report = trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
            consolidate_s = time.perf_counter() - start
            hook = json.dumps({"session_id": "b", "cwd": str(path), "hook_event_name": "SessionStart",
                               "source": "startup"})
            row: dict[str, object] = {"memories": report.memories_processed, "consolidate_s": round(consolidate_s, 1),
                                      "index_bytes": (store.git.common_dir / "memactors" / "recall-index.npz")
                                      .stat().st_size}
            row["context"] = timed([*cli, "context"], args.runs, stdin=hook)
            row["recall"] = timed([*cli, "recall", "--repo", str(path), "--no-track", "{q}"], args.runs)
            row["recall_reason"] = timed([*cli, "recall", "--repo", str(path), "--no-track", "--reason",
                                          "when did we fix {q}"], max(5, args.runs // 3))
            for i in range(args.fresh):
                write_memory(store, "decisions", f"Fresh decision {i}: route queue {i} through the retry worker",
                             f"Captured after the last run ({i}).")
            row["recall_fresh"] = timed([*cli, "recall", "--repo", str(path), "--no-track", "{q}"], args.runs)
            row["recall_fresh"]["x_recall"] = (row["recall_fresh"]["p50_ms"]  # type: ignore[index]
                                               / row["recall"]["p50_ms"])  # type: ignore[index]
            for name in ("context", "recall", "recall_reason", "recall_fresh"):
                row[name]["x_baseline"] = row[name]["p50_ms"] / baseline["p50_ms"]  # type: ignore[index]
            results[str(size)] = row
            print(f"{size}: {json.dumps(row)}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"machine: {results['machine']}; baseline python -c pass p50 {baseline['p50_ms']:.0f} ms")
    print(f"{'memories':>9} {'command':<16} {'p50 ms':>8} {'p95 ms':>8} {'x baseline':>11}")
    for size in args.sizes.split(","):
        row = results[size]
        for name in ("context", "recall", "recall_reason", "recall_fresh"):
            figures = row[name]  # type: ignore[index]
            print(f"{row['memories']:>9} {name:<16} {figures['p50_ms']:>8.0f} {figures['p95_ms']:>8.0f} "
                  f"{figures['x_baseline']:>11.1f}")


if __name__ == "__main__":
    main()
