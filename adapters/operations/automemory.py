"""The bridge to Claude Code's Auto Memory: its topic files imported as memories, the team's consolidated
memory exported back as one topic file and one index line.

Import: each topic file becomes a memory (`feedback` -> patterns, `project` -> decisions or progress by what
it says, `reference` -> research, `user` -> `personal`, a namespace `sync` never pushes unless
MEMACTORS_SYNC_PERSONAL=1), screened and redacted like every capture. Provenance rides in the memory's tags
(the file and its content hash), so a second import is a no-op on any clone; an edited file becomes a new
memory that names the earlier import as the one it replaces; a deleted file's memory stays, and the bridge's
ledger records that it left auto memory.

Export: the hot decisions, patterns and learnings that are not the user's own auto memories, each with its
id and date, in `memactors-team.md`, and one index line between markers in `MEMORY.md`. Nothing of the
user's is edited; an export with nothing new writes nothing.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from memactors.adapters.claude import auto_memory as am
from memactors.adapters.operations.errors import UsageError
from memactors.adapters.operations.outcome import Outcome
from memactors.adapters.operations.store import load_settings, open_store

TAG = "auto-memory"
FILE_TAG = "auto-memory-file:"
SHA_TAG = "auto-memory-sha:"
PERSONAL = "personal"
NAMESPACE_OF_TYPE = {"feedback": "patterns", "reference": "research", "user": PERSONAL}
EXPORTED_NAMESPACES = ("decisions", "patterns", "learnings")
#: The exported topic file lists at most this many memories.
MAX_EXPORTED = 40
_PROGRESS = re.compile(r"\b(done|completed?|finished|shipped|merged|in progress|milestone|phase \d|released|"
                       r"status|todo|next step)\b", re.I)


def _ledger_path(store) -> Path:
    return store.git.common_dir / "memactors" / "automemory.json"


def _ledger(store) -> dict[str, Any]:
    try:
        return json.loads(_ledger_path(store).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _save_ledger(store, ledger: dict[str, Any]) -> None:
    path = _ledger_path(store)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(ledger, indent=2, sort_keys=True), encoding="utf-8")


def _project_root(store) -> Path:
    workdir = store.git.repo.workdir
    if not workdir:
        raise UsageError("a bare repository has no project for Claude Code's auto memory")
    return Path(workdir).resolve()


def _namespace(topic: am.TopicFile) -> str:
    if topic.type in NAMESPACE_OF_TYPE:
        return NAMESPACE_OF_TYPE[topic.type]
    return "progress" if _PROGRESS.search(f"{topic.title} {topic.description}") else "decisions"


def _summary(topic: am.TopicFile) -> str:
    """One line of at most 100 characters: the description (the index's hook) or the name."""
    text = " ".join((topic.description or topic.title).split())
    if len(text) <= 100:
        return text
    return text[:99].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _imported(store) -> dict[str, list[Any]]:
    """The memories earlier imports wrote, by file name, oldest first."""
    by_file: dict[str, list[Any]] = {}
    for memory in store.scan(None).memories:
        if TAG not in memory.tags:
            continue
        name = next((t[len(FILE_TAG):] for t in memory.tags if t.startswith(FILE_TAG)), None)
        if name:
            by_file.setdefault(name, []).append(memory)
    for memories in by_file.values():
        memories.sort(key=lambda m: m.timestamp)
    return by_file


def import_auto_memory(repo: Path, *, dry_run: bool = False) -> Outcome:
    """Import the project's auto memory topic files (new and edited ones; unchanged ones are skipped)."""
    from memactors.adapters.git.capture_writer import CaptureRefused, prepare_entry, write_entries
    from memactors.adapters.models.redaction import redact
    from memactors.events.threat import screen

    store = open_store(repo, load_settings())
    directory = am.memory_dir(_project_root(store))
    doc: dict[str, Any] = {"directory": str(directory), "imported": [], "updated": [], "unchanged": 0,
                           "removed": [], "refused": [], "dry_run": dry_run}
    if not directory.is_dir():
        doc["found"] = False
        return Outcome(doc, f"no auto memory at {directory} (Claude Code writes it there as it works; "
                       "nothing imported)")
    doc["found"] = True
    earlier = _imported(store)
    topics = am.read_topics(directory)
    if not dry_run and topics:
        store.git.check_writable()
    batches: dict[str, list[tuple[dict[str, Any], str]]] = {}  # namespace -> (doc entry, prepared entry)
    for topic in topics:
        sha_tag = f"{SHA_TAG}{topic.digest[:16]}"
        before = earlier.get(topic.name, [])
        if any(sha_tag in m.tags for m in before):
            doc["unchanged"] += 1
            continue
        namespace, summary = _namespace(topic), _summary(topic)
        body, _ = redact(topic.body)
        threat = screen(summary, body)
        if threat.level.blocks:
            doc["refused"].append({"file": topic.name, "reason": f"{threat.pattern} ({threat.level.value})"})
            continue
        relates: tuple[str, ...] = ()
        if before:
            relates = (before[-1].id,)
            body = f"{body}\n\nReplaces: {before[-1].summary}".strip()
        body = f"{body}\n\n(From Claude Code's auto memory: {topic.name})".strip()
        entry = {"file": topic.name, "namespace": namespace, "summary": summary}
        try:
            prepared = prepare_entry(namespace, summary, body, tags=[TAG, f"{FILE_TAG}{topic.name}", sha_tag],
                                     relates_to=relates)
        except CaptureRefused as exc:
            doc["refused"].append({"file": topic.name, "reason": str(exc)})
            continue
        batches.setdefault(namespace, []).append((entry, prepared))
        if before:
            entry["replaces"] = before[-1].id
        doc["updated" if before else "imported"].append(entry)
    if not dry_run:  # one notes commit a namespace: a thousand files are not a thousand commits
        for namespace, batch in batches.items():
            for (entry, _), memory_id in zip(batch, write_entries(store, namespace, [p for _, p in batch])):
                entry["id"] = memory_id
    present = {t.name for t in topics}
    doc["removed"] = [{"file": name, "id": memories[-1].id} for name, memories in sorted(earlier.items())
                      if name not in present]
    if not dry_run:
        ledger = _ledger(store)
        ledger["removed"] = {r["file"]: r["id"] for r in doc["removed"]}
        ledger["last_import"] = {"at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                 "imported": len(doc["imported"]), "updated": len(doc["updated"]),
                                 "unchanged": doc["unchanged"], "removed": len(doc["removed"])}
        _save_ledger(store, ledger)
    verb = "would import" if dry_run else "imported"
    lines = [f"{verb} {len(doc['imported'])} new and {len(doc['updated'])} edited auto memories from {directory} "
             f"({doc['unchanged']} unchanged)"]
    lines += [f"  {e.get('id', e['namespace'])}  {e['summary']}  <- {e['file']}" for e in doc["imported"]]
    lines += [f"  {e.get('id', e['namespace'])}  {e['summary']}  <- {e['file']} (edited; replaces {e['replaces']})"
              for e in doc["updated"]]
    lines += [f"  {r['file']} left auto memory; its memory {r['id']} stays" for r in doc["removed"]]
    lines += [f"  not imported: {r['file']}: {r['reason']}" for r in doc["refused"]]
    return Outcome(doc, "\n".join(lines))


def _exported_items(repo: Path, topics: list[am.TopicFile]) -> list[dict[str, str]]:
    from memactors.adapters.operations.memories import open_view

    def norm(text: str) -> str:
        return " ".join(re.findall(r"\w+", text.lower()))

    own = {norm(t.title) for t in topics} | {norm(t.description) for t in topics if t.description}
    _, view = open_view(repo)
    chosen = [v for v in view.memories
              if v.tier == "hot" and v.memory.namespace in EXPORTED_NAMESPACES and TAG not in v.memory.tags
              and not (v.meta and v.meta.superseded_by)
              and norm(v.quality.title) not in own and norm(v.memory.summary) not in own]
    chosen.sort(key=lambda v: (-v.retention.score, v.memory.id))
    return [{"id": v.memory.id, "namespace": v.memory.namespace, "title": v.quality.title,
             "date": v.memory.timestamp.astimezone(timezone.utc).strftime("%Y-%m-%d")}
            for v in chosen[:MAX_EXPORTED]]


def _topic_text(items: list[dict[str, str]]) -> str:
    lines = ["---", "name: Team memory (memactors)",
             "description: The team's current decisions, patterns and learnings, consolidated from git notes",
             "type: project", "---", "",
             "Written by `memactors automemory export` from the project's git notes (shared with teammates "
             "through git); replaced decisions are left out. Edits here are overwritten: change a memory with "
             "`memactors capture`.", ""]
    for namespace in EXPORTED_NAMESPACES:
        group = [i for i in items if i["namespace"] == namespace]
        if group:
            lines += [f"## {namespace}", *(f"- [{i['date']}] {i['title']} (`{i['id']}`)" for i in group), ""]
    if not items:
        lines += ["No hot decisions, patterns or learnings yet.", ""]
    return "\n".join(lines)


def export_auto_memory(repo: Path, *, dry_run: bool = False) -> Outcome:
    """Write the team's hot memories to memactors' topic file and its index line; `dry_run`: the diff only."""
    store = open_store(repo, load_settings())
    directory = am.memory_dir(_project_root(store))
    topics = am.read_topics(directory) if directory.is_dir() else []
    items = _exported_items(repo, topics)
    topic_path, index_path = directory / am.EXPORT_FILE, directory / am.INDEX_FILE
    topic_new = _topic_text(items)
    index_old = am.read_text(index_path)
    index_new = am.with_index_line(index_old, am.index_line(f"{len(items)} current team decisions, patterns and "
                                                            "learnings from git notes"))
    notes: list[str] = []
    if am.lines_before_block(index_new) > am.INDEX_BUDGET:
        notes.append(f"{index_path} is too long for the index line to be within the {am.INDEX_BUDGET} lines a "
                     "session reads: the line is not added (shorten MEMORY.md to make room)")
        index_new = index_old
    changes = am.diff(topic_path, am.read_text(topic_path), topic_new) + am.diff(index_path, index_old, index_new)
    written: list[str] = []
    if not dry_run:
        if am.write_if_changed(topic_path, topic_new):
            written.append(str(topic_path))
        if index_new != index_old and am.write_if_changed(index_path, index_new):
            written.append(str(index_path))
        ledger = _ledger(store)
        ledger["last_export"] = {"at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                 "memories": len(items), "changed": bool(written)}
        _save_ledger(store, ledger)
    doc = {"directory": str(directory), "memories": len(items), "written": written, "dry_run": dry_run,
           "diff": changes, "notes": notes}
    if dry_run:
        text = changes or f"nothing would change in {directory}"
    elif written:
        text = f"exported {len(items)} memories to {topic_path}" + ("" if str(index_path) not in written else
                                                                     f"; index line in {index_path}")
    else:
        text = f"nothing new to export ({len(items)} memories already in {topic_path})"
    return Outcome(doc, "\n".join([text, *notes]))


def bridge_status(store) -> dict[str, Any]:
    """What `status` says of the bridge: the directory, whether personal memories are shared, the last import
    and export and what each did."""
    settings = load_settings()
    ledger = _ledger(store)
    try:
        directory = str(am.memory_dir(_project_root(store)))
    except UsageError:
        directory = None
    return {"enabled": settings.automemory, "shares_personal": settings.sync_personal,
            "directory": directory, "last_import": ledger.get("last_import"),
            "last_export": ledger.get("last_export"), "removed_from_auto_memory": ledger.get("removed", {})}
