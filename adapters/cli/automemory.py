"""The bridge to Claude Code's Auto Memory: `automemory import` and `automemory export`."""

from __future__ import annotations

import argparse
from typing import Any

from memactors.adapters.cli.common import Parents, report


def register(commands: Any, parents: Parents) -> dict[str, Any]:
    """Add this group's subcommands to `commands`; return their handlers by name."""
    p = commands.add_parser(
        "automemory", parents=[parents.common, parents.reporting],
        help="share Claude Code's own auto memory through git: import its topic files, export the team's memory",
        description="import: each topic file of this project's Claude Code auto memory (<config>/projects/"
        "<project>/memory/, or where autoMemoryDirectory points) becomes a memory: feedback -> patterns, "
        "project -> decisions or progress, reference -> research, user -> personal (never pushed by `sync` "
        "unless MEMACTORS_SYNC_PERSONAL=1). Unchanged files are skipped; an edited file becomes a memory that "
        "replaces its earlier import; a deleted file's memory stays. export: the hot decisions, patterns and "
        "learnings that are not already your own auto memories, in memactors-team.md there, and one index line "
        "between markers in MEMORY.md; your own lines and files are never changed.",
        epilog="Exit codes: 0 done (also when there is no auto memory yet); 2 usage or environment error.")
    p.add_argument("action", choices=["import", "export"])
    p.add_argument("--dry-run", action="store_true", help="change nothing; say what would be imported, or print "
                   "the export's diff")
    return {"automemory": _cmd_automemory}


def _cmd_automemory(args: argparse.Namespace) -> int:
    from memactors.adapters.operations.automemory import export_auto_memory, import_auto_memory

    operation = import_auto_memory if args.action == "import" else export_auto_memory
    return report(args, operation(args.repo, dry_run=args.dry_run))
