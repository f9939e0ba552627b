"""`memactors recall` answered by a running daemon, before the full parser is built. Standard library only.

A cold `recall` spends most of its time importing and loading the embedding model; while `memactors run`
serves the repository its model is warm, so the command only asks it (adapters/runtime/query_client.py).
The options are defined here once, for this path and for the full parser alike. Anything this path does not
handle (--help, a bad option, no daemon) goes the ordinary way.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

MODES = ("reflexive", "standard", "deep", "exhaustive")


def add_recall_arguments(p: argparse.ArgumentParser) -> None:
    """recall's own options (the shared --repo, -v and --json come from the parser's parents)."""
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--mode", choices=list(MODES),
                   help="search exactly these tiers (default: hot and warm first, widened to colder tiers "
                   "when they hold too few relevant results; exhaustive for date questions)")
    p.add_argument("--limit", type=int, default=10, metavar="N", help="results to show (default 10)")
    p.add_argument("--namespace", action="append", metavar="NS", help="only this namespace (repeatable)")
    p.add_argument("--reason", action="store_true",
                   help="answer with a date, resolving relative dates (automatic for when did / what date / "
                   "how long ago questions)")
    p.add_argument("--no-track", action="store_true", help="do not record these results as uses")
    p.add_argument("--answer", action="store_true",
                   help="answer the question from the memories: the supporting sentences, each cited by id, "
                   "the reasoning and a confidence, or 'The memories do not say.' (composed by the LLM when one "
                   "is configured)")


class _Quiet(argparse.ArgumentParser):
    def error(self, message: str):  # noqa: ANN201 - argparse's hook; the full parser reports it instead
        raise ValueError(message)


def fast(argv: Sequence[str]) -> int | None:
    """The exit code when a daemon answered `memactors recall ARGS`; None to go the ordinary way."""
    if any(word in ("-h", "--help") for word in argv):
        return None
    parser = _Quiet(prog="memactors recall", add_help=False)
    add_recall_arguments(parser)
    parser.add_argument("--repo", type=Path, default=Path("."))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    try:
        args = parser.parse_args(list(argv))
    except ValueError:
        return None
    return answer_from_daemon(args)


def answer_from_daemon(args: argparse.Namespace) -> int | None:
    """Print the recall a running daemon answered and return its exit code; None when no daemon answers."""
    from memactors.adapters.claude.git_dirs import common_dir_of
    from memactors.adapters.runtime.query_client import ask

    common = common_dir_of(str(args.repo))
    if common is None:
        return None
    answer = ask(common, {"op": "recall", "args": {
        "query": args.query, "mode": args.mode, "limit": args.limit, "namespaces": args.namespace,
        "reason": args.reason, "track": not args.no_track, "answer": args.answer}})
    if answer is None:
        return None
    if args.answer and "error" not in answer and not (isinstance(answer.get("document"), dict)
                                                      and "answer" in answer["document"]):
        return None  # a daemon started before --answer existed answered with results only: ask the ordinary way
    for note in answer.get("notes") or ():
        print(f"memactors recall: {note}", file=sys.stderr)
    if "error" in answer:
        print(f"memactors: {answer['error']}", file=sys.stderr)
        return 2
    document, text, code = answer.get("document"), str(answer.get("text", "")), int(answer["code"])
    if document is None:
        print(f"memactors: {text}", file=sys.stderr)
    elif args.json:
        print(json.dumps(document, indent=2, default=str))
    else:
        print(text)
    return code
