"""The `memactors` parser, built from the command groups, and the dispatch every command shares.

Exit codes: 0 done; 1 done with fallbacks or recorded
errors (or, for `show`, an unknown ID); 2 usage or environment error;
3 refused because another memactors process holds the repository (named, with its pid);
130 interrupted by Ctrl-C (`run`: 0, it stops after the run in flight).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any

from memactors.adapters.cli.common import (
    EXIT_BUSY,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    interrupted,
    only_interrupts,
    parents,
)

#: The command group modules, in the order `--help` lists their commands.
GROUPS = ("consolidation", "memories", "reading", "capture", "agent", "viewer", "sharing", "hooks", "service",
          "automemory", "llm", "proposals")
#: Commands that hooks run (nothing but the standard library on their path, never an error exit),
#: and the one group each needs: a hook loads only that group's module.
HOOK_COMMANDS = {"publish": "hooks", "context": "reading", "surface": "hooks"}
#: Commands that change nothing (recall's use log is written by temporary file and rename): Ctrl-C ends them
#: at once, whatever thread is loading the model meanwhile.
READ_ONLY_COMMANDS = frozenset({"recall", "show", "status", "tiers", "edges", "graph", "decay", "conflicts", "llm"})


class _VersionAction(argparse.Action):
    """`--version`, looked up only when asked: reading package metadata costs hooks tens of milliseconds."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(f"memactors {_version()}")
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("memactors")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def build_parser(groups: Sequence[str] = GROUPS) -> tuple[argparse.ArgumentParser,
                                                          dict[str, Callable[[argparse.Namespace], int]]]:
    parser = argparse.ArgumentParser(
        prog="memactors",
        description="Consolidate the memories coding agents keep in git notes: score every memory, "
        "sort it into hot / warm / cold / archived tiers, and keep that state in refs/notes/mem-*. "
        "Originals under refs/notes/mem/* are never changed.",
        epilog="Exit codes: 0 done, 1 done with errors, 2 usage or environment error, "
        "3 another run holds the repository.",
    )
    parser.add_argument("--version", action=_VersionAction, nargs=0, help="print the version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    shared = parents()
    handlers: dict[str, Any] = {}
    for group in groups:
        handlers.update(importlib.import_module(f"memactors.adapters.cli.{group}").register(commands, shared))
    return parser, handlers


def _attach_dash_values(parser: argparse.ArgumentParser, argv: list[str], command: str | None) -> list[str]:
    """`--summary ---` as `--summary=---`: argparse takes any word starting with `-` for an option.

    Only for options of `command` that take one value, and only when the next word is not one of
    that command's own options (so `--summary --json` still says the value is missing).
    """
    sub = next((a.choices.get(command) for a in parser._actions  # noqa: SLF001 - argparse keeps no public map
                if isinstance(a, argparse._SubParsersAction)), None) if command else None  # noqa: SLF001
    if sub is None:
        return argv
    known = {flag for action in sub._actions for flag in action.option_strings}  # noqa: SLF001
    takes_value = {flag for action in sub._actions if action.option_strings and action.nargs is None  # noqa: SLF001
                   and not isinstance(action, argparse._StoreConstAction)  # noqa: SLF001
                   for flag in action.option_strings}
    out: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        if (word in takes_value and i + 1 < len(argv) and argv[i + 1].startswith("-")
                and argv[i + 1] not in known and argv[i + 1] != "--"):
            out.append(f"{word}={argv[i + 1]}")
            i += 2
            continue
        out.append(word)
        if word == "--":
            out.extend(argv[i + 1:])
            break
        i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((word for word in argv if not word.startswith("-")), None)
    parser, handlers = build_parser((HOOK_COMMANDS[command],) if command in HOOK_COMMANDS else GROUPS)
    args = parser.parse_args(_attach_dash_values(parser, argv, command))
    if args.command in HOOK_COMMANDS:
        from memactors.adapters.claude.hook_switch import hooks_off

        if hooks_off():  # inside memactors' own LLM sub-session, or silenced by the user
            return EXIT_OK
        return handlers[args.command](args)
    if args.command in READ_ONLY_COMMANDS:
        from memactors.adapters.system.process_exit import exit_on_interrupt

        exit_on_interrupt(EXIT_INTERRUPTED, "memactors: interrupted")
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="memactors: %(message)s",
        stream=sys.stderr,
    )
    from memactors.adapters.git.repo_lock import RepositoryBusy
    from memactors.adapters.git.store import RefLocked, StoreError
    from memactors.adapters.runtime.gc_tuning import tune_gc

    tune_gc()

    try:
        return handlers[args.command](args)
    except UsageError as exc:
        print(f"memactors: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except RefLocked as exc:  # another process holds a ref lock
        print(f"memactors: {exc}", file=sys.stderr)
        return EXIT_BUSY
    except StoreError as exc:
        print(f"memactors: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except RepositoryBusy as exc:
        print(f"memactors: {exc}", file=sys.stderr)
        return EXIT_BUSY
    except KeyboardInterrupt:
        return interrupted(args.command)
    except BaseExceptionGroup as group:  # Ctrl-C inside trio arrives wrapped with what it cancelled
        if not only_interrupts(group):
            raise
        return interrupted(args.command)
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:  # a write the checks could not foresee (permissions changed, disk full)
        print(f"memactors: {str(exc).splitlines()[0]}; nothing was half-written, retry once it is fixed",
              file=sys.stderr)
        return EXIT_USAGE
