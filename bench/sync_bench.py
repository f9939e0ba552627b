"""Benchmark: `memactors sync` of two clones through a bare remote on the local file system.

Run by hand: `python bench/sync_bench.py [--memories 10000] [--diverged 1000] [--no-consolidate] [--json]`.

Clone A captures `memories - diverged` memories (about 8 entries per note,
ten namespaces), consolidates and pushes them; clone B starts from them.
Then each clone captures `diverged` memories the other lacks (half appended
to notes on shared commits, half on new commits, both clones' timestamps
interleaved), so each holds `memories`
and the union holds `memories + diverged`; both consolidate again (tiers
only), so the state refs diverge too. Timed: B's first sync (a fast-forward
fetch of everything), A's sync (push), B's sync (the real merge of every
memory and state ref), A's sync (fast-forward fetch), a no-op sync. Entries
lost: captured entries missing, byte for byte, from either final clone (must
be 0).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pygit2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.consolidate_bench import machine  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore
from memactors.adapters.git.note_format import serialize_entry, stripspace
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.git.sync import sync

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)
NAMESPACES = ("decisions", "learnings", "progress", "blockers", "patterns",
              "research", "reviews", "inception", "elicitation", "retrospective")
PER_NOTE = 8


def git(path: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True, check=True).stdout


def new_commits(path: Path, count: int, label: str) -> list[str]:
    """`count` empty commits on top of HEAD, written directly (a `git commit` each would dominate the setup)."""
    repo = pygit2.Repository(str(path))
    signature = pygit2.Signature("bench", "bench@localhost")
    parent = repo.head.target
    tree = repo[parent].peel(pygit2.Tree).id
    made = []
    for i in range(count):
        parent = repo.create_commit("HEAD", signature, signature, f"{label} {i}", tree, [parent])
        made.append(str(parent))
    return made


Captured = list[tuple[str, str, str]]  # (ref, annotated commit, exact entry text)


def capture(path: Path, side: str, start: int, count: int, commits: list[str], shared: list[str],
            captured: Captured, minute: tuple[int, int] = (0, 1)) -> None:
    """`count` entries as `git notes append` writes them, one notes commit per ref (setup speed only)."""
    store = GitStore(path)
    notes: dict[str, dict[str, bytes]] = defaultdict(dict)
    for n in range(count):
        i = start + n
        namespace = NAMESPACES[i % len(NAMESPACES)]
        ref = f"refs/notes/mem/{namespace}"
        pool = shared if shared and n % 2 == 0 else commits
        commit = pool[(i // PER_NOTE) % len(pool)]
        text = stripspace(serialize_entry(
            {"type": namespace, "timestamp": (NOW + timedelta(minutes=minute[0] + minute[1] * n)).isoformat(),
             "summary": f"{side} memory {i}: the {namespace} fact number {i}"},
            f"Body of memory {i}, written on clone {side}.\n\n- detail {i % 7}\n- detail {i % 11}"))
        if commit not in notes[ref]:
            existing = store.read_note(ref, commit)
            notes[ref][commit] = existing if existing is not None else b""
        old = notes[ref][commit]
        notes[ref][commit] = (old + b"\n" if old else b"") + text.encode()
        captured.append((ref, commit, text))
    for ref, changes in notes.items():
        tip = store.tip(ref)
        store.move_refs({ref: store.build_notes_commit(tip, changes, "Notes added by 'git notes append'\n",
                                                       keep_layout=True)}, {ref: tip}, "bench")


def consolidate(path: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "memactors.adapters.cli", "consolidate", "--repo", str(path)],
                   check=True, capture_output=True, env={**os.environ, "MEMACTORS_EMBEDDINGS": "none"})
    return time.perf_counter() - started


def lost(path: Path, captured: Captured) -> int:
    """Captured entries not found byte for byte in the note of their commit."""
    store = GitStore(path)
    cache: dict[tuple[str, str], str] = {}
    missing = 0
    for ref, commit, text in captured:
        if (ref, commit) not in cache:
            data = store.read_note(ref, commit)
            cache[(ref, commit)] = data.decode() if data else ""
        missing += text not in cache[(ref, commit)]
    return missing


def timed(label: str, path: Path, results: dict[str, object]) -> None:
    started = time.perf_counter()
    report = sync(path)
    elapsed = time.perf_counter() - started
    outcomes: dict[str, int] = defaultdict(int)
    for ref in report.refs:
        outcomes[ref.outcome.value] += 1
    results[label] = {"seconds": round(elapsed, 2), "entries_added_locally": report.entries_added_locally,
                      "entries_pushed": report.entries_pushed, "records_added_locally": report.records_added_locally,
                      "records_pushed": report.records_pushed, "outcomes": dict(outcomes),
                      "retries": report.retries}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000, help="memories each clone holds")
    parser.add_argument("--diverged", type=int, default=1_000, help="memories each clone holds that the other lacks")
    parser.add_argument("--no-consolidate", action="store_true", help="memory refs only, no state refs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    base_count = args.memories - args.diverged
    results: dict[str, object] = {"machine": machine(), "memories_each": args.memories,
                                  "diverged_each": args.diverged, "union": args.memories + args.diverged}
    with tempfile.TemporaryDirectory(prefix="memactors-sync-bench-") as tmp:
        root = Path(tmp)
        os.environ.update({"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root), "GIT_AUTHOR_NAME": "bench",
                           "GIT_AUTHOR_EMAIL": "bench@localhost", "GIT_COMMITTER_NAME": "bench",
                           "GIT_COMMITTER_EMAIL": "bench@localhost"})
        remote, a, b = root / "remote.git", root / "a", root / "b"
        subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
        subprocess.run(["git", "init", "-q", "-b", "main", str(a)], check=True)
        git(a, "commit", "-q", "--allow-empty", "-m", "initial")
        git(a, "remote", "add", "origin", str(remote))
        shared_commits = new_commits(a, max(1, base_count // PER_NOTE // len(NAMESPACES) + 1), "shared")
        captured: dict[str, Captured] = {"base": [], "a": [], "b": []}
        capture(a, "base", 0, base_count, shared_commits, [], captured["base"])
        if not args.no_consolidate:
            results["consolidate_base_seconds"] = round(consolidate(a), 2)
        git(a, "push", "-q", "origin", "main")
        timed("a_first_push", a, results)
        subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True)
        timed("b_first_fetch", b, results)

        for side, path in (("a", a), ("b", b)):
            own = new_commits(path, max(1, args.diverged // 2 // PER_NOTE // len(NAMESPACES) + 1), side)
            offset = 1_000_000 if side == "a" else 2_000_000
            # both clones' new entries interleave in time, as two people working the same week
            capture(path, side, offset, args.diverged, own, shared_commits, captured[side],
                    minute=(base_count + (0 if side == "a" else 1), 2))
            if not args.no_consolidate:
                results[f"consolidate_{side}_seconds"] = round(consolidate(path), 2)
        timed("a_sync_push", a, results)
        timed("b_sync_merge", b, results)
        timed("a_sync_fetch", a, results)
        timed("b_sync_noop", b, results)
        everything = captured["base"] + captured["a"] + captured["b"]
        results["entries_lost_a"] = lost(a, everything)
        results["entries_lost_b"] = lost(b, everything)
        results["same_refs"] = git(a, "for-each-ref", "refs/notes/") == git(b, "for-each-ref", "refs/notes/")
        memories = MemoryStore(GitStore(a)).scan(None, remember=False).memories
        results["memories_after"] = len(memories)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(json.dumps(results["machine"]))
    print(f"{args.memories} memories per clone, {args.diverged} on each side the other lacks, "
          f"union {args.memories + args.diverged}")
    for key, value in results.items():
        if key != "machine":
            print(f"  {key}: {value}")


if __name__ == "__main__":
    main()
