"""Keeping the daemon running: `service install` / `service uninstall` (systemd user unit, launchd agent)."""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path
from typing import Any

from memactors.adapters.cli.common import EXIT_ERRORS, EXIT_OK, Parents, UsageError, emit, load_settings, open_store


def register(commands: Any, parents: Parents) -> dict[str, Any]:
    """Add this group's subcommands to `commands`; return their handlers by name."""
    p = commands.add_parser("service", parents=[parents.common, parents.reporting],
                            help="keep `memactors run` going for this repository (systemd user unit / launchd agent)",
                            description="install: write a per-user service that runs `memactors run --repo REPO` "
                            "with this machine's Python by absolute path, restarts it if it fails and starts it "
                            "at login (a systemd user unit on Linux, a launchd agent on macOS), then start it. "
                            "uninstall: stop it and remove exactly that file.",
                            epilog="Exit codes: 0 done; 1 the file was written or removed but starting or "
                            "stopping it failed (the command to run is printed); 2 usage error.")
    p.add_argument("action", choices=["install", "uninstall"])
    p.add_argument("--no-start", action="store_true", help="write (or remove) the file only; start or stop nothing")
    return {"service": _cmd_service}


def _cmd_service(args: argparse.Namespace) -> int:
    from memactors.adapters.runtime.service_unit import is_ours, service_for

    store = open_store(args.repo, load_settings())
    root = Path(store.git.repo.workdir or store.git.common_dir)
    unit = service_for(root)
    lines: list[str] = []
    failed = False
    if args.action == "install":
        if unit.path.exists() and not is_ours(unit.path):
            raise UsageError(f"{unit.path} exists and was not written by memactors; move it, then retry")
        unit.path.parent.mkdir(parents=True, exist_ok=True)
        unit.path.write_text(unit.text)
        lines.append(f"memactors service: wrote {unit.path}")
        command = unit.start
    else:
        if not unit.path.exists():
            emit(args, {"service": unit.name, "path": str(unit.path), "removed": False},
                 f"memactors service: nothing to remove ({unit.path} does not exist)")
            return EXIT_OK
        if not is_ours(unit.path):
            raise UsageError(f"{unit.path} was not written by memactors; left as it is")
        command = unit.stop
    if not args.no_start:
        failed = not all([_run(step, lines) for step in command])  # every step runs: disable even if stop fails
    if args.action == "uninstall":
        unit.path.unlink()
        lines.append(f"memactors service: removed {unit.path}")
    elif args.no_start or failed:
        lines.append("start it with: " + " && ".join(" ".join(step) for step in command))
    emit(args, {"service": unit.name, "path": str(unit.path), "action": args.action, "ok": not failed},
         "\n".join(lines))
    return EXIT_ERRORS if failed else EXIT_OK


def _run(command: tuple[str, ...], lines: list[str]) -> bool:
    """Run the service manager's command; True when it succeeded (a line says what happened either way)."""
    if shutil.which(command[0]) is None:
        lines.append(f"memactors service: {command[0]} is not on this machine")
        return False
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        lines.append(f"memactors service: {' '.join(command)} failed: {exc}")
        return False
    if done.returncode != 0:
        why = (done.stderr or done.stdout).strip().splitlines()
        lines.append(f"memactors service: {' '.join(command)} failed: {why[-1] if why else done.returncode}")
        return False
    lines.append(f"memactors service: {' '.join(command)}")
    return True
