"""Branch labelling cost: placing every memory's commit (on HEAD's line, on other branches, or on none) in a
repository of 5,000 commits and 2,000 branches, against reading the same commits' ancestry with
`git rev-list --all` in the same run (the baseline: what any answer to "which branches" must at least read);
then the branches containing one commit (what `show` and the viewer's memory page add), against
`git for-each-ref --contains`.

    python bench/branch_bench.py [--commits 5000] [--branches 2000] [--memories 1000] [--runs 3]

Builds the repository with `git fast-import` in a temporary directory; prints the machine and the ratio.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def build(where: Path, commits: int, branches: int, seed: int = 7) -> list[str]:
    """A repository: `commits` on main, `branches` branches of 1-3 commits each off random points (a third
    merged back into main's history is not needed: HEAD's line is main). Returns every commit's sha."""
    rng = random.Random(seed)
    subprocess.run(["git", "init", "-q", "-b", "main", str(where)], check=True)
    lines: list[str] = []
    mark = 0
    stamp = 1_700_000_000
    for i in range(commits):
        mark += 1
        lines += ["commit refs/heads/main", f"mark :{mark}", f"committer b <b@x> {stamp + i} +0000",
                  "data 4", f"c{i:03d}"[:4]]
        if i:
            lines.append(f"from :{mark - 1}")
        lines.append("")
    for b in range(branches):
        base = rng.randint(1, commits)
        for k in range(rng.randint(1, 3)):
            mark += 1
            lines += [f"commit refs/heads/feature/b{b}", f"mark :{mark}",
                      f"committer b <b@x> {stamp + commits + mark} +0000", "data 4", "bxxx",
                      f"from :{base if k == 0 else mark - 1}", ""]
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

    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp) / "repo"
        every = build(where, args.commits, args.branches)
        picked = random.Random(1).sample(every, min(args.memories, len(every)))
        base_times, label_times = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            subprocess.run(["git", "-C", str(where), "rev-list", "--all"], capture_output=True, check=True)
            base_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            branches = BranchMap(pygit2.Repository(str(where)))
            placed = [branches.placement(c) for c in picked]
            label_times.append(time.perf_counter() - start)
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
        base, labelled = statistics.median(base_times), statistics.median(label_times)
        print(f"machine: {platform.machine()} {platform.system()}, {os.cpu_count()} cores, Python "
              f"{platform.python_version()}, pygit2 {pygit2.__version__}")
        print(f"repository: {len(every)} commits, {args.branches} branches; {len(picked)} memory commits placed "
              f"({off} off HEAD's line)")
        print(f"baseline git rev-list --all: {base * 1000:.0f} ms; placing: {labelled * 1000:.0f} ms; "
              f"ratio {labelled / base:.2f}x")
        print(f"branches containing the oldest commit: {len(contained[0].branches)} in "
              f"{contains_times[0] * 1000:.0f} ms (git for-each-ref --contains: {git_contains * 1000:.0f} ms, "
              f"ratio {contains_times[0] / git_contains:.2f}x); 20 sampled commits: median "
              f"{statistics.median(contains_times[1:]) * 1000:.0f} ms, max {max(contains_times[1:]) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
