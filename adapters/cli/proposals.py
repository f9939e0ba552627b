"""`proposals`: review what `consolidate --propose` would write, then apply it exactly or discard it."""

from __future__ import annotations

import argparse
from typing import Any

from memactors.adapters.cli.common import Parents, UsageError, report


def register(commands: Any, parents: Parents) -> dict[str, Any]:
    """Add this group's subcommands to `commands`; return their handlers by name."""
    p = commands.add_parser(
        "proposals", parents=[parents.common, parents.reporting],
        help="review, apply or discard what `consolidate --propose` would write",
        description="List the proposals the last `memactors consolidate --propose` saved: each summary with its "
        "members, each supersession, contradiction and link with its reason, each tier move (from -> to), and "
        "what would be withdrawn. --apply writes exactly them (the same notes and run record the run would have "
        "written), provided no memory was captured and no run or decision wrote since; otherwise it refuses "
        "with exit 1 and keeps them. --discard drops them. A new --propose replaces them.",
        epilog="Exit codes: 0 done; 1 the store changed since the proposals (nothing written); 2 no proposals to "
        "apply, or bad input; 3 another run holds the repository.")
    action = p.add_mutually_exclusive_group()
    action.add_argument("--apply", action="store_true", help="write the proposals, then drop them")
    action.add_argument("--discard", action="store_true", help="drop the proposals, writing nothing")
    p.add_argument("--limit", type=int, default=None, metavar="N",
                   help="items listed per section (default 20; --json lists all)")
    return {"proposals": _cmd_proposals}


def _cmd_proposals(args: argparse.Namespace) -> int:
    from memactors.adapters.operations import proposals

    if args.limit is not None and (args.apply or args.discard):
        raise UsageError("--limit is for the listing; --apply and --discard take all the proposals")
    if args.apply:
        return report(args, proposals.apply(args.repo))
    if args.discard:
        return report(args, proposals.discard(args.repo))
    return report(args, proposals.listing(args.repo, limit=proposals.SHOWN if args.limit is None else args.limit))
