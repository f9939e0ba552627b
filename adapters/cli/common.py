"""What every command shares: exit codes, the one-line usage error, the shared options, settings,
opening the store, printing text or JSON. Standard library only at import time (hooks import it)."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memactors.adapters.operations.checks import (  # noqa: F401 - used by the commands
    MAX_CONTENT_BYTES,
    MAX_SUMMARY_CHARS,
    check_namespaces,
    counts,
)
from memactors.adapters.operations.errors import UsageError  # noqa: F401 - the CLI's name for it
from memactors.adapters.operations.outcome import Outcome
from memactors.adapters.operations.store import load_settings, open_store  # noqa: F401 - shared with the commands

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_BUSY = 0, 1, 2, 3
#: Ctrl-C (SIGINT) ended a one-shot command: 128 + SIGINT, as shells report it.
EXIT_INTERRUPTED = 130




@dataclass(frozen=True)
class Parents:
    """The option sets subcommands inherit: `-v` alone; `--repo` and `-v`; `--json`."""

    verbose: argparse.ArgumentParser
    common: argparse.ArgumentParser
    reporting: argparse.ArgumentParser


def parents() -> Parents:
    verbose = argparse.ArgumentParser(add_help=False)
    verbose.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    common = argparse.ArgumentParser(add_help=False, parents=[verbose])
    common.add_argument("--repo", type=Path, default=Path("."), metavar="PATH",
                        help="the git repository (default: the one containing the current directory)")
    reporting = argparse.ArgumentParser(add_help=False)
    reporting.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    return Parents(verbose=verbose, common=common, reporting=reporting)


def run_services(store, settings, clock, max_llm_calls: int | None = None, max_cost_usd: float | None = None):
    """The adapters a run needs; an unknown LLM provider or time zone is a UsageError."""
    from memactors.adapters.runtime.pipeline import build_services

    try:
        return build_services(store, settings, clock, max_llm_calls=max_llm_calls, max_cost_usd=max_cost_usd)
    except ValueError as exc:
        raise UsageError(str(exc).splitlines()[0]) from None


def report(args: argparse.Namespace, outcome: Outcome) -> int:
    """Print an operation's outcome (its document with --json, else its text; a missing document's text is a
    one-line error on stderr) and return its exit code."""
    import sys

    if outcome.document is None:
        print(f"memactors: {outcome.text}", file=sys.stderr)
    else:
        emit(args, outcome.document, outcome.text)
    return outcome.code


def emit(args: argparse.Namespace, document: Any, text: str) -> None:
    if args.json:
        print(json.dumps(document, indent=2, default=str))
    else:
        print(text)


def interrupted(command: str | None) -> int:
    """Ctrl-C's exit, the same at every moment: `run` has stopped (0), any other command was interrupted (130)."""
    import sys

    from memactors.adapters.system.process_exit import mark_interrupted

    mark_interrupted()
    if command == "run":
        print("memactors run: stopped", file=sys.stderr)
        return EXIT_OK
    print("memactors: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def only_interrupts(error: BaseException) -> bool:
    """True for a KeyboardInterrupt, or an exception group holding nothing else (trio wraps them)."""
    if isinstance(error, KeyboardInterrupt):
        return True
    if isinstance(error, BaseExceptionGroup):
        return all(only_interrupts(inner) for inner in error.exceptions)
    return False
