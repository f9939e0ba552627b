"""Benchmark: hook latency, a warm daemon's incremental run, and a burst of captures.

Run by hand: `python bench/daemon_bench.py [--memories 10000] [--json]`.

- `memactors publish session-end` as a hook runs it (a fresh process, hook JSON
  on stdin): p50/p95 over 50 runs;
- a warm daemon on an N-memory store (model loaded, caches warm): time from
  capturing one memory to the end of the run it triggers, and the run alone;
- 500 captures in about 10 seconds: how many runs, and time to quiescence.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from memactors.adapters.clock import SystemClock  # noqa: E402
from memactors.adapters.daemon import Daemon, DaemonSettings  # noqa: E402
from memactors.adapters.embeddings import LocalMiniLM  # noqa: E402
from memactors.adapters.git_store import GitStore  # noqa: E402
from memactors.adapters.inbox import Inbox  # noqa: E402
from memactors.adapters.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.note_format import append_entry, serialize_entry  # noqa: E402
from memactors.adapters.notes_feed import NotesFeed  # noqa: E402
from memactors.adapters.runtime import Services, tune_gc  # noqa: E402
from memactors.adapters.settings import Settings  # noqa: E402
from memactors.adapters.vector_cache import CachedEmbedder  # noqa: E402
from memactors.events.pipeline import RunCompleted  # noqa: E402
from semantic_bench import build_store, run  # noqa: E402


def publish_latency(repo: Path, runs: int = 50) -> dict[str, float]:
    hook = json.dumps({"session_id": "bench", "hook_event_name": "SessionEnd", "cwd": str(repo)})
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "memactors.adapters.cli", "publish", "session-end"], input=hook,
                       text=True, check=True, capture_output=True)
        seconds.append(time.perf_counter() - start)
    seconds.sort()
    return {"p50_ms": 1000 * statistics.median(seconds), "p95_ms": 1000 * seconds[int(0.95 * len(seconds)) - 1]}


def capture(git: GitStore, i: int) -> None:
    entry = serialize_entry({"type": "learnings", "timestamp": f"2026-06-01T12:{i // 60 % 60:02d}:{i % 60:02d}+00:00",
                             "summary": f"Burst learning {i} about cache warmup"}, f"Detail {i}.")
    git.append_memory_note("learnings", lambda existing: append_entry(existing, entry))


async def daemon_figures(repo: Path, model: LocalMiniLM) -> dict[str, float]:
    store = MemoryStore(GitStore(repo))
    common = store.git.common_dir
    services = Services(store=store, settings=Settings(), clock=SystemClock(),
                        embedder=CachedEmbedder(model, common / "memactors" / "vectors"))
    daemon = Daemon(services, NotesFeed(common), Inbox(common), DaemonSettings(debounce=0.2, max_delay=5))
    completed = daemon.bus.subscribe("bench", (RunCompleted,))
    writer = GitStore(repo)
    figures: dict[str, float] = {}
    async with trio.open_nursery() as nursery:
        await nursery.start(daemon.run)
        await completed.receive()  # the startup run: everything warm now
        start = time.perf_counter()
        await trio.to_thread.run_sync(capture, writer, 0)
        event = await completed.receive()
        figures["one_memory_capture_to_done_s"] = time.perf_counter() - start
        figures["one_memory_run_s"] = event.report.duration_seconds
        start = time.perf_counter()
        runs = 0
        for i in range(1, 501):
            await trio.to_thread.run_sync(capture, writer, i)
            await trio.sleep(0.005)
        burst_end = time.perf_counter() - start
        while True:
            with trio.move_on_after(8) as quiet:
                await completed.receive()
                runs += 1
            if quiet.cancelled_caught:
                break
        figures.update({"burst_captures": 500, "burst_seconds": burst_end, "burst_runs": runs,
                        "burst_quiescent_after_s": time.perf_counter() - start - 8})
        daemon.stop()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    tune_gc()
    model = LocalMiniLM()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "store"
        build_store(repo, args.memories)
        run(repo, model)  # consolidated once, as a daemon finds a store it has seen
        results = {"publish": publish_latency(repo), "daemon": trio.run(daemon_figures, repo, model),
                   "memories": args.memories}
    print(json.dumps(results, indent=2, default=lambda v: round(v, 3)))


if __name__ == "__main__":
    main()
