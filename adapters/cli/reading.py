"""What the agent reads: `recall` over the read model and the SessionStart hook `context`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from memactors.adapters.cli.common import (
    EXIT_ERRORS,
    EXIT_OK,
    Parents,
    UsageError,
    check_namespaces,
    emit,
    load_settings,
    open_store,
)


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
                            "date, the memory that reports it and the alternatives; --reason forces that.",
                            epilog="--json prints a list of results (id, kind, namespace, tier, widened, score, "
                            "relevance, summary, title, timestamp, superseded_by; copies, first_seen, last_seen "
                            "for a capture stored several times); for a date question an answer (answer, "
                            "confidence, reasoning, temporal_resolutions, source_memory_ids, alternatives). "
                            "Exit 2 before the first consolidation.")
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--mode", choices=["reflexive", "standard", "deep", "exhaustive"],
                   help="search exactly these tiers (default: hot and warm first, widened to colder tiers "
                   "when they hold too few relevant results; exhaustive for date questions)")
    p.add_argument("--limit", type=int, default=10, metavar="N", help="results to show (default 10)")
    p.add_argument("--namespace", action="append", metavar="NS", help="only this namespace (repeatable)")
    p.add_argument("--reason", action="store_true",
                   help="answer with a date, resolving relative dates (automatic for when did / what date / "
                   "how long ago questions)")
    p.add_argument("--no-track", action="store_true", help="do not record these results as uses")

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
    from memactors.adapters.cli.text_input import Cleaned, clean_line
    from memactors.adapters.reading.read_cache import ReadCache, ReadModelMissing
    from memactors.adapters.reading.recall import MAX_QUERY_CHARS

    query = " ".join(clean_line(args.query, "the query", Cleaned()).split())
    if not query:
        raise UsageError("the query is empty; say what to look for")
    if len(query) > MAX_QUERY_CHARS:
        raise UsageError(f"the query is {len(query)} characters; the limit is {MAX_QUERY_CHARS}: shorten it")
    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    settings = load_settings()
    embedder = None
    if settings.embeddings != "none":
        from memactors.adapters.models.embeddings import (
            PrefetchedQuery,
            embedder_from_env,
        )

        # the model loads and embeds the query while the store opens and the index loads: most of a cold
        # recall's time (wasted only when there is no index yet, or one without vectors)
        embedder = PrefetchedQuery(embedder_from_env(one_shot=True), query)
    store = open_store(args.repo, settings)
    try:
        index = ReadCache(store.git.common_dir).load()
    except ReadModelMissing as exc:
        raise UsageError(f"{exc}: run `memactors consolidate` first") from None
    from memactors.actors.algorithms.temporal import is_temporal_question

    reason = args.reason or is_temporal_question(query)
    mode = args.mode or ("exhaustive" if reason else None)
    from memactors.adapters.reading.recall import search, semantic

    if index.model_id is None:
        embedder = None
    depth = args.limit
    if reason:
        from memactors.adapters.reading.date_answer import EVIDENCE_DEPTH

        depth = max(args.limit, EVIDENCE_DEPTH)
    check_namespaces(args.namespace, index.columns.namespaces)
    hits = search(index, query, mode=mode, limit=depth, namespaces=args.namespace, embedder=embedder)
    notes = []
    if not semantic(index, embedder):
        notes.append("matching words only (the index has no vectors for this embedding model)")
    current = {ref: store.git.tip(ref) for ref in store.git.memory_refs().values()}
    if current != index.memory_tips:
        notes.append("memories changed since the last consolidation are not searchable yet: "
                     "run `memactors consolidate`")
    if reason:
        for note in notes:
            print(f"memactors recall: {note}", file=sys.stderr)
        return _reason(args, query, store, settings, hits, index)
    _track(args, store, (h.entry.key for h in hits if h.entry.kind.value == "memory"), notes)
    for note in notes:
        print(f"memactors recall: {note}", file=sys.stderr)
    searched = f"{mode}: {', '.join(_mode_tiers(mode))}" if mode else "hot and warm first"
    lines = [f"{len(hits)} results for {query!r} ({searched})"]
    widened = sum(h.widened for h in hits)
    for h in hits:
        e = h.entry
        mark = "+" if h.widened else " "
        lines.append(f"  {h.score:.2f} {mark}[{e.tier.value}] {e.namespace:<13} {(e.title or e.summary)[:100]}")
        when = (f"{e.first_seen:%Y-%m-%d} .. {e.last_seen:%Y-%m-%d}, {e.copies} copies"
                if e.copies > 1 and e.first_seen and e.last_seen else f"{e.timestamp:%Y-%m-%d}")
        lines.append(f"        {e.id}  {when}")
        if e.superseded_by:
            lines.append(f"        superseded by {e.superseded_by}" +
                         (f" \"{e.superseded_by_text[:70]}\"" if e.superseded_by_text else ""))
        for fact in e.superseded_facts[:3]:
            lines.append(f"        no longer true: {fact[:80]}")
    if widened:
        lines.append(f"  + {widened} widened: from cold or archived memories, as hot and warm held too few "
                     "relevant results (--mode standard searches only those)")
    if not hits:
        lines.append("  nothing relevant" + ("; try --mode exhaustive" if mode and mode != "exhaustive" else ""))
    emit(args, [h.as_json() for h in hits], "\n".join(lines))
    return EXIT_OK


def _track(args: argparse.Namespace, store, keys, notes: list[str]) -> None:
    """Record `keys` as used now (unless --no-track); a failure is a note, never an error."""
    if args.no_track:
        return
    from memactors.adapters.claude.activation_log import ActivationLog
    from memactors.adapters.runtime.clock import SystemClock

    try:
        ActivationLog(store.git.common_dir).record(keys, SystemClock().now())
    except OSError as exc:
        notes.append(f"uses not recorded ({exc})")


def _mode_tiers(mode: str) -> list[str]:
    from memactors.adapters.reading.recall import MODES
    from memactors.events.tier import TIER_ORDER

    return [t.value for t in TIER_ORDER if t in MODES[mode]]


def _timezone(settings):
    try:
        return settings.zone()
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _reason(args: argparse.Namespace, query: str, store, settings, hits, index) -> int:
    import os

    from memactors.actors.algorithms.temporal import compose_answer
    from memactors.adapters.models.llm_config import resolve_chain
    from memactors.adapters.reading.date_answer import evidence_of
    from memactors.adapters.runtime.clock import SystemClock

    tz = _timezone(settings)
    evidence = evidence_of(store, hits, index)
    answer = compose_answer(query, evidence, now=SystemClock().now(), tz=tz)
    why = None
    try:
        configured = resolve_chain(os.environ)
    except ValueError as exc:
        raise UsageError(str(exc).splitlines()[0]) from None
    if configured and evidence:  # the LLM client is imported only when one is configured
        import trio

        from memactors.adapters.models.llm_chain import build_chain
        from memactors.adapters.reading.date_answer import reason_with_llm

        chain = build_chain(os.environ)
        assert chain is not None

        async def with_llm():
            try:
                return await reason_with_llm(chain, query, evidence, answer, tz)
            finally:
                await chain.aclose()

        answer, why = trio.run(with_llm)
        if why:
            print(f"memactors recall: the LLM could not answer ({why}); the offline answer stands", file=sys.stderr)
    # what the answer rests on and offers instead is what was used, not every candidate weighed
    shown = [*answer.source_memory_ids, *(m for a in answer.alternatives for m in a.source_memory_ids)]
    notes: list[str] = []
    _track(args, store, (index.entries[row].key for m in dict.fromkeys(shown)
                         if (row := index.entries.row_of(m)) is not None), notes)
    for note in notes:
        print(f"memactors recall: {note}", file=sys.stderr)
    doc = answer.model_dump(mode="json")
    lines = [answer.answer, f"  confidence {answer.confidence:.2f} ({answer.provider})", f"  {answer.reasoning}"]
    for r in answer.temporal_resolutions[:5]:
        span = f" .. {r.resolved_end.isoformat()}" if r.resolved_end else ""
        lines.append(f"  \"{r.original_text}\" in {r.memory_id[:20]}… (recorded "
                     f"{r.memory_timestamp.astimezone(tz):%Y-%m-%d}) -> {r.resolved_date.isoformat()}{span}")
    if answer.source_memory_ids:
        lines.append("  sources: " + ", ".join(answer.source_memory_ids))
    for alternative in answer.alternatives:
        lines.append(f"  or {alternative.answer} (confidence {alternative.confidence:.2f}, "
                     f"{', '.join(alternative.source_memory_ids)})")
    emit(args, doc, "\n".join(lines))
    return EXIT_ERRORS if why else EXIT_OK


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
