"""Benchmark: the auto memory bridge's cost on 1,000 topic files, and the SessionStart hook's with the bridge on
and off (issue 36).

Run by hand: `python bench/automemory_bench.py [--files 1000] [--runs 3] [--hook-runs 15] [--json]`.

bridge: a store built by `memactors demo` (300 memories, seed 7) and, in a temporary Claude Code config dir
(CLAUDE_CONFIG_DIR), the project's auto memory written in Claude Code's format: `--files` topic files with front
matter name/description/type (feedback, project, reference and user in turn) and a MEMORY.md index line each
(`- [Title](file.md) — hook`). Timed as whole processes, as a user runs them: the first `memactors automemory
import` (every file new), a second one (nothing changed: a no-op), and `memactors automemory export`; each round
on a fresh copy of the store and directory. The baseline, in the same rounds: one `memactors status` and one
`python -c pass`. Ratios are medians over medians. MEMACTORS_EMBEDDINGS=none: nothing here embeds.

hook: `memactors context` as Claude Code starts it (a fresh process, hook JSON on stdin) on the imported store with
MEMACTORS_AUTOMEMORY=on and off, and `python -c pass`, in turn, so drift hits each alike; p50/p95 and ratios.
Python writes and reuses bytecode (a temporary PYTHONPYCACHEPREFIX) as an installed copy does.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402

CLI = [sys.executable, "-m", "memactors.adapters.cli"]
TYPES = ("feedback", "project", "reference", "user")
SUBJECTS = ("the payments service", "the CI pipeline", "database migrations", "the web client", "release notes",
            "the search index", "error reporting", "the mobile app", "feature flags", "the billing export")
FEEDBACK = ("Run {s} tests with -x and never mock the database", "Keep diffs for {s} under 400 lines",
            "Ask before renaming anything public in {s}")
PROJECT = ("Move {s} to PostgreSQL 16 before the March freeze", "{s} owns its schema; no shared tables",
           "Milestone 3 of {s} is done; next step the rollout")
REFERENCE = ("Dashboards for {s} live in Grafana, folder Checkout", "The runbook for {s} is in docs/ops",
             "Tickets for {s} are in the PLAT Linear project")
USER = ("Prefers terse answers about {s}", "Senior engineer on {s}; knows the history",
        "Wants diffs, not whole files, when editing {s}")
TEXTS = {"feedback": FEEDBACK, "project": PROJECT, "reference": REFERENCE, "user": USER}


def write_auto_memory(directory: Path, files: int) -> None:
    """`files` topic files and their MEMORY.md index, as Claude Code writes them."""
    directory.mkdir(parents=True, exist_ok=True)
    index = ["# Memory index", ""]
    for i in range(files):
        kind = TYPES[i % len(TYPES)]
        subject = SUBJECTS[(i // len(TYPES)) % len(SUBJECTS)]
        description = TEXTS[kind][(i // 40) % 3].format(s=subject) + f" (note {i})"
        title = f"{kind.title()} {i}: {subject}"
        name = f"{kind}_{i:04d}.md"
        body = (f"{description}.\n\n**Why:** it came up in session {i} and the user said so.\n"
                f"**How to apply:** whenever work touches {subject}.\n")
        (directory / name).write_text(f"---\nname: {title}\ndescription: {description}\ntype: {kind}\n---\n\n{body}",
                                      encoding="utf-8")
        index.append(f"- [{title}]({name}) — {description}")
    (directory / "MEMORY.md").write_text("\n".join(index) + "\n", encoding="utf-8")


def memory_dir(config: Path, project: Path) -> Path:
    return config / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project.resolve())) / "memory"


def once(command: list[str], env: dict[str, str], stdin: str | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command}: exit {done.returncode}: {done.stderr.strip()}")
    return elapsed, done.stdout


def bridge(tmp: Path, files: int, runs: int, env: dict[str, str]) -> dict[str, object]:
    template, config = tmp / "template", tmp / "claude-template"
    once([*CLI, "demo", str(template)], env)
    write_auto_memory(memory_dir(config, template), files)
    warm = {**env, "CLAUDE_CONFIG_DIR": str(config)}
    for command in ("status", "automemory import --dry-run", "automemory export --dry-run"):  # bytecode, untimed
        once([*CLI, *command.split(), "--repo", str(template)], warm)
    times: dict[str, list[float]] = {"python -c pass": [], "status": [], "first import": [], "second import": [],
                                     "export": []}
    said: dict[str, str] = {}
    for round_ in range(runs):
        store, claude = tmp / f"store-{round_}", tmp / f"claude-{round_}"
        shutil.copytree(template, store, symlinks=True)
        write_auto_memory(memory_dir(claude, store), files)
        run_env = {**env, "CLAUDE_CONFIG_DIR": str(claude)}
        repo = ["--repo", str(store)]
        for name, command in (("python -c pass", [sys.executable, "-c", "pass"]), ("status", [*CLI, "status", *repo]),
                              ("first import", [*CLI, "automemory", "import", "--json", *repo]),
                              ("second import", [*CLI, "automemory", "import", "--json", *repo]),
                              ("export", [*CLI, "automemory", "export", "--json", *repo])):
            elapsed, out = once(command, run_env)
            times[name].append(elapsed)
            said[name] = out
        shutil.rmtree(store)
        shutil.rmtree(claude)
    first, second = json.loads(said["first import"]), json.loads(said["second import"])
    exported = json.loads(said["export"])
    if len(first["imported"]) + len(first["refused"]) != files or second["unchanged"] != len(first["imported"]):
        raise SystemExit(f"unexpected import: {len(first['imported'])} imported, {second['unchanged']} unchanged")
    medians = {name: statistics.median(values) for name, values in times.items()}
    return {"files": files, "rounds": runs, "imported": len(first["imported"]), "refused": len(first["refused"]),
            "second_import_writes": len(second["imported"]) + len(second["updated"]),
            "exported_memories": exported["memories"],
            "median_ms": {name: round(1000 * value, 1) for name, value in medians.items()},
            "x_status": {name: round(medians[name] / medians["status"], 2)
                         for name in ("first import", "second import", "export")},
            "x_python": {name: round(medians[name] / medians["python -c pass"], 2)
                         for name in ("status", "first import", "second import", "export")},
            "first_import_ms_per_file": round(1000 * medians["first import"] / files, 2)}


def hook(tmp: Path, files: int, runs: int, env: dict[str, str]) -> dict[str, object]:
    store, claude = tmp / "hook-store", tmp / "hook-claude"
    once([*CLI, "demo", str(store)], env)
    write_auto_memory(memory_dir(claude, store), files)
    base = {**env, "CLAUDE_CONFIG_DIR": str(claude)}
    once([*CLI, "automemory", "import", "--repo", str(store)], base)
    once([*CLI, "consolidate", "--repo", str(store)], base)
    stdin = json.dumps({"session_id": "bench", "cwd": str(store), "hook_event_name": "SessionStart",
                        "source": "startup"})
    order = [("python -c pass", [sys.executable, "-c", "pass"], base, None),
             ("context, bridge off", [*CLI, "context"], base, stdin),
             ("context, bridge on", [*CLI, "context"], {**base, "MEMACTORS_AUTOMEMORY": "on"}, stdin)]
    for _name, command, run_env, given in order:  # bytecode written once, before anything is timed
        once(command, run_env, given)
    times: dict[str, list[float]] = {name: [] for name, *_ in order}
    for i in range(runs):
        for name, command, run_env, given in order[i % 3:] + order[: i % 3]:
            times[name].append(once(command, run_env, given)[0])
    results: dict[str, object] = {}
    for name, values in times.items():
        values.sort()
        results[name] = {"p50_ms": round(1000 * statistics.median(values), 1),
                         "p95_ms": round(1000 * values[max(0, int(0.95 * len(values)) - 1)], 1)}
    p50 = {name: statistics.median(values) for name, values in times.items()}
    results["x on/off"] = round(p50["context, bridge on"] / p50["context, bridge off"], 2)
    results["x off/python"] = round(p50["context, bridge off"] / p50["python -c pass"], 2)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000, help="topic files in the auto memory (1000)")
    parser.add_argument("--runs", type=int, default=3, help="rounds of import, import, export (3)")
    parser.add_argument("--hook-runs", type=int, default=15, help="runs of each hook command (15)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, object] = {"machine": machine(),
                                  "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items()
               if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("MEMACTORS_")}
        # tiers only: neither the bridge nor the hook embeds anything
        env.update({"MEMACTORS_TIMEZONE": "UTC", "MEMACTORS_EMBEDDINGS": "none",
                    "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")})
        results["bridge"] = bridge(Path(tmp), args.files, args.runs, env)
        results["hook"] = hook(Path(tmp), args.files, args.hook_runs, env)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"machine: {results['machine']}, {results['date']}")
    for part in ("bridge", "hook"):
        for name, row in results[part].items():  # type: ignore[union-attr]
            print(f"{part} {name}: {row}")


if __name__ == "__main__":
    main()
