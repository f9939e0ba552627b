"""Install and remove exactly what memactors adds to git hooks and Claude Code settings."""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

BEGIN = "# >>> memactors >>>"
END = "# <<< memactors <<<"
SIGNATURE = "memactors.adapters.cli"
#: (Claude Code hook event, matcher, the memactors command it runs, timeout): Stop, PreCompact and SessionEnd
#: queue a trigger and the session's transcript (read for proposed memories); SessionStart prints the consolidated context; the file tools, a failed Bash command and each
#: prompt get `surface`.
CLAUDE_HOOKS = (
    ("Stop", None, "publish session-end", 10),
    ("PreCompact", None, "publish session-end", 10),
    ("SessionEnd", None, "publish session-end", 10),
    ("SessionStart", None, "context", 10),
    ("PostToolUse", "Read|Edit|MultiEdit|Write", "surface", 5),
    ("PostToolUseFailure", "Bash", "surface", 5),
    ("UserPromptSubmit", None, "surface", 5),
)
#: The settings file teams commit, and the one Claude Code keeps for this machine only.
SHARED_SETTINGS = Path(".claude") / "settings.json"
LOCAL_SETTINGS = Path(".claude") / "settings.local.json"
#: A hook command of ours: `memactors publish ...` / `memactors context`, by name or by path, or the
#: `"<python>" -m memactors.adapters.cli ...` form earlier versions wrote (still run, still removed).
_OUR_COMMAND = re.compile(r'(?:-m memactors\.adapters\.cli|(?:^|[\s/"])memactors"?)\s+(?:publish|context|surface)\b')


def hook_command(arguments: str, *, portable: bool = True) -> str:
    """The command a hook runs.

    Portable: `memactors ARGS`, which works on every machine where memactors is on PATH (what a
    committed settings file needs). Otherwise this interpreter's absolute path, which works outside
    an activated venv but only on this machine (for files that are never committed).
    """
    return f"memactors {arguments}" if portable else f'"{sys.executable}" -m {SIGNATURE} {arguments}'


def git_hook_block() -> str:
    """Our post-commit block: `.git/hooks` is never committed, so this machine's interpreter it is."""
    return (f"{BEGIN}\n# queue a consolidation trigger; never fails the commit\n"
            f"{hook_command('publish commit', portable=False)} >/dev/null 2>&1 || true\n{END}\n")


def install_git_hook(path: Path, *, dry_run: bool = False) -> str:
    """Append our block to `path` (chaining to what is there), creating the hook if needed."""
    existing = path.read_text() if path.exists() else ""
    if BEGIN in existing:
        return f"git hook {path}: already installed"
    if existing:
        text = existing if existing.endswith("\n") else existing + "\n"
        text += "\n" + git_hook_block()
        action = "appended to the existing hook"
    else:
        text = "#!/bin/sh\n" + git_hook_block()
        action = "created"
    if dry_run:
        action = f"would be {action}"
    if not dry_run:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return f"git hook {path}: {action}"


def uninstall_git_hook(path: Path) -> str:
    if not path.exists() or BEGIN not in path.read_text():
        return f"git hook {path}: nothing of ours"
    lines, kept, inside = path.read_text().splitlines(keepends=True), [], False
    for line in lines:
        if line.strip() == BEGIN:
            inside = True
        elif line.strip() == END:
            inside = False
        elif not inside:
            kept.append(line)
    rest = "".join(kept).rstrip("\n") + "\n"
    if rest.strip() in ("", "#!/bin/sh"):
        path.unlink()
        return f"git hook {path}: removed (it held only our block)"
    path.write_text(rest)
    return f"git hook {path}: our block removed, the rest kept"


def _ours(entry: Any) -> bool:
    return isinstance(entry, dict) and any(
        isinstance(h, dict) and _OUR_COMMAND.search(str(h.get("command", ""))) for h in entry.get("hooks", [])
    )


def claude_settings(existing: dict[str, Any], *, portable: bool = True) -> dict[str, Any]:
    """`existing` settings with our hooks (CLAUDE_HOOKS) merged in (idempotent).

    A hook of ours an earlier version wrote is replaced by today's command.
    """
    settings = without_claude_hooks(existing)
    hooks = settings.setdefault("hooks", {})
    for event, matcher, arguments, timeout in CLAUDE_HOOKS:
        entry: dict[str, Any] = {"matcher": matcher} if matcher else {}
        entry["hooks"] = [{"type": "command", "command": hook_command(arguments, portable=portable),
                           "timeout": timeout}]
        hooks.setdefault(event, []).append(entry)
    return settings


def without_claude_hooks(existing: dict[str, Any]) -> dict[str, Any]:
    settings = json.loads(json.dumps(existing))
    hooks = settings.get("hooks", {})
    for event in list(hooks):
        kept = [e for e in hooks[event] if not _ours(e)]
        if kept:
            hooks[event] = kept
        elif len(kept) != len(hooks[event]):
            del hooks[event]
    if "hooks" in settings and not settings["hooks"]:
        del settings["hooks"]
    return settings


def write_json(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(json.dumps(document, indent=2) + "\n")
    os.replace(tmp, path)


def read_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    document = json.loads(path.read_text() or "{}")
    if not isinstance(document, dict):
        raise ValueError(f"{path} is not a JSON object")
    return document


#: The project's MCP servers file Claude Code reads at the repository root (committed with the project).
MCP_FILE = Path(".mcp.json")
MCP_NAME = "memactors"


def mcp_server() -> dict[str, Any]:
    """Our server's entry: the portable command, like the committed hooks (no path of this machine)."""
    return {"type": "stdio", "command": "memactors", "args": ["mcp"]}


def _our_server(entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    command = " ".join([str(entry.get("command", "")), *map(str, entry.get("args") or [])])
    return bool(re.search(r'(?:-m memactors\.adapters\.cli|(?:^|[\s/"])memactors"?)\s+mcp\b', command))


def with_mcp_server(existing: dict[str, Any]) -> dict[str, Any]:
    """`existing` .mcp.json with our server under "memactors" (idempotent). A server of someone else's under
    that name is left alone: ValueError says so."""
    document = json.loads(json.dumps(existing))
    servers = document.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ValueError(".mcp.json's mcpServers is not an object")
    current = servers.get(MCP_NAME)
    if current is not None and not _our_server(current):
        raise ValueError(f'.mcp.json already names another server "{MCP_NAME}"')
    servers[MCP_NAME] = mcp_server()
    return document


def without_mcp_server(existing: dict[str, Any]) -> dict[str, Any]:
    """`existing` without our server (and without an empty mcpServers it leaves)."""
    document = json.loads(json.dumps(existing))
    servers = document.get("mcpServers")
    if isinstance(servers, dict) and _our_server(servers.get(MCP_NAME)):
        del servers[MCP_NAME]
        if not servers:
            del document["mcpServers"]
    return document
