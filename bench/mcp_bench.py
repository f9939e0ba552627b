"""Benchmark: tool calls to a warm `memactors mcp` against a cold `memactors recall` process.

Run by hand: `python bench/mcp_bench.py [--size 10000] [--runs 30] [--json]`.

Builds the semantic benchmark's synthetic store of `--size` memories, consolidates it once (local MiniLM,
offline), starts `memactors mcp` as Claude Code does (a subprocess speaking MCP over stdio, through the SDK's
own client), waits for its first recall (the model loads once), then times `--runs` tool calls each of
`recall`, `show`, `status` and `graph`. Beside them, in the same run: `python -c pass` and a cold
`memactors recall QUERY --no-track` process, and the same command while `memactors run` serves the repository
(answered over its query socket). Reports p50/p95 in milliseconds and p50 as a ratio to the
baseline's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.consolidate_bench import machine  # noqa: E402
from bench.recall_bench import QUERIES, timed  # noqa: E402
from bench.semantic_bench import NOW, build_store  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402


def _summary(seconds: list[float]) -> dict[str, float]:
    seconds = sorted(seconds)
    return {"p50_ms": round(1000 * statistics.median(seconds), 1),
            "p95_ms": round(1000 * seconds[max(0, int(0.95 * len(seconds)) - 1)], 1)}


async def tool_calls(repo: Path, runs: int) -> dict[str, dict[str, float]]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "memactors.adapters.cli", "mcp", "--repo",
                                                                  str(repo)], env={**os.environ, "MEMACTORS_TIMEZONE": "UTC"})
    out: dict[str, dict[str, float]] = {}
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as client:
                started = time.perf_counter()
                await client.initialize()
                first = await client.call_tool("recall", {"query": QUERIES[0]})
                out["start_and_first_recall"] = {"p50_ms": round(1000 * (time.perf_counter() - started), 1)}
                some_id = next(r["id"] for r in json.loads(first.content[0].text)["results"] if r["kind"] == "memory")
                calls = {"recall": lambda i: ("recall", {"query": QUERIES[i % len(QUERIES)]}),
                         "show": lambda i: ("show", {"id": some_id}),
                         "status": lambda i: ("status", {}),
                         "graph": lambda i: ("graph", {"id": some_id, "depth": 2})}
                for name, make in calls.items():
                    seconds = []
                    for i in range(runs):
                        tool, arguments = make(i)
                        t = time.perf_counter()
                        result = await client.call_tool(tool, arguments)
                        seconds.append(time.perf_counter() - t)
                        if result.is_error:
                            raise SystemExit(f"{tool}: {result.content[0].text}")
                    out[name] = _summary(seconds)
    return out


def daemon_recall(path: Path, runs: int) -> dict[str, float]:
    """CLI recall while `memactors run` serves the repository (answered over its socket, model warm)."""
    import signal
    import subprocess

    from memactors.adapters.runtime.query_client import socket_path

    log = path.parent / "daemon.log"
    with log.open("w") as sink:
        daemon = subprocess.Popen([sys.executable, "-m", "memactors.adapters.cli", "run", "--repo", str(path)],
                                  stdout=subprocess.DEVNULL, stderr=sink)
    try:
        sock = socket_path(path / ".git")
        deadline = time.time() + 600
        # answered while idle, as between runs: the socket, the end of the startup run, and (a big store) the
        # background kNN compile that follows it
        def idle() -> bool:
            text = log.read_text()
            return (os.path.exists(sock) and "(startup)" in text
                    and ("compiling the approximate kNN" not in text or "approximate kNN ready" in text))

        while time.time() < deadline and not idle():
            time.sleep(0.5)
        time.sleep(2)
        return timed([sys.executable, "-m", "memactors.adapters.cli", "recall", "--repo", str(path), "--no-track",
                      "{q}"], runs)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "store"
        build_store(path, args.size)
        services = build_services(MemoryStore(GitStore(path)), Settings(), FixedClock(NOW + timedelta(days=1)))
        trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
        baseline = timed([sys.executable, "-c", "pass"], args.runs)
        cold = timed([sys.executable, "-m", "memactors.adapters.cli", "recall", "--repo", str(path), "--no-track",
                      "{q}"], args.runs)
        with_daemon = daemon_recall(path, args.runs)
        warm = trio.run(tool_calls, path, args.runs)
    result = {"machine": machine(), "memories": args.size, "baseline_python": baseline, "cold_cli_recall": cold,
              "cli_recall_with_daemon": with_daemon, **{f"mcp_{k}": v for k, v in warm.items()}}
    for key, figures in result.items():
        if isinstance(figures, dict) and "p50_ms" in figures and key != "baseline_python":
            figures["x_baseline"] = round(figures["p50_ms"] / baseline["p50_ms"], 2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
