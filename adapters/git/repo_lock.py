"""One consolidating process per repository, enforced with an advisory file lock."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType


class RepositoryBusy(RuntimeError):
    """Another memactors run or daemon holds this repository."""


class LockUnavailable(OSError):
    """The lock file cannot be created (read-only repository, permissions): nobody can be locked out."""


class RepoLock:
    """A non-blocking exclusive flock on `<common dir>/memactors/run.lock`.

    Released on exit and by the kernel when the process dies, so a killed
    run never leaves the repository locked.
    """

    def __init__(self, common_dir: Path) -> None:
        self.path = common_dir / "memactors" / "run.lock"
        self._fd: int | None = None

    def __enter__(self) -> RepoLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise LockUnavailable(f"cannot create {self.path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise RepositoryBusy(f"another memactors run holds this repository ({self.path})") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
