"""Who may write consolidation state now: advisory file locks under `<common dir>/memactors/`.

- `run.lock` is held for the length of one run (a `consolidate`, a daemon run, a `sync`, a
  `doctor --repair`): one at a time per repository.
- `daemon.lock` is held by `memactors run` for its whole life: one daemon per repository, and
  how other commands know a daemon is there to hand a consolidation to.

Each lock file names its holder (`<pid> <role>`), so a refused command can say who is in the way.
The kernel releases both when the process dies, so a killed run never leaves the repository locked.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from types import TracebackType

RUN_LOCK = "run.lock"
DAEMON_LOCK = "daemon.lock"
#: How often a waiting command tries the lock again.
POLL_SECONDS = 0.05


class RepositoryBusy(RuntimeError):
    """Another memactors run or daemon holds this repository; the message names it and its pid."""


class LockUnavailable(OSError):
    """The lock file cannot be created (read-only repository, permissions): nobody can be locked out."""


def describe_holder(text: str) -> str:
    """`<pid> <role>` as people read it: which command, which process."""
    pid, _, role = text.strip().partition(" ")
    if not pid.isdigit():
        return "another memactors process holds this repository"
    if role == "daemon":
        return f"the memactors daemon (`memactors run`, pid {pid}) is consolidating this repository"
    if role == "daemon-idle":
        return f"the memactors daemon (`memactors run`, pid {pid}) already serves this repository"
    return f"a one-shot `memactors {role or 'consolidate'}` (pid {pid}) holds this repository"


class RepoLock:
    """A non-blocking (or briefly waiting) exclusive flock on `<common dir>/memactors/<name>`.

    `wait` seconds: how long to keep trying while someone else holds it (0: refuse at once).
    Entering raises RepositoryBusy naming the holder, or LockUnavailable when the file cannot be
    created. Re-entering an instance that holds the lock is a no-op until the matching release.
    """

    def __init__(self, common_dir: Path, *, role: str = "consolidate", wait: float = 0.0,
                 name: str = RUN_LOCK) -> None:
        self.path = common_dir / "memactors" / name
        self.role = role
        self.wait = wait
        self._fd: int | None = None

    def try_acquire(self) -> bool:
        """Take the lock if it is free now; True when this instance holds it afterwards."""
        if self._fd is not None:
            return True
        try:
            self.path.parent.mkdir(exist_ok=True)  # never its parents: a deleted repository stays deleted
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise LockUnavailable(f"cannot create {self.path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {self.role}\n".encode())
        self._fd = fd
        return True

    def holder(self) -> str:
        """Who holds the lock, as people read it (best effort: the holder may be just leaving)."""
        try:
            return describe_holder(self.path.read_text(errors="replace"))
        except OSError:
            return "another memactors process holds this repository"

    def acquire(self) -> None:
        """Take the lock, waiting up to `wait` seconds; RepositoryBusy naming the holder if it stays taken."""
        deadline = time.monotonic() + self.wait
        while not self.try_acquire():
            if time.monotonic() >= deadline:
                waited = f" (waited {self.wait:g} s)" if self.wait else ""
                holder = self.holder()
                hint = ("only one runs per repository: stop it first (Ctrl-C where it runs)"
                        if "already serves" in holder else "wait for it to finish, then retry")
                raise RepositoryBusy(f"{holder}{waited}; {hint}")
            time.sleep(POLL_SECONDS)

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RepoLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def daemon_holder(common_dir: Path) -> str | None:
    """The running daemon's pid as text when one serves this repository, else None."""
    path = common_dir / "memactors" / DAEMON_LOCK
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            pid = os.read(fd, 64).decode(errors="replace").split(" ", 1)[0].strip()
        except OSError:
            pid = ""
        return pid or "?"
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
