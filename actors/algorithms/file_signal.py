"""Which files a memory is about: the commit it hangs on, its `file:` tags, and the paths its text names.

A commit's changed files are a strong signal where few memories hang on a
commit that touched few files, and noise where hundreds of memories hang on
whatever HEAD was at capture (real plugin stores: a median of 15 memories
per commit, up to 761). So the commit's weight for each of its files is
`1 / (memories on it · √files it changed)`, nothing past `MAX_COMMIT_FILES`
files, and less for a file that many of the memories' commits changed (a
changelog, a lock file): × `COMMON_FILE / commits` past `COMMON_FILE`
commits. A `file:` tag or a path the memory's text names
weighs `NAMED`.
Weights of one memory and file add up, capped at 1; a file keeps its
`MAX_PER_FILE` best memories.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

#: A commit that changed more files than this says nothing about any one of them (a merge, a reformat).
MAX_COMMIT_FILES = 40
#: Weight of a path the memory names itself (its text or a `file:` tag).
NAMED = 0.9
#: Memories kept per file, best first (the hook shows three).
MAX_PER_FILE = 20
#: Below this a link is not kept at all.
MIN_WEIGHT = 0.05
#: A file changed by more of the memories' commits than this is discounted (see above).
COMMON_FILE = 3
_PATH = re.compile(r"(?<![\w/.@-])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7})(?![\w/])")


@dataclass(frozen=True)
class Subject:
    """What the file signal reads of one memory: its position, commit, text and tags."""

    row: int
    commit: str
    text: str
    tags: Sequence[str] = ()


def commit_weight(memories_on_commit: int, files_changed: int) -> float:
    if files_changed == 0 or files_changed > MAX_COMMIT_FILES or memories_on_commit == 0:
        return 0.0
    return 1.0 / (memories_on_commit * math.sqrt(files_changed))


class PathNames:
    """Finds the repository paths a text names: exactly, by a unique path suffix, or by a unique file name."""

    def __init__(self, repo_files: Iterable[str]) -> None:
        self.known = set(repo_files)
        self._by_suffix: dict[str, list[str]] = defaultdict(list)
        for path in self.known:
            parts = path.split("/")
            for i in range(len(parts)):
                self._by_suffix["/".join(parts[i:])].append(path)

    def find(self, text: str) -> set[str]:
        found: set[str] = set()
        for match in _PATH.findall(text):
            candidate = match.strip("./")
            if candidate in self.known:
                found.add(candidate)
            elif len(self._by_suffix.get(candidate, ())) == 1:
                found.add(self._by_suffix[candidate][0])
            elif not self.known and "/" in candidate:  # no tree to check against: take what looks like a path
                found.add(candidate)
        return found


def _commonness(commits: int) -> float:
    return 1.0 if commits <= COMMON_FILE else COMMON_FILE / commits


def file_links(subjects: Sequence[Subject], commit_files: Mapping[str, Sequence[str]],
               repo_files: Iterable[str], captures: Mapping[str, int] | None = None,
               ) -> dict[str, list[tuple[int, float]]]:
    """path -> [(row, weight)], best first, at most MAX_PER_FILE each, weights in (MIN_WEIGHT, 1].

    `captures` counts every memory on each commit (fragments included, which are no subjects); by default
    the subjects alone."""
    names = PathNames(repo_files)
    on_commit: dict[str, int] = defaultdict(int)
    for subject in subjects:
        on_commit[subject.commit] += 1
    for commit, count in (captures or {}).items():
        on_commit[commit] = max(on_commit[commit], count)
    commits_of: dict[str, int] = defaultdict(int)  # how many of the memories' commits changed each file
    for commit in on_commit:
        for path in commit_files.get(commit, ()):
            commits_of[path] += 1
    weights: dict[tuple[str, int], float] = defaultdict(float)
    for subject in subjects:
        changed = commit_files.get(subject.commit, ())
        weight = commit_weight(on_commit[subject.commit], len(changed))
        if weight >= MIN_WEIGHT:
            for path in changed:
                weights[(path, subject.row)] += weight * _commonness(commits_of[path])
        tagged = {t[len("file:"):].strip("./") for t in subject.tags if t.startswith("file:")}
        for path in tagged | names.find(subject.text):
            weights[(path, subject.row)] += NAMED
    by_file: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for (path, row), weight in weights.items():
        by_file[path].append((row, min(1.0, weight)))
    return {path: sorted(rows, key=lambda r: (-r[1], r[0]))[:MAX_PER_FILE] for path, rows in by_file.items()}
