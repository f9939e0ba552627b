"""Consolidating: `consolidate` once, `run` as a daemon, `demo` on a sample store."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from memactors.adapters.cli.common import (
    EXIT_ERRORS,
    EXIT_OK,
    EXIT_USAGE,
    Parents,
    UsageError,
    check_namespaces,
    counts,
    emit,
    load_settings,
    only_interrupts,
    open_store,
    run_services,
)


def register(commands: Any, parents: Parents) -> dict[str, Any]:
    """Add this group's subcommands to `commands`; return their handlers by name."""
    common, reporting, verbose = parents.common, parents.reporting, parents.verbose
    p = commands.add_parser("consolidate", parents=[common, reporting],
                            help="scan, tier and persist every memory",
                            description="Scan every memory, compute its retention and tier, and persist the "
                            "result to refs/notes/mem-meta with a run record in refs/notes/mem-runs. A run "
                            "that changes nothing writes nothing. When `memactors run` serves the repository, "
                            "the run is handed to it (its model is loaded already) and this command prints "
                            "that run's report; --namespace and the caps run here, once the daemon is between "
                            "runs.")
    p.add_argument("--dry-run", action="store_true", help="compute and report, write nothing")
    p.add_argument("--propose", action="store_true",
                   help="write no ref: save what the run would write as proposals to review (`memactors "
                   "proposals`), then apply (`memactors proposals --apply`) or discard them")
    p.add_argument("--namespace", action="append", metavar="NS",
                   help="limit the run to this namespace (repeatable)")
    p.add_argument("--full", action="store_true",
                   help="re-process everything: re-read every note, re-summarize and re-judge every cluster")
    p.add_argument("--max-llm-calls", type=int, metavar="N",
                   help="cap this run's LLM requests (failed ones count); clusters beyond the cap are handled "
                   "offline")
    p.add_argument("--max-cost-usd", type=float, metavar="USD",
                   help="cap this run's LLM spend in US dollars (default MEMACTORS_MAX_COST_USD); clusters "
                   "beyond the cap are handled offline. MEMACTORS_MAX_COST_USD_PER_DAY caps each day's runs "
                   "together, the daemon's included")
    p.add_argument("--no-wait", action="store_true",
                   help="when `memactors run` serves this repository, queue the run for it and return at once "
                   "instead of waiting for its report")

    p = commands.add_parser("run", parents=[common], help="the background daemon: consolidate as memories arrive",
                            description="Keep the actors alive and run incremental consolidation when memories "
                            "arrive (a watcher on the memory refs), when hooks queue events (the inbox), and on "
                            "a schedule (a full run). Logs one line per run. Ctrl-C / SIGTERM finish the run in "
                            "flight and exit 0; a second daemon on the same repository exits 3. With --view, it "
                            "also serves the viewer (as `memactors view`) and prints its URL on stdout. With "
                            "MEMACTORS_AUTOMEMORY=on, each run imports Claude Code's auto memory first, and the "
                            "first run and each that changes something export it after (see `memactors automemory`).")
    p.add_argument("--schedule-hours", type=float, metavar="H",
                   help="full run every H hours (default MEMACTORS_INTERVAL_HOURS, 24)")
    p.add_argument("--schedule", metavar="CRON", help="full runs at the times a cron expression names, in your time "
                   "zone (MEMACTORS_TIMEZONE or the system's), e.g. \"0 3 * * *\" for 03:00 every day; a scheduled "
                   "run is skipped when nothing was captured since the last run (replaces --schedule-hours)")
    p.add_argument("--quiet-minutes", type=float, default=5.0, metavar="M",
                   help="after an agent turn ends (Stop hook), run once M minutes pass without activity (5)")
    p.add_argument("--debounce-seconds", type=float, default=2.0, metavar="S",
                   help="wait for S quiet seconds after a capture or commit before running (2)")
    p.add_argument("--threshold", type=int, default=50, metavar="N",
                   help="also run once N memories arrived since the last run, checked every 30 s (50)")
    p.add_argument("--view", action="store_true", help="also serve the viewer on 127.0.0.1 (see `memactors view`)")
    p.add_argument("--view-port", type=int, default=0, metavar="N", help="the viewer's port (default: a free one)")

    p = commands.add_parser("demo", parents=[verbose, reporting], help="build a sample store and consolidate it",
                            description="Create a git repository at DIR with a realistic sample memory store "
                            "(several namespaces, months of captures, duplicates, stale decisions, a few broken "
                            "entries) and consolidate it.")
    p.add_argument("directory", type=Path, metavar="DIR", help="where to create it: a new or empty directory")
    p.add_argument("--memories", type=int, default=300, metavar="N", help="how many captures (default 300)")
    p.add_argument("--seed", type=int, default=7, help="random seed (default 7)")

    return {"consolidate": _cmd_consolidate, "run": _cmd_run, "demo": _cmd_demo}


def _cmd_consolidate(args: argparse.Namespace) -> int:

    from memactors.adapters.runtime.pipeline import RunOptions

    if args.max_llm_calls is not None and args.max_llm_calls < 0:
        raise UsageError("--max-llm-calls must be 0 or more")
    if args.max_cost_usd is not None and not args.max_cost_usd >= 0:
        raise UsageError("--max-cost-usd must be 0 or more (US dollars)")
    if sys.stderr.isatty() and not args.json:  # progress for people watching; scripts get the report only
        logging.getLogger("memactors.progress").setLevel(logging.INFO)
    settings = load_settings()
    store = open_store(args.repo, settings)
    store.check_readable()
    check_namespaces(args.namespace, store.git.memory_refs())
    namespaces = tuple(args.namespace) if args.namespace else None
    options = RunOptions(namespaces=namespaces, dry_run=args.dry_run, full=args.full)
    if args.propose:
        return _propose(args, store, settings, options)
    from memactors.adapters.claude.inbox import Inbox
    from memactors.adapters.git.repo_lock import daemon_holder

    inbox = Inbox(store.git.common_dir)
    daemon = daemon_holder(store.git.common_dir)
    bridged: list[str] = []  # what the auto memory bridge did (a daemon bridges around its own runs)
    if (daemon is not None and not args.dry_run and namespaces is None and args.max_llm_calls is None
            and args.max_cost_usd is None):
        report = _hand_to_daemon(args, inbox, daemon)
        if report is None:  # --no-wait
            return EXIT_OK
        if report == "stopped":  # the daemon left before it ran: the request is still queued, run it here
            print("memactors consolidate: the daemon stopped before it ran; running here", file=sys.stderr)
            report = _run_here(args, store, settings, options, inbox, wait=settings.lock_wait_seconds)
    else:  # with a daemon present, wait for it to be between runs
        bridged = _bridge_auto_memory(args, settings, "import")
        report = _run_here(args, store, settings, options, inbox,
                           wait=settings.lock_wait_seconds if daemon is not None else 0.0)
        if report.phase == "completed":
            bridged += _bridge_auto_memory(args, settings, "export")
    import time

    from memactors.adapters.claude.review_reminder import waiting_count, waiting_phrase

    document, text = report.model_dump(mode="json"), _render_report(report, store.git.description)
    if bridged:
        document["automemory"] = bridged
        text += "".join(f"\n  auto memory: {line}" for line in bridged)
    waiting = waiting_count(store.git.common_dir, time.time())
    if waiting:
        document["review_waiting"] = waiting
        text += f"\n  {waiting_phrase(waiting)}: `memactors review`"
    emit(args, document, text)
    return EXIT_ERRORS if report.errors or report.phase == "failed" else EXIT_OK


def _propose(args: argparse.Namespace, store, settings, options) -> int:
    """`--propose`: the run here (never handed to a daemon, no inbox drained, no auto memory bridged) with its
    writes saved as proposals; the run lock is waited for as a dry run waits for it."""
    from memactors.adapters.cli.common import report
    from memactors.adapters.git.repo_lock import daemon_holder
    from memactors.adapters.operations.proposals import propose
    from memactors.adapters.system.clock import SystemClock

    if args.dry_run:
        raise UsageError("--propose and --dry-run: choose one (--propose writes no ref either)")
    wait = settings.lock_wait_seconds if daemon_holder(store.git.common_dir) is not None else 0.0
    with _run_lock(store, dry_run=True, wait=wait):
        services = run_services(store, settings, SystemClock(), args.max_llm_calls, args.max_cost_usd)
        return report(args, propose(services, options, handle_signals=True))


def _bridge_auto_memory(args: argparse.Namespace, settings, action: str) -> list[str]:
    """With MEMACTORS_AUTOMEMORY on (and not a dry run): import Claude Code's auto memory before the run, export
    after it; what it did in a line, or why it could not (the run goes on either way)."""
    if not settings.automemory or args.dry_run or args.namespace:
        return []
    from memactors.adapters.operations.automemory import export_auto_memory, import_auto_memory

    operation = import_auto_memory if action == "import" else export_auto_memory
    try:
        return [operation(args.repo).text.splitlines()[0]]
    except (UsageError, OSError) as exc:
        return [f"{action} skipped: {str(exc).splitlines()[0]}"]


def _daemon_bridge(repo: Path, settings) -> dict[str, Any]:
    """With MEMACTORS_AUTOMEMORY on, the daemon's side of the bridge: import before each run (under its lock),
    export after a run that changed something; each says what it did in a line of the log."""
    if not settings.automemory:
        return {}
    from memactors.adapters.operations.automemory import export_auto_memory, import_auto_memory

    def step(operation, action: str):
        def run() -> str:
            try:
                return f"auto memory: {operation(repo).text.splitlines()[0]}"
            except (UsageError, OSError) as exc:
                return f"auto memory: {action} skipped: {str(exc).splitlines()[0]}"
        return run

    return {"before_run": step(import_auto_memory, "import"), "after_run": step(export_auto_memory, "export")}


def _run_here(args: argparse.Namespace, store, settings, options, inbox, *, wait: float):
    """One run in this process under the run lock; it drains the inbox (and answers handed-over requests)."""
    import trio

    from memactors.adapters.claude.inbox import REQUEST_KINDS
    from memactors.adapters.system.clock import SystemClock
    from memactors.adapters.runtime.pipeline import consolidate

    with _run_lock(store, dry_run=options.dry_run, wait=wait):
        queued, corrupt = inbox.pending() if not options.dry_run else ([], [])  # hooks' events: a run consumes them
        for path in corrupt:
            logging.getLogger("memactors").warning("moved a corrupt inbox file aside: %s", path)
        services = run_services(store, settings, SystemClock(), args.max_llm_calls, args.max_cost_usd)
        report = trio.run(lambda: consolidate(services, options, handle_signals=True, stop_at_first_signal=True))
        if report.phase == "completed":
            mine = os.getpid()
            for event in queued:  # a `consolidate` handed to a daemon that never ran it: its sender waits
                if event.kind in REQUEST_KINDS and event.payload.get("pid") != mine:
                    try:
                        inbox.answer(event.path, report.model_dump(mode="json"))
                    except OSError as exc:
                        logging.getLogger("memactors").warning("could not leave the report for %s: %s",
                                                               event.path, exc)
            inbox.ack(queued)
            report = report.model_copy(update={"inbox_events": len(queued)})
    return report


#: How often a `consolidate` waiting for the daemon's run says it still waits.
WAIT_NOTE_SECONDS = 30.0


def _hand_to_daemon(args: argparse.Namespace, inbox, daemon_pid: str):
    """Queue this run for the daemon and wait for its report: the report, None with --no-wait, or
    "stopped" when the daemon went away with the request still queued."""
    import json
    import time

    from memactors.adapters.git.repo_lock import daemon_holder
    from memactors.events.report import RunReport

    request = inbox.drop("consolidate", {"full": bool(args.full), "pid": os.getpid()})
    if args.no_wait:
        print(f"memactors consolidate: queued for the memactors daemon (pid {daemon_pid}); it runs within "
              "seconds (`memactors status` shows the last run)", file=sys.stderr)
        return None
    print(f"memactors consolidate: handed to the memactors daemon (pid {daemon_pid}); waiting for its run "
          "(Ctrl-C stops waiting, the run goes on)", file=sys.stderr, flush=True)
    answer = inbox.answer_path(request)
    common = inbox.directory.parent.parent
    started = time.monotonic()
    next_note = started + WAIT_NOTE_SECONDS
    while True:
        if time.monotonic() >= next_note:  # a long LLM run, or runs failing and retried: say so, keep waiting
            print(f"memactors consolidate: still waiting for the daemon (pid {daemon_pid}) after "
                  f"{time.monotonic() - started:.0f} s; its log says what it is doing", file=sys.stderr, flush=True)
            next_note += WAIT_NOTE_SECONDS
        if answer.exists():
            try:
                document = json.loads(answer.read_text())
            except (OSError, ValueError):  # replaced atomically: a failed read is a vanished file
                document = None
            if document is not None:
                answer.unlink(missing_ok=True)
                return RunReport.model_validate(document)
        elif request.exists() and daemon_holder(common) is None:
            return "stopped"
        time.sleep(0.1)


@contextlib.contextmanager
def _run_lock(store, *, dry_run: bool, wait: float = 0.0) -> Iterator[None]:
    """Hold the repository's run lock; a run that writes first checks it can (one line, exit 2, if not).

    A dry run writes nothing: on a read-only repository, where nobody can write either, it runs
    without the lock.
    """
    from memactors.adapters.git.repo_lock import LockUnavailable, RepoLock
    from memactors.adapters.git.store import NotWritable

    if not dry_run:
        store.git.check_writable()
    try:
        lock = RepoLock(store.git.common_dir, role="consolidate", wait=wait)
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


def _render_report(report, where: str) -> str:
    from memactors.events.tier import TIER_ORDER

    skipped = sum(report.memories_skipped.values())
    lines = [f"memactors consolidate: run {report.run_id} ({report.trigger}) in {where}"]
    if report.phase == "failed":
        lines.append("  FAILED: " + "; ".join(report.errors))
        return "\n".join(lines)
    scope = f" in {', '.join(report.namespaces)}" if report.namespaces else ""
    lines.append(f"  scanned     {report.memories_processed} memories{scope}")
    lines.append(f"  skipped     {skipped} entries" + (f" ({counts(report.memories_skipped)})" if skipped else ""))
    if report.parse_warnings:
        lines.append(f"  read with   {counts(report.parse_warnings)} (originals untouched)")
    tiers = " · ".join(f"{t.value} {report.tier_counts.get(t.value, 0)}" for t in TIER_ORDER)
    lines.append(f"  tiers       {tiers}")
    lines.append(f"  transitions {counts(report.tier_transitions)}")
    for stage, setting in report.stages_off.items():  # a stage switched off says so, and by which setting
        lines.append(f"  {stage.replace('_', ' ')}: off ({setting})")
    if report.memories_embedded or report.clusters_found or report.duplicates_collapsed:
        lines.append(f"  clusters    {report.clusters_found} of 3+ and {report.pairs_found} pairs, "
                     f"{report.duplicates_collapsed} copies collapsed, "
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
        if report.providers and set(report.providers) == {"offline"} and not report.fallbacks:
            lines.append("              offline summaries and judge: set MEMORY_CONSOLIDATION_LLM_PROVIDER="
                         "anthropic|claude-code|openai|lmstudio|ollama for LLM ones (`memactors llm check`)")
    if report.phase == "dry_run":
        lines.append("  dry run: nothing written")
    elif report.persisted:
        lines.append(f"  persisted   {', '.join(report.refs_updated)}")
    else:
        lines.append("  nothing changed: no ref written")
    for error in _grouped(report.errors):
        lines.append(f"  error       {error}")
    if report.inbox_events:
        lines.append(f"  drained     {report.inbox_events} hook events from the inbox")
    lines.append(f"  took        {report.duration_seconds:.2f} s")
    if report.memories_processed == 0 and not skipped:
        lines.append("  no memories found under refs/notes/mem/*: capture one with `memactors capture`")
    return "\n".join(lines)


def _grouped(errors: list[str]) -> list[str]:
    """Errors for people: fallbacks that share a reason become one line (the JSON report keeps each)."""
    lines: list[str] = []
    by_reason: dict[str, int] = {}
    for error in errors:
        head, sep, reason = error.partition("): ")
        if sep and head.startswith(("summaries of ", "judge batch ")):
            by_reason[reason] = by_reason.get(reason, 0) + 1
        else:
            lines.append(error)
    for reason, times in by_reason.items():
        lines.append(f"{reason} ({times} request{'s' if times > 1 else ''} handled offline)")
    return lines


def _cmd_run(args: argparse.Namespace) -> int:
    from memactors.adapters.system.process_exit import interrupt_dropped, mark_interrupted, remember_dropped_interrupts

    remember_dropped_interrupts()  # again: `main` may not have been the way in
    try:
        return _serve(args, interrupt_dropped)
    except BaseException as exc:  # Ctrl-C before the daemon watches for it (imports, model start)
        if not only_interrupts(exc):
            raise
        print("memactors run: stopped", file=sys.stderr)
        return EXIT_OK
    finally:
        # a signal stops the daemon: whatever C code it passed through, the exit code must stay the daemon's
        mark_interrupted()


def _serve(args: argparse.Namespace, signalled_before: Callable[[], bool]) -> int:
    import contextlib

    import trio

    from memactors.adapters.claude.inbox import Inbox
    from memactors.adapters.git.memory_counter import StoreCounter
    from memactors.adapters.git.notes_feed import NotesFeed
    from memactors.adapters.git.repo_lock import DAEMON_LOCK, RepoLock
    from memactors.adapters.system.clock import SystemClock
    from memactors.adapters.runtime.daemon import Daemon, DaemonSettings, RepositoryGone
    from memactors.adapters.operations.recall import answer_request
    from memactors.adapters.runtime.run_gate import DaemonRunGate

    every = 1 if args.schedule_hours is None else args.schedule_hours  # None: MEMACTORS_INTERVAL_HOURS, checked there
    if min(every, args.quiet_minutes, args.debounce_seconds, args.threshold) <= 0:
        raise UsageError("--schedule-hours, --quiet-minutes, --debounce-seconds and --threshold must be positive")
    logging.getLogger("memactors").setLevel(logging.INFO)
    settings = load_settings()
    schedule_hours = settings.interval_hours if args.schedule_hours is None else args.schedule_hours
    if args.schedule is not None:
        from memactors.adapters.runtime.cron import BadSchedule, CronSchedule

        try:
            first = CronSchedule(args.schedule, settings.zone(), SystemClock()).next_time()
        except (BadSchedule, ValueError) as exc:
            raise UsageError(f"--schedule: {exc}") from None
        print(f"memactors run: scheduled runs at {args.schedule!r} ({settings.zone()}), the first at "
              f"{first:%Y-%m-%d %H:%M %Z}, each skipped when nothing was captured since the last",
              file=sys.stderr, flush=True)
    store = open_store(args.repo, settings)
    store.check_readable()
    common = store.git.common_dir
    with contextlib.ExitStack() as held:
        try:  # one daemon per repository, for its whole life; the run lock only while it runs
            held.enter_context(RepoLock(common, role="daemon-idle", name=DAEMON_LOCK))
        except OSError as exc:  # full disk, read-only file system: an environment error, not a traceback
            print(f"memactors run: cannot write under {common / 'memactors'} ({exc.strerror or exc}); "
                  "free some space or fix its permissions, then start it again", file=sys.stderr)
            return EXIT_USAGE
        services = run_services(store, settings, SystemClock())
        daemon = Daemon(services, NotesFeed(common, settings.notes_base), Inbox(common), DaemonSettings(
            debounce=args.debounce_seconds, quiet=args.quiet_minutes * 60, schedule_every=schedule_hours * 3600,
            schedule_cron=args.schedule, threshold=args.threshold), counter=StoreCounter(args.repo, settings.notes_base),
            gate=DaemonRunGate(common), answer_query=answer_request, **_daemon_bridge(args.repo, settings))
        print(f"memactors run: watching {store.git.description} (pid {os.getpid()}; Ctrl-C to stop)",
              file=sys.stderr, flush=True)
        if not 0 <= args.view_port <= 65535:
            raise UsageError("--view-port must be between 1 and 65535 (or 0 for a free one)")
        if args.view:  # imported here, not inside trio.run (see `memactors view`)
            from memactors.adapters.viewer.server import import_server

            import_server()

        async def daemon_and_viewer() -> None:
            from memactors.adapters.viewer.server import serve as serve_viewer

            try:
                async with trio.open_nursery() as nursery:
                    await nursery.start(lambda task_status: serve_viewer(
                        args.repo, port=args.view_port, open_browser=False, task_status=task_status))
                    await daemon.run(handle_signals=True, signalled_before=signalled_before)
                    nursery.cancel_scope.cancel()
            except BaseExceptionGroup as group:  # the daemon's own ending (RepositoryGone, ...) as it says it
                if len(group.exceptions) == 1:
                    raise group.exceptions[0] from None
                raise

        unbindable: tuple[type[OSError], ...] = ()
        if args.view:
            from memactors.adapters.viewer.server import PortUnavailable

            unbindable = (PortUnavailable,)
        try:
            trio.run(daemon_and_viewer if args.view
                     else lambda: daemon.run(handle_signals=True, signalled_before=signalled_before))
        except RepositoryGone as exc:  # an environment error: nothing left to serve
            print(f"memactors run: {exc}; stopped", file=sys.stderr)
            return EXIT_USAGE
        except unbindable as exc:  # the viewer's port (in use, privileged): a usage error, before any run
            print(f"memactors run: {exc.strerror}; try --view-port 0 (a free one)", file=sys.stderr)
            return EXIT_USAGE
        except Exception as exc:  # noqa: BLE001 - the daemon's last word, not a traceback
            from memactors.bus.supervisor import describe

            print(f"memactors run: stopped after repeated failures ({describe(exc)}); "
                  "check the repository, then start it again", file=sys.stderr)
            return EXIT_ERRORS
    print("memactors run: stopped", file=sys.stderr)
    return EXIT_OK


def _cmd_demo(args: argparse.Namespace) -> int:
    import trio

    from memactors.adapters.system.clock import SystemClock
    from memactors.adapters.runtime.demo import build_demo_repository
    from memactors.adapters.runtime.pipeline import RunOptions, consolidate

    if args.memories < 1:
        raise UsageError("--memories must be at least 1")
    settings = load_settings()
    target = args.directory
    if target.exists() and any(target.iterdir()):
        raise UsageError(f"{target} exists and is not empty; give a new directory")
    clock = SystemClock()
    built = build_demo_repository(target, clock.now(), count=args.memories, seed=args.seed)
    store = open_store(target, settings)
    services = run_services(store, settings, clock)
    report = trio.run(lambda: consolidate(services, RunOptions(trigger="demo")))
    text = "\n".join([
        f"demo store: {target} ({built.commits} commits, {built.entries} entries over {built.months} months)",
        f"  built in: {built.duplicates} exact duplicates (a hook that fired twice), {built.repeats} repeats "
        f"(the same fact captured again later), {built.stale_decisions} decisions replaced later, "
        f"{built.contradictions} decision taken back (a conflict for you), {built.broken} broken entries",
        _render_report(report, str(target)),
        "  how to read it: exact duplicates are skipped at the scan; the repeats are (nearly all) the copies",
        "  collapsed (one capture kept, the rest subsumed by it); newly superseded or subsumed = those copies plus the",
        "  decisions the judge found replaced (the offline judge also reads a few repeats with a change word",
        "  as replaced); broken entries are skipped, never changed.",
        "",
        "next: memactors status --repo " + str(target),
        "      memactors tiers --repo " + str(target),
        "      memactors conflicts --repo " + str(target) + "   (then `memactors resolve ID --keep MEMORY-ID`)",
        "      memactors recall \"what do we use for the primary database\" --repo " + str(target),
    ])
    emit(args, {"repository": str(target), "built": built.__dict__, "report": report.model_dump(mode="json")}, text)
    return EXIT_ERRORS if report.errors else EXIT_OK
