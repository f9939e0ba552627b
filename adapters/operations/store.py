"""Settings and the store an operation works on. Standard library only at import time (hooks import it)."""

from __future__ import annotations

from pathlib import Path

from memactors.adapters.operations.errors import UsageError


#: The settings read last and the environment they were read from: a long-lived process (the daemon, the MCP
#: server) reads them again only when its environment changed.
_LAST: dict[str, tuple[object, object]] = {}


def load_settings():
    """The environment's settings; invalid ones are a UsageError naming the variable."""
    import os

    from pydantic import ValidationError

    from memactors.adapters.runtime.settings import Settings, configuration_error

    environment = tuple(sorted(os.environ.items()))
    last = _LAST.get("settings")
    if last is not None and last[0] == environment:
        return last[1]
    try:
        settings = Settings()
        _LAST["settings"] = (environment, settings)
        return settings
    except ValidationError as exc:
        raise UsageError(configuration_error(exc)) from None


def open_store(repo: Path, settings):
    from memactors.adapters.git.memory_store import MemoryStore
    from memactors.adapters.git.store import GitStore

    return MemoryStore(GitStore(repo, notes_base=settings.notes_base, lock_wait_seconds=settings.lock_wait_seconds))
