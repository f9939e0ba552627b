"""Where git keeps a repository's shared files, found without git and without pathlib (hooks run this).

Standard library `os.path` only: the surfacing hook runs on every tool call and every millisecond of
import counts.
"""

from __future__ import annotations

import os


def common_dir_of(start: str) -> str | None:
    """git's common dir for `start` (work tree, worktree, `.git` dir or bare repository); None outside one."""
    path = os.path.realpath(start)
    while True:
        dot_git = os.path.join(path, ".git")
        if os.path.isdir(dot_git):
            return dot_git
        if os.path.isfile(dot_git):
            with open(dot_git, encoding="utf-8", errors="replace") as handle:
                text = handle.read().strip()
            if not text.startswith("gitdir:"):
                return None
            git_dir = os.path.realpath(os.path.join(path, text.split(":", 1)[1].strip()))
            return _through_commondir(git_dir)
        if (os.path.isfile(os.path.join(path, "HEAD")) and os.path.isdir(os.path.join(path, "objects"))
                and os.path.isdir(os.path.join(path, "refs"))):
            return _through_commondir(path)
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def _through_commondir(git_dir: str) -> str:
    marker = os.path.join(git_dir, "commondir")
    if os.path.isfile(marker):
        with open(marker, encoding="utf-8") as handle:
            return os.path.realpath(os.path.join(git_dir, handle.read().strip()))
    return git_dir


def relative_to_work_tree(path: str, cwd: str) -> str | None:
    """`path` (absolute, or relative to `cwd`) relative to the work tree holding it, `/`-separated."""
    absolute = os.path.realpath(os.path.join(cwd, path))
    top = os.path.dirname(absolute)
    while True:
        if os.path.exists(os.path.join(top, ".git")):
            return os.path.relpath(absolute, top).replace(os.sep, "/")
        parent = os.path.dirname(top)
        if parent == top:
            return None
        top = parent
