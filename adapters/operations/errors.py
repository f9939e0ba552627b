"""What an operation raises for input it cannot act on. Standard library only: hooks import it."""

from __future__ import annotations


class UsageError(Exception):
    """Bad input or environment, said in one line: the CLI exits 2 with it, the MCP server returns it as the
    tool's error."""
