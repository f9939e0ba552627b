"""What an operation returns. Standard library only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2


@dataclass(frozen=True)
class Outcome:
    """`document`: what `--json` prints and an MCP tool returns; `text`: what a person reads; `code`: the exit
    code (0 done, 1 done with recorded errors, 2 what was asked for names nothing: an unknown id)."""

    document: Any
    text: str
    code: int = EXIT_OK


def place(repo: Any) -> str:
    """The repository as a person recognises it: its absolute path, not "." (standard library only)."""
    from pathlib import Path

    try:
        return str(Path(repo).resolve())
    except (OSError, RuntimeError, TypeError):
        return str(repo)
