"""Benchmark: scanning, tiering and persisting stores of 1k / 10k / 100k memories.

Run by hand: `python bench/consolidate_bench.py [--sizes 1000,10000,100000] [--json]`.
Measures, on synthetic stores in git-notes-memory's layout (several entries
per note, ten namespaces, a few % exact duplicates):

- scan cold (no parse cache) and warm;
- consolidate (scan + tier + persist metadata and a run record) from a cold
  parse cache with empty state, a warm no-op run, and a warm run that has to
  rewrite every record;
- persist alone (`MemoryStore.commit` of every record);
- the naive baseline: one `git notes add` subprocess per memory, timed on
  200 memories and extrapolated linearly.

Semantic stages are off (`MEMACTORS_EMBEDDINGS=none` equivalent) so this
measures the spine; see bench/semantic_bench.py for clustering.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pygit2
import trio

from memactors.actors.persister import whole_notes
from memactors.actors.ports import StateChange
from memactors.adapters.git.memory_store import STATE_REFS, MemoryStore
from memactors.adapters.git.note_format import append_entry, serialize_entry
from memactors.adapters.git.store import GitStore
from memactors.adapters.reading.traits_cache import TRAITS_FILE, TraitsCache
from memactors.adapters.system.clock import FixedClock
from memactors.adapters.runtime.pipeline import RunOptions, Services, consolidate, tune_gc
from memactors.adapters.runtime.settings import Settings
from memactors.events.memory import KNOWN_NAMESPACES
from memactors.events.report import RunReport

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)
WORDS = ("cache database retry idempotent webhook deploy token schema index queue worker timeout "
         "migration rollback feature flag latency budget parser config secret rotation").split()


def machine() -> dict[str, str]:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    git = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    return {"cpu": cpu, "cores": str(os.cpu_count()), "python": platform.python_version(),
            "pygit2": pygit2.__version__, "libgit2": pygit2.LIBGIT2_VERSION, "git": git}


def build_store(path: Path, size: int, seed: int = 1) -> None:
    """`size` entries, about 8 per commit, spread over six months."""
    rng = random.Random(seed)
    repo = pygit2.init_repository(str(path), initial_head="main")
    sig = pygit2.Signature("Bench", "bench@example.com")
    blob = repo.create_blob(b"x\n")
    builder = repo.TreeBuilder()
    builder.insert("f", blob, pygit2.GIT_FILEMODE_BLOB)
    tree = builder.write()
    commits: list[str] = []
    parent: list[pygit2.Oid] = []
    for i in range(max(1, size // 8)):
        oid = repo.create_commit("refs/heads/main", sig, sig, f"c{i}", tree, parent)
        parent = [oid]
        commits.append(str(oid))
    notes: dict[str, dict[str, bytes]] = defaultdict(dict)
    previous = None
    for i in range(size):
        commit = commits[min(len(commits) - 1, i * len(commits) // size)]
        namespace = rng.choice(KNOWN_NAMESPACES)
        if previous is not None and rng.random() < 0.03:
            entry = previous  # an exact duplicate entry
        else:
            when = NOW - timedelta(days=180 * (size - i) / size, minutes=rng.randint(0, 600))
            words = " ".join(rng.choices(WORDS, k=12))
            entry = serialize_entry({"type": namespace, "timestamp": when.isoformat(),
                                     "summary": f"{namespace} {i}: {words[:60]}", "tags": rng.sample(WORDS, 2)},
                                    f"{words}. Detail {i}.\n\n- point one\n- point two")
        previous = entry
        notes[namespace][commit] = append_entry(notes[namespace].get(commit), entry)
    git = GitStore(path)
    for namespace, by_commit in notes.items():
        ref = f"refs/notes/mem/{namespace}"
        git.move_refs({ref: git.build_notes_commit(None, by_commit, "bench")}, {ref: None}, "bench")


def reset_state(path: Path, *, cache: bool) -> None:
    repo = pygit2.Repository(str(path))
    for ref in STATE_REFS:
        if repo.references.get(ref) is not None:
            repo.references.delete(ref)
    if cache:
        (path / ".git" / "memactors" / "parse-cache.json").unlink(missing_ok=True)
        (path / ".git" / "memactors" / TRAITS_FILE).unlink(missing_ok=True)


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def run_once(path: Path) -> RunReport:
    git = GitStore(path)  # the content-traits cache lives where the CLI keeps it
    services = Services(store=MemoryStore(git), settings=Settings(), clock=FixedClock(NOW),
                        traits=TraitsCache(git.common_dir / "memactors"))
    return trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))


def persist_only(path: Path) -> float:
    """Time `MemoryStore.commit` of every record of the current state onto fresh refs."""
    store = MemoryStore(GitStore(path))
    state = store.load_state()
    metas = list(state.meta.values())
    reset_state(path, cache=False)
    report = RunReport(run_id="bench", trigger="bench", started_at=NOW, phase="completed", persisted=True)
    head = store.head()
    assert head is not None

    def commit() -> None:
        change = StateChange(meta_by_commit=whole_notes({}, {}, {m.key: (m, m.commit) for m in metas}),
                             report=report, run_commit=head)
        store.commit(change, {ref: None for ref in STATE_REFS})

    seconds, _ = timed(commit)
    return seconds


def naive_per_memory(path: Path, count: int = 200) -> float:
    """Seconds per memory for one `git notes add` subprocess each (the naive tool)."""
    store = MemoryStore(GitStore(path))
    metas = list(store.load_state().meta.values())[:count]
    start = time.perf_counter()
    for meta in metas:
        subprocess.run(["git", "-C", str(path), "notes", "--ref=refs/notes/bench-naive", "add", "-f", "-m",
                        meta.model_dump_json(), meta.commit], check=True, capture_output=True)
    return (time.perf_counter() - start) / len(metas)


def bench_size(size: int, per_memory_naive: float | None) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "store"
        built, _ = timed(lambda: build_store(path, size))
        scan_cold, outcome = timed(lambda: MemoryStore(GitStore(path)).scan(None))
        scan_warm, _ = timed(lambda: MemoryStore(GitStore(path)).scan(None))
        reset_state(path, cache=True)
        cold, report = timed(lambda: run_once(path))
        if not report.persisted or report.memories_processed != len(outcome.memories):
            sys.exit(f"bench: unexpected cold report {report.model_dump_json()}")
        noop, again = timed(lambda: run_once(path))
        if again.persisted:
            sys.exit("bench: a run with nothing new wrote something")
        reset_state(path, cache=False)
        rewrite, _ = timed(lambda: run_once(path))
        persist = persist_only(path)
        naive = per_memory_naive if per_memory_naive is not None else naive_per_memory(path)
        return {"size": size, "memories": len(outcome.memories), "build_s": built, "scan_cold_s": scan_cold,
                "scan_warm_s": scan_warm, "consolidate_cold_s": cold, "consolidate_noop_s": noop,
                "consolidate_rewrite_s": rewrite, "persist_only_s": persist,
                "naive_per_memory_s": naive, "naive_extrapolated_s": naive * len(outcome.memories),
                "persist_speedup": naive * len(outcome.memories) / persist}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    tune_gc()  # as the command line does
    sizes = [int(s) for s in args.sizes.split(",")]
    rows, naive = [], None
    for size in sizes:
        row = bench_size(size, naive)
        naive = row["naive_per_memory_s"]  # measured once, on the first (smallest) store
        rows.append(row)
        print(f"... {size} done", file=sys.stderr)
    if args.json:
        print(json.dumps({"machine": machine(), "rows": rows}, indent=2))
        return
    print("machine:", ", ".join(f"{k} {v}" for k, v in machine().items()))
    head = ("memories", "scan cold", "scan warm", "run cold", "run no-op", "run rewrite", "persist", "naive (extrap.)",
            "persist speedup")
    print(" | ".join(head))
    for r in rows:
        print(" | ".join([f"{r['memories']:,}", *(f"{r[k]:.2f} s" for k in (
            "scan_cold_s", "scan_warm_s", "consolidate_cold_s", "consolidate_noop_s", "consolidate_rewrite_s",
            "persist_only_s", "naive_extrapolated_s")), f"{r['persist_speedup']:.0f}x"]))
    print("targets: 100,000 memories scanned, tiered and persisted < 20 s cold, < 5 s warm; "
          "persist >= 100x faster than one `git notes add` per memory")


if __name__ == "__main__":
    main()
