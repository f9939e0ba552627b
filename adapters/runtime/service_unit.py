"""A per-user service that keeps `memactors run` going for one repository: a systemd user unit on Linux, a
launchd agent on macOS, and the environment file both read at each start (the LLM settings of the user's shell,
never a secret). Only the files' text and place are decided here; the CLI writes and starts them."""

from __future__ import annotations

import hashlib
import os
import plistlib
import re
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

#: The first line of every unit we write: uninstall removes a file only when it carries it.
MARKER = "written by memactors service install"
#: The settings the daemon reads besides MEMACTORS_*: copied into the environment file when set (never a secret).
SETTINGS = ("MEMORY_CONSOLIDATION_LLM_PROVIDER", "MEMORY_LLM_PROVIDER", "MEMORY_CONSOLIDATION_LLM_MODEL",
            "MEMORY_CONSOLIDATION_LLM_BASE_URL", "MEMORY_CONSOLIDATION_LLM_FALLBACK", "MEMORY_PLUGIN_GIT_NAMESPACE",
            "CLAUDE_CONFIG_DIR")
#: A variable named like this holds a secret: never copied.
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH", re.I)
#: The environment file's first line: the hash of the rest tells an untouched file from one the user edited.
_HEADER = re.compile(rf"# {MARKER} for .* \(sha256 of the lines below: (?P<hash>[0-9a-f]{{64}})\)")
#: `NAME=` at the start of a line (systemd's EnvironmentFile syntax, also read by sh).
_ASSIGNED = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=", re.M)
#: launchd has no EnvironmentFile: the agent runs sh, which reads the file (when there is one), then runs the
#: daemon in its place. $1 is the file; the daemon's command follows.
_WRAPPER = 'if [ -r "$1" ]; then set -a; . "$1"; set +a; fi; shift; exec "$@"'


@dataclass(frozen=True)
class ServiceUnit:
    """Where the service file goes, what it holds, and the commands that start and stop it."""

    name: str
    path: Path
    text: str
    start: tuple[tuple[str, ...], ...]
    stop: tuple[tuple[str, ...], ...]
    repo: Path
    #: KEY="value" lines the service reads at each start; the user's to edit
    environment_file: Path
    #: the service manager's command (systemctl, launchctl)
    manager: str
    #: for the user after editing the environment file
    restart: tuple[tuple[str, ...], ...]
    #: for the user when uninstall could not stop it (the service file is gone by then)
    stop_by_hand: tuple[str, ...]


@dataclass(frozen=True)
class ServiceEnvironment:
    """The environment file's text, the settings it holds, and the secrets the user must add to it."""

    text: str
    settings: dict[str, str] = field(default_factory=dict)
    add_yourself: tuple[str, ...] = ()
    offline: bool = True  # no LLM provider named


def _name(repo: Path) -> str:
    return "memactors-" + hashlib.sha256(str(repo).encode()).hexdigest()[:10]


def service_for(repo: Path, *, platform: str = sys.platform, home: Path | None = None,
                python: str = sys.executable) -> ServiceUnit:
    """The service running `python -m memactors.adapters.cli run --repo REPO` (an absolute Python: no venv to
    activate) for the user, restarted if it fails, started at login, with the environment file
    `<config>/memactors/<name>.env` (`$XDG_CONFIG_HOME`, else `~/.config`)."""
    repo = repo.resolve()
    home = home or Path.home()
    command = [python, "-m", "memactors.adapters.cli", "run", "--repo", str(repo)]
    name = _name(repo)
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    environment = config / "memactors" / f"{name}.env"
    if platform == "darwin":
        label = f"io.memactors.{name}"
        plist = {"Label": label, "ProgramArguments": ["/bin/sh", "-c", _WRAPPER, "memactors-service",
                                                      str(environment), *command],
                 "RunAtLoad": True, "KeepAlive": {"SuccessfulExit": False}, "Comment": f"{MARKER} for {repo}",
                 "StandardErrorPath": str(home / "Library" / "Logs" / f"{name}.log")}
        path = home / "Library" / "LaunchAgents" / f"{label}.plist"
        return ServiceUnit(name=label, path=path, text=plistlib.dumps(plist).decode(),
                           start=(("launchctl", "load", "-w", str(path)),),
                           stop=(("launchctl", "unload", "-w", str(path)),),
                           repo=repo, environment_file=environment, manager="launchctl",
                           restart=(("launchctl", "unload", str(path)), ("launchctl", "load", "-w", str(path))),
                           stop_by_hand=("launchctl", "remove", label))
    quoted = " ".join(f'"{part}"' if " " in part else part for part in command)
    text = "\n".join([
        f"# {MARKER} for {repo}",
        "[Unit]",
        f"Description=memactors: consolidate the memories of {repo} as they arrive",
        "",
        "[Service]",
        f"EnvironmentFile=-{environment}",  # '-': a file the user deleted is no error (the daemon runs offline)
        f"ExecStart={quoted}",
        "Restart=on-failure",
        "RestartSec=30",
        "",
        "[Install]",
        "WantedBy=default.target",
        "",
    ])
    unit = f"{name}.service"
    return ServiceUnit(name=unit, path=config / "systemd" / "user" / unit, text=text,
                       # enable and disable only link files (they work without a running user manager);
                       # restart starts it, or restarts it with a changed unit or environment file
                       start=(("systemctl", "--user", "daemon-reload"),
                              ("systemctl", "--user", "enable", unit),
                              ("systemctl", "--user", "restart", unit)),
                       stop=(("systemctl", "--user", "disable", unit),
                             ("systemctl", "--user", "stop", unit)),
                       repo=repo, environment_file=environment, manager="systemctl",
                       restart=(("systemctl", "--user", "restart", unit),),
                       stop_by_hand=("systemctl", "--user", "disable", "--now", unit))


def _is_secret(name: str, value: str) -> bool:
    from memactors.adapters.models.redaction import redact

    return bool(_SECRET_NAME.search(name)) or redact(value)[1] > 0


def _quoted(value: str) -> str:
    """`value` in double quotes as systemd's EnvironmentFile and sh both read it back."""
    return '"' + re.sub(r'(["\\$`])', r"\\\1", value) + '"'


def environment_file(unit: ServiceUnit, environ: Mapping[str, str],
                     which: Callable[..., str | None] = shutil.which) -> ServiceEnvironment:
    """The environment file for `unit` from the user's environment: the LLM settings and every MEMACTORS_*
    setting, except secrets (API keys, a URL holding a password), which the user adds to the file."""
    from memactors.adapters.models.llm_config import key_variable

    names = [n for n in SETTINGS if environ.get(n)] + sorted(n for n in environ if n.startswith("MEMACTORS_")
                                                             and environ[n])
    providers = [environ.get(n, "").strip().lower() for n in
                 ("MEMORY_CONSOLIDATION_LLM_PROVIDER" if environ.get("MEMORY_CONSOLIDATION_LLM_PROVIDER")
                  else "MEMORY_LLM_PROVIDER", "MEMORY_CONSOLIDATION_LLM_FALLBACK")]
    providers = [p for p in providers if p and p != "offline"]
    secrets: list[str] = [k for k in (key_variable(p) for p in providers) if k]
    if environ.get("OPENAI_API_KEY") and ({"lmstudio", "ollama"} & set(providers)
                                          or environ.get("MEMACTORS_EMBEDDINGS", "").strip().lower() == "openai"):
        secrets.append("OPENAI_API_KEY")
    settings: dict[str, str] = {}
    notes: list[str] = []
    for name in names:
        value = environ[name]
        if _is_secret(name, value):
            secrets.append(name)
        elif "\n" in value or "\0" in value:
            notes.append(f"# {name} is not copied: its value spans lines")
        else:
            settings[name] = value
    if "claude-code" in providers and "MEMACTORS_CLAUDE_COMMAND" not in settings:
        found = which("claude", path=environ.get("PATH"))
        if found:  # the service's PATH is not the shell's: name the claude the shell finds
            settings["MEMACTORS_CLAUDE_COMMAND"] = os.path.abspath(found)
    add = tuple(dict.fromkeys(secrets))
    restart = " && ".join(" ".join(step) for step in unit.restart)
    body = [f"# The environment of {unit.name}, the memactors daemon for {unit.repo}: KEY=\"value\" lines, read",
            f"# at each start. Yours to edit; after a change: {restart}"]
    if not providers:
        body += ["# No LLM provider is named, so the daemon runs offline; to name one, e.g.:",
                 "# MEMORY_CONSOLIDATION_LLM_PROVIDER=claude-code"]
    if add:
        body += ["# memactors never writes a secret here: add yours (without the leading '#')"]
        body += [f"# {name}=" for name in add]
    body += notes + [f"{name}={_quoted(value)}" for name, value in settings.items()]
    rest = "\n".join(body) + "\n"
    digest = hashlib.sha256(rest.encode()).hexdigest()
    return ServiceEnvironment(text=f"# {MARKER} for {unit.repo} (sha256 of the lines below: {digest})\n" + rest,
                              settings=settings, add_yourself=add, offline=not providers)


def environment_state(path: Path) -> Literal["absent", "untouched", "edited"]:
    """Whether the environment file at `path` is missing, exactly as install wrote it, or edited (or not ours)."""
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        return "absent"
    except OSError:
        return "edited"
    first, _, rest = text.partition("\n")
    header = _HEADER.fullmatch(first)
    if header and hashlib.sha256(rest.encode()).hexdigest() == header["hash"]:
        return "untouched"
    return "edited"


def assigned(path: Path) -> set[str]:
    """The variables the file at `path` sets (commented lines set nothing)."""
    try:
        return set(_ASSIGNED.findall(path.read_text(errors="replace")))
    except OSError:
        return set()


def is_ours(path: Path) -> bool:
    """True when the file at `path` was written by `memactors service install`."""
    try:
        return MARKER in path.read_text(errors="replace")[:4096]
    except OSError:
        return False
