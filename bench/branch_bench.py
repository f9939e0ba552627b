"""Branch labelling cost: placing every memory's commit (on HEAD's line, merged by rebase or squash, on other
branches, or on none) in a repository of 5,000 commits and 2,000 branches, against reading the same commits'
ancestry with `git rev-list --all` in the same run (the baseline: what any answer to "which branches" must at
least read), and against placing by ancestry alone (what merge detection adds); then the branches containing one
commit (what `show` and the viewer's memory page add), against `git for-each-ref --contains`.

Every commit changes a file: main's commits append to one of 200 files; each branch's 1-3 commits write a file of
its own; a third of the branches are then squash-merged into main (one commit at main's tip holding the branch's
final file), so merge detection has patches and contents to compare.

    python bench/branch_bench.py [--commits 5000] [--branches 2000] [--memories 1000] [--runs 3]

Builds the repository with `git fast-import` in a temporary directory; prints the machine and the ratios.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _data(text: str) -> list[str]:
    return [f"data {len(text.encode())}", text]


def build(where: Path, commits: int, branches: int, seed: int = 7) -> list[str]:
    """A repository: `commits` on main, `branches` branches of 1-3 commits each off random points, every third
    of them squash-merged into main at its tip. Returns every commit's sha."""
    rng = random.Random(seed)
    subprocess.run(["git", "init", "-q", "-b", "main", str(where)], check=True)
    lines: list[str] = []
    mark = 0
    stamp = 1_700_000_000
    files: dict[str, str] = {}
    for i in range(commits):
        mark += 1
        path = f"src/m{i % 200}.py"
        files[path] = files.get(path, "") + "".join(f"value_{i}_{k} = compute({i}, {k})\n" for k in range(3))
        lines += ["commit refs/heads/main", f"mark :{mark}", f"committer b <b@x> {stamp + i} +0000",
                  *_data(f"c{i}")]
        if i:
            lines.append(f"from :{mark - 1}")
        lines += [f"M 100644 inline {path}", *_data(files[path]), ""]
    main_tip = mark
    finals: dict[int, str] = {}
    for b in range(branches):
        base = rng.randint(1, commits)
        text = ""
        for k in range(rng.randint(1, 3)):
            mark += 1
            text += "".join(f"branch_{b}_{k}_{n} = feature({b}, {k}, {n})\n" for n in range(4))
            lines += [f"commit refs/heads/feature/b{b}", f"mark :{mark}",
                      f"committer b <b@x> {stamp + commits + mark} +0000", *_data(f"b{b}.{k}"),
                      f"from :{base if k == 0 else mark - 1}", f"M 100644 inline src/b{b}.py", *_data(text), ""]
        finals[b] = text
    for b in range(0, branches, 3):  # squash-merged: main's tip gets the branch's final file in one commit
        mark += 1
        lines += ["commit refs/heads/main", f"mark :{mark}", f"committer b <b@x> {stamp + commits + mark} +0000",
                  *_data(f"squash b{b} (#{b})"), f"from :{main_tip}", f"M 100644 inline src/b{b}.py",
                  *_data(finals[b]), ""]
        main_tip = mark
    subprocess.run(["git", "-C", str(where), "fast-import", "--quiet"], input="\n".join(lines) + "\n",
                   text=True, check=True)
    out = subprocess.run(["git", "-C", str(where), "rev-list", "--all"], capture_output=True, text=True, check=True)
    return out.stdout.split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=5000)
    parser.add_argument("--branches", type=int, default=2000)
    parser.add_argument("--memories", type=int, default=1000, help="memory commits to place")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    import pygit2

    from memactors.adapters.git.branches import BranchMap
    from memactors.adapters.git.merged import PATCH_CACHE

    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp) / "repo"
        every = build(where, args.commits, args.branches)
        picked = random.Random(1).sample(every, min(args.memories, len(every)))
        (where / ".git" / "memactors").mkdir()  # where memactors keeps the patch-id cache
        cache = where / ".git" / "memactors" / PATCH_CACHE
        base_times, ancestry_times, label_times, warm_times = [], [], [], []
        for _ in range(args.runs):
            cache.unlink(missing_ok=True)
            start = time.perf_counter()
            subprocess.run(["git", "-C", str(where), "rev-list", "--all"], capture_output=True, check=True)
            base_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            ancestry = BranchMap(pygit2.Repository(str(where)))  # what placing was before merge detection
            unmerged = ancestry._unmerged_commits()
            [(ancestry.on_head(c), unmerged.get(c)) for c in picked]
            ancestry_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            branches = BranchMap(pygit2.Repository(str(where)))
            placed = [branches.placement(c) for c in picked]
            label_times.append(time.perf_counter() - start)
            start = time.perf_counter()  # a later read: HEAD's patch ids come from the cache the first one left
            again = BranchMap(pygit2.Repository(str(where)))
            [again.placement(c) for c in picked]
            warm_times.append(time.perf_counter() - start)
        # what one recall adds: ten results, all off HEAD's line, with a fresh map and the cache a run left
        ten = [c for c, p in zip(picked, placed) if not p.on_head][:10]
        recall_times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            fresh = BranchMap(pygit2.Repository(str(where)))
            [fresh.placement(c) for c in ten]
            recall_times.append(time.perf_counter() - start)
        # what one `show` or memory page adds: the branches containing one commit, the oldest on main (the worst
        # case: every newer commit of every branch is read) and a sample, each with a fresh map
        oldest = subprocess.run(["git", "-C", str(where), "rev-list", "--max-parents=0", "main"], capture_output=True,
                                text=True, check=True).stdout.split()[0]
        contains_times, contained = [], []
        for commit in [oldest, *picked[:20]]:
            fresh = BranchMap(pygit2.Repository(str(where)))
            start = time.perf_counter()
            contained.append(fresh.containing([commit]))
            contains_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        subprocess.run(["git", "-C", str(where), "for-each-ref", "--contains", oldest, "refs/heads/"],
                       capture_output=True, check=True)
        git_contains = time.perf_counter() - start
        off = sum(not p.on_head for p in placed)
        states = Counter(p.state for p in placed)
        repo = pygit2.Repository(str(where))
        # a branch commit's message is "b<branch>.<k>": every third branch was squash-merged, the rest never
        wrong = sum((p.merged != "no") != (int(repo[c].message.strip()[1:].split(".")[0]) % 3 == 0)
                    for c, p in zip(picked, placed) if not p.on_head)
        base, labelled = statistics.median(base_times), statistics.median(label_times)
        by_ancestry, warm = statistics.median(ancestry_times), statistics.median(warm_times)
        print(f"machine: {platform.machine()} {platform.system()}, {os.cpu_count()} cores, Python "
              f"{platform.python_version()}, pygit2 {pygit2.__version__}")
        print(f"repository: {len(every)} commits, {args.branches} branches; {len(picked)} memory commits placed "
              f"({off} off HEAD's line)")
        print(f"placements: {dict(sorted(states.items()))}; misjudged (merged said of an unmerged branch's "
              f"commit, or the reverse): {wrong}")
        print(f"baseline git rev-list --all: {base * 1000:.0f} ms; placing by ancestry alone: "
              f"{by_ancestry * 1000:.0f} ms ({by_ancestry / base:.2f}x); placing with merge detection: "
              f"{labelled * 1000:.0f} ms ({labelled / base:.2f}x, {labelled / by_ancestry:.2f}x ancestry alone); "
              f"again with the patch-id cache: {warm * 1000:.0f} ms ({warm / base:.2f}x)")
        print(f"one recall's ten results, all off HEAD's line: {statistics.median(recall_times) * 1000:.0f} ms")
        print(f"branches containing the oldest commit: {len(contained[0].branches)} in "
              f"{contains_times[0] * 1000:.0f} ms (git for-each-ref --contains: {git_contains * 1000:.0f} ms, "
              f"ratio {contains_times[0] / git_contains:.2f}x); 20 sampled commits: median "
              f"{statistics.median(contains_times[1:]) * 1000:.0f} ms, max {max(contains_times[1:]) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
