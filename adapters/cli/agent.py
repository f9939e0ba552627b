"""The agent's window: `mcp`, the project's memory as MCP tools over stdio."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from memactors.adapters.cli.common import EXIT_OK, Parents


def register(commands: Any, parents: Parents) -> dict[str, Any]:
    """Add this group's subcommands to `commands`; return their handlers by name."""
    commands.add_parser(
        "mcp", parents=[parents.common], help="serve the project's memory to an agent as MCP tools (stdio)",
        description="An MCP server over stdin/stdout for Claude Code or any MCP client: recall, show, capture, "
        "graph, status, tiers, conflicts, resolve, review and context, each the same operation as the command of "
        "that name. The embedding model is loaded once and stays warm. Logs go to stderr; stdout carries only the "
        "protocol. Runs until the client closes stdin.",
        epilog="Registered for Claude Code by `memactors hooks install --claude` (the project's .mcp.json) and "
        "by the plugin; elsewhere: `claude mcp add memactors -- memactors mcp`.")
    return {"mcp": _cmd_mcp}


def _cmd_mcp(args: argparse.Namespace) -> int:
    import trio

    from memactors.adapters.mcp.server import serve

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="memactors mcp: %(message)s",
                        stream=sys.stderr, force=True)
    trio.run(serve, args.repo)
    return EXIT_OK
