"""Claude Code's Auto Memory directory: where it is, the topic files it holds, and the one file and index line
memactors may write there. Standard library only.

Claude Code keeps a project's auto memory in `<config>/projects/<project folder>/memory/` (`<config>` is
`$CLAUDE_CONFIG_DIR` or `~/.claude`; the folder name is the project's path with every character that is not
a letter or digit turned into `-`), unless the `autoMemoryDirectory` setting moves it. `MEMORY.md` indexes
it (`- [Title](file.md) — hook`, a line each; a session loads its first 200 lines); every other `*.md` is one
memory with front matter `name`, `description` and `type` (`user`, `feedback`, `project`, `reference`).

memactors writes exactly two things there: its own topic file (`EXPORT_FILE`) and one index line between
`BEGIN` and `END` markers in `MEMORY.md`. The user's lines and files are never edited, moved or removed.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

INDEX_FILE = "MEMORY.md"
EXPORT_FILE = "memactors-team.md"
BEGIN = "<!-- memactors: team memory (written by `memactors automemory export`; edit outside these markers) -->"
END = "<!-- /memactors -->"
#: A session loads only this many lines of MEMORY.md.
INDEX_BUDGET = 200
#: A topic file larger than this is read only this far (a memory is a short note, not a document store).
MAX_TOPIC_BYTES = 64 * 1024
TYPES = ("user", "feedback", "project", "reference")
_FRONT = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n?", re.S)


def config_dir() -> Path:
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")


def project_folder_name(path: str) -> str:
    """The folder Claude Code keeps a project's data in, under `<config>/projects/`."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def _setting(path: Path) -> str | None:
    try:
        value = json.loads(path.read_text(encoding="utf-8")).get("autoMemoryDirectory")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) and value.strip() else None


def memory_dir(project_root: Path) -> Path:
    """The project's auto memory directory, as Claude Code finds it: `autoMemoryDirectory` from the project's
    local settings, its shared settings, then the user's (a relative path counts from the project), else the
    default under `<config>/projects/`."""
    for settings in (project_root / ".claude" / "settings.local.json", project_root / ".claude" / "settings.json",
                     config_dir() / "settings.json"):
        chosen = _setting(settings)
        if chosen:
            where = Path(os.path.expanduser(chosen))
            return where if where.is_absolute() else project_root / where
    return config_dir() / "projects" / project_folder_name(str(project_root.resolve())) / "memory"


@dataclass(frozen=True)
class TopicFile:
    """One auto memory: its file name, front matter, text, and what identifies this version of it."""

    name: str
    title: str
    description: str
    type: str
    body: str
    modified: float
    digest: str


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    found = _FRONT.match(text)
    if not found:
        return {}, text
    fields: dict[str, str] = {}
    for line in found.group(1).splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t")):
            fields[key.strip().lower()] = value.strip().strip("'\"")
    return fields, text[found.end():]


def read_topics(directory: Path) -> list[TopicFile]:
    """Every topic file in `directory` (not the index, not memactors' own file), by name."""
    topics = []
    for path in sorted(directory.glob("*.md")):
        if path.name in (INDEX_FILE, EXPORT_FILE) or not path.is_file():
            continue
        try:
            with path.open("rb") as handle:
                raw = handle.read(MAX_TOPIC_BYTES)
            modified = path.stat().st_mtime
        except OSError:
            continue
        text = raw.decode("utf-8", errors="replace")
        fields, body = _front_matter(text)
        kind = fields.get("type", "").lower()
        topics.append(TopicFile(name=path.name, title=fields.get("name") or path.stem.replace("_", " "),
                                description=fields.get("description", ""),
                                type=kind if kind in TYPES else "project", body=body.strip(),
                                modified=modified, digest=hashlib.sha256(raw).hexdigest()))
    return topics


def index_line(description: str) -> str:
    return f"- [Team memory (memactors)]({EXPORT_FILE}) — {description}"


def with_index_line(current: str, line: str) -> str:
    """MEMORY.md with memactors' block (markers and one line) in place of the old one, else appended; every
    other line byte-identical."""
    block = f"{BEGIN}\n{line}\n{END}\n"
    start, end = current.find(BEGIN), current.find(END)
    if start != -1 and end > start:
        tail = current[end + len(END):]
        return current[:start] + block + tail.removeprefix("\n")
    if current and not current.endswith("\n"):
        current += "\n"
    return current + block


def lines_before_block(text: str) -> int:
    """How many lines a session reads before memactors' block ends."""
    end = text.find(END)
    return text[: end + len(END)].count("\n") + 1 if end != -1 else text.count("\n")


def diff(path: Path, old: str, new: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=str(path), tofile=str(path)))


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def write_if_changed(path: Path, text: str) -> bool:
    """Write `text` to `path` (atomically) when it differs; True when it did."""
    if read_text(path) == text and path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.memactors-tmp")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)
    return True
