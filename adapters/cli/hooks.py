"""Hooks: `publish` (what a hook runs: standard library only) and `hooks install|uninstall`."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from memactors.adapters.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    Parents,
    UsageError,
    emit,
    load_settings,
    open_store,
)


def register(commands: Any, parents: Parents) -> dict[str, Any]:
    """Add this group's subcommands to `commands`; return their handlers by name."""
    common = parents.common
    p = commands.add_parser("publish", parents=[common],
                            help="queue a trigger from a hook (fast, never fails the hook)",
                            description="Drop one event into the repository's durable inbox (under git's common "
                            "dir) and return. `commit` is for git's post-commit hook; `session-end` for Claude "
                            "Code's Stop, PreCompact and SessionEnd hooks and reads the hook's JSON from stdin (its "
                            "transcript is queued for `memactors review` proposals). Imports only "
                            "the standard library; always exits 0 (problems go to stderr). The next "
                            "`memactors consolidate` drains the inbox.")
    p.add_argument("event", choices=["commit", "session-end"])

    p = commands.add_parser("surface", parents=[parents.reporting],
                            help="the Claude Code hook that surfaces memories about a file, an error or a prompt",
                            description="Reads Claude Code's hook JSON on stdin (PostToolUse of Read/Edit/"
                            "MultiEdit/Write, PostToolUseFailure of Bash, UserPromptSubmit) and prints the hook's "
                            "JSON with up to three memories that matter now, or nothing. Never a memory twice in a "
                            "session; at most MEMACTORS_SURFACING_MAX (20) per session; MEMACTORS_SURFACING=off "
                            "turns it off. Reads only what the last run precomputed; standard library only; always "
                            "exit 0 (problems go to <git common dir>/memactors/surface.log).")
    p.add_argument("--explain", action="store_true",
                   help="for the same hook JSON, show which memories would surface and why: each candidate's signal "
                   "and weight, the bar, those below it, and what this session has already seen (records nothing)")

    p = commands.add_parser("hooks", parents=[common], help="install or remove the git and Claude Code hooks",
                            description="install: add a post-commit hook (chained after an existing one) and "
                            "Stop/SessionEnd (queue a run), SessionStart (`memactors context`) and PostToolUse "
                            "(Read|Edit|MultiEdit|Write), PostToolUseFailure (Bash) and UserPromptSubmit "
                            "(`memactors surface`) commands in .claude/settings.json (merged with what is there). "
                            "uninstall: remove exactly what install added (and what earlier versions added), "
                            "from .claude/settings.json and .claude/settings.local.json. With neither --git nor "
                            "--claude, both.",
                            epilog=".claude/settings.json is usually committed, so its commands are the portable "
                            "`memactors publish ...` and `memactors context`: they work on every clone whose "
                            "machine has memactors on PATH (pipx, or an activated venv). If memactors is not on "
                            "PATH where Claude Code runs, use --local: the commands then name this machine's "
                            "Python by absolute path and go to .claude/settings.local.json, which Claude Code "
                            "reads for this machine only and teams do not commit. The git hook lives in .git/hooks "
                            "(never committed) and always names this machine's Python.")
    p.add_argument("action", choices=["install", "uninstall"])
    p.add_argument("--git", action="store_true", help="only the git post-commit hook")
    p.add_argument("--claude", action="store_true", help="only the Claude Code settings")
    p.add_argument("--local", action="store_true",
                   help="Claude Code hooks with this machine's absolute path, in .claude/settings.local.json")
    p.add_argument("--print", dest="print_only", action="store_true", help="show what would be written, write nothing")
    p.add_argument("--sync-remote", metavar="REMOTE",
                   help="also set up REMOTE for sharing memories (as `memactors sync --setup --remote REMOTE`)")

    return {"publish": _cmd_publish, "hooks": _cmd_hooks, "surface": _cmd_surface}


def _cmd_publish(args: argparse.Namespace) -> int:
    """Standard library only, and never an error exit: a hook must not fail because of us."""
    try:
        from memactors.adapters.claude.inbox import Inbox, find_common_dir

        where, kind, payload = args.repo, args.event, {}
        if args.event == "session-end":
            raw = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
            hook = json.loads(raw) if raw.strip() else {}
            if not isinstance(hook, dict):
                raise ValueError("the hook input is not a JSON object")
            payload = {k: hook[k] for k in ("session_id", "transcript_path", "cwd", "hook_event_name") if k in hook}
            kind = "stop" if hook.get("hook_event_name") in ("Stop", "PreCompact") else "session-end"
            if args.repo == Path(".") and isinstance(hook.get("cwd"), str):
                where = Path(hook["cwd"])
        common = find_common_dir(where)
        if common is None:
            raise ValueError(f"{where} is not inside a git repository")
        Inbox(common).drop(kind, payload)
        from memactors.adapters.claude.hook_switch import IMPLICIT_CAPTURE_SWITCH, switched_off

        # implicit capture off: no transcript is queued, so none is read later, not even once it is on again
        if (isinstance(payload.get("transcript_path"), str) and payload["transcript_path"]
                and not switched_off(IMPLICIT_CAPTURE_SWITCH)):
            from memactors.adapters.claude.transcript_queue import queue_transcript

            queue_transcript(common, payload["transcript_path"], str(payload.get("session_id") or ""),
                             str(payload.get("hook_event_name") or ""))
        if kind == "session-end" and isinstance(payload.get("session_id"), str):
            from memactors.adapters.claude.session_seen import SessionSeen

            SessionSeen(common, payload["session_id"]).end()  # what surfacing showed goes to the log
    except Exception as exc:  # noqa: BLE001 - reported, never raised into the hook
        print(f"memactors publish: {exc}; event not recorded", file=sys.stderr)
    return EXIT_OK


def _cmd_surface(args: argparse.Namespace) -> int:
    """Reached only through the full parser (the entry point runs a bare `surface` without it)."""
    if not args.explain:
        from memactors.adapters.claude.surface_hook import run

        return run()
    try:  # hook commands skip the parser's error handling: say it here
        return _explain_surface(args)
    except UsageError as exc:
        print(f"memactors: {exc}", file=sys.stderr)
        return EXIT_USAGE


def _explain_surface(args: argparse.Namespace) -> int:
    from memactors.adapters.claude.git_dirs import common_dir_of
    from memactors.adapters.claude.surface_hook import explain

    raw = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    try:
        hook = json.loads(raw) if raw.strip() else None
    except ValueError:
        hook = None
    if not isinstance(hook, dict):
        raise UsageError("give the hook's JSON on stdin, e.g. "
                         '{"hook_event_name": "UserPromptSubmit", "prompt": "...", "cwd": "."}')
    cwd = hook["cwd"] if isinstance(hook.get("cwd"), str) else os.getcwd()
    common = common_dir_of(cwd)
    if common is None:
        raise UsageError(f"{cwd} is not inside a git repository")
    found = explain(hook, cwd, common, os.environ)
    if not found["signal"]:
        text = "surfacing answers PostToolUse of Read/Edit/MultiEdit/Write, PostToolUseFailure of Bash and " \
               "UserPromptSubmit; this event gets nothing"
    else:
        text_lines = [f"{found['event']}: signal {found['signal']}, bar {found['bar']:g}"]
        for row in found["candidates"]:
            mark = "SHOWN" if row["would_show"] else ("seen " if row["seen_this_session"] else
                                                      ("above" if row["above_bar"] else "below"))
            text_lines.append(f"  {mark}  {row['weight']:.2f}  [{row['namespace']} {row['date']}] {row['title'][:70]}"
                              f"  ({row['id']})")
        if not found["candidates"]:
            text_lines.append("  no memory matches this signal")
        if found["already_answered"]:
            text_lines.append("  this event was already answered this session: surface prints nothing again")
        text_lines.append("surface would print:" + (f"\n{found['would_print']}" if found["would_print"]
                                                     else " nothing"))
        text = "\n".join(text_lines)
    emit(args, found, text)
    return EXIT_OK


def _cmd_hooks(args: argparse.Namespace) -> int:
    from memactors.adapters.claude import hook_setup

    settings = load_settings()
    store = open_store(args.repo, settings)
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
            workdir = Path(store.git.repo.workdir)
            if args.action == "install":
                target = workdir / (hook_setup.LOCAL_SETTINGS if args.local else hook_setup.SHARED_SETTINGS)
                lines += _write_settings(target, lambda current: hook_setup.claude_settings(
                    current, portable=not args.local), args.print_only,
                    "Stop, PreCompact, SessionEnd, SessionStart, PostToolUse, PostToolUseFailure and "
                    "UserPromptSubmit hooks added")
                if args.local:
                    lines.append("MCP server: not written to the shared .mcp.json with --local; for this machine "
                                 f"only: claude mcp add --scope local memactors -- \"{sys.executable}\" -m "
                                 "memactors.adapters.cli mcp")
                else:
                    lines += _write_settings(workdir / hook_setup.MCP_FILE, hook_setup.with_mcp_server,
                                             args.print_only, "MCP server memactors added (`memactors mcp`)",
                                             what="MCP servers")
                if not args.print_only and not _llm_named():
                    lines += LLM_OPTIONS
                if not args.print_only and not settings.automemory:
                    lines.append("Claude Code's own auto memory stays on this machine: share it through git with "
                                 "`memactors automemory import` (and `export`), or set MEMACTORS_AUTOMEMORY=on so "
                                 "every `memactors consolidate` and daemon run does both")
                if not args.local:
                    lines += _path_notes(shutil.which("memactors"), os.environ.get("VIRTUAL_ENV"))
            else:
                for settings_file in (hook_setup.SHARED_SETTINGS, hook_setup.LOCAL_SETTINGS):
                    if (workdir / settings_file).exists():
                        lines += _write_settings(workdir / settings_file, hook_setup.without_claude_hooks,
                                                 args.print_only, "our hooks removed")
                if (workdir / hook_setup.MCP_FILE).exists():
                    lines += _write_settings(workdir / hook_setup.MCP_FILE, hook_setup.without_mcp_server,
                                             args.print_only, "our MCP server removed", what="MCP servers")
    if args.action == "install" and args.sync_remote:
        from memactors.adapters.git.remote_setup import setup_remote

        lines += [f"sync {args.sync_remote}: {line}" for line in setup_remote(store, args.sync_remote,
                                                                              dry_run=args.print_only)]
    elif args.action == "install" and "origin" in store.git.repo.remotes.names():
        lines.append("to share memories through origin: memactors hooks install --sync-remote origin "
                     "(or memactors sync --setup)")
    if args.action == "install" and not args.print_only:
        lines += next_steps(store.git.description)
    print("\n".join(lines))
    return EXIT_OK


def _checkout() -> str:
    """Where this memactors was installed from, as pipx takes it: its checkout (memactors is not on a package
    index), else a placeholder naming what to put there."""
    here = Path(__file__).resolve().parents[2]
    return str(here) if (here / "pyproject.toml").is_file() else "<a checkout of memactors>"


def _path_notes(found: str | None, venv: str | None) -> list[str]:
    """What to tell a user whose committed hooks name `memactors` bare, given where it resolves now."""
    remedy = (f"install it where every shell finds it (`pipx install {_checkout()}` then `pipx ensurepath`, or "
              f"`uv tool install {_checkout()}`), or reinstall these hooks with --local (they then name this "
              "machine's Python by path)")
    if found is None:
        return [f"warning: `memactors` is not on PATH here, so these hooks fail until it is: {remedy}"]
    if venv and os.path.realpath(found).startswith(os.path.realpath(venv) + os.sep):
        return [f"warning: `memactors` is found only through the activated virtual environment {venv}; "
                f"Claude Code started from another shell will not find it and its hooks will fail: {remedy}"]
    return []


def next_steps(where: str) -> list[str]:
    """After an install: what the hooks do, and what does the work."""
    return [
        "next: the hooks only queue events (a few milliseconds each); consolidation happens in a run:",
        f"  keep `memactors run --repo {where}` running (a terminal or tmux pane, or `memactors service install`",
        "  for a systemd user unit / launchd agent), which consolidates as memories arrive; or",
        "  run `memactors consolidate` now and then: it drains the queued events too.",
    ]


#: What `hooks install --claude` tells a user whose runs are offline: the two ways to use the Claude they have.
LLM_OPTIONS = [
    "summaries and verdicts are offline until you name an LLM (nothing leaves this machine until then):",
    "  Claude API key:        MEMORY_CONSOLIDATION_LLM_PROVIDER=anthropic ANTHROPIC_API_KEY=... (billed per token)",
    "  Claude Code login:     MEMORY_CONSOLIDATION_LLM_PROVIDER=claude-code (runs your `claude`, no key)",
    "  then `memactors llm check`; cap spend with MEMACTORS_MAX_COST_USD / MEMACTORS_MAX_COST_USD_PER_DAY",
]


def _llm_named() -> bool:
    import os

    return bool((os.environ.get("MEMORY_CONSOLIDATION_LLM_PROVIDER") or os.environ.get("MEMORY_LLM_PROVIDER") or "")
                .strip())


def _write_settings(path: Path, change: Any, print_only: bool, done: str, what: str = "claude settings"
                    ) -> list[str]:
    """Apply `change` to the Claude Code JSON file at `path`; lines saying what was (or would be) done."""
    from memactors.adapters.claude import hook_setup

    try:
        current = hook_setup.read_json(path)
        updated = change(current)
    except ValueError as exc:
        raise UsageError(f"{exc}; fix or move it, then retry") from None
    if print_only:
        return [f"{what} {path} would become:", json.dumps(updated, indent=2)]
    if updated == current:
        return [f"{what} {path}: nothing to change"]
    if not updated:  # nothing but ours was in it: the file install created goes
        path.unlink()
        if path.parent.name == ".claude":
            with contextlib.suppress(OSError):
                path.parent.rmdir()  # .claude/, if we left it empty
        return [f"{what} {path}: {done}; the file held nothing else and was removed"]
    hook_setup.write_json(path, updated)
    return [f"{what} {path}: {done}"]
