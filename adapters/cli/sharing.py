"""Sharing and mending: `sync` with a remote, `doctor` for damaged or unreadable notes."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memactors.adapters.cli.common import (
    EXIT_ERRORS,
    EXIT_OK,
    Parents,
    UsageError,
    emit,
    load_settings,
    open_store,
)


def register(commands: Any, parents: Parents) -> dict[str, Any]:
    """Add this group's subcommands to `commands`; return their handlers by name."""
    common, reporting = parents.common, parents.reporting
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

    return {"sync": _cmd_sync, "doctor": _cmd_doctor}


def _cmd_sync(args: argparse.Namespace) -> int:
    from memactors.adapters.git.remote_setup import setup_remote
    from memactors.adapters.git.sync import sync

    settings = load_settings()
    store = open_store(args.repo, settings)
    if args.setup:
        lines = setup_remote(store, args.remote, dry_run=args.dry_run)
        emit(args, {"remote": args.remote, "dry_run": args.dry_run, "settings": lines},
              "\n".join([f"memactors sync --setup: {args.remote}", *(f"  {line}" for line in lines)]))
        return EXIT_OK
    print(f"memactors sync: fetching from {args.remote}...", file=sys.stderr, flush=True)
    before = None if args.dry_run else {m.key for m in store.scan(None).memories}
    from memactors.adapters.operations.automemory import PERSONAL

    report = sync(store, args.remote, dry_run=args.dry_run, lock_wait=settings.lock_wait_seconds,
                  local_only=() if settings.sync_personal else (PERSONAL,))
    flagged = _screen_arrivals(store, before) if before is not None and report.entries_added_locally else []
    lines = [f"memactors sync {'(dry run) ' if report.dry_run else ''}with {report.remote}: "
             f"{report.attempts} round(s), {report.retries} retried"]
    for ref in report.refs:
        if ref.outcome.value == "up-to-date":
            continue
        counts = f"+{ref.added_locally} here, +{ref.pushed} there" if ref.added_locally or ref.pushed else ""
        outcome = _WOULD.get(ref.outcome.value, ref.outcome.value) if report.dry_run else ref.outcome.value
        lines.append(f"  {ref.ref:<34} {outcome:<13} {counts}" + (f"  ({ref.detail})" if ref.detail else ""))
    received, sent = ("would receive", "would send") if report.dry_run else ("received", "sent")
    lines.append(f"  entries: {report.entries_added_locally} {received}, {report.entries_pushed} {sent}, "
                 f"{report.entries_lost} lost; state records: {report.records_added_locally} {received}, "
                 f"{report.records_pushed} {sent}")
    if report.remote_notes_rebuilt:
        lines.append(f"  rebuilt {report.remote_notes_rebuilt} line-sorted notes of the remote from their history")
    if not report.changed:
        lines.append("  already in sync: nothing changed")
    elif not report.dry_run and report.entries_added_locally:
        lines.append("  next: `memactors consolidate` (or the daemon, if it runs) tiers what arrived")
    if flagged:
        lines.append(f"  screened what arrived: {len(flagged)} tr{'ies' if len(flagged) == 1 else 'y'} to steer an "
                     "agent; kept as written, never shown to an agent (high and critical):")
        lines += [f"    {f['level']:<8} {f['pattern']}: {f['id']}  {f['summary'][:80]}" for f in flagged]
    lines += [f"  error: {e}" for e in report.errors]
    document = report.model_dump(mode="json")
    if before is not None:
        document["flagged"] = flagged
    emit(args, document, "\n".join(lines))
    return EXIT_ERRORS if report.errors else EXIT_OK


def _screen_arrivals(store, before: set[str]) -> list[dict[str, str]]:
    """Memories the sync brought in that the screen flags (any level above none): id, level, pattern, summary."""
    from memactors.events.threat import ThreatLevel, screen

    flagged = []
    for memory in store.scan(None).memories:
        if memory.key in before:
            continue
        threat = screen(memory.summary, memory.body)
        if threat.level is not ThreatLevel.NONE:
            flagged.append({"id": memory.id, "level": threat.level.value, "pattern": threat.pattern,
                            "summary": memory.summary})
    return flagged


def _cmd_doctor(args: argparse.Namespace) -> int:
    from memactors.adapters.git.doctor import diagnose, repair

    if args.dry_run and not args.repair:
        raise UsageError("--dry-run goes with --repair")
    settings = load_settings()
    store = open_store(args.repo, settings)
    if args.repair:
        report = repair(store, dry_run=args.dry_run, lock_wait=settings.lock_wait_seconds)
        verb = "would rebuild" if args.dry_run else "rebuilt"
        entries = sum(d.entries_recoverable for d in report.repaired if d.namespace is not None)
        records = report.entries_restored - entries
        restored = _plural(entries, "entry", "entries") + (f", {_plural(records, 'state record')}" if records else "")
        lines = [f"memactors doctor --repair: {verb} {_plural(len(report.repaired), 'note')} ({restored}); "
                 f"{len(report.unrepairable)} cannot be rebuilt"]
        lines += [f"  {_where(d)}: {verb}" + _restored(d) for d in report.repaired]
        lines += [f"  {_where(d)}: left as is, {_no_way_back(d)}" for d in report.unrepairable]
        lines += [f"  {ref} -> {commit[:12]} (the damaged version stays in history)"
                  for ref, commit in report.refs_updated.items()]
        emit(args, report.model_dump(mode="json"), "\n".join(lines))
        return EXIT_ERRORS if report.unrepairable else EXIT_OK
    found = diagnose(store)
    damaged = [d for d in found if d.damage == "line_sort"]
    unreadable = [d for d in found if d.damage != "line_sort"]
    lines = [f"memactors doctor: {_plural(len(damaged), 'note')} damaged by a line-sorting merge"
             + (f", {_plural(len(unreadable), 'state note')} unreadable" if unreadable else "")]
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
    emit(args, [d.model_dump(mode="json") for d in found], "\n".join(lines))
    return EXIT_ERRORS if found else EXIT_OK


#: What each ref outcome of a dry run means: nothing moved.
_WOULD = {"fetched": "would fetch", "pushed": "would push", "merged": "would merge"}


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


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
