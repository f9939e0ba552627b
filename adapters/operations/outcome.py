"""What an operation returns. Standard library only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

EXIT_OK, EXIT_ERRORS = 0, 1


@dataclass(frozen=True)
class Outcome:
    """`document`: what `--json` prints and an MCP tool returns; `text`: what a person reads; `code`: the exit
    code (0 done, 1 done with errors or not found)."""

    document: Any
    text: str
    code: int = EXIT_OK
