"""The `memactors` command line: one module per command group, the parser built from them (`main`).

`memactors surface` runs on every tool call, so it skips the parser: the entry point hands it straight
to its standard-library-only module (adapters/claude/surface_hook.py).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["surface"]:
        from memactors.adapters.claude.surface_hook import run

        return run()
    from memactors.adapters.cli.main import main as parse_and_run

    return parse_and_run(args)


__all__ = ["main"]
