"""Consolidation proposals: what a run would write, saved for review, then applied exactly or discarded.

`consolidate --propose` runs the whole pipeline with the persister's commit recorded instead of written
(`ProposalRecorder`) and saves, under `<git common dir>/memactors/proposals.json`, the notes that commit would
write, the tips of the state and memory refs the run read, and the items a person reviews (summaries with their
members, supersessions, conflicts and links with their reasons, tier moves). `apply` writes those very notes
through the store's commit, only if no ref moved since (else it refuses with exit 1 and keeps them); `discard`
deletes them.
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from memactors.adapters.operations.errors import UsageError
from memactors.adapters.operations.outcome import EXIT_ERRORS, Outcome
from memactors.adapters.operations.store import load_settings, open_store

PROPOSALS_FILE = "proposals.json"
#: Where a proposing run writes the read model (recall's index, the session context, surfacing) its commit
#: would come with; `apply` moves those files into place after the commit.
STAGED_READ_MODEL = "proposed-read-model"
PROPOSALS_VERSION = 1
#: The line `apply` refuses with when a ref moved since the proposals were made (exit 1, the file is kept).
STALE = ("the store changed since the proposals ({why}): run `memactors consolidate --propose` again "
         "(or `memactors proposals --discard`)")
#: Items each section lists before it says how many more there are (text; --limit changes it, JSON has all).
SHOWN = 20
_STAMPS = {"created_at", "run_id", "consolidation_run_id"}
_SUPERSESSIONS = {"supersedes", "subsumes"}
_SUMMARY_EDGES = {"consolidates", "references"}


def proposals_path(common_dir: Path) -> Path:
    return common_dir / "memactors" / PROPOSALS_FILE


def staged_read_model(common_dir: Path) -> Path:
    return common_dir / "memactors" / STAGED_READ_MODEL


class ProposalRecorder:
    """A `StateSink` that writes nothing: it keeps the change a run would commit (and the tips it expected),
    and answers with the refs that commit would have updated."""

    def __init__(self) -> None:
        self.change: Any = None
        self.expected_tips: dict[str, str | None] = {}

    def commit(self, change: Any, expected_tips: dict[str, str | None]) -> list[str]:
        from memactors.adapters.git.memory_store import EDGES_REF, META_REF, RUNS_REF, SUMMARIES_REF

        self.change, self.expected_tips = change, dict(expected_tips)
        wanted = {META_REF: change.meta_by_commit, SUMMARIES_REF: change.summaries_by_commit,
                  EDGES_REF: change.edges_by_commit, RUNS_REF: True}
        return [ref for ref, notes in wanted.items() if notes]


def _proposing(services: Any, recorder: ProposalRecorder) -> Any:
    """`services` for a run that proposes: the recorder as the persister's sink, the read model written aside
    (recall keeps reading the one in place), recall uses folded but not consumed (folding twice counts nothing
    twice), and no session transcripts read into the review queue."""
    from memactors.adapters.runtime.pipeline import Services

    class Proposing(Services):
        async def propose_from_sessions(self) -> Any:
            return None

        async def run_completed(self, *, scoped: bool = False) -> None:
            await super().run_completed(scoped=True)

    values = {f.name: getattr(services, f.name) for f in fields(services) if f.init}
    staged = None
    if services.read_cache is not None:
        staged = copy.copy(services.read_cache)  # the same embedder, commit files and settings, written aside
        staged.directory = staged_read_model(services.store.git.common_dir)
    return Proposing(**{**values, "sink": recorder, "read_cache": staged})


def _memory_tips(store: Any) -> dict[str, str | None]:
    return {ref: store.git.tip(ref) for ref in sorted(store.git.memory_refs().values())}


def _state_tips(store: Any) -> dict[str, str | None]:
    from memactors.adapters.git.memory_store import STATE_REFS

    return {ref: store.git.tip(ref) for ref in STATE_REFS}


def propose(services: Any, options: Any, *, handle_signals: bool = False) -> Outcome:
    """Run the pipeline over `services` without writing a ref and save what it would write as the proposals
    (replacing earlier ones); its report, with the proposals' counts."""
    import dataclasses

    import trio

    from memactors.adapters.runtime.pipeline import consolidate

    store = services.store
    memory_tips = _memory_tips(store)  # read before the scan: a capture meanwhile makes the proposals stale
    recorder = ProposalRecorder()
    options = dataclasses.replace(options, dry_run=False)
    # a new proposal replaces the last at once: one interrupted midway leaves none, never old ones beside new files
    proposals_path(store.git.common_dir).unlink(missing_ok=True)
    _drop_staged(store.git.common_dir)
    report = trio.run(lambda: consolidate(_proposing(services, recorder), options, handle_signals=handle_signals,
                                          stop_at_first_signal=handle_signals))
    path = proposals_path(store.git.common_dir)
    if report.phase != "completed":
        _drop_staged(store.git.common_dir)
        return Outcome({"report": report.model_dump(mode="json"), "proposals": None},
                       f"memactors consolidate --propose: the run failed, nothing proposed: {'; '.join(report.errors)}",
                       EXIT_ERRORS)
    document: dict[str, Any] = {
        "version": PROPOSALS_VERSION, "proposed_at": datetime.now(timezone.utc).isoformat(),
        "run_id": report.run_id, "namespaces": list(options.namespaces) if options.namespaces else None,
        "memory_tips": memory_tips, "state_tips": recorder.expected_tips or _state_tips(store),
        "change": None, "items": _no_items(),
    }
    if recorder.change is not None:
        change = recorder.change
        document["change"] = {
            "meta_by_commit": _dump_notes(change.meta_by_commit),
            "summaries_by_commit": _dump_notes(change.summaries_by_commit),
            "edges_by_commit": _dump_notes(change.edges_by_commit),
            "report": change.report.model_dump(mode="json"), "run_commit": change.run_commit,
        }
        document["items"] = _items(store, change)
        _write(path, document)
    else:  # nothing to propose: none saved
        _drop_staged(store.git.common_dir)
    counted = _counts(document)
    report_doc = report.model_copy(update={"persisted": False, "refs_updated": []}).model_dump(mode="json")
    if document["change"] is None:
        text = (f"memactors consolidate --propose: run {report.run_id} would change nothing: no proposals, "
                "nothing written")
    else:
        text = (f"memactors consolidate --propose: run {report.run_id} proposes {_phrase(counted)}; nothing "
                "written.\n  review them: `memactors proposals`; write them: `memactors proposals --apply`; "
                "drop them: `memactors proposals --discard`")
    return Outcome({"report": report_doc, "proposals": counted}, text, EXIT_ERRORS if report.errors else 0)


def _dump_notes(notes: dict[str, tuple[Any, ...]]) -> dict[str, list[dict[str, Any]]]:
    return {commit: [r.model_dump(mode="json") for r in records] for commit, records in notes.items()}


def _load_notes(notes: dict[str, list[dict[str, Any]]], model: Any) -> dict[str, tuple[Any, ...]]:
    return {commit: tuple(model.model_validate(r) for r in records) for commit, records in notes.items()}


def _write(path: Path, document: dict[str, Any]) -> None:
    """Replace the proposals file atomically (a temporary file, then rename)."""
    path.parent.mkdir(exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(document, indent=1, sort_keys=True))
    os.replace(tmp, path)


def _no_items() -> dict[str, list[Any]]:
    return {"summaries": [], "supersessions": [], "conflicts": [], "links": [], "tier_moves": [], "withdrawn": []}


def _same(a: Any, b: Any) -> bool:
    return a.model_dump(exclude=_STAMPS) == b.model_dump(exclude=_STAMPS)


def _items(store: Any, change: Any) -> dict[str, list[Any]]:
    """What `change` changes against the state as it is, for a person: each section's records."""
    prior = store.load_state()
    titles = {m.key: (m.id, m.summary) for m in store.scan(None, remember=False).memories}

    def who(key: str, fallback: str = "") -> dict[str, str]:
        if key.startswith("summary:"):
            summary = new_summaries.get(key[8:]) or prior.summaries.get(key[8:])
            return {"key": key, "id": key, "title": _first_line(summary.text) if summary else key}
        found = titles.get(key)
        return {"key": key, "id": found[0] if found else fallback or key, "title": found[1] if found else ""}

    items = _no_items()
    new_summaries = {s.id: s for records in change.summaries_by_commit.values() for s in records}
    for sid, summary in sorted(new_summaries.items()):
        old = prior.summaries.get(sid)
        if old is not None and _same(old, summary):
            continue
        items["summaries"].append({
            "id": sid, "action": "new" if old is None else "changed", "text": summary.text,
            "title": _first_line(summary.text), "provider": summary.provider,
            "members": [who(k) for k in summary.source_keys], "superseded_facts": list(summary.superseded_facts)})
    touched = set(change.summaries_by_commit)
    for sid, at in sorted(prior.summary_commits.items()):
        if at in touched and sid not in new_summaries:
            items["withdrawn"].append({"kind": "summary", "id": sid, "title": _first_line(prior.summaries[sid].text)})
    new_edges = {e.id: e for records in change.edges_by_commit.values() for e in records}
    for eid, edge in sorted(new_edges.items(), key=lambda kv: (kv[1].edge_type.value, kv[0])):
        old = prior.edges.get(eid)
        if old is not None and _same(old, edge):
            continue
        kind = edge.edge_type.value
        row = {"id": eid, "type": kind, "action": "new" if old is None else "changed", "reason": edge.reason,
               "partial": edge.partial, "source": who(edge.source_key, edge.source_id),
               "target": who(edge.target_key, edge.target_id), "resolution": edge.resolution}
        if kind in _SUPERSESSIONS:
            items["supersessions"].append(row)
        elif kind == "contradicts":
            items["conflicts"].append(row)
        elif kind not in _SUMMARY_EDGES:
            items["links"].append(row)
    touched = set(change.edges_by_commit)
    for eid, at in sorted(prior.edge_commits.items()):
        edge = prior.edges[eid]
        if at in touched and eid not in new_edges and edge.edge_type.value not in _SUMMARY_EDGES:
            items["withdrawn"].append({"kind": edge.edge_type.value, "id": eid, "reason": edge.reason,
                                       "source": who(edge.source_key, edge.source_id),
                                       "target": who(edge.target_key, edge.target_id)})
    for records in change.meta_by_commit.values():
        for meta in records:
            old = prior.meta.get(meta.key)
            if old is None or old.tier != meta.tier:
                items["tier_moves"].append({**who(meta.key, meta.id), "namespace": meta.namespace,
                                            "from": old.tier.value if old is not None else None,
                                            "to": meta.tier.value})
    items["tier_moves"].sort(key=lambda m: (m["from"] or "", m["to"], m["id"]))
    return items


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")[:160]


def _counts(document: dict[str, Any]) -> dict[str, int]:
    items = document.get("items") or _no_items()
    return {**{name: len(rows) for name, rows in items.items()},
            "undecided_conflicts": sum(r["resolution"] is None for r in items["conflicts"])}


def _phrase(counted: dict[str, int]) -> str:
    parts = [f"{counted['summaries']} summaries", f"{counted['supersessions']} supersessions",
             f"{counted['conflicts']} conflicts", f"{counted['links']} links", f"{counted['tier_moves']} tier moves"]
    if counted["withdrawn"]:
        parts.append(f"{counted['withdrawn']} withdrawn")
    return ", ".join(parts)


def _load(repo: Path) -> tuple[Any, dict[str, Any] | None]:
    """The store and its saved proposals (None when there are none); a file this version cannot read is a
    UsageError saying how to get rid of it."""
    store = open_store(repo, load_settings())
    path = proposals_path(store.git.common_dir)
    try:
        document = json.loads(path.read_text())
    except FileNotFoundError:
        return store, None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path} cannot be read ({exc}); drop it with `memactors proposals --discard`") from None
    if not isinstance(document, dict) or document.get("version") != PROPOSALS_VERSION:
        raise UsageError(f"{path} was written by another memactors version; drop it with "
                         "`memactors proposals --discard` and propose again")
    return store, document


def listing(repo: Path, *, limit: int = SHOWN) -> Outcome:
    """The saved proposals: each section's items (all of them in the document; `limit` per section in the
    text, with how many more)."""
    if limit < 1:
        raise UsageError("--limit must be 1 or more")
    _, document = _load(repo)
    if document is None:
        return Outcome({"proposals": None}, "no proposals: `memactors consolidate --propose` makes some")
    items = document["items"]
    counted = _counts(document)
    head = (f"proposals of run {document['run_id']} ({document['proposed_at'][:16].replace('T', ' ')} UTC"
            + (f", namespaces {', '.join(document['namespaces'])}" if document.get("namespaces") else "") + ")")
    if document["change"] is None:
        return Outcome({**document, "counts": counted, "writes": []}, head + ": the run would change nothing")
    lines = [f"{head}: {_phrase(counted)}"]

    def section(name: str, title: str, render) -> None:
        rows = items[name]
        if not rows:
            return
        lines.append(f"{title} ({len(rows)}):")
        for row in rows[:limit]:
            lines.extend("  " + line for line in render(row))
        if len(rows) > limit:
            lines.append(f"  ... and {len(rows) - limit} more (--limit N shows more, --json lists all)")

    def name(side: dict[str, str]) -> str:
        return f"{side['id']} {side['title']!r}" if side["title"] else side["id"]

    section("summaries", "summaries", lambda s: [f"{s['action']} {s['id'][:12]}: {s['title']}"]
            + [f"    member {name(m)}" for m in s["members"]])
    section("supersessions", "supersessions", lambda e: [
        f"{name(e['source'])} {e['type']}{' (in part)' if e['partial'] else ''} {name(e['target'])}",
        f"    because: {e['reason'] or '(no reason given)'}"])
    section("conflicts", "contradictions", lambda e: [
        f"{name(e['source'])} contradicts {name(e['target'])}"
        + ("  [undecided: `memactors conflicts` once applied]" if e["resolution"] is None else ""),
        f"    because: {e['reason'] or '(no reason given)'}"])
    section("links", "links", lambda e: [f"{name(e['source'])} {e['type']} {name(e['target'])}",
                                         f"    because: {e['reason'] or '(no reason given)'}"])
    section("tier_moves", "tier moves", lambda m: [f"{m['id']} {m['from'] or 'new'} -> {m['to']}  {m['title']}"])
    section("withdrawn", "withdrawn", lambda w: [f"{w['kind']} {w['id'][:12]}"
                                                  + (f": {w['title']}" if w.get("title") else "")
                                                  + (f": {name(w['source'])} -> {name(w['target'])}"
                                                     if w.get("source") else "")])
    lines.append("write them: `memactors proposals --apply`; drop them: `memactors proposals --discard`")
    listed = {k: v for k, v in document.items() if k != "change"}  # the notes themselves are for --apply
    return Outcome({**listed, "counts": counted, "writes": _writes(document["change"])}, "\n".join(lines))


def _writes(saved: dict[str, Any] | None) -> list[str]:
    """The refs applying `saved` writes."""
    from memactors.adapters.git.memory_store import EDGES_REF, META_REF, RUNS_REF, SUMMARIES_REF

    if saved is None:
        return []
    return [ref for ref, notes in ((META_REF, saved["meta_by_commit"]), (SUMMARIES_REF, saved["summaries_by_commit"]),
                                   (EDGES_REF, saved["edges_by_commit"]), (RUNS_REF, True)) if notes]


def apply(repo: Path, *, wait: float | None = None, expected_run: str | None = None) -> Outcome:
    """Write exactly the saved proposals (the notes and run record the proposing run would have written), under
    the run lock, if neither the memory refs nor our state refs moved since; then drop them. A moved ref refuses
    (exit 1, nothing written, the proposals kept). `expected_run`: refuse unless the proposals are that run's."""
    from memactors.actors.ports import StateChange, StateConflict
    from memactors.adapters.git.repo_lock import RepoLock
    from memactors.events.edge import Edge
    from memactors.events.metadata import MemoryMeta
    from memactors.events.report import RunReport
    from memactors.events.summary import Summary

    store, document = _load(repo)
    if document is None:
        raise UsageError("no proposals to apply: `memactors consolidate --propose` makes some")
    _check_run(document, expected_run)
    path = proposals_path(store.git.common_dir)
    if document["change"] is None:
        path.unlink(missing_ok=True)
        return Outcome({"applied": True, "refs_updated": [], "run_id": document["run_id"]},
                       "the proposals changed nothing: nothing to write (proposals dropped)")
    store.git.check_writable()
    settings = load_settings()
    with RepoLock(store.git.common_dir, role="proposals --apply",
                  wait=settings.lock_wait_seconds if wait is None else wait):
        moved = _moved(store, document)
        if moved:
            return Outcome(None, STALE.format(why=moved), EXIT_ERRORS)
        saved = document["change"]
        change = StateChange(meta_by_commit=_load_notes(saved["meta_by_commit"], MemoryMeta),
                             summaries_by_commit=_load_notes(saved["summaries_by_commit"], Summary),
                             edges_by_commit=_load_notes(saved["edges_by_commit"], Edge),
                             report=RunReport.model_validate(saved["report"]), run_commit=saved["run_commit"])
        try:
            refs = store.commit(change, dict(document["state_tips"]))
        except StateConflict as exc:
            return Outcome(None, STALE.format(why=f"another run wrote first: {exc}"), EXIT_ERRORS)
        path.unlink(missing_ok=True)
        _install_staged(store.git.common_dir)
    counted = _counts(document)
    return Outcome({"applied": True, "run_id": document["run_id"], "refs_updated": refs, "counts": counted},
                   f"applied the proposals of run {document['run_id']} ({_phrase(counted)}): "
                   f"{', '.join(refs)} written")


def _moved(store: Any, document: dict[str, Any]) -> str:
    """Why the proposals no longer fit the store ("" when they do)."""
    now = _memory_tips(store)
    if now != document["memory_tips"]:
        changed = sorted(set(now) ^ set(document["memory_tips"])
                         | {r for r in now if now[r] != document["memory_tips"].get(r)})
        return f"memories captured or changed in {', '.join(changed)}"
    state = _state_tips(store)
    moved = [ref for ref, tip in state.items() if document["state_tips"].get(ref) != tip]
    if moved:
        return f"another run or a decision wrote {', '.join(moved)}"
    return ""


def discard(repo: Path, *, expected_run: str | None = None) -> Outcome:
    """Drop the saved proposals (nothing else changes); dropping none is not an error. `expected_run`: refuse
    unless the proposals are that run's."""
    store, document = _load_or_broken(repo)
    if document is not None:
        _check_run(document, expected_run)
    path = proposals_path(store.git.common_dir)
    path.unlink(missing_ok=True)
    _drop_staged(store.git.common_dir)
    if document is None:
        return Outcome({"discarded": False}, "no proposals to discard")
    run_id = document.get("run_id", "?") if isinstance(document, dict) else "?"
    return Outcome({"discarded": True, "run_id": run_id}, f"discarded the proposals of run {run_id}")


def _drop_staged(common_dir: Path) -> None:
    import shutil

    shutil.rmtree(staged_read_model(common_dir), ignore_errors=True)


def _install_staged(common_dir: Path) -> None:
    """Move the staged read model into place, each file by rename (the lexical index before the recall index:
    a reader pairs them by run id), as the run would have written it; none staged (a run over some namespaces
    keeps the read model as it is) moves nothing."""
    from memactors.adapters.reading.lexical_index import LEXICAL_FILE
    from memactors.adapters.reading.read_cache import CONTEXT_FILE, RECALL_FILE
    from memactors.adapters.reading.surfacing_index import SURFACING_FILE

    staged = staged_read_model(common_dir)
    for name in (LEXICAL_FILE, RECALL_FILE, CONTEXT_FILE, SURFACING_FILE):
        if (staged / name).exists():
            os.replace(staged / name, common_dir / "memactors" / name)
    _drop_staged(common_dir)


def _check_run(document: dict[str, Any], expected_run: str | None) -> None:
    if expected_run is not None and document.get("run_id") != expected_run:
        raise UsageError(f"the proposals were replaced (now run {document.get('run_id')}, not {expected_run}) "
                         "since you read them: review them again")


def _load_or_broken(repo: Path) -> tuple[Any, Any]:
    """Like _load, but a file that cannot be read counts as proposals (so --discard drops it)."""
    try:
        return _load(repo)
    except UsageError:
        store = open_store(repo, load_settings())
        return store, {"run_id": "?"}
