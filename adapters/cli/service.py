"""Keeping the daemon running: `service install` / `service uninstall` (systemd user unit, launchd agent)."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memactors.adapters.cli.common import EXIT_ERRORS, EXIT_OK, Parents, UsageError, emit, load_settings, open_store

if TYPE_CHECKING:
    from memactors.adapters.runtime.service_unit import ServiceUnit


def register(commands: Any, parents: Parents) -> dict[str, Any]:
    """Add this group's subcommands to `commands`; return their handlers by name."""
    p = commands.add_parser("service", parents=[parents.common, parents.reporting],
                            help="keep `memactors run` going for this repository (systemd user unit / launchd agent)",
                            description="install: write a per-user service that runs `memactors run --repo REPO` "
                            "with this machine's Python by absolute path, restarts it if it fails and starts it "
                            "at login (a systemd user unit on Linux, a launchd agent on macOS), then start it. "
                            "Its environment file (<config>/memactors/<name>.env, printed) holds your shell's "
                            "LLM and MEMACTORS_* settings, never a secret: add your API key to it yourself. "
                            "uninstall: stop it and remove exactly those files (an environment file you "
                            "edited stays).",
                            epilog="Exit codes: 0 done (uninstall: the file is gone, even when the service manager "
                            "could not be reached; what to run by hand is printed); 1 the file was written but "
                            "starting it failed (the command to run is printed); 2 usage error.")
    p.add_argument("action", choices=["install", "uninstall"])
    p.add_argument("--no-start", action="store_true", help="write (or remove) the file only; start or stop nothing")
    return {"service": _cmd_service}


def _cmd_service(args: argparse.Namespace) -> int:
    from memactors.adapters.runtime.service_unit import service_for

    store = open_store(args.repo, load_settings())
    root = Path(store.git.repo.workdir or store.git.common_dir)
    unit = service_for(root)
    return _install(args, unit) if args.action == "install" else _uninstall(args, unit)


def _install(args: argparse.Namespace, unit: ServiceUnit) -> int:
    """Write the unit and its environment file (unless the user edited it), then start it."""
    from memactors.adapters.runtime.service_unit import assigned, environment_file, environment_state, is_ours

    if unit.path.exists() and not is_ours(unit.path):
        raise UsageError(f"{unit.path} exists and was not written by memactors; move it, then retry")
    made = environment_file(unit, os.environ)
    env = unit.environment_file
    kept = environment_state(env) == "edited"
    unit.path.parent.mkdir(parents=True, exist_ok=True)
    unit.path.write_text(unit.text)
    lines = [f"memactors service: wrote {unit.path}"]
    if kept:
        add = [name for name in made.add_yourself if name not in assigned(env)]
        lines.append(f"memactors service: kept {env} as you edited it (the service's environment; its settings "
                     "stand)")
    else:
        add = list(made.add_yourself)
        env.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(env, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # the user's key will go in it
        with os.fdopen(fd, "w") as out:
            os.fchmod(out.fileno(), 0o600)
            out.write(made.text)
        held = ", ".join(f"{name}={value}" for name, value in made.settings.items())
        if made.offline:
            offline = ("no LLM provider is named in your environment, so the daemon runs offline; set "
                       "MEMORY_CONSOLIDATION_LLM_PROVIDER there to name one")
            held = f"{held}; {offline}" if held else offline
        lines.append(f"memactors service: wrote {env} (the service's environment, yours to edit): {held}")
    failed = False
    if not args.no_start:
        failed = not all([_run(step, lines)[0] for step in unit.start])
    if args.no_start or failed:
        lines.append("start it with: " + " && ".join(" ".join(step) for step in unit.start))
    if add:
        wanted = ", ".join(f"{name}=<your key>" if name.endswith("_KEY") else f"{name}=<its value>" for name in add)
        lines.append(f"memactors service: add {wanted} to {env} yourself (install never copies a secret), "
                     "then restart it: " + " && ".join(" ".join(step) for step in unit.restart))
    emit(args, {"service": unit.name, "path": str(unit.path), "action": "install", "ok": not failed,
                "environment_file": str(env), "environment_file_kept": kept,
                "environment": {} if kept else made.settings, "add_yourself": add},
         "\n".join(lines))
    return EXIT_ERRORS if failed else EXIT_OK


def _uninstall(args: argparse.Namespace, unit: ServiceUnit) -> int:
    """Stop the service, remove its file and its environment file unless the user edited it. Exit 0 once the
    file is gone, whether or not the service manager could be reached (what to run by hand is said)."""
    from memactors.adapters.runtime.service_unit import environment_state, is_ours

    env = unit.environment_file
    lines: list[str] = []
    document: dict[str, Any] = {"service": unit.name, "path": str(unit.path), "action": "uninstall",
                                "environment_file": str(env)}
    if not unit.path.exists():
        lines.append(f"memactors service: nothing to remove ({unit.path} does not exist)")
        document["removed"] = False
        _remove_environment(env, environment_state(env), lines, document)
        emit(args, document, "\n".join(lines))
        return EXIT_OK
    if not is_ours(unit.path):
        raise UsageError(f"{unit.path} was not written by memactors; left as it is")
    outcomes = [] if args.no_start else [_run(step, lines) for step in unit.stop]  # every step: disable even
    unit.path.unlink()                                                             # if stop fails
    lines.append(f"memactors service: removed {unit.path}")
    document["removed"] = True
    _remove_environment(env, environment_state(env), lines, document)
    stopped = all(ok for ok, _ in outcomes)
    if not stopped:
        why = ("could not be reached" if any(unreachable for ok, unreachable in outcomes if not ok)
               else "did not confirm it stopped")
        lines.append(f"memactors service: {unit.manager} {why}; if the service still runs, stop it with: "
                     + " ".join(unit.stop_by_hand))
    document["ok"] = stopped
    emit(args, document, "\n".join(lines))
    return EXIT_OK


def _remove_environment(env: Path, state: str, lines: list[str], document: dict[str, Any]) -> None:
    """Remove the environment file as install wrote it; one the user edited (their key, say) stays."""
    document["environment_file_kept"] = state == "edited"
    if state == "untouched":
        env.unlink()
        lines.append(f"memactors service: removed {env}")
    elif state == "edited":
        lines.append(f"memactors service: kept {env}: you edited it; delete it when you no longer need it")


#: What a service manager says when there is none to talk to (no user session, no bus).
_UNREACHABLE = re.compile(r"connect|not been booted|no such process", re.I)


def _run(command: tuple[str, ...], lines: list[str]) -> tuple[bool, bool]:
    """Run the service manager's command: (it succeeded, the manager could not be reached). A line says what
    happened either way."""
    if shutil.which(command[0]) is None:
        lines.append(f"memactors service: {command[0]} is not on this machine")
        return False, True
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        lines.append(f"memactors service: {' '.join(command)} failed: {exc}")
        return False, True
    if done.returncode != 0:
        why = (done.stderr or done.stdout).strip().splitlines()
        lines.append(f"memactors service: {' '.join(command)} failed: {why[-1] if why else done.returncode}")
        return False, bool(why) and bool(_UNREACHABLE.search(why[-1]))
    lines.append(f"memactors service: {' '.join(command)}")
    return True, False
