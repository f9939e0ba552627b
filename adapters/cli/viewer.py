"""The human's window: `view`, a local web page over the store."""

from __future__ import annotations

import argparse
from typing import Any

from memactors.adapters.cli.common import EXIT_OK, Parents


def register(commands: Any, parents: Parents) -> dict[str, Any]:
    """Add this group's subcommands to `commands`; return their handlers by name."""
    p = commands.add_parser(
        "view", parents=[parents.common], help="a local web page: what consolidation decided, and your decisions",
        description="Serve the store on http://127.0.0.1 (only): an overview (tiers run by run, the last runs, "
        "what needs you), a timeline with search and filters, each memory with its edges, supersession chain, "
        "retention and tier history, each run's changes, conflicts to resolve and proposed memories to review. "
        "Prints the URL with a random token: opening it sets a session cookie; nothing answers without it. "
        "Nothing deletes or rewrites a memory. Ctrl-C stops it.")
    p.add_argument("--port", type=int, default=0, metavar="N", help="the port (default: a free one)")
    p.add_argument("--no-open", action="store_true", help="print the URL only; do not open a browser")
    return {"view": _cmd_view}


def _cmd_view(args: argparse.Namespace) -> int:
    import trio

    from memactors.adapters.cli.common import UsageError
    from memactors.adapters.viewer.server import PortUnavailable, serve

    from memactors.adapters.claude.git_dirs import common_dir_of

    if not 0 <= args.port <= 65535:
        raise UsageError("--port must be between 1 and 65535 (or 0 for a free one)")
    if common_dir_of(str(args.repo)) is None:
        raise UsageError(f"{args.repo} is not inside a git repository: run `memactors view` in the project "
                         "(or pass --repo PATH)")
    from memactors.adapters.system.process_exit import interrupt_dropped
    from memactors.adapters.viewer.server import import_server

    # the server's heavy imports happen here, where a Ctrl-C that Python drops inside them is still seen below,
    # not inside trio.run, where nothing would look at it again
    import_server()
    if interrupt_dropped():  # a Ctrl-C while starting whose KeyboardInterrupt Python dropped (inside an import)
        print("memactors view: stopped")
        return EXIT_OK
    try:
        trio.run(lambda: serve(args.repo, port=args.port, open_browser=not args.no_open))
    except KeyboardInterrupt:
        print("memactors view: stopped")
    except PortUnavailable as exc:
        raise UsageError(f"{exc.strerror}; try --port 0 (a free one)") from None
    except OSError as exc:
        raise UsageError(f"cannot serve on 127.0.0.1:{args.port}: {exc.strerror or exc}") from None
    return EXIT_OK
