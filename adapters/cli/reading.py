"""What the agent reads: `recall` over the read model and the SessionStart hook `context`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from memactors.adapters.cli.common import (
    EXIT_OK,
    Parents,
    report,
)
from memactors.adapters.cli.recall_fast import add_recall_arguments, answer_from_daemon


def register(commands: Any, parents: Parents) -> dict[str, Any]:
    """Add this group's subcommands to `commands`; return their handlers by name."""
    common, reporting = parents.common, parents.reporting
    p = commands.add_parser("recall", parents=[common, reporting], help="search memories and summaries",
                            description="Hybrid search over the consolidated memories and summaries: meaning "
                            "(local embeddings) fused with words (a BM25 index; rare words and names count). With "
                            "no --mode, hot and warm results come first; when fewer than --limit of them are "
                            "relevant enough, the list is filled from cold and archived memories, marked "
                            "'widened'. An explicit --mode searches exactly its tiers: reflexive = hot; standard "
                            "= hot + warm (summaries live in warm); deep adds cold; exhaustive adds archived. "
                            "Superseded memories show what replaced them. Each memory returned counts as a use "
                            "(folded into its retention by the next run). Questions asking when something "
                            "happened (when did / was / is ..., what date, how long ago) are answered with the "
                            "date, the memory that reports it and the alternatives; --reason forces that. --answer "
                            "answers any question from the memories, citing each one it quotes.",
                            epilog="--json prints a list of results (id, kind, namespace, tier, widened, score, "
                            "relevance, summary, title, timestamp, superseded_by; copies, first_seen, last_seen "
                            "for a capture stored several times); for a date question an answer (answer, "
                            "confidence, reasoning, temporal_resolutions, source_memory_ids, alternatives); with --answer "
                            "{query, answer: {text, answered, citations, reasoning, confidence, provider, left_out}, "
                            "results}. "
                            "Exit 2 before the first consolidation.")
    add_recall_arguments(p)

    p = commands.add_parser("context", parents=[common],
                            help="the Claude Code SessionStart hook: print the consolidated context",
                            description="Print the SessionStart hook output: {\"hookSpecificOutput\": "
                            "{\"hookEventName\": \"SessionStart\", \"additionalContext\": ...}} holding one "
                            "<memory_consolidated_summaries> block, one readable line per item: the key current "
                            "decisions and learnings, then summaries and memories of any tier by priority for this "
                            "session, within a token budget. Reads the hook JSON from stdin "
                            "when stdin is not a terminal. Reads only what the last run precomputed (no model, "
                            "no git notes scan); always exits 0, problems go to stderr.")
    p.add_argument("--budget", type=int, metavar="TOKENS",
                   help="token budget of the block (default MEMACTORS_CONTEXT_TOKENS or 2000)")
    p.add_argument("--block", action="store_true", help="print only the block, not the hook JSON")

    return {"recall": _cmd_recall, "context": _cmd_context}


def _cmd_recall(args: argparse.Namespace) -> int:
    from memactors.adapters.operations.recall import print_notes, recall

    answered = answer_from_daemon(args)
    if answered is not None:
        return answered
    notes: list[str] = []
    try:
        if args.answer:
            from memactors.adapters.operations.answer import answer

            outcome = answer(args.repo, args.query, mode=args.mode, limit=args.limit, namespaces=args.namespace,
                             track=not args.no_track, notes=notes)
        else:
            outcome = recall(args.repo, args.query, mode=args.mode, limit=args.limit, namespaces=args.namespace,
                             reason=args.reason, track=not args.no_track, notes=notes)
    finally:
        print_notes("recall", notes)
    return report(args, outcome)


def _cmd_context(args: argparse.Namespace) -> int:
    """Standard library only, and never an error exit: a SessionStart hook must not break the session."""
    import os

    from memactors.adapters.claude.session_context import hook_output, session_start

    try:
        raw = None if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    except (OSError, ValueError):
        raw = None
    repo = None if args.repo == Path(".") else args.repo
    block, notes = session_start(raw, repo, os.environ, budget_tokens=args.budget)
    for note in notes:
        print(f"memactors context: {note}", file=sys.stderr)
    print(block if args.block else hook_output(block))
    return EXIT_OK
