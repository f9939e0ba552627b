"""Benchmark: hook latency, a warm daemon's incremental run, and a burst of captures.

Run by hand: `python bench/daemon_bench.py [--memories 10000] [--no-model-warm-up] [--knn-sizes ...]`.

- `memactors publish session-end` as a hook runs it (a fresh process, hook JSON
  on stdin): p50/p95 over 50 runs;
- a warm daemon on an N-memory store (model loaded, caches warm): time from
  capturing one memory to the end of the run it triggers, and the run alone;
- 500 captures in about 10 seconds: how many runs, and time to quiescence;
- `--knn-sizes 5000,10000,20000`: a full kNN build, exact blocked numpy
  versus pynndescent once compiled (what a warm daemon can use), on the
  MiniLM vectors of the synthetic store, with pair recall against exact.

The daemon starts with a fresh model object, as a new `memactors run`
process does: its start loads the model (unless `--no-model-warm-up`), and a
store at or above the warm crossover (10,000 embedded memories) compiles
pynndescent in the background after the startup run, so the first capture
is timed while that compile runs, and a second one after it.
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

import numpy as np
import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from semantic_bench import build_store, run  # noqa: E402

from memactors.actors.algorithms.clustering import (  # noqa: E402
    NeighbourGraph,
    embedding_text,  # noqa: E402
    warm_up_approximate,
)
from memactors.adapters.claude.inbox import Inbox  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.note_format import append_entry, serialize_entry  # noqa: E402
from memactors.adapters.git.notes_feed import NotesFeed  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.models.embeddings import LocalMiniLM  # noqa: E402
from memactors.adapters.models.knn_warmup import WarmState  # noqa: E402
from memactors.adapters.models.vector_cache import CachedEmbedder  # noqa: E402
from memactors.adapters.system.clock import SystemClock  # noqa: E402
from memactors.adapters.runtime.daemon import Daemon, DaemonSettings  # noqa: E402
from memactors.adapters.runtime.pipeline import Services, tune_gc  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402
from memactors.events.pipeline import RunCompleted  # noqa: E402


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


async def daemon_figures(repo: Path, model: LocalMiniLM, warm_model: bool = True) -> dict[str, float]:
    store = MemoryStore(GitStore(repo))
    common = store.git.common_dir
    services = Services(store=store, settings=Settings(), clock=SystemClock(),
                        embedder=CachedEmbedder(model, common / "memactors" / "vectors"))
    daemon = Daemon(services, NotesFeed(common), Inbox(common),
                    DaemonSettings(debounce=0.2, max_delay=5, warm_model=warm_model))
    completed = daemon.bus.subscribe("bench", (RunCompleted,))
    writer = GitStore(repo)
    figures: dict[str, float] = {"model_loaded_at_start": warm_model}

    async def one_capture(i: int, name: str) -> None:
        start = time.perf_counter()
        await trio.to_thread.run_sync(capture, writer, i)
        event = await completed.receive()
        figures[f"{name}_capture_to_done_s"] = time.perf_counter() - start
        figures[f"{name}_run_s"] = event.report.duration_seconds

    async with trio.open_nursery() as nursery:
        start = time.perf_counter()
        await nursery.start(daemon.run)
        await completed.receive()  # the startup run: caches warm, model loaded before it
        figures["start_to_startup_run_done_s"] = time.perf_counter() - start
        await one_capture(0, "one_memory")  # while pynndescent compiles, when the store is big enough
        figures["knn_was_compiling"] = daemon.knn.state is WarmState.WARMING
        warm_start = time.perf_counter()
        while daemon.knn.state is WarmState.WARMING:
            await trio.sleep(0.2)
        figures["knn_warm_up_left_s"] = time.perf_counter() - warm_start
        figures["knn_state"] = str(daemon.knn.state)
        figures["knn_crossover_now"] = daemon.knn.crossover()
        await one_capture(1, "one_memory_after_warm_up")
        start = time.perf_counter()
        runs = 0
        for i in range(2, 502):
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


def knn_figures(repo: Path, model: LocalMiniLM, sizes: list[int], pair_threshold: float) -> dict[str, object]:
    """Full kNN builds on the store's MiniLM vectors: exact vs pynndescent after its compile."""
    store = MemoryStore(GitStore(repo))
    memories = store.scan(None).memories
    embedder = CachedEmbedder(model, store.git.common_dir / "memactors" / "vectors")
    vectors = embedder.embed([embedding_text(m) for m in memories])
    embedder.save()
    start = time.perf_counter()
    warm_up_approximate()
    results: dict[str, object] = {"compile_s": time.perf_counter() - start}
    rng = np.random.default_rng(0)
    for n in sizes:
        rows = np.sort(rng.choice(len(vectors), size=min(n, len(vectors)), replace=False))
        sub = np.ascontiguousarray(vectors[rows])
        keys = [str(i) for i in range(len(sub))]
        exact_s, approx_s = [], []
        for _ in range(2):  # best of two: the machine is shared
            start = time.perf_counter()
            exact = NeighbourGraph(keys, sub)
            exact_s.append(time.perf_counter() - start)
            start = time.perf_counter()
            approx = NeighbourGraph.approximated(keys, sub)
            approx_s.append(time.perf_counter() - start)
        want = {(i, j) for i, j, _ in exact.pairs(pair_threshold)}
        got = {(i, j) for i, j, _ in approx.pairs(pair_threshold)}
        results[str(len(sub))] = {"exact_s": min(exact_s), "pynndescent_s": min(approx_s),
                                  "pairs": len(want), "pair_recall": len(want & got) / max(1, len(want))}
        print(f"... knn {len(sub)}: {results[str(len(sub))]}", file=sys.stderr)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--knn-sizes", default="", help="e.g. 5000,10000,20000: time full kNN builds only")
    parser.add_argument("--no-model-warm-up", action="store_true", help="daemon loads the model at its first use")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    tune_gc()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "store"
        if args.knn_sizes:
            sizes = [int(s) for s in args.knn_sizes.split(",")]
            build_store(repo, max(sizes))
            results = {"knn": knn_figures(repo, LocalMiniLM(), sizes, Settings().pair_threshold)}
        else:
            build_store(repo, args.memories)
            run(repo, LocalMiniLM())  # consolidated once, as a daemon finds a store it has seen
            results = {"publish": publish_latency(repo), "daemon": trio.run(daemon_figures, repo, LocalMiniLM(), not args.no_model_warm_up),
                       "memories": args.memories}
    print(json.dumps(results, indent=2, default=lambda v: round(v, 3)))


if __name__ == "__main__":
    main()
