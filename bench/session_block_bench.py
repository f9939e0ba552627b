"""Benchmark: what the SessionStart block spends its budget on, and what new memories cost the hook (issue 34).

Run by hand: `python bench/session_block_bench.py [--part block|hook|all] [--runs 30] [--fresh 50] [--show] [--json]`.

block: on the two stores of tests/realistic_store.py (dormant and active, consolidated once at their own "now",
local MiniLM, offline) and on the store `memactors demo` builds (300 memories, seed 7), the block the hook prints:
- items (lines starting "- "), characters of the whole block, and how many memories its items stand for;
- useful share: the share of the block's characters in items that tell something no earlier item told. An item
  is redundant when its words (bullet, date and trailing notes removed, lowercased) match an earlier item's at a
  `difflib` ratio of 0.75 or more ("frontend: retries must be idempotent" after "auth: retries must be
  idempotent": 0.8), or when it is chatter (bench/quality_bench.py's check). Written for this benchmark,
  independently of the rule memactors folds parallel memories by.

hook: `memactors context` as Claude Code starts it (a fresh process, hook JSON on stdin) on the demo store, and on
a copy of it after `--fresh` memories (default 50: decisions, learnings and blockers in turn, a new commit every
five) were captured since the run; `python -c pass` as the baseline. The three are run in turn, so drift hits each
alike; reports p50/p95 and the ratios (fresh / without, each / baseline). Python writes and reuses bytecode (in a
temporary PYTHONPYCACHEPREFIX) as an installed copy does, even where PYTHONDONTWRITEBYTECODE is set.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402
from bench.quality_bench import chatter  # noqa: E402
from memactors.adapters.claude.session_context import (  # noqa: E402
    ContextSettings,
    load_document,
    render_block,
    session_start,
    session_terms,
)
from memactors.adapters.git.capture_writer import write_memory  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402
from tests.realistic_store import build_realistic_store  # noqa: E402

CLI = [sys.executable, "-m", "memactors.adapters.cli"]
REPEAT = 0.75
_NOTES = re.compile(r" \((?:replaces|\d+ memories|new since)")


def item_text(line: str) -> str:
    """An item without its bullet, date and trailing notes of what it replaces or how many memories it holds."""
    return _NOTES.split(re.sub(r"^- (\[\d{4}-\d{2}-\d{2}\] )?", "", line))[0].strip()


def block_figures(block: str, memories: int) -> dict[str, object]:
    """Items, characters and useful share. A line indented under an item (a decision's "Rationale: ...") is
    part of that item: useful when the item is and it does not restate the item's words."""
    lines = block.splitlines()
    items = [line for line in lines if line.startswith("- ")]
    seen: list[list[str]] = []
    useful = 0
    item_useful, item_words = False, []
    for line in lines:
        if line.startswith("- "):
            item_words = item_text(line).casefold().split()
            repeat = any(difflib.SequenceMatcher(None, item_words, earlier).ratio() >= REPEAT for earlier in seen)
            seen.append(item_words)
            item_useful = not repeat and not chatter(item_text(line))
            useful += (len(line) + 1) if item_useful else 0
        elif line.startswith("  ") and item_useful:
            words = line.split(":", 1)[-1].casefold().split()
            if difflib.SequenceMatcher(None, words, item_words).ratio() < REPEAT:
                useful += len(line) + 1
    return {"items": len(items), "chars": len(block), "memories_shown": memories,
            "useful_share": round(useful / len(block), 3) if block else 0.0}


def measure_block(path: Path, now: float) -> tuple[dict[str, object], str]:
    """The hook's block for `path` at `now`, and its figures."""
    block, _ = session_start(None, path, {}, now=now)
    shown: list[str] = []  # the same ranking again, for the IDs the block stands for
    settings, _ = ContextSettings.from_env({})
    render_block(load_document(GitStore(path).common_dir), session_terms(path), settings, now=now,
                 max_chars=settings.budget_chars, shown=shown)
    return block_figures(block, len(set(shown))), block


def demo_store(path: Path) -> None:
    done = subprocess.run([*CLI, "demo", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"memactors demo: exit {done.returncode}: {done.stderr.strip()}")


def run_block(show: bool) -> dict[str, object]:
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, dormant in (("dormant", True), ("active", False)):
            store = build_realistic_store(Path(tmp) / name, dormant=dormant)
            services = build_services(MemoryStore(GitStore(store.path)), Settings(), FixedClock(store.now))
            trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
            results[name], block = measure_block(store.path, store.now.timestamp())
            if show:
                print(block, file=sys.stderr)
        demo_store(Path(tmp) / "demo")
        results["demo"], block = measure_block(Path(tmp) / "demo", time.time())
        if show:
            print(block, file=sys.stderr)
    return results


def _once(command: list[str], stdin: str | None, pycache: str) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, text=True,
                          env={**env, "MEMACTORS_TIMEZONE": "UTC", "PYTHONPYCACHEPREFIX": pycache})
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command}: exit {done.returncode}: {done.stderr.strip()}")
    return elapsed


def _summary(seconds: list[float]) -> dict[str, float]:
    seconds = sorted(seconds)
    return {"p50_ms": round(1000 * statistics.median(seconds), 1),
            "p95_ms": round(1000 * seconds[max(0, int(0.95 * len(seconds)) - 1)], 1)}


def run_hook(runs: int, fresh: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        plain, newer = Path(tmp) / "demo", Path(tmp) / "demo-fresh"
        demo_store(plain)
        shutil.copytree(plain, newer, symlinks=True)
        store = MemoryStore(GitStore(newer))
        namespaces = ("decisions", "learnings", "blockers")
        for i in range(fresh):
            if i % 5 == 0:
                subprocess.run(["git", "-C", str(newer), "commit", "-q", "--allow-empty", "-m", f"work {i}"],
                               check=True, capture_output=True)
            write_memory(store, namespaces[i % 3], f"Fresh {namespaces[i % 3][:-1]} {i}: route queue {i} through "
                         "the retry worker", f"Captured after the last run ({i}).")
        hooks = {name: json.dumps({"session_id": f"bench-{name}", "cwd": str(path), "hook_event_name": "SessionStart",
                                   "source": "startup"}) for name, path in (("plain", plain), ("fresh", newer))}
        times: dict[str, list[float]] = {"baseline": [], "context": [], "context_fresh": []}
        order = [("baseline", [sys.executable, "-c", "pass"], None), ("context", [*CLI, "context"], hooks["plain"]),
                 ("context_fresh", [*CLI, "context"], hooks["fresh"])]
        pycache = str(Path(tmp) / "pycache")
        for _name, command, stdin in order:  # bytecode written once, before anything is timed
            _once(command, stdin, pycache)
        for i in range(runs):
            for name, command, stdin in order[i % 3:] + order[: i % 3]:
                times[name].append(_once(command, stdin, pycache))
        out = subprocess.run([*CLI, "context"], input=hooks["fresh"], capture_output=True, text=True)
        shown_new = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"].count("new since the last run")
    results: dict[str, object] = {name: _summary(values) for name, values in times.items()}
    base = results["baseline"]["p50_ms"]  # type: ignore[index]
    for name in ("context", "context_fresh"):
        results[name]["x_baseline"] = round(results[name]["p50_ms"] / base, 2)  # type: ignore[index]
    results["context_fresh"]["x_context"] = round(  # type: ignore[index]
        results["context_fresh"]["p50_ms"] / results["context"]["p50_ms"], 2)  # type: ignore[index]
    results["fresh_memories"] = fresh
    results["fresh_items_shown"] = shown_new
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("block", "hook", "all"), default="all")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--fresh", type=int, default=50)
    parser.add_argument("--show", action="store_true", help="print each block on stderr")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, object] = {"machine": machine()}
    if args.part in ("block", "all"):
        results["block"] = run_block(args.show)
    if args.part in ("hook", "all"):
        results["hook"] = run_hook(args.runs, args.fresh)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"machine: {results['machine']}")
    for name, row in results.get("block", {}).items():  # type: ignore[union-attr]
        print(f"block {name}: " + ", ".join(f"{k}={v}" for k, v in row.items()))
    for name, row in results.get("hook", {}).items():  # type: ignore[union-attr]
        print(f"hook {name}: {row}")


if __name__ == "__main__":
    main()
