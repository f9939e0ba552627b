"""The `memactors` command line: one module per command group, the parser built from them (`dispatch`).

`memactors` starts at `entry`. `memactors surface` runs on every tool call, so it skips the parser: it goes straight
to its standard-library-only module (adapters/claude/surface_hook.py). `memactors recall` first asks a running
daemon (adapters/cli/recall_fast.py), also before the parser.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["surface"]:
        from memactors.adapters.claude.surface_hook import run

        return run()
    if args[:1] == ["recall"]:  # a running daemon answers with its model warm: no parser, no model here
        from memactors.adapters.cli.recall_fast import fast

        answered = fast(args[1:])
        if answered is not None:
            return answered
    if args[:1] in (["run"], ["view"]):  # from the first moment: a Ctrl-C Python drops inside an import still stops
        from memactors.adapters.system.process_exit import remember_dropped_interrupts

        remember_dropped_interrupts()
    from memactors.adapters.cli.dispatch import main as parse_and_run

    return parse_and_run(args)


def entry() -> NoReturn:  # noqa: F821 - annotations are strings; `typing` stays off the hooks' path
    """The `memactors` executable: `main`, then an exit that is safe while a model thread still runs."""
    try:
        code = main()
    except KeyboardInterrupt:  # before the command's own handling started (imports, parsing)
        from memactors.adapters.cli.common import interrupted

        code = interrupted(next((word for word in sys.argv[1:] if not word.startswith("-")), None))
    finish = sys.modules.get("memactors.adapters.system.process_exit")
    if finish is None:  # no model thread ever ran and no Ctrl-C was handled: a plain exit (hooks pay nothing)
        sys.exit(code)
    finish.leave(code)


__all__ = ["entry", "main"]
