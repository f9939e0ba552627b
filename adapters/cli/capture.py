"""Capture from sessions: `extract` (read Claude Code transcripts into proposals) and `review` (decide them)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from memactors.adapters.cli.common import (
    EXIT_ERRORS,
    EXIT_OK,
    Parents,
    UsageError,
    emit,
    load_settings,
    open_store,
    report,
)
from memactors.adapters.operations.review import line


def register(commands: Any, parents: Parents) -> dict[str, Any]:
    """Add this group's subcommands to `commands`; return their handlers by name."""
    common, reporting = parents.common, parents.reporting
    p = commands.add_parser(
        "extract", parents=[common, reporting], help="propose memories from Claude Code session transcripts",
        description="Read Claude Code session transcripts (`<session>.jsonl` files, or folders of them) past "
        "where they were last read, and propose the memories worth keeping for review: decisions, learnings, "
        "blockers and explicit memory markers, each a complete statement. Copies of what the store keeps are not "
        "proposed; one that replaces a kept memory is proposed as an update. Secrets are redacted, anything that "
        "tries to instruct an agent is blocked. With an LLM provider configured the model proposes; otherwise a "
        "conservative offline reader does. Nothing is written to the memory refs: see `memactors review`.",
        epilog="The Stop, PreCompact and SessionEnd hooks queue a session's transcript; the daemon (or the next "
        "`memactors consolidate`) reads it. Use extract for sessions from before the hooks, or --backfill.")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="a transcript file or a folder of them")
    p.add_argument("--backfill", action="store_true",
                   help="every session Claude Code kept for this repository (its work tree and worktrees) under "
                   "~/.claude/projects (or $CLAUDE_CONFIG_DIR/projects)")
    p.add_argument("--dry-run", action="store_true", help="show what would be proposed; store and advance nothing")

    p = commands.add_parser(
        "review", parents=[common, reporting], help="list, approve, reject or edit proposed memories",
        description="Memories proposed from sessions wait here (on this machine only, for 7 days, at most 100). "
        "With no action, list them. --approve captures a proposal exactly as `memactors capture` would, tagged "
        "`proposed`; an update also names the memory it replaces. --reject forgets it for good: the same "
        "proposal is never made again. --edit changes a proposal's summary, namespace or content first.",
        epilog="Blocked proposals (they tried to instruct an agent) are listed with --blocked and cannot be "
        "approved. Exit codes: 0 done, 1 some IDs were unknown, 2 usage error.")
    action = p.add_mutually_exclusive_group()
    action.add_argument("--approve", nargs="+", metavar="ID", help="capture these proposals")
    action.add_argument("--reject", nargs="+", metavar="ID", help="drop these proposals and never propose them again")
    action.add_argument("--approve-all", action="store_true", help="capture every listed proposal (filters apply)")
    action.add_argument("--edit", metavar="ID", help="change a proposal (with --summary, --set-namespace, --content)")
    p.add_argument("--namespace", action="append", metavar="NS", help="only proposals in NS (repeatable)")
    p.add_argument("--min-confidence", type=float, default=0.0, metavar="X", help="only proposals at or above X")
    p.add_argument("--blocked", action="store_true", help="list the blocked proposals instead")
    p.add_argument("--summary", help="with --edit: the new summary (one line, at most 100 characters)")
    p.add_argument("--set-namespace", metavar="NS", help="with --edit: the new namespace")
    p.add_argument("--content", help="with --edit: the new content")
    return {"extract": _cmd_extract, "review": _cmd_review}


# --- extract -------------------------------------------------------------------------------


def _transcripts(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            inside = sorted(p for p in path.rglob("*.jsonl") if p.is_file())
            if not inside:
                raise UsageError(f"{path} holds no transcripts (Claude Code's <session>.jsonl files)")
            found += inside
        elif path.is_file():
            found.append(path)
        else:
            raise UsageError(f"{path} is neither a transcript nor a folder")
    return found


def project_folders(store) -> list[Path]:
    """Claude Code's session folders for this repository: its work tree and every worktree of it."""
    from memactors.adapters.claude.transcript import project_folder_name

    base = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude") / "projects"
    roots: set[str] = set()
    workdir = store.git.repo.workdir
    if workdir:
        roots.add(str(Path(workdir).resolve()))
    for name in store.git.repo.list_worktrees():
        try:
            roots.add(str(Path(store.git.repo.lookup_worktree(name).path).resolve()))
        except Exception:  # noqa: BLE001 - a pruned worktree: nothing to read there
            continue
    return [base / project_folder_name(root) for root in sorted(roots) if (base / project_folder_name(root)).is_dir()]


def _cmd_extract(args: argparse.Namespace) -> int:
    import trio

    from memactors.adapters.cli.common import run_services
    from memactors.adapters.system.clock import SystemClock
    from memactors.adapters.runtime.session_capture import SessionCapture, routing_from

    if not args.paths and not args.backfill:
        raise UsageError("name transcripts or folders to read, or use --backfill")
    settings = load_settings()
    store = open_store(args.repo, settings)
    paths = _transcripts(list(args.paths))
    if args.backfill:
        folders = project_folders(store)
        if not folders and not paths:
            raise UsageError("Claude Code kept no sessions for this repository (looked under "
                             f"{Path(os.environ.get('CLAUDE_CONFIG_DIR') or Path.home() / '.claude') / 'projects'})")
        paths += _transcripts(folders)
    clock = SystemClock()
    services = run_services(store, settings, clock)
    capture = SessionCapture(store, clock, embedder=services.embedder, llm=services.llm,
                             routing=routing_from(settings), llm_deadline=settings.llm_deadline)

    async def go():
        try:
            return await capture.read_paths(paths, dry_run=args.dry_run)
        finally:
            with trio.CancelScope(shield=True):
                await services.aclose(keep_caches=not args.dry_run)

    done = trio.run(go)
    emit(args, done.as_json(), _render_extract(done, dry_run=args.dry_run))
    return EXIT_ERRORS if done.errors else EXIT_OK


def _render_extract(done, *, dry_run: bool) -> str:
    def n(count: int, word: str) -> str:
        return f"{count} {word}" + ("" if count == 1 else "s")

    lines = [f"read {n(done.transcripts, 'transcript')}: {n(done.lines_read, 'new line')}, "
             f"{n(done.turns, 'turn')} said ({done.provider})"]
    if done.skipped_lines:
        lines.append(f"  {n(done.skipped_lines, 'line')} could not be read and were skipped")
    if dry_run:
        lines.append(f"would propose {len(done.candidates)} (dry run: nothing stored, cursors not moved)")
        for c in done.candidates:
            lines.append(f"  {line(c)}")
    else:
        lines.append(f"proposed for review {done.queued}, captured {len(done.captured)}, blocked "
                     f"{done.blocked}, already known {done.known}, below the bar {done.dropped}"
                     + (f", withdrawn {done.withdrawn}" if done.withdrawn else ""))
        for c in done.candidates:
            lines.append(f"  {line(c)}")
        if done.queued:
            lines.append("next: `memactors review` to approve or reject them")
    if done.redactions:
        lines.append(f"  {n(done.redactions, 'secret')} redacted")
    if done.unread_foreign:
        lines.append(f"  {n(done.unread_foreign, 'turn')} not in English were not read: the offline reader knows "
                     "English cues only; an LLM provider reads any language (MEMORY_CONSOLIDATION_LLM_PROVIDER)")
    for path in done.waiting:
        lines.append(f"  {path}: its last line has no final newline yet (still being written?); it is read once "
                     "complete")
    lines += [f"  error: {e}" for e in done.errors]
    return "\n".join(lines)


# --- review --------------------------------------------------------------------------------


def _cmd_review(args: argparse.Namespace) -> int:
    from memactors.adapters.operations.text_input import Cleaned, clean_body, clean_line
    from memactors.adapters.operations import review

    editing = args.summary is not None or args.set_namespace is not None or args.content is not None
    if editing and not args.edit:
        raise UsageError("--summary, --set-namespace and --content go with --edit ID")
    filters = {"namespaces": args.namespace, "min_confidence": args.min_confidence}
    if args.approve or args.approve_all:
        return report(args, review.approve(args.repo, args.approve or (), every=args.approve_all, **filters))
    if args.reject:
        return report(args, review.reject(args.repo, args.reject))
    if args.edit:
        cleaned = Cleaned()
        summary = clean_line(args.summary, "--summary", cleaned) if args.summary is not None else None
        content = clean_body(args.content, "--content", cleaned) if args.content is not None else None
        return report(args, review.edit(args.repo, args.edit, summary=summary, namespace=args.set_namespace,
                                        content=content))
    return report(args, review.listing(args.repo, blocked=args.blocked, **filters))
