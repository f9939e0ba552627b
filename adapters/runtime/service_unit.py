"""A per-user service that keeps `memactors run` going for one repository: a systemd user unit on Linux, a
launchd agent on macOS. Only the file's text and place are decided here; the CLI writes and starts it."""

from __future__ import annotations

import hashlib
import os
import plistlib
import sys
from dataclasses import dataclass
from pathlib import Path

#: The first line of every unit we write: uninstall removes a file only when it carries it.
MARKER = "written by memactors service install"


@dataclass(frozen=True)
class ServiceUnit:
    """Where the service file goes, what it holds, and the commands that start and stop it."""

    name: str
    path: Path
    text: str
    start: tuple[tuple[str, ...], ...]
    stop: tuple[tuple[str, ...], ...]


def _name(repo: Path) -> str:
    return "memactors-" + hashlib.sha256(str(repo).encode()).hexdigest()[:10]


def service_for(repo: Path, *, platform: str = sys.platform, home: Path | None = None,
                python: str = sys.executable) -> ServiceUnit:
    """The service running `python -m memactors.adapters.cli run --repo REPO` (an absolute Python: no venv to
    activate) for the user, restarted if it fails, started at login."""
    repo = repo.resolve()
    home = home or Path.home()
    command = [python, "-m", "memactors.adapters.cli", "run", "--repo", str(repo)]
    name = _name(repo)
    if platform == "darwin":
        label = f"io.memactors.{name}"
        plist = {"Label": label, "ProgramArguments": command, "RunAtLoad": True,
                 "KeepAlive": {"SuccessfulExit": False}, "Comment": f"{MARKER} for {repo}",
                 "StandardErrorPath": str(home / "Library" / "Logs" / f"{name}.log")}
        path = home / "Library" / "LaunchAgents" / f"{label}.plist"
        return ServiceUnit(name=label, path=path, text=plistlib.dumps(plist).decode(),
                           start=(("launchctl", "load", "-w", str(path)),),
                           stop=(("launchctl", "unload", "-w", str(path)),))
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    quoted = " ".join(f'"{part}"' if " " in part else part for part in command)
    text = "\n".join([
        f"# {MARKER} for {repo}",
        "[Unit]",
        f"Description=memactors: consolidate the memories of {repo} as they arrive",
        "",
        "[Service]",
        f"ExecStart={quoted}",
        "Restart=on-failure",
        "RestartSec=30",
        "",
        "[Install]",
        "WantedBy=default.target",
        "",
    ])
    return ServiceUnit(name=f"{name}.service", path=config / "systemd" / "user" / f"{name}.service", text=text,
                       # enable and disable only link files (they work without a running user manager)
                       start=(("systemctl", "--user", "daemon-reload"),
                              ("systemctl", "--user", "enable", f"{name}.service"),
                              ("systemctl", "--user", "start", f"{name}.service")),
                       stop=(("systemctl", "--user", "disable", f"{name}.service"),
                             ("systemctl", "--user", "stop", f"{name}.service")))


def is_ours(path: Path) -> bool:
    """True when the file at `path` was written by `memactors service install`."""
    try:
        return MARKER in path.read_text(errors="replace")[:4096]
    except OSError:
        return False
