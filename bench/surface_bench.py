"""Benchmark: `memactors surface` — latency per hook event, and precision on the labelled store.

Run by hand: `python bench/surface_bench.py [--sizes 1000,10000] [--runs 30] [--json]`.

- Latency: stores of N memories on commits that changed files (a few crowded
  commits, as plugin stores have them), consolidated once (embeddings off: the
  surfacing index needs none); then `memactors surface` as Claude Code runs it —
  the installed console script, a fresh process, the hook's JSON on stdin, a new
  session each time — for a file read (PostToolUse), a failed command
  (PostToolUseFailure) and a prompt (UserPromptSubmit), against a bare
  `python -c pass` measured in the same run. p50 and p95 of `--runs` each.
- Precision: the labelled store of tests/surfacing_store.py, consolidated with
  the defaults; the share of surfaced memories that are relevant, the share of
  queries with nothing relevant that stay silent, the share of queries with
  something relevant that show it; tuning and held-out cases apart.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pygit2
import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.semantic_bench import NOW, new_entry  # noqa: E402
from memactors.adapters.claude.inbox import find_common_dir  # noqa: E402
from memactors.adapters.claude.surface_hook import FILE_BAR, respond  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.note_format import append_entry  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402
from tests.surfacing_store import build_surfacing_store, evaluate, scores  # noqa: E402

ERROR = "Exit code 1\npayment webhooks retries blocked: need a fix"
PROMPT = "why do payment webhooks need retries with backoff?"


def build_store(path: Path, size: int, seed: int = 7) -> list[str]:
    """`size` memories over commits that each changed one to four of 400 files; every 20th commit crowded."""
    rng = random.Random(seed)
    repo = pygit2.init_repository(str(path), initial_head="main")
    sig = pygit2.Signature("Bench", "bench@example.com")
    files = [f"src/{d}/{m}.py" for d in ("billing", "auth", "search", "jobs", "api", "db", "ui", "ops")
             for m in (f"module_{i}" for i in range(50))]
    contents = {name: 0 for name in files}

    def tree() -> pygit2.Oid:
        index = pygit2.Index()
        for name, version in contents.items():
            index.add(pygit2.IndexEntry(name, repo.create_blob(f"# {name} v{version}\n".encode()),
                                        pygit2.GIT_FILEMODE_BLOB))
        return index.write_tree(repo)

    parent = [repo.create_commit("refs/heads/main", sig, sig, "initial", tree(), [])]
    commits: list[str] = []
    notes: dict[str, dict[str, bytes]] = defaultdict(dict)
    remaining, number = size, 0
    while remaining > 0:
        for name in rng.sample(files, rng.randint(1, 4)):
            contents[name] += 1
        oid = repo.create_commit("refs/heads/main", sig, sig, f"c{number}", tree(), parent)
        parent = [oid]
        commits.append(str(oid))
        batch = min(remaining, 60 if number % 20 == 0 else rng.randint(1, 3))
        for _ in range(batch):
            when = NOW - __import__("datetime").timedelta(minutes=10 * remaining)
            namespace, entry = new_entry(rng, when)
            notes[namespace][str(oid)] = append_entry(notes[namespace].get(str(oid)), entry)
        remaining -= batch
        number += 1
    git = GitStore(path)
    for namespace, by_commit in notes.items():
        ref = f"refs/notes/mem/{namespace}"
        git.move_refs({ref: git.build_notes_commit(None, by_commit, "bench")}, {ref: None}, "bench")
    return files


def consolidated(path: Path, embeddings: str) -> None:
    settings = Settings(_env_file=None, embeddings=embeddings)
    services = build_services(MemoryStore(GitStore(path)), settings, FixedClock(NOW))
    report = trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
    assert report.persisted and not report.errors, report.errors


def timed(argv: list[str], stdin: str, cwd: Path) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(argv, input=stdin, capture_output=True, text=True, cwd=cwd, check=True)
    return time.perf_counter() - start, out.stdout


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50_ms": 1000 * ordered[len(ordered) // 2],
            "p95_ms": 1000 * ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]}


def latency(path: Path, files: list[str], runs: int) -> dict[str, object]:
    command = str(Path(sys.executable).parent / "memactors")
    db = __import__("sqlite3").connect(path / ".git" / "memactors" / "surfacing.sqlite")
    busiest = db.execute("SELECT path FROM file WHERE weight >= ? GROUP BY path ORDER BY count(*) DESC LIMIT 1",
                         (FILE_BAR,)).fetchone()
    target = busiest[0] if busiest else files[0]
    base = {"transcript_path": "/tmp/t.jsonl", "cwd": str(path), "permission_mode": "default"}
    events = {
        "PostToolUse Read": {**base, "hook_event_name": "PostToolUse", "tool_name": "Read",
                             "tool_input": {"file_path": str(path / target)}, "tool_response": {}},
        "PostToolUseFailure Bash": {**base, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
                                    "tool_input": {"command": "pytest"}, "error": ERROR, "is_interrupt": False},
        "UserPromptSubmit": {**base, "hook_event_name": "UserPromptSubmit", "prompt": PROMPT},
    }
    rows: dict[str, object] = {}
    baseline = [timed([sys.executable, "-c", "pass"], "", path)[0] for _ in range(runs)]
    rows["python -c pass"] = percentiles(baseline)
    for name, hook in events.items():
        seconds, answered = [], 0
        for i in range(runs):
            spent, out = timed([command, "surface"], json.dumps({**hook, "session_id": f"bench-{name[:4]}-{i}",
                                                                 "tool_use_id": f"t{i}"}), path)
            seconds.append(spent)
            answered += bool(out.strip())
        row = percentiles(seconds)
        row.update(answered=answered, p50_ratio=row["p50_ms"] / rows["python -c pass"]["p50_ms"],  # type: ignore[index]
                   p95_ratio=row["p95_ms"] / rows["python -c pass"]["p95_ms"])  # type: ignore[index]
        rows[name] = row
    return rows


def precision(tmp: Path) -> dict[str, object]:
    store = build_surfacing_store(tmp / "labelled")
    consolidated(store.path, "local")
    common = find_common_dir(store.path)
    outcomes = evaluate(store, lambda hook: respond(hook, store.path, common, {}))
    result: dict[str, object] = {}
    for name, chosen in (("tuning", [o for o in outcomes if o.tuning]),
                         ("held_out", [o for o in outcomes if not o.tuning]), ("all", outcomes)):
        result[name] = scores(chosen)
        for kind in ("files", "errors", "prompts"):
            result[f"{name}_{kind}"] = scores([o for o in chosen if o.kind == kind])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.pop("MEMACTORS_SURFACING", None)
    results: dict[str, object] = {"machine": f"{os.cpu_count()} cores, {sys.platform}, Python {sys.version.split()[0]}"}
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",") if s.strip()):
            path = Path(tmp) / f"s{size}"
            files = build_store(path, size)
            consolidated(path, "none")
            results[f"latency_{size}"] = latency(path, files, args.runs)
            print(f"... {size} memories measured", file=sys.stderr)
        results["precision"] = precision(Path(tmp))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for name, row in results.items():
        if isinstance(row, dict):
            for key, value in row.items():
                shown = {k: round(v, 2) if isinstance(v, float) else v for k, v in value.items()} \
                    if isinstance(value, dict) else value
                print(f"{name} {key}: {json.dumps(shown)}")
        else:
            print(f"{name}: {row}")
    print("targets: p50 within 3x and p95 within 5x of python -c pass at 10,000 memories; precision >= 0.8")


if __name__ == "__main__":
    main()
