"""The `memactors` command line.

Exit codes (DESIGN.md §7): 0 done; 1 done with fallbacks or recorded
errors (or, for `show`, an unknown ID); 2 usage or environment error;
3 refused because another run holds the repository.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_BUSY = 0, 1, 2, 3
MAX_SUMMARY_CHARS = 100
MAX_CONTENT_BYTES = 100 * 1024


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit 2."""


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--repo", type=Path, default=Path("."), metavar="PATH",
                        help="the git repository (default: the one containing the current directory)")
    common.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
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
    p.add_argument("--full", action="store_true", help="re-read every note, ignoring the parse cache")

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

    p = commands.add_parser("demo", parents=[common, reporting], help="build a sample store and consolidate it",
                            description="Create a git repository at DIR with a realistic sample memory store "
                            "(several namespaces, months of captures, duplicates, stale decisions, a few broken "
                            "entries) and consolidate it.")
    p.add_argument("directory", type=Path, metavar="DIR")
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

    return MemoryStore(GitStore(repo, notes_base=settings.notes_base))


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

    settings = _settings()
    store = _open_store(args.repo, settings)
    store.check_readable()
    namespaces = tuple(args.namespace) if args.namespace else None
    options = RunOptions(namespaces=namespaces, dry_run=args.dry_run, full=args.full)
    with RepoLock(store.git.common_dir):
        report = trio.run(
            lambda: consolidate(store, settings, SystemClock(), options, handle_signals=True)
        )
    _emit(args, report.model_dump(mode="json"), _render_report(report, store.git.description))
    return EXIT_ERRORS if report.errors or report.phase == "failed" else EXIT_OK


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
    if report.phase == "dry_run":
        lines.append("  dry run: nothing written")
    elif report.persisted:
        lines.append(f"  persisted   {', '.join(report.refs_updated)}")
    else:
        lines.append("  nothing changed: no ref written")
    for error in report.errors:
        lines.append(f"  error       {error}")
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


def _cmd_show(args: argparse.Namespace) -> int:
    _, view = _view(args)
    found = view.find(args.memory_id.strip())
    if found is None:
        print(f"memactors: no memory {args.memory_id!r} in {args.repo} "
              "(IDs look like decisions:<sha>:<index>; see `memactors tiers`)", file=sys.stderr)
        return EXIT_ERRORS
    doc = _memory_json(found)
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
    if found.memory.tags:
        lines.append(f"  tags       {', '.join(found.memory.tags)}")
    if found.meta and found.meta.superseded_by:
        lines.append(f"  superseded by {found.meta.superseded_by}")
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
    report = trio.run(lambda: consolidate(store, settings, clock, RunOptions(trigger="demo")))
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


COMMANDS = {
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
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="memactors: %(message)s",
        stream=sys.stderr,
    )
    from memactors.adapters.git_store import StoreError
    from memactors.adapters.repo_lock import RepositoryBusy

    try:
        return COMMANDS[args.command](args)
    except UsageError as exc:
        print(f"memactors: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except StoreError as exc:
        print(f"memactors: {exc}", file=sys.stderr)
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
