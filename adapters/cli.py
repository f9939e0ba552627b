"""The `memactors` command line.

Exit codes (DESIGN.md §7): 0 done; 1 done with fallbacks or recorded
errors (or, for `show`, an unknown ID); 2 usage or environment error;
3 refused because another run holds the repository.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_BUSY = 0, 1, 2, 3
MAX_SUMMARY_CHARS = 100
MAX_CONTENT_BYTES = 100 * 1024


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit 2."""


def _parser() -> argparse.ArgumentParser:
    verbose = argparse.ArgumentParser(add_help=False)
    verbose.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    common = argparse.ArgumentParser(add_help=False, parents=[verbose])
    common.add_argument("--repo", type=Path, default=Path("."), metavar="PATH",
                        help="the git repository (default: the one containing the current directory)")
    reporting = argparse.ArgumentParser(add_help=False)
    reporting.add_argument("--json", action="store_true", help="print one JSON document instead of text")

    parser = argparse.ArgumentParser(
        prog="memactors",
        description="Consolidate the memories coding agents keep in git notes: score every memory, "
        "sort it into hot / warm / cold / archived tiers, and keep that state in refs/notes/mem-*. "
        "Originals under refs/notes/mem/* are never changed.",
        epilog="Exit codes: 0 done, 1 done with errors, 2 usage or environment error, "
        "3 another run holds the repository.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = commands.add_parser("consolidate", parents=[common, reporting],
                            help="scan, tier and persist every memory",
                            description="Scan every memory, compute its retention and tier, and persist the "
                            "result to refs/notes/mem-meta with a run record in refs/notes/mem-runs. A run "
                            "that changes nothing writes nothing.")
    p.add_argument("--dry-run", action="store_true", help="compute and report, write nothing")
    p.add_argument("--namespace", action="append", metavar="NS",
                   help="limit the run to this namespace (repeatable)")
    p.add_argument("--full", action="store_true",
                   help="re-process everything: re-read every note, re-summarize and re-judge every cluster")
    p.add_argument("--max-llm-calls", type=int, metavar="N",
                   help="cap this run's LLM calls; clusters beyond the cap are handled offline")

    p = commands.add_parser("capture", parents=[common, reporting],
                            help="append a memory exactly as git-notes-memory does",
                            description="Append a memory to the note of HEAD under refs/notes/mem/<namespace>, "
                            "in git-notes-memory's layout, and print its ID. The body is --content, or stdin "
                            "when stdin is not a terminal.")
    p.add_argument("--namespace", required=True, metavar="NS")
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
                            "memory of the pair; --both keeps both. Later runs honour it and never re-judge the pair.")
    p.add_argument("conflict_id", metavar="CONFLICT-ID")
    choice = p.add_mutually_exclusive_group(required=True)
    choice.add_argument("--keep", metavar="MEMORY-ID", help="the memory that stands")
    choice.add_argument("--both", action="store_true", help="both memories stand")

    p = commands.add_parser("recall", parents=[common, reporting], help="search memories and summaries by meaning",
                            description="Semantic search over the consolidated memories and summaries. Modes by "
                            "tier: reflexive = hot; standard = hot + warm (summaries live in warm); deep adds "
                            "cold; exhaustive adds archived. Superseded memories show what replaced them. Each "
                            "memory returned counts as a use (folded into its retention by the next run). "
                            "Questions about when / what date / how long ago are answered with --reason.",
                            epilog="--json prints a list of results (id, kind, namespace, tier, score, summary, "
                            "timestamp, superseded_by); with --reason an answer (answer, confidence, reasoning, "
                            "temporal_resolutions, source_memory_ids). Exit 2 before the first consolidation.")
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--mode", choices=["reflexive", "standard", "deep", "exhaustive"],
                   help="which tiers to search (default standard; exhaustive for --reason)")
    p.add_argument("--limit", type=int, default=10, metavar="N", help="results to show (default 10)")
    p.add_argument("--namespace", action="append", metavar="NS", help="only this namespace (repeatable)")
    p.add_argument("--reason", action="store_true",
                   help="answer a when / what date / how long ago question, resolving relative dates "
                   "(automatic for such questions)")
    p.add_argument("--no-track", action="store_true", help="do not record these results as uses")

    p = commands.add_parser("context", parents=[common],
                            help="the Claude Code SessionStart hook: print the consolidated context",
                            description="Print the SessionStart hook output: {\"hookSpecificOutput\": "
                            "{\"hookEventName\": \"SessionStart\", \"additionalContext\": ...}} holding one "
                            "<memory_consolidated_summaries> block of the highest-priority summaries and hot "
                            "memories for this session, within a token budget. Reads the hook JSON from stdin "
                            "when stdin is not a terminal. Reads only what the last run precomputed (no model, "
                            "no git notes scan); always exits 0, problems go to stderr.")
    p.add_argument("--budget", type=int, metavar="TOKENS",
                   help="token budget of the block (default MEMACTORS_CONTEXT_TOKENS or 2000)")
    p.add_argument("--block", action="store_true", help="print only the block, not the hook JSON")

    p = commands.add_parser("sync", parents=[common, reporting], help="share memories and state with a remote",
                            description="Fetch the remote's memory notes and memactors state refs, merge them "
                            "structurally (memory notes: every entry of both sides kept byte for byte, in time "
                            "order, identical entries once; state: unions by id, metadata field by field, your "
                            "conflict decisions kept) and push the result, fast-forward only; a push rejected "
                            "because someone pushed meanwhile is merged again, a bounded number of times. "
                            "Local refs move all at once: a killed sync leaves them at their old or new commits.",
                            epilog="Exit codes: 0 synced, 1 some refs were refused (see the report), 2 no such or "
                            "unreachable remote, unreadable state; 3 another memactors run holds the repository.")
    p.add_argument("--remote", default="origin", help="remote name, URL or path (default origin)")
    p.add_argument("--dry-run", action="store_true", help="fetch and report what would change; move and push nothing")
    p.add_argument("--setup", action="store_true",
                   help="instead: configure the remote so plain git push / fetch carry our refs, add them to "
                   "notes.rewriteRef and give them a merge strategy that never line-sorts (idempotent)")

    p = commands.add_parser("doctor", parents=[common, reporting], help="find notes damaged by line sorting",
                            description="Find memory notes whose entries a line-sorting merge (git notes merge -s "
                            "cat_sort_uniq) interleaved, and state notes (mem-meta, -summaries, -edges, -runs) whose "
                            "JSON it scrambled, with the commit each hangs on and the merge that did it. --repair "
                            "rebuilds memory notes from the notes history (the pre-merge parents) and state notes "
                            "from their own record lines (both sides' records, merged as sync merges them) into a "
                            "new notes commit; the damaged version stays in history.",
                            epilog="Exit codes: 0 healthy (or all repaired), 1 damage found (or some not "
                            "repairable), 2 not a repository.")
    p.add_argument("--repair", action="store_true", help="rebuild what can be rebuilt")
    p.add_argument("--dry-run", action="store_true", help="with --repair: report what would be rebuilt, write nothing")

    p = commands.add_parser("run", parents=[common], help="the background daemon: consolidate as memories arrive",
                            description="Keep the actors alive and run incremental consolidation when memories "
                            "arrive (a watcher on the memory refs), when hooks queue events (the inbox), and on "
                            "a schedule (a full run). Logs one line per run. Ctrl-C / SIGTERM finish the run in "
                            "flight and exit 0; a second daemon on the same repository exits 3.")
    p.add_argument("--schedule-hours", type=float, default=24.0, metavar="H", help="full run every H hours (24)")
    p.add_argument("--quiet-minutes", type=float, default=5.0, metavar="M",
                   help="after an agent turn ends (Stop hook), run once M minutes pass without activity (5)")
    p.add_argument("--debounce-seconds", type=float, default=2.0, metavar="S",
                   help="wait for S quiet seconds after a capture or commit before running (2)")
    p.add_argument("--threshold", type=int, default=50, metavar="N",
                   help="also run once N memories arrived since the last run, checked every 30 s (50)")

    p = commands.add_parser("publish", parents=[common],
                            help="queue a trigger from a hook (fast, never fails the hook)",
                            description="Drop one event into the repository's durable inbox (under git's common "
                            "dir) and return. `commit` is for git's post-commit hook; `session-end` for Claude "
                            "Code's Stop and SessionEnd hooks and reads the hook's JSON from stdin. Imports only "
                            "the standard library; always exits 0 (problems go to stderr). The next "
                            "`memactors consolidate` drains the inbox.")
    p.add_argument("event", choices=["commit", "session-end"])

    p = commands.add_parser("hooks", parents=[common], help="install or remove the git and Claude Code hooks",
                            description="install: add a post-commit hook (chained after an existing one) and "
                            "Stop/SessionEnd (queue a run) and SessionStart (`memactors context`) commands in "
                            ".claude/settings.json (merged with what is there). "
                            "uninstall: remove exactly what install added. With neither --git nor --claude, both.")
    p.add_argument("action", choices=["install", "uninstall"])
    p.add_argument("--git", action="store_true", help="only the git post-commit hook")
    p.add_argument("--claude", action="store_true", help="only the Claude Code settings")
    p.add_argument("--print", dest="print_only", action="store_true", help="show what would be written, write nothing")
    p.add_argument("--sync-remote", metavar="REMOTE",
                   help="also set up REMOTE for sharing memories (as `memactors sync --setup --remote REMOTE`)")

    p = commands.add_parser("demo", parents=[verbose, reporting], help="build a sample store and consolidate it",
                            description="Create a git repository at DIR with a realistic sample memory store "
                            "(several namespaces, months of captures, duplicates, stale decisions, a few broken "
                            "entries) and consolidate it.")
    p.add_argument("directory", type=Path, metavar="DIR", help="where to create it: a new or empty directory")
    p.add_argument("--memories", type=int, default=300, metavar="N", help="how many captures (default 300)")
    p.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
    return parser


# --- shared plumbing ---------------------------------------------------------------


def _settings():
    from pydantic import ValidationError

    from memactors.adapters.settings import Settings

    try:
        return Settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "settings"
        raise UsageError(f"invalid configuration MEMACTORS_{where.upper()}: {first['msg']}") from None


def _open_store(repo: Path, settings):
    from memactors.adapters.git_store import GitStore
    from memactors.adapters.memory_store import MemoryStore

    return MemoryStore(GitStore(repo, notes_base=settings.notes_base, lock_wait_seconds=settings.lock_wait_seconds))


def _emit(args: argparse.Namespace, document: Any, text: str) -> None:
    if args.json:
        print(json.dumps(document, indent=2, default=str))
    else:
        print(text)


def _counts(counter: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counter.items())) or "none"


# --- commands ------------------------------------------------------------------------


def _cmd_consolidate(args: argparse.Namespace) -> int:
    import trio

    from memactors.adapters.clock import SystemClock
    from memactors.adapters.repo_lock import RepoLock
    from memactors.adapters.runtime import RunOptions, consolidate

    if args.max_llm_calls is not None and args.max_llm_calls < 0:
        raise UsageError("--max-llm-calls must be 0 or more")
    if sys.stderr.isatty():  # progress for people watching; scripts get the report only
        logging.getLogger("memactors.progress").setLevel(logging.INFO)
    settings = _settings()
    store = _open_store(args.repo, settings)
    store.check_readable()
    namespaces = tuple(args.namespace) if args.namespace else None
    options = RunOptions(namespaces=namespaces, dry_run=args.dry_run, full=args.full)
    from memactors.adapters.inbox import Inbox

    with _run_lock(store, dry_run=args.dry_run):
        inbox = Inbox(store.git.common_dir)
        queued, corrupt = inbox.pending() if not args.dry_run else ([], [])  # hooks' events: a run consumes them
        for path in corrupt:
            logging.getLogger("memactors").warning("moved a corrupt inbox file aside: %s", path)
        services = _services(store, settings, SystemClock(), args.max_llm_calls)
        report = trio.run(lambda: consolidate(services, options, handle_signals=True))
        if report.phase == "completed":
            inbox.ack(queued)
            report = report.model_copy(update={"inbox_events": len(queued)})
    _emit(args, report.model_dump(mode="json"), _render_report(report, store.git.description))
    return EXIT_ERRORS if report.errors or report.phase == "failed" else EXIT_OK


@contextlib.contextmanager
def _run_lock(store, *, dry_run: bool) -> Iterator[None]:
    """Hold the repository's run lock; a run that writes first checks it can (one line, exit 2, if not).

    A dry run writes nothing: on a read-only repository, where nobody can write either, it runs
    without the lock.
    """
    from memactors.adapters.git_store import NotWritable
    from memactors.adapters.repo_lock import LockUnavailable, RepoLock

    if not dry_run:
        store.git.check_writable()
    try:
        lock = RepoLock(store.git.common_dir)
        lock.__enter__()
    except LockUnavailable as exc:
        if not dry_run:
            raise NotWritable(f"{exc}; a --dry-run needs no writes") from None
        yield
        return
    try:
        yield
    finally:
        lock.__exit__(None, None, None)


def _services(store, settings, clock, max_llm_calls: int | None = None):
    from memactors.adapters.runtime import build_services

    try:
        return build_services(store, settings, clock, max_llm_calls=max_llm_calls)
    except ValueError as exc:
        raise UsageError(str(exc).splitlines()[0]) from None


def _render_report(report, where: str) -> str:
    from memactors.events.tier import TIER_ORDER

    skipped = sum(report.memories_skipped.values())
    lines = [f"memactors consolidate: run {report.run_id} ({report.trigger}) in {where}"]
    if report.phase == "failed":
        lines.append("  FAILED: " + "; ".join(report.errors))
        return "\n".join(lines)
    scope = f" in {', '.join(report.namespaces)}" if report.namespaces else ""
    lines.append(f"  scanned     {report.memories_processed} memories{scope}")
    lines.append(f"  skipped     {skipped} entries" + (f" ({_counts(report.memories_skipped)})" if skipped else ""))
    if report.parse_warnings:
        lines.append(f"  read with   {_counts(report.parse_warnings)} (originals untouched)")
    tiers = " · ".join(f"{t.value} {report.tier_counts.get(t.value, 0)}" for t in TIER_ORDER)
    lines.append(f"  tiers       {tiers}")
    lines.append(f"  transitions {_counts(report.tier_transitions)}")
    if report.memories_embedded or report.clusters_found or report.duplicates_collapsed:
        lines.append(f"  clusters    {report.clusters_found} of 3+ and {report.pairs_found} pairs, "
                     f"{report.duplicates_collapsed} exact duplicates collapsed, "
                     f"{report.summaries_created} summaries written")
        lines.append(f"  judged      {report.supersessions_detected} newly superseded or subsumed, "
                     f"{report.contradictions_flagged} contradictions for you (`memactors conflicts`)")
        usage = report.token_usage
        by = ", ".join(f"{k} {v}" for k, v in report.providers.items()) or "nothing new"
        cost = f", ~${usage.cost_usd:.4f}" if usage.cost_usd else ""
        failed = f" ({usage.llm_failed} failed)" if usage.llm_failed else ""
        lines.append(f"  llm         {usage.llm_calls} requests{failed}, {usage.tokens_in} tokens in, "
                     f"{usage.tokens_out} out"
                     f"{cost}; summaries and verdicts by {by}")
        if report.providers and set(report.providers) == {"offline"}:
            lines.append("              offline summaries and judge: set MEMORY_CONSOLIDATION_LLM_PROVIDER="
                         "openai|lmstudio|ollama for LLM ones")
    if report.phase == "dry_run":
        lines.append("  dry run: nothing written")
    elif report.persisted:
        lines.append(f"  persisted   {', '.join(report.refs_updated)}")
    else:
        lines.append("  nothing changed: no ref written")
    for error in report.errors:
        lines.append(f"  error       {error}")
    if report.inbox_events:
        lines.append(f"  drained     {report.inbox_events} hook events from the inbox")
    lines.append(f"  took        {report.duration_seconds:.2f} s")
    if report.memories_processed == 0 and not skipped:
        lines.append("  no memories found under refs/notes/mem/*: capture one with `memactors capture`")
    return "\n".join(lines)


def _cmd_capture(args: argparse.Namespace) -> int:
    from datetime import timezone

    from memactors.adapters.clock import SystemClock
    from memactors.adapters.note_format import append_entry, serialize_entry, upstream_next_index
    from memactors.events.memory import KNOWN_NAMESPACES

    if args.namespace not in KNOWN_NAMESPACES:
        raise UsageError(f"unknown namespace {args.namespace!r}; use one of: {', '.join(KNOWN_NAMESPACES)}")
    summary = args.summary.strip()
    if not summary or "\n" in summary:
        raise UsageError("--summary must be one non-empty line")
    if len(summary) > MAX_SUMMARY_CHARS:
        raise UsageError(f"--summary is {len(summary)} characters; the limit is {MAX_SUMMARY_CHARS}")
    if args.content is not None:
        content = args.content
    elif not sys.stdin.isatty():
        content = sys.stdin.read()
    else:
        content = ""
    if len(content.encode()) > MAX_CONTENT_BYTES:
        raise UsageError(f"content is {len(content.encode())} bytes; the limit is {MAX_CONTENT_BYTES}: split it")
    settings = _settings()
    store = _open_store(args.repo, settings)
    front: dict[str, Any] = {
        "type": args.namespace,
        "timestamp": SystemClock().now().astimezone(timezone.utc).isoformat(),
        "summary": summary,
    }
    if args.spec:
        front["spec"] = args.spec
    if args.phase:
        front["phase"] = args.phase
    tags = [t.strip() for t in args.tags.split(",") if t.strip()]
    if tags:
        front["tags"] = tags
    relates = [r.strip() for r in args.relates_to.split(",") if r.strip()]
    if relates:
        front["relates_to"] = relates
    entry = serialize_entry(front, content)
    assigned: list[int] = []

    def new_note(existing: bytes | None) -> bytes:
        assigned.append(upstream_next_index(existing))
        return append_entry(existing, entry)

    store.git.check_writable()
    commit = store.git.append_memory_note(args.namespace, new_note)
    memory_id = f"{args.namespace}:{commit}:{assigned[-1]}"
    _emit(args, {"id": memory_id, "namespace": args.namespace, "commit": commit, "summary": summary}, memory_id)
    return EXIT_OK


def _view(args: argparse.Namespace):
    from memactors.adapters.clock import SystemClock
    from memactors.adapters.store_view import load_view

    settings = _settings()
    store = _open_store(args.repo, settings)
    store.check_readable()
    return store, load_view(store, settings.retention_policy(), SystemClock().now())


def _memory_json(view) -> dict[str, Any]:
    memory = view.memory
    return {
        "id": memory.id,
        "upstream_id": memory.upstream_id,
        "aliases": list(memory.aliases),
        "key": memory.key,
        "namespace": memory.namespace,
        "commit": memory.commit,
        "timestamp": memory.timestamp.isoformat(),
        "summary": memory.summary,
        "body": memory.body,
        "tags": list(memory.tags),
        "spec": memory.spec,
        "phase": memory.phase,
        "status": memory.status,
        "relates_to": list(memory.relates_to),
        "tier": view.tier,
        "retention": view.retention.model_dump(),
        "meta": view.meta.model_dump(mode="json") if view.meta else None,
    }


def _show_summary(args: argparse.Namespace, store, view) -> int | None:
    wanted = args.memory_id.strip().removeprefix("summary:")
    if len(wanted) < 6:
        return None
    summaries = [s for sid, s in store.load_state().summaries.items() if sid.startswith(wanted)]
    if len(summaries) != 1:
        return None
    summary = summaries[0]
    lines = [f"summary:{summary.id}  [warm]  {summary.provider}/{summary.model}, confidence {summary.confidence:.2f}",
             f"  {summary.text}", f"  covers {summary.earliest:%Y-%m-%d} .. {summary.latest:%Y-%m-%d}, "
             f"{len(summary.source_keys)} memories"]
    lines += [f"  fact: {fact}" for fact in summary.key_facts]
    lines += [f"  decision: {d.decision} ({d.outcome})" + (f" because {d.rationale}" if d.rationale else "")
              for d in summary.decisions]
    lines += [f"  superseded: {fact}" for fact in summary.superseded_facts]
    lines += [f"  source {_label(view, key)}" for key in summary.source_keys]
    doc = {"kind": "summary", "tier": "warm", **summary.model_dump(mode="json")}
    _emit(args, doc, "\n".join(lines))
    return EXIT_OK


def _cmd_show(args: argparse.Namespace) -> int:
    store, view = _view(args)
    found = view.find(args.memory_id.strip())
    if found is None:
        shown = _show_summary(args, store, view)
        if shown is not None:
            return shown
        print(f"memactors: no memory {args.memory_id!r} in {args.repo} "
              "(IDs look like decisions:<sha>:<index>; see `memactors tiers`)", file=sys.stderr)
        return EXIT_ERRORS
    doc = {"kind": "memory", **_memory_json(found)}
    r = found.retention
    lines = [
        f"{found.memory.id}  [{found.tier}]",
        f"  summary    {found.memory.summary}",
        f"  namespace  {found.memory.namespace}    captured {found.memory.timestamp.isoformat()}",
        f"  retention  {r.score:.3f} = recency {r.recency:.2f} · activation {r.activation:.2f} · "
        f"importance {r.importance:.2f}" + ("  (superseded x0.2)" if r.superseded else ""),
        f"  key        {found.memory.key}",
    ]
    if found.memory.upstream_id != found.memory.id:
        lines.append(f"  alias      {found.memory.upstream_id} (git-notes-memory's numbering)")
    lines += [f"  alias      {alias} (the same entry on another commit)" for alias in found.memory.aliases]
    if found.memory.tags:
        lines.append(f"  tags       {', '.join(found.memory.tags)}")
    if found.meta and found.meta.superseded_by:
        lines.append(f"  superseded by {_label(view, found.meta.superseded_by)}")
    if found.meta and found.meta.consolidated_into:
        lines.append(f"  summarized in summary:{found.meta.consolidated_into}")
    if found.memory.body:
        lines += ["", found.memory.body]
    _emit(args, doc, "\n".join(lines))
    return EXIT_OK


def _cmd_status(args: argparse.Namespace) -> int:
    from memactors.events.tier import TIER_ORDER

    store, view = _view(args)
    by_ns: dict[str, dict[str, int]] = {}
    for item in view.memories:
        row = by_ns.setdefault(item.memory.namespace, {})
        row[item.tier] = row.get(item.tier, 0) + 1
    last = store.last_run()
    doc = {
        "repository": store.git.description,
        "memories": len(view.memories),
        "namespaces": {ns: dict(sorted(row.items())) for ns, row in sorted(by_ns.items())},
        "tier_counts": dict(view.tier_counts()),
        "skipped": dict(sorted(view.scan.skipped.items())),
        "parse_warnings": dict(sorted(view.scan.warnings.items())),
        "last_run": last,
    }
    columns = [t.value for t in TIER_ORDER] + ["untiered"]
    lines = [f"memactors status: {len(view.memories)} memories in {store.git.description}"]
    if view.memories:
        lines.append(f"  {'namespace':<14}" + "".join(f"{c:>10}" for c in columns))
        for ns, row in sorted(by_ns.items()):
            lines.append(f"  {ns:<14}" + "".join(f"{row.get(c, 0):>10}" for c in columns))
    lines.append(f"  skipped entries: {_counts(dict(view.scan.skipped))}")
    if args.verbose and view.scan.warnings:
        lines.append(f"  read with: {_counts(dict(view.scan.warnings))}")
    if last:
        lines.append(f"  last run: {last['run_id']} ({last['trigger']}) at {last['completed_at']}, "
                     f"{last['memories_processed']} memories, {len(last.get('errors', []))} errors")
    else:
        lines.append("  no run yet: `memactors consolidate` scores and tiers every memory")
    _emit(args, doc, "\n".join(lines))
    return EXIT_OK


def _cmd_tiers(args: argparse.Namespace) -> int:
    from memactors.events.tier import TIER_ORDER

    _, view = _view(args)
    groups: dict[str, list] = {t.value: [] for t in TIER_ORDER}
    for item in view.memories:
        groups.setdefault(item.tier, []).append(item)
    for items in groups.values():
        items.sort(key=lambda v: (-v.retention.score, v.memory.id))
    doc = {
        "tier_counts": {tier: len(items) for tier, items in groups.items()},
        "tiers": {
            tier: [
                {"id": v.memory.id, "namespace": v.memory.namespace, "summary": v.memory.summary,
                 "score": round(v.retention.score, 4), "timestamp": v.memory.timestamp.isoformat()}
                for v in items
            ]
            for tier, items in groups.items()
        },
    }
    lines = []
    for tier, items in groups.items():
        lines.append(f"{tier.upper()} ({len(items)})")
        for v in items[: args.limit]:
            lines.append(f"  {v.retention.score:.2f}  {v.memory.namespace:<13} {v.memory.summary[:70]}  "
                         f"{v.memory.namespace}:{v.memory.commit[:7]}:{v.memory.index}")
        if len(items) > args.limit:
            lines.append(f"  … {len(items) - args.limit} more (--limit, or --json for all)")
    _emit(args, doc, "\n".join(lines))
    return EXIT_OK


def _cmd_demo(args: argparse.Namespace) -> int:
    import trio

    from memactors.adapters.clock import SystemClock
    from memactors.adapters.demo import build_demo_repository
    from memactors.adapters.runtime import RunOptions, consolidate

    if args.memories < 1:
        raise UsageError("--memories must be at least 1")
    settings = _settings()
    target = args.directory
    if target.exists() and any(target.iterdir()):
        raise UsageError(f"{target} exists and is not empty; give a new directory")
    clock = SystemClock()
    built = build_demo_repository(target, clock.now(), count=args.memories, seed=args.seed)
    store = _open_store(target, settings)
    services = _services(store, settings, clock)
    report = trio.run(lambda: consolidate(services, RunOptions(trigger="demo")))
    text = "\n".join([
        f"demo store: {target} ({built.commits} commits, {built.entries} entries over {built.months} months, "
        f"{built.duplicates} duplicates, {built.stale_decisions} replaced decisions, {built.broken} broken entries)",
        _render_report(report, str(target)),
        "",
        "next: memactors status --repo " + str(target),
        "      memactors tiers --repo " + str(target),
        "      git -C " + str(target) + " notes --ref=refs/notes/mem-meta show HEAD~3",
    ])
    _emit(args, {"repository": str(target), "built": built.__dict__, "report": report.model_dump(mode="json")}, text)
    return EXIT_ERRORS if report.errors else EXIT_OK


def _state_view(args: argparse.Namespace):
    store, view = _view(args)
    return store, view, store.load_state()


def _label(view, key: str) -> str:
    if key.startswith("summary:"):
        return key
    found = next((v for v in view.memories if v.memory.key == key), None)
    return f"{found.memory.id} \"{found.memory.summary[:60]}\"" if found else key


def _edge_json(edge) -> dict[str, Any]:
    doc = edge.model_dump(mode="json")
    doc["conflict_id" if edge.edge_type.value == "contradicts" else "edge_id"] = edge.id
    return doc


def _cmd_edges(args: argparse.Namespace) -> int:
    _, view, state = _state_view(args)
    found = view.find(args.memory_id.strip())
    if found is None:
        print(f"memactors: no memory {args.memory_id!r} in {args.repo}", file=sys.stderr)
        return EXIT_ERRORS
    key = found.memory.key
    edges = sorted((e for e in state.edges.values() if key in (e.source_key, e.target_key)),
                   key=lambda e: (e.edge_type.value, e.created_at))
    phrases = {
        ("supersedes", True): "supersedes", ("supersedes", False): "superseded by",
        ("subsumes", True): "subsumes", ("subsumes", False): "subsumed by",
        ("consolidates", False): "summarized in", ("references", True): "references",
        ("references", False): "referenced by", ("contradicts", True): "contradicts",
        ("contradicts", False): "contradicted by",
    }
    lines = [f"{found.memory.id} \"{found.memory.summary}\""]
    for e in edges:
        outgoing = e.source_key == key
        other = e.target_key if outgoing else e.source_key
        partial = " (partially)" if e.partial else ""
        status = f" [resolved: {e.resolution}]" if e.resolution else ""
        lines.append(f"  {phrases.get((e.edge_type.value, outgoing), e.edge_type.value)}{partial} "
                     f"{_label(view, other)}{status}\n      {e.reason}")
    if not edges:
        lines.append("  no relationships yet (run `memactors consolidate`)")
    _emit(args, [_edge_json(e) for e in edges], "\n".join(lines))
    return EXIT_OK


def _open_conflicts(state):
    return sorted((e for e in state.edges.values() if e.edge_type.value == "contradicts" and not e.resolution),
                  key=lambda e: e.created_at)


def _cmd_conflicts(args: argparse.Namespace) -> int:
    _, view, state = _state_view(args)
    conflicts = _open_conflicts(state)
    lines = [f"{len(conflicts)} conflicts waiting for you"]
    for e in conflicts:
        lines += [f"  {e.id}  {e.reason}", f"      newer {_label(view, e.source_key)}",
                  f"      older {_label(view, e.target_key)}"]
    if conflicts:
        lines.append("decide with: memactors resolve CONFLICT-ID --keep MEMORY-ID | --both")
    _emit(args, [_edge_json(e) for e in conflicts], "\n".join(lines))
    return EXIT_OK


def _cmd_resolve(args: argparse.Namespace) -> int:
    from memactors.actors.persister import whole_notes
    from memactors.actors.ports import StateChange, StateConflict
    from memactors.adapters.clock import SystemClock
    from memactors.adapters.repo_lock import RepoLock
    from memactors.adapters.runtime import new_run_id
    from memactors.events.report import RunReport

    store, view, _ = _state_view(args)
    with RepoLock(store.git.common_dir):
        state = store.load_state()
        wanted = args.conflict_id.strip()
        matches = [e for e in state.edges.values()
                   if e.edge_type.value == "contradicts" and len(wanted) >= 6 and e.id.startswith(wanted)]
        if len(matches) != 1:
            raise UsageError(f"no single conflict {wanted!r}" + (" (ambiguous prefix)" if matches else "")
                             + "; see `memactors conflicts`")
        edge = matches[0]
        pair = (edge.source_key, edge.target_key)
        meta_updates = {}
        if args.both:
            resolution = "both"
            for key in pair:
                meta = state.meta.get(key)
                if meta and meta.superseded_by in pair:
                    meta_updates[key] = meta.model_copy(update={"superseded_by": None})
        else:
            kept = view.find(args.keep.strip())
            if kept is None or kept.memory.key not in pair:
                raise UsageError(f"{args.keep!r} is not one of the two memories of conflict {edge.id}")
            resolution = f"keep:{kept.memory.key}"
            loser = pair[1] if kept.memory.key == pair[0] else pair[0]
            meta = state.meta.get(loser)
            if meta is not None:
                meta_updates[loser] = meta.model_copy(update={"superseded_by": kept.memory.key})
        resolved = edge.model_copy(update={"resolution": resolution})
        now = SystemClock().now()
        run_commit = store.head() or state.meta[pair[0]].commit
        report = RunReport(run_id=new_run_id(now), trigger="resolve", started_at=now, completed_at=now,
                           phase="completed", persisted=True, head=store.head())
        change = StateChange(
            meta_by_commit=whole_notes(state.meta, {k: m.commit for k, m in state.meta.items()},
                                       {k: (m, m.commit) for k, m in meta_updates.items()}),
            edges_by_commit=whole_notes(state.edges, state.edge_commits,
                                        {edge.id: (resolved, state.edge_commits[edge.id])}),
            report=report, run_commit=run_commit,
        )
        try:
            store.commit(change, dict(state.tips))
        except StateConflict as exc:
            raise UsageError(f"the state changed meanwhile ({exc}); run the command again") from None
    text = f"conflict {edge.id} resolved: {'both stand' if args.both else 'kept ' + args.keep}"
    _emit(args, {"conflict_id": edge.id, "resolution": resolution}, text)
    return EXIT_OK


def _cmd_run(args: argparse.Namespace) -> int:
    import contextlib

    import trio

    from memactors.adapters.clock import SystemClock
    from memactors.adapters.daemon import Daemon, DaemonSettings, RepositoryGone
    from memactors.adapters.inbox import Inbox
    from memactors.adapters.memory_counter import StoreCounter
    from memactors.adapters.notes_feed import NotesFeed
    from memactors.adapters.repo_lock import RepoLock

    if min(args.schedule_hours, args.quiet_minutes, args.debounce_seconds, args.threshold) <= 0:
        raise UsageError("--schedule-hours, --quiet-minutes, --debounce-seconds and --threshold must be positive")
    logging.getLogger("memactors").setLevel(logging.INFO)
    settings = _settings()
    store = _open_store(args.repo, settings)
    store.check_readable()
    common = store.git.common_dir
    with contextlib.ExitStack() as held:
        try:
            held.enter_context(RepoLock(common))
        except OSError as exc:  # full disk, read-only file system: an environment error, not a traceback
            print(f"memactors run: cannot write under {common / 'memactors'} ({exc.strerror or exc}); "
                  "free some space or fix its permissions, then start it again", file=sys.stderr)
            return EXIT_USAGE
        services = _services(store, settings, SystemClock())
        daemon = Daemon(services, NotesFeed(common, settings.notes_base), Inbox(common), DaemonSettings(
            debounce=args.debounce_seconds, quiet=args.quiet_minutes * 60, schedule_every=args.schedule_hours * 3600,
            threshold=args.threshold), counter=StoreCounter(args.repo, settings.notes_base))
        print(f"memactors run: watching {store.git.description} (Ctrl-C to stop)", file=sys.stderr, flush=True)
        try:
            trio.run(lambda: daemon.run(handle_signals=True))
        except RepositoryGone as exc:  # an environment error: nothing left to serve
            print(f"memactors run: {exc}; stopped", file=sys.stderr)
            return EXIT_USAGE
        except Exception as exc:  # noqa: BLE001 - the daemon's last word, not a traceback
            from memactors.bus.supervisor import describe

            print(f"memactors run: stopped after repeated failures ({describe(exc)}); "
                  "check the repository, then start it again", file=sys.stderr)
            return EXIT_ERRORS
    print("memactors run: stopped", file=sys.stderr)
    return EXIT_OK


def _cmd_publish(args: argparse.Namespace) -> int:
    """Standard library only, and never an error exit: a hook must not fail because of us."""
    try:
        from memactors.adapters.inbox import Inbox, find_common_dir

        where, kind, payload = args.repo, args.event, {}
        if args.event == "session-end":
            raw = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
            hook = json.loads(raw) if raw.strip() else {}
            if not isinstance(hook, dict):
                raise ValueError("the hook input is not a JSON object")
            payload = {k: hook[k] for k in ("session_id", "transcript_path", "cwd", "hook_event_name") if k in hook}
            kind = "stop" if hook.get("hook_event_name") == "Stop" else "session-end"
            if args.repo == Path(".") and isinstance(hook.get("cwd"), str):
                where = Path(hook["cwd"])
        common = find_common_dir(where)
        if common is None:
            raise ValueError(f"{where} is not inside a git repository")
        Inbox(common).drop(kind, payload)
    except Exception as exc:  # noqa: BLE001 - reported, never raised into the hook
        print(f"memactors publish: {exc}; event not recorded", file=sys.stderr)
    return EXIT_OK


def _cmd_context(args: argparse.Namespace) -> int:
    """Standard library only, and never an error exit: a SessionStart hook must not break the session."""
    import os

    from memactors.adapters.session_context import hook_output, session_start

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


def _cmd_recall(args: argparse.Namespace) -> int:
    from memactors.adapters.read_cache import ReadCache, ReadModelMissing
    from memactors.adapters.recall import MAX_QUERY_CHARS

    query = args.query.strip()
    if not query:
        raise UsageError("the query is empty; say what to look for")
    if len(query) > MAX_QUERY_CHARS:
        raise UsageError(f"the query is {len(query)} characters; the limit is {MAX_QUERY_CHARS}: shorten it")
    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    settings = _settings()
    store = _open_store(args.repo, settings)
    try:
        index = ReadCache(store.git.common_dir).load()
    except ReadModelMissing as exc:
        raise UsageError(f"{exc}: run `memactors consolidate` first") from None
    from memactors.actors.temporal import is_temporal_question

    reason = args.reason or is_temporal_question(query)
    mode = args.mode or ("exhaustive" if reason else "standard")
    from memactors.adapters.recall import search, semantic

    embedder = None
    if index.model_id is not None and settings.embeddings != "none":
        from memactors.adapters.embeddings import embedder_from_env

        embedder = embedder_from_env()
    hits = search(index, query, mode=mode, limit=args.limit, namespaces=args.namespace, embedder=embedder)
    notes = []
    if not semantic(index, embedder):
        notes.append("matching words only (the index has no vectors for this embedding model)")
    current = {ref: store.git.tip(ref) for ref in store.git.memory_refs().values()}
    if current != index.memory_tips:
        notes.append("memories changed since the last consolidation are not searchable yet: "
                     "run `memactors consolidate`")
    if not args.no_track:
        from memactors.adapters.activation_log import ActivationLog
        from memactors.adapters.clock import SystemClock

        try:
            ActivationLog(store.git.common_dir).record(
                (h.entry.key for h in hits if h.entry.kind.value == "memory"), SystemClock().now())
        except OSError as exc:
            notes.append(f"uses not recorded ({exc})")
    for note in notes:
        print(f"memactors recall: {note}", file=sys.stderr)
    if reason:
        return _reason(args, query, store, settings, hits)
    lines = [f"{len(hits)} results for {query!r} ({mode}: {', '.join(_mode_tiers(mode))})"]
    for h in hits:
        e = h.entry
        lines.append(f"  {h.score:.2f}  [{e.tier.value}] {e.namespace:<13} {e.summary[:90]}")
        lines.append(f"        {e.id}  {e.timestamp:%Y-%m-%d}")
        if e.superseded_by:
            lines.append(f"        superseded by {e.superseded_by}" +
                         (f" \"{e.superseded_by_text[:70]}\"" if e.superseded_by_text else ""))
        for fact in e.superseded_facts[:3]:
            lines.append(f"        no longer true: {fact[:80]}")
    if not hits:
        lines.append("  nothing relevant" + ("" if mode == "exhaustive" else "; try --mode exhaustive"))
    _emit(args, [h.as_json() for h in hits], "\n".join(lines))
    return EXIT_OK


def _mode_tiers(mode: str) -> list[str]:
    from memactors.adapters.recall import MODES
    from memactors.events.tier import TIER_ORDER

    return [t.value for t in TIER_ORDER if t in MODES[mode]]


def _timezone(settings):
    from datetime import datetime
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    if not settings.timezone:
        return datetime.now().astimezone().tzinfo
    try:
        return ZoneInfo(settings.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise UsageError(f"MEMACTORS_TIMEZONE={settings.timezone!r} is not a time zone (e.g. Europe/Berlin)") from None


def _reason(args: argparse.Namespace, query: str, store, settings, hits) -> int:
    import os

    import trio

    from memactors.actors.temporal import compose_answer
    from memactors.adapters.clock import SystemClock
    from memactors.adapters.note_format import parse_note
    from memactors.events.temporal import Evidence

    tz = _timezone(settings)
    refs = store.git.memory_refs()
    evidence = []
    for h in hits:
        e = h.entry
        if e.kind.value != "memory" or e.namespace not in refs:
            continue
        commit = e.id.split(":")[1]
        data = store.git.read_note(refs[e.namespace], commit)
        found = next((m for m in parse_note(e.namespace, commit, data).memories if m.key == e.key), None) if data else None
        text = f"{found.summary}\n{found.body}" if found else f"{e.summary}\n{e.excerpt}"
        evidence.append(Evidence(memory_id=e.id, text=text, timestamp=e.timestamp,
                                 relevance=min(1.0, max(0.0, h.relevance))))
    answer = compose_answer(query, evidence, now=SystemClock().now(), tz=tz)
    why = None
    from memactors.adapters.llm import build_chain

    try:
        chain = build_chain(os.environ)
    except ValueError as exc:
        raise UsageError(str(exc).splitlines()[0]) from None
    if chain is not None and evidence:
        from memactors.adapters.recall import reason_with_llm

        async def with_llm():
            try:
                return await reason_with_llm(chain, query, evidence, answer, tz)
            finally:
                await chain.aclose()

        answer, why = trio.run(with_llm)
        if why:
            print(f"memactors recall: the LLM could not answer ({why}); the offline answer stands", file=sys.stderr)
    doc = answer.model_dump(mode="json")
    lines = [answer.answer, f"  confidence {answer.confidence:.2f} ({answer.provider})", f"  {answer.reasoning}"]
    for r in answer.temporal_resolutions[:5]:
        span = f" .. {r.resolved_end.isoformat()}" if r.resolved_end else ""
        lines.append(f"  \"{r.original_text}\" in {r.memory_id[:20]}… (recorded "
                     f"{r.memory_timestamp.astimezone(tz):%Y-%m-%d}) -> {r.resolved_date.isoformat()}{span}")
    if answer.source_memory_ids:
        lines.append("  sources: " + ", ".join(answer.source_memory_ids))
    _emit(args, doc, "\n".join(lines))
    return EXIT_ERRORS if why else EXIT_OK


def _cmd_sync(args: argparse.Namespace) -> int:
    from memactors.adapters.sync import setup_remote, sync

    settings = _settings()
    store = _open_store(args.repo, settings)
    if args.setup:
        lines = setup_remote(store, args.remote, dry_run=args.dry_run)
        _emit(args, {"remote": args.remote, "dry_run": args.dry_run, "settings": lines},
              "\n".join([f"memactors sync --setup: {args.remote}", *(f"  {line}" for line in lines)]))
        return EXIT_OK
    print(f"memactors sync: fetching from {args.remote}...", file=sys.stderr, flush=True)
    report = sync(store, args.remote, dry_run=args.dry_run)
    lines = [f"memactors sync {'(dry run) ' if report.dry_run else ''}with {report.remote}: "
             f"{report.attempts} round(s), {report.retries} retried"]
    for ref in report.refs:
        if ref.outcome.value == "up-to-date":
            continue
        counts = f"+{ref.added_locally} here, +{ref.pushed} there" if ref.added_locally or ref.pushed else ""
        lines.append(f"  {ref.ref:<34} {ref.outcome.value:<9} {counts}" + (f"  ({ref.detail})" if ref.detail else ""))
    lines.append(f"  entries: {report.entries_added_locally} received, {report.entries_pushed} sent, "
                 f"{report.entries_lost} lost; state records: {report.records_added_locally} received, "
                 f"{report.records_pushed} sent")
    if report.remote_notes_rebuilt:
        lines.append(f"  rebuilt {report.remote_notes_rebuilt} line-sorted notes of the remote from their history")
    if not report.changed:
        lines.append("  already in sync: nothing changed")
    elif not report.dry_run:
        lines.append("  next: `memactors consolidate` re-tiers what arrived")
    lines += [f"  error: {e}" for e in report.errors]
    _emit(args, report.model_dump(mode="json"), "\n".join(lines))
    return EXIT_ERRORS if report.errors else EXIT_OK


def _cmd_doctor(args: argparse.Namespace) -> int:
    from memactors.adapters.doctor import diagnose, repair

    if args.dry_run and not args.repair:
        raise UsageError("--dry-run goes with --repair")
    store = _open_store(args.repo, _settings())
    if args.repair:
        report = repair(store, dry_run=args.dry_run)
        verb = "would rebuild" if args.dry_run else "rebuilt"
        entries = sum(d.entries_recoverable for d in report.repaired if d.namespace is not None)
        records = report.entries_restored - entries
        restored = f"{entries} entries" + (f", {records} state records" if records else "")
        lines = [f"memactors doctor --repair: {verb} {len(report.repaired)} notes ({restored}); "
                 f"{len(report.unrepairable)} cannot be rebuilt"]
        lines += [f"  {_where(d)}: {verb}" + _restored(d) for d in report.repaired]
        lines += [f"  {_where(d)}: left as is, {_no_way_back(d)}" for d in report.unrepairable]
        lines += [f"  {ref} -> {commit[:12]} (the damaged version stays in history)"
                  for ref, commit in report.refs_updated.items()]
        _emit(args, report.model_dump(mode="json"), "\n".join(lines))
        return EXIT_ERRORS if report.unrepairable else EXIT_OK
    found = diagnose(store)
    damaged = [d for d in found if d.damage == "line_sort"]
    unreadable = [d for d in found if d.damage != "line_sort"]
    lines = [f"memactors doctor: {len(damaged)} notes damaged by a line-sorting merge"
             + (f", {len(unreadable)} state notes unreadable" if unreadable else "")]
    for d in unreadable:
        lines.append(f"  {_where(d)}: {d.reason}; " + (f"repairable from history{_restored(d)}" if d.repairable
                                                        else _no_way_back(d)))
    for d in damaged:
        by = f", by notes merge {d.damaged_by[:12]}" if d.damaged_by else ""
        what = "entries" if d.namespace is not None else "records"
        how = "entries interleaved" if d.namespace is not None else "record lines scattered"
        fix = (f"repairable ({d.entries_recoverable} {what})" if d.repairable
               else "no undamaged version in history" if d.namespace is not None else "a record line is unreadable")
        lines.append(f"  {d.ref} on commit {d.commit[:12]}: {d.entries_destroyed} {how}{by}; {fix}")
    if any(d.repairable for d in found):
        lines.append("repair with: memactors doctor --repair (the damaged version stays in history)")
    _emit(args, [d.model_dump(mode="json") for d in found], "\n".join(lines))
    return EXIT_ERRORS if found else EXIT_OK


def _where(note) -> str:
    return note.ref if note.damage == "bad_ref" else f"{note.ref} on commit {note.commit[:12]}"


def _no_way_back(note) -> str:
    if note.damage == "bad_ref":
        return (f"and its reflog holds no notes commit: remove it with `git update-ref -d {note.ref}` "
                "(the next run recomputes it)")
    if note.damage == "unreadable":
        return "and no readable version is in its history"
    return "nothing intact to rebuild from"


def _restored(note) -> str:
    """How an unreadable state note comes back, and what that costs."""
    if note.damage == "line_sort":
        return ""
    if note.damage == "bad_ref":
        return f" (back to {note.restored_from[:12]}, where its reflog last had it)"
    source = "removed (it did not exist before)" if note.entries_recoverable == 0 and note.restored_from else (
        f"as of notes commit {note.restored_from[:12]}" if note.restored_from else "")
    dropped = len(note.writes_dropped)
    return (f" ({source}; drops {dropped} later write{'s' if dropped != 1 else ''} to it, which the next run "
            "recomputes)")


def _cmd_hooks(args: argparse.Namespace) -> int:
    from memactors.adapters import hook_setup

    settings = _settings()
    store = _open_store(args.repo, settings)
    both = not args.git and not args.claude
    lines: list[str] = []
    if args.git or both:
        hooks_dir = store.git.repo.config.get("core.hooksPath") if "core.hooksPath" in store.git.repo.config else None
        base = Path(store.git.repo.workdir or store.git.common_dir)
        path = (base / hooks_dir if hooks_dir else store.git.common_dir / "hooks") / "post-commit"
        if args.action == "install":
            lines.append(hook_setup.install_git_hook(path, dry_run=args.print_only))
            if args.print_only:
                lines.append(hook_setup.git_hook_block().rstrip())
        elif not args.print_only:
            lines.append(hook_setup.uninstall_git_hook(path))
    if args.claude or both:
        if store.git.repo.workdir is None:
            lines.append("claude settings: skipped (a bare repository has no work tree)")
        else:
            path = Path(store.git.repo.workdir) / ".claude" / "settings.json"
            try:
                current = hook_setup.read_json(path)
            except ValueError as exc:
                raise UsageError(f"{exc}; fix or move it, then retry") from None
            updated = (hook_setup.claude_settings(current) if args.action == "install"
                       else hook_setup.without_claude_hooks(current))
            if args.print_only:
                lines += [f"claude settings {path} would become:", json.dumps(updated, indent=2)]
            elif updated == current:
                lines.append(f"claude settings {path}: nothing to change")
            else:
                hook_setup.write_json(path, updated)
                lines.append(f"claude settings {path}: {'Stop, SessionEnd and SessionStart hooks added' if args.action == 'install' else 'our hooks removed'}")
    if args.action == "install" and args.sync_remote:
        from memactors.adapters.sync import setup_remote

        lines += [f"sync {args.sync_remote}: {line}" for line in setup_remote(store, args.sync_remote,
                                                                              dry_run=args.print_only)]
    elif args.action == "install" and "origin" in store.git.repo.remotes.names():
        lines.append("to share memories through origin: memactors hooks install --sync-remote origin "
                     "(or memactors sync --setup)")
    print("\n".join(lines))
    return EXIT_OK


COMMANDS = {
    "run": _cmd_run,
    "publish": _cmd_publish,
    "context": _cmd_context,
    "sync": _cmd_sync,
    "doctor": _cmd_doctor,
    "recall": _cmd_recall,
    "hooks": _cmd_hooks,
    "edges": _cmd_edges,
    "conflicts": _cmd_conflicts,
    "resolve": _cmd_resolve,
    "consolidate": _cmd_consolidate,
    "capture": _cmd_capture,
    "show": _cmd_show,
    "status": _cmd_status,
    "tiers": _cmd_tiers,
    "demo": _cmd_demo,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command in ("publish", "context"):  # hook paths: nothing but the standard library
        return COMMANDS[args.command](args)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="memactors: %(message)s",
        stream=sys.stderr,
    )
    from memactors.adapters.git_store import RefLocked, StoreError
    from memactors.adapters.repo_lock import RepositoryBusy
    from memactors.adapters.gc_tuning import tune_gc

    tune_gc()

    try:
        return COMMANDS[args.command](args)
    except UsageError as exc:
        print(f"memactors: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except RefLocked as exc:  # another process holds the repository (DESIGN.md §7)
        print(f"memactors: {exc}", file=sys.stderr)
        return EXIT_BUSY
    except StoreError as exc:
        print(f"memactors: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:  # a write the checks could not foresee (permissions changed, disk full)
        print(f"memactors: {str(exc).splitlines()[0]}; nothing was half-written, retry once it is fixed",
              file=sys.stderr)
        return EXIT_USAGE
    except RepositoryBusy as exc:
        print(f"memactors: {exc}; wait for it to finish or stop it, then retry", file=sys.stderr)
        return EXIT_BUSY
    except KeyboardInterrupt:
        print("memactors: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
