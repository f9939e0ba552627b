"""The git command, for what pygit2 does not do: talking to remotes, and config as git itself reads it."""

from __future__ import annotations

import os
import subprocess

from memactors.adapters.git.store import GitStore
from memactors.adapters.git.sync_plan import SyncError

GIT_TIMEOUT_SECONDS = 600


def run_git(git: GitStore, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            ["git", "--git-dir", str(git.git_dir), *args],
            capture_output=True, text=True, env=env, timeout=GIT_TIMEOUT_SECONDS,
        )
    except FileNotFoundError:
        raise SyncError("the git command is not installed; sync needs it to talk to remotes") from None
    except subprocess.TimeoutExpired:
        raise SyncError(f"git {args[0]} took over {GIT_TIMEOUT_SECONDS} s; nothing changed locally") from None
    if check and done.returncode != 0:
        raise SyncError(f"git {args[0]} failed: {last_line(done.stderr)}")
    return done


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("hint:")]
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (fatal or lines or ["no message"])[0]
