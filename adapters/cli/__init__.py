"""The `memactors` command line: one module per command group, the parser built from them (`main`).

`memactors surface` runs on every tool call, so it skips the parser: the entry point hands it straight
to its standard-library-only module (adapters/claude/surface_hook.py).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import NoReturn


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["surface"]:
        from memactors.adapters.claude.surface_hook import run

        return run()
    from memactors.adapters.cli.main import main as parse_and_run

    return parse_and_run(args)


def entry() -> NoReturn:
    """The `memactors` executable: `main`, then an exit that is safe while a model thread still runs."""
    try:
        code = main()
    except KeyboardInterrupt:  # before the command's own handling started (imports, parsing)
        from memactors.adapters.cli.common import interrupted

        code = interrupted(next((word for word in sys.argv[1:] if not word.startswith("-")), None))
    import signal

    from memactors.adapters.runtime.process_exit import leave

    # the command is done and has said so: a Ctrl-C now must not turn its exit code into a signal death
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    leave(code)


__all__ = ["entry", "main"]
