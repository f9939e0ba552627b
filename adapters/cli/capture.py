"""Capture from sessions: `extract` (read Claude Code transcripts into proposals) and `review` (decide them)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from memactors.adapters.cli.common import (
    EXIT_ERRORS,
    EXIT_OK,
    MAX_CONTENT_BYTES,
    MAX_SUMMARY_CHARS,
    Parents,
    UsageError,
    emit,
    load_settings,
    open_store,
)


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
            found += sorted(p for p in path.rglob("*.jsonl") if p.is_file())
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
    from memactors.adapters.runtime.clock import SystemClock
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

    report = trio.run(go)
    emit(args, report.as_json(), _render_extract(report, dry_run=args.dry_run))
    return EXIT_ERRORS if report.errors else EXIT_OK


def _render_extract(report, *, dry_run: bool) -> str:
    def n(count: int, word: str) -> str:
        return f"{count} {word}" + ("" if count == 1 else "s")

    lines = [f"read {n(report.transcripts, 'transcript')}: {n(report.lines_read, 'new line')}, "
             f"{n(report.turns, 'turn')} said ({report.provider})"]
    if report.skipped_lines:
        lines.append(f"  {n(report.skipped_lines, 'line')} could not be read and were skipped")
    if dry_run:
        lines.append(f"would propose {len(report.candidates)} (dry run: nothing stored, cursors not moved)")
        for c in report.candidates:
            lines.append(f"  {_line(c)}")
    else:
        lines.append(f"proposed for review {report.queued}, captured {len(report.captured)}, blocked "
                     f"{report.blocked}, already known {report.known}, below the bar {report.dropped}"
                     + (f", withdrawn {report.withdrawn}" if report.withdrawn else ""))
        for c in report.candidates:
            lines.append(f"  {_line(c)}")
        if report.queued:
            lines.append("next: `memactors review` to approve or reject them")
    if report.redactions:
        lines.append(f"  {n(report.redactions, 'secret')} redacted")
    lines += [f"  error: {e}" for e in report.errors]
    return "\n".join(lines)


def _line(c) -> str:
    mark = " BLOCKED (" + c.threat.pattern + ")" if c.threat.level.blocks else ""
    update = f"  [replaces {c.replaces_summary!r}]" if c.replaces else ""
    return f"{c.id}  {c.confidence:.2f}  {c.namespace:<10} {c.summary}{update}{mark}"


# --- review --------------------------------------------------------------------------------


def _cmd_review(args: argparse.Namespace) -> int:
    from memactors.adapters.claude.review_queue import ReviewQueue
    from memactors.adapters.runtime.clock import SystemClock
    from memactors.events.memory import KNOWN_NAMESPACES

    if args.min_confidence < 0 or args.min_confidence > 1:
        raise UsageError("--min-confidence must be between 0 and 1")
    for ns in args.namespace or ():
        if ns not in KNOWN_NAMESPACES:
            raise UsageError(f"unknown namespace {ns!r}; use one of: {', '.join(KNOWN_NAMESPACES)}")
    editing = args.summary is not None or args.set_namespace is not None or args.content is not None
    if editing and not args.edit:
        raise UsageError("--summary, --set-namespace and --content go with --edit ID")
    settings = load_settings()
    store = open_store(args.repo, settings)
    queue = ReviewQueue(store.git.common_dir)
    now = SystemClock().now()
    if args.approve or args.approve_all:
        return _approve(args, store, queue, now)
    if args.reject:
        return _reject(args, queue, now)
    if args.edit:
        return _edit(args, queue, now)
    state = queue.load(now)
    shown = [c for c in (state.blocked if args.blocked else state.pending) if _wanted(args, c)]
    shown.sort(key=lambda c: -c.confidence)
    if args.blocked:
        text = [f"{len(shown)} blocked proposals (never captured; shown so you can see what was tried)"]
        text += [f"  {c.id}  {c.threat.level.value:<8} {c.threat.pattern}: {c.summary}" for c in shown]
    else:
        text = [(f"{len(shown)} proposed {'memory waits' if len(shown) == 1 else 'memories wait'} for review"
                 if shown else "no proposed memories wait for review")]
        for c in shown:
            text.append(f"  {_line(c)}")
            if c.content and c.content != c.summary:
                text.append(f"      {c.content[:160]}")
            text.append(f"      from session {c.session_id[:8] or '?'} line {c.lines[0]}; "
                        + ", ".join(f"{k} {v:.2f}" for k, v in c.factors.model_dump().items()))
        if shown:
            text.append("decide with: memactors review --approve ID... | --reject ID... | --edit ID --summary ...")
    emit(args, [c.model_dump(mode="json") for c in shown], "\n".join(text))
    return EXIT_OK


def _wanted(args: argparse.Namespace, candidate) -> bool:
    return ((not args.namespace or candidate.namespace in args.namespace)
            and candidate.confidence >= args.min_confidence)


def _resolve(ids: list[str], candidates) -> tuple[list[Any], list[str]]:
    """(the candidates `ids` name, by id or unique prefix of at least 4 characters; the ids naming none)."""
    found, unknown = [], []
    for wanted in ids:
        wanted = wanted.strip()
        matches = [c for c in candidates if c.id == wanted or (len(wanted) >= 4 and c.id.startswith(wanted))]
        if len(matches) == 1:
            if matches[0] not in found:
                found.append(matches[0])
        else:
            unknown.append(wanted)
    return found, unknown


def _approve(args: argparse.Namespace, store, queue, now) -> int:
    from memactors.adapters.git.capture_writer import CaptureRefused
    from memactors.adapters.runtime.session_capture import approve_into_store

    state = queue.load(now)
    if args.approve_all:
        chosen, unknown = [c for c in state.pending if _wanted(args, c)], []
    else:
        chosen, unknown = _resolve(args.approve, state.pending)
        blocked, _ = _resolve(unknown, state.blocked)
        if blocked:
            raise UsageError(f"{blocked[0].id} is blocked ({blocked[0].threat.pattern}) and cannot be approved")
    captured: list[dict[str, str]] = []
    errors: list[str] = []
    store.git.check_writable()
    for candidate in chosen:
        try:
            memory_id = approve_into_store(store, candidate)
        except CaptureRefused as exc:
            errors.append(f"{candidate.id}: not captured: {exc}")
            continue
        captured.append({"candidate": candidate.id, "id": memory_id, "summary": candidate.summary})

        def settle(s, candidate=candidate) -> None:
            s.pending = [c for c in s.pending if c.id != candidate.id]
            s.decided[candidate.content_hash] = "approved"

        queue.update(settle, now)
    lines = [f"captured {len(captured)}"] + [f"  {c['id']}  {c['summary']}" for c in captured]
    lines += [f"  unknown: {u} (see `memactors review`)" for u in unknown] + [f"  {e}" for e in errors]
    if captured:
        lines.append("the next `memactors consolidate` (or the daemon) consolidates them")
    emit(args, {"captured": captured, "unknown": unknown, "errors": errors}, "\n".join(lines))
    return EXIT_ERRORS if unknown or errors else EXIT_OK


def _reject(args: argparse.Namespace, queue, now) -> int:
    rejected: list[str] = []
    unknown: list[str] = []

    def drop(state) -> None:
        chosen, missing = _resolve(args.reject, state.pending)
        unknown.extend(missing)
        for candidate in chosen:
            state.decided[candidate.content_hash] = "rejected"
            rejected.append(candidate.id)
        state.pending = [c for c in state.pending if c.id not in rejected]

    queue.update(drop, now)
    text = [f"rejected {len(rejected)} (never proposed again)"] + [f"  unknown: {u}" for u in unknown]
    emit(args, {"rejected": rejected, "unknown": unknown}, "\n".join(text))
    return EXIT_ERRORS if unknown else EXIT_OK


def _edit(args: argparse.Namespace, queue, now) -> int:
    from memactors.adapters.cli.text_input import Cleaned, clean_body, clean_line
    from memactors.events.candidate import candidate_id
    from memactors.events.memory import KNOWN_NAMESPACES
    from memactors.events.threat import screen

    if args.summary is None and args.set_namespace is None and args.content is None:
        raise UsageError("--edit needs --summary, --set-namespace or --content")
    cleaned = Cleaned()
    changes: dict[str, Any] = {}
    if args.summary is not None:
        summary = " ".join(clean_line(args.summary, "--summary", cleaned).split())
        if not summary or len(summary) > MAX_SUMMARY_CHARS:
            raise UsageError(f"--summary must be one line of 1..{MAX_SUMMARY_CHARS} characters")
        changes["summary"] = summary
    if args.set_namespace is not None:
        if args.set_namespace not in KNOWN_NAMESPACES:
            raise UsageError(f"unknown namespace {args.set_namespace!r}; use one of: {', '.join(KNOWN_NAMESPACES)}")
        changes["namespace"] = args.set_namespace
    if args.content is not None:
        content = clean_body(args.content, "--content", cleaned)
        if len(content.encode()) > MAX_CONTENT_BYTES:
            raise UsageError(f"--content is over {MAX_CONTENT_BYTES} bytes")
        changes["content"] = content
    edited: list[Any] = []

    def edit(state) -> None:
        chosen, _ = _resolve([args.edit], state.pending)
        if not chosen:
            return
        old = chosen[0]
        new = old.model_copy(update=changes)
        new = new.model_copy(update={"id": candidate_id(new.summary, new.content),
                                     "threat": screen(new.summary, new.content)})
        if new.threat.level.blocks:
            raise UsageError(f"the edited proposal was not saved: {new.threat.pattern} ({new.threat.level.value})")
        state.pending = [new if c.id == old.id else c for c in state.pending]
        edited.append(new)

    queue.update(edit, now)
    if not edited:
        print(f"memactors review: no proposal {args.edit!r} waits (see `memactors review`)", file=sys.stderr)
        emit(args, {"edited": None, "unknown": [args.edit]}, f"unknown: {args.edit}")
        return EXIT_ERRORS
    new = edited[0]
    emit(args, {"edited": new.model_dump(mode="json")},
         f"edited: {_line(new)}\napprove with: memactors review --approve {new.id}")
    return EXIT_OK
