"""Reading and deciding on memories: `capture`, `show`, `status`, `tiers`, `edges`, `graph`, `conflicts`, `resolve`,
`link`.
Each command parses its arguments and prints what an operation (adapters/operations) returns."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memactors.adapters.cli.common import (
    MAX_SUMMARY_CHARS,
    Parents,
    UsageError,
    report,
)


def register(commands: Any, parents: Parents) -> dict[str, Any]:
    """Add this group's subcommands to `commands`; return their handlers by name."""
    common, reporting = parents.common, parents.reporting
    p = commands.add_parser("capture", parents=[common, reporting],
                            help="append a memory exactly as git-notes-memory does",
                            description="Append a memory to the note of HEAD under refs/notes/mem/<namespace>, "
                            "in git-notes-memory's layout, and print its ID. The body is --content, or stdin "
                            "when stdin is not a terminal.")
    p.add_argument("--namespace", required=True, metavar="NS",
                   help="where the memory belongs: decisions, learnings, blockers, progress, patterns, research, "
                   "reviews, retrospective, inception or elicitation")
    p.add_argument("--summary", required=True, help=f"one line, at most {MAX_SUMMARY_CHARS} characters")
    p.add_argument("--content", help="the markdown body (default: read stdin)")
    p.add_argument("--tags", default="", help="comma-separated tags")
    p.add_argument("--spec", help="the spec this memory belongs to")
    p.add_argument("--phase", help="lifecycle phase")
    p.add_argument("--relates-to", default="", metavar="IDS", help="comma-separated related memory IDs")

    p = commands.add_parser("show", parents=[common, reporting], help="print one memory and its metadata",
                            description="Print one memory, by `<namespace>:<sha>:<index>` (full or 7-char "
                            "sha) or by its stable key, with its tier and retention factors. Exit 1 if unknown.")
    p.add_argument("memory_id", metavar="MEMORY-ID")

    p = commands.add_parser("status", parents=[common, reporting], help="counts per namespace and tier, last run",
                            description="Memory counts per namespace and tier, skipped entries and the last run.")

    p = commands.add_parser("tiers", parents=[common, reporting], help="the tier distribution and its memories",
                            description="The tier distribution and the memories in each tier, best first.")
    p.add_argument("--limit", type=int, default=10, metavar="N",
                   help="memories listed per tier in text output (default 10; --json lists all)")

    p = commands.add_parser("edges", parents=[common, reporting], help="a memory's relationships",
                            description="What a memory supersedes or is superseded by, what it subsumes, the "
                            "summary it is consolidated into, what it references and contradicts, with reasons. "
                            "--json prints a list of edges (source_id, target_id, edge_type, weight, reason, "
                            "created_at, consolidation_run_id).")
    p.add_argument("memory_id", metavar="MEMORY-ID")

    p = commands.add_parser("conflicts", parents=[common, reporting], help="contradictions waiting for you",
                            description="Pairs the judge found contradictory or ambiguous. Decide each with "
                            "`memactors resolve CONFLICT-ID --keep MEMORY-ID` or `--both`.")

    p = commands.add_parser("resolve", parents=[common, reporting], help="decide a conflict",
                            description="Record your decision on a conflict: --keep MEMORY-ID supersedes the other "
                            "memory of the pair; --both keeps both. Later runs honour it and never re-judge the pair. "
                            "A conflict already decided otherwise changes only with --change.")
    p.add_argument("conflict_id", metavar="CONFLICT-ID")
    choice = p.add_mutually_exclusive_group(required=True)
    choice.add_argument("--keep", metavar="MEMORY-ID", help="the memory that stands")
    choice.add_argument("--both", action="store_true", help="both memories stand")
    p.add_argument("--change", action="store_true", help="replace your earlier decision on this conflict")

    p = commands.add_parser("graph", parents=[common, reporting], help="a memory's links, followed to a depth",
                            description="What a memory supersedes and what superseded it, its copies, the summary it "
                            "belongs to, what it references and contradicts, the links runs found or you added "
                            "(relates to, depends on, implements, extends, supports) — and their links in turn, to "
                            "--depth hops (cycles visited once, at most 60 memories).")
    p.add_argument("memory_id", metavar="MEMORY-ID")
    p.add_argument("--depth", type=int, default=2, metavar="N", help="hops to follow (1-5, default 2)")
    p.add_argument("--type", metavar="TYPES", help="only these edge types, comma-separated: supersedes, subsumes, "
                   "consolidates, references, contradicts, relates_to, depends_on, implements, extends, supports")
    p.add_argument("--format", choices=["text", "json", "mermaid", "dot"], default="text",
                   help="text (default), json, or a Mermaid or Graphviz DOT graph to paste or render")

    p = commands.add_parser("link", parents=[common, reporting], help="add or remove a link between two memories",
                            description="Link MEMORY-A to MEMORY-B (A relates to / depends on / implements / "
                            "extends / supports B), or with --remove take back the links between them (every type, "
                            "or --type's). Recorded at once, like a resolution: runs keep a link you added and "
                            "never link a pair you unlinked. No memory is rewritten.")
    p.add_argument("source", metavar="MEMORY-A")
    p.add_argument("target", metavar="MEMORY-B")
    p.add_argument("--type", choices=["relates_to", "depends_on", "implements", "extends", "supports"],
                   help="the link's type (default relates_to; with --remove, only links of this type)")
    p.add_argument("--remove", action="store_true", help="remove the link(s) instead of adding one")
    p.add_argument("--reason", default="", help="why, shown with the link (at most 300 characters)")

    p = commands.add_parser("decay", parents=[common, reporting], help="what the coming runs move to colder tiers",
                            description="Each memory's retention --days ahead if nothing is used (uses recall "
                            "recorded are counted), against the tier it holds now: which move to a colder tier and "
                            "the factors behind each (recency, activation, importance, quality, superseded); with "
                            "--threshold, also which fall below it. On the store clock (the default) time is the "
                            "project's: it moves as memories are captured.")
    p.add_argument("--days", type=float, default=30.0, metavar="N", help="how far ahead (default 30, at most 365)")
    p.add_argument("--threshold", type=float, metavar="X", help="also list memories whose retention falls below X")
    p.add_argument("--limit", type=int, default=50, metavar="N", help="rows shown per list (default 50)")

    for verb, word, tier in (("pin", "pinned", "hot"), ("archive", "archived", "archived")):
        p = commands.add_parser(verb, parents=[common, reporting], help=f"keep a memory {tier} whatever its retention",
                                description=f"Your word on a memory's tier: it stays {tier} through every run "
                                "(written at once to refs/notes/mem-meta; `sync` carries it to other clones, the "
                                "latest word winning). --undo takes it back: the next run gives the memory the tier "
                                "its retention earns. Nothing is deleted or rewritten.",
                                epilog="Exit codes: 0 done (also when it already was, or was not); 2 unknown memory "
                                "or one never tiered.")
        p.add_argument("memory_id", metavar="MEMORY-ID")
        p.add_argument("--undo", action="store_true", help=f"take back the {verb}")
        p.set_defaults(pin_word=word)

    return {"capture": _cmd_capture, "show": _cmd_show, "status": _cmd_status, "tiers": _cmd_tiers,
            "edges": _cmd_edges, "graph": _cmd_graph, "decay": _cmd_decay, "conflicts": _cmd_conflicts,
            "resolve": _cmd_resolve, "link": _cmd_link, "pin": _cmd_pin, "archive": _cmd_pin}


def _cmd_pin(args: argparse.Namespace) -> int:
    from memactors.adapters.operations.pins import set_pin

    return report(args, set_pin(args.repo, args.memory_id, args.pin_word, undo=args.undo))


def _cmd_capture(args: argparse.Namespace) -> int:
    from memactors.adapters.operations.text_input import (
        Cleaned,
        clean_body,
        clean_line,
        read_stdin_text,
    )
    from memactors.adapters.operations.memories import capture
    from memactors.events.memory import KNOWN_NAMESPACES

    if args.namespace not in KNOWN_NAMESPACES:
        raise UsageError(f"unknown namespace {args.namespace!r}; use one of: {', '.join(KNOWN_NAMESPACES)}")
    cleaned = Cleaned()
    summary = clean_line(args.summary, "--summary", cleaned).strip()
    if not summary or "\n" in summary:
        raise UsageError("--summary must be one non-empty line")
    if len(summary) > MAX_SUMMARY_CHARS:
        raise UsageError(f"--summary is {len(summary)} characters; the limit is {MAX_SUMMARY_CHARS}")
    if args.content is not None:
        content = clean_body(args.content, "--content", cleaned)
    elif not sys.stdin.isatty():
        content = clean_body(read_stdin_text("the memory's content"), "stdin", cleaned)
    else:
        content = ""

    def items(value: str, what: str) -> list[str]:
        parts = (clean_line(part, what, cleaned).replace("\n", " ").strip() for part in value.split(","))
        return [part for part in parts if part]

    tags, relates = items(args.tags, "--tags"), items(args.relates_to, "--relates-to")
    spec = clean_line(args.spec, "--spec", cleaned).replace("\n", " ").strip() if args.spec else None
    phase = clean_line(args.phase, "--phase", cleaned).replace("\n", " ").strip() if args.phase else None
    return report(args, capture(args.repo, args.namespace, summary, content, tags=tags, relates_to=relates,
                                spec=spec, phase=phase, changed=cleaned.describe()))


def _cmd_show(args: argparse.Namespace) -> int:
    from memactors.adapters.operations.memories import show

    return report(args, show(args.repo, args.memory_id))


def _cmd_status(args: argparse.Namespace) -> int:
    from memactors.adapters.operations.memories import status

    return report(args, status(args.repo, verbose=args.verbose))


def _cmd_tiers(args: argparse.Namespace) -> int:
    from memactors.adapters.operations.memories import tiers

    return report(args, tiers(args.repo, limit=args.limit))


def _cmd_edges(args: argparse.Namespace) -> int:
    from memactors.adapters.operations.memories import edges

    return report(args, edges(args.repo, args.memory_id))


def _cmd_graph(args: argparse.Namespace) -> int:
    from memactors.adapters.operations.graph import graph

    types = [t.strip() for t in args.type.split(",") if t.strip()] if args.type else None
    outcome = graph(args.repo, args.memory_id, depth=args.depth, types=types, fmt=args.format)
    if outcome.document is not None and args.format != "text" and not args.json:
        print(outcome.text)
        return outcome.code
    return report(args, outcome)


def _cmd_decay(args: argparse.Namespace) -> int:
    from memactors.adapters.operations.decay import decay

    return report(args, decay(args.repo, days=args.days, threshold=args.threshold, limit=args.limit))


def _cmd_conflicts(args: argparse.Namespace) -> int:
    from memactors.adapters.operations.memories import conflicts

    return report(args, conflicts(args.repo))


def _cmd_resolve(args: argparse.Namespace) -> int:
    from memactors.adapters.operations.memories import resolve

    return report(args, resolve(args.repo, args.conflict_id, keep=args.keep, both=args.both,
                               change=args.change))


def _cmd_link(args: argparse.Namespace) -> int:
    from memactors.adapters.operations.links import link

    return report(args, link(args.repo, args.source, args.target, edge_type=args.type, remove=args.remove,
                             reason=args.reason))
