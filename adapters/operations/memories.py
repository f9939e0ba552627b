"""Memories one at a time and the store as a whole: capture, show, status, tiers, edges, conflicts, resolve."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memactors.adapters.operations.checks import MAX_CONTENT_BYTES, MAX_SUMMARY_CHARS, counts
from memactors.adapters.operations.errors import UsageError
from memactors.adapters.operations.outcome import EXIT_ERRORS, EXIT_USAGE, Outcome, place
from memactors.adapters.operations.store import load_settings, open_store

#: How often `resolve` records its decision again when a run persisted meanwhile.
RESOLVE_ATTEMPTS = 5


#: The last view and state one process read, with what they were read from: a long-lived process (the MCP
#: server) answers the next question about an unchanged store without reading it again.
_LAST: dict[str, tuple[tuple[Any, ...], Any, Any]] = {}
#: On the wall clock retention moves with time: a remembered view is used for this long at most.
VIEW_SECONDS = 60


def _fingerprint(store, settings) -> tuple[Any, ...]:
    """What a view depends on: every notes ref's tip, the settings, and (on the wall clock) the minute."""
    import time

    refs = store.git.repo.references
    tips = tuple(sorted((name, str(refs[name].target)) for name in refs if name.startswith("refs/notes/")))
    minute = int(time.time() // VIEW_SECONDS) if settings.recency_clock == "wall" else 0
    return str(store.git.common_dir), tips, settings.model_dump_json(), minute


def open_view(repo: Path):
    """(store, the scored view of every memory)."""
    store, view, _ = open_view_and_state(repo)
    return store, view


def open_view_and_state(repo: Path):
    """(store, the scored view of every memory, our state), read once per change of the store in a process."""
    from memactors.adapters.reading.store_view import load_view
    from memactors.adapters.system.clock import SystemClock

    settings = load_settings()
    store = open_store(repo, settings)
    store.check_readable()
    key = _fingerprint(store, settings)
    last = _LAST.get("view")
    if last is not None and last[0] == key:
        return store, last[1], last[2]
    view = load_view(store, settings.retention_policy(), SystemClock().now())
    state = store.load_state()
    _LAST["view"] = (key, view, state)
    return store, view, state


def label(view, key: str) -> str:
    if key.startswith("summary:"):
        return key
    found = view.by_key.get(key)
    return f"{found.memory.id} \"{found.quality.title[:60]}\"" if found else key


# --- capture ----------------------------------------------------------------------------------


def capture(repo: Path, namespace: str, summary: str, content: str = "", *, tags: Sequence[str] = (),
            relates_to: Sequence[str] = (), spec: str | None = None, phase: str | None = None,
            changed: str = "") -> Outcome:
    """Append a memory to HEAD's note exactly as git-notes-memory does. `changed` (what input cleaning did)
    is said on stderr once the entry passed its read-back check."""
    from memactors.adapters.git.capture_writer import CaptureRefused, write_memory
    from memactors.events.memory import KNOWN_NAMESPACES

    if namespace not in KNOWN_NAMESPACES:
        raise UsageError(f"unknown namespace {namespace!r}; use one of: {', '.join(KNOWN_NAMESPACES)}")
    if not summary or "\n" in summary:
        raise UsageError("--summary must be one non-empty line")
    if len(summary) > MAX_SUMMARY_CHARS:
        raise UsageError(f"--summary is {len(summary)} characters; the limit is {MAX_SUMMARY_CHARS}")
    if len(content.encode()) > MAX_CONTENT_BYTES:
        raise UsageError(f"content is {len(content.encode())} bytes; the limit is {MAX_CONTENT_BYTES}: split it")
    store = open_store(repo, load_settings())
    try:
        memory_id = write_memory(store, namespace, summary, content, tags=tags, relates_to=relates_to, spec=spec,
                                 phase=phase, announce=lambda: changed and print(
                                     f"memactors capture: {changed}", file=sys.stderr))
    except CaptureRefused as exc:
        raise UsageError(f"not captured: {exc}; nothing was written") from None
    return Outcome({"id": memory_id, "namespace": namespace, "commit": memory_id.split(":")[1],
                    "summary": summary}, memory_id)


# --- show -------------------------------------------------------------------------------------


def _memory_json(view) -> dict[str, Any]:
    memory = view.memory
    return {
        "id": memory.id,
        "upstream_id": memory.upstream_id,
        "aliases": list(memory.aliases),
        "key": memory.key,
        "namespace": memory.namespace,
        "commit": memory.commit,
        "timestamp": memory.timestamp.isoformat(),
        "summary": memory.summary,
        "title": view.quality.title,
        "body": memory.body,
        "tags": list(memory.tags),
        "spec": memory.spec,
        "phase": memory.phase,
        "status": memory.status,
        "relates_to": list(memory.relates_to),
        "tier": view.tier,
        "retention": view.retention.model_dump(),
        "quality": view.quality.as_json(),
        "meta": view.meta.model_dump(mode="json") if view.meta else None,
    }


def _show_summary(memory_id: str, state, view) -> Outcome | None:
    wanted = memory_id.strip().removeprefix("summary:")
    if len(wanted) < 6:
        return None
    summaries = [s for sid, s in state.summaries.items() if sid.startswith(wanted)]
    if len(summaries) != 1:
        return None
    summary = summaries[0]
    lines = [f"summary:{summary.id}  [warm]  {summary.provider}/{summary.model}, confidence {summary.confidence:.2f}",
             f"  {summary.text}", f"  covers {summary.earliest:%Y-%m-%d} .. {summary.latest:%Y-%m-%d}, "
             f"{len(summary.source_keys)} memories"]
    lines += [f"  fact: {fact}" for fact in summary.key_facts]
    lines += [f"  decision: {d.decision} ({d.outcome})" + (f" because {d.rationale}" if d.rationale else "")
              for d in summary.decisions]
    lines += [f"  superseded: {fact}" for fact in summary.superseded_facts]
    lines += [f"  source {label(view, key)}" for key in summary.source_keys]
    return Outcome({"kind": "summary", "tier": "warm", **summary.model_dump(mode="json")}, "\n".join(lines))


def show(repo: Path, memory_id: str) -> Outcome:
    """One memory (any ID form, or its key) or one summary (`summary:<id>`); code 1 when there is none."""
    store, view, state = open_view_and_state(repo)
    found = view.find(memory_id.strip())
    if found is None:
        shown = _show_summary(memory_id, state, view)
        if shown is not None:
            return shown
        return Outcome(None, f"no memory {memory_id!r} in {place(repo)} (IDs look like decisions:<sha>:<index>; see "
                       "`memactors tiers`)", EXIT_USAGE)
    doc = {"kind": "memory", **_memory_json(found)}
    r, q, t = found.retention, found.quality, found.quality.traits
    notes = [name for name, on in (("auto-captured", t.auto_captured), ("cut from a transcript", t.cut),
                                   ("no complete sentence", not t.readable), ("echoes injected context", t.echo),
                                   (f"flagged by the screen ({t.threat})", t.threat != "none"))
             if on]
    lines = [
        f"{found.memory.id}  [{found.tier}]",
        f"  title      {q.title}",
        f"  namespace  {found.memory.namespace}    captured {found.memory.timestamp.isoformat()}",
        f"  retention  {r.score:.3f} from recency {r.recency:.2f} · activation {r.activation:.2f} · "
        f"importance {r.importance:.2f}, times quality {r.quality:.2f}"
        + ("  (superseded x0.2)" if r.superseded else ""),
        f"  quality    {q.score:.2f}: " + ", ".join([*notes, f"markup {t.markup_share:.0%}",
                                                     f"{t.information_words} distinct words"]),
        f"  key        {found.memory.key}",
    ]
    if found.memory.summary.strip() != q.title:
        lines.insert(2, f"  summary    {' '.join(found.memory.summary.split())}")
    if found.memory.upstream_id != found.memory.id:
        lines.append(f"  alias      {found.memory.upstream_id} (git-notes-memory's numbering)")
    lines += [f"  alias      {alias} (the same entry on another commit)" for alias in found.memory.aliases]
    if found.memory.tags:
        lines.append(f"  tags       {', '.join(found.memory.tags)}")
    relations = _relations(state, view, found)
    doc.update(relations)
    placement, containing = _placement(store, found.memory)
    doc["branch"] = {"on_head": placement.on_head, "branches": list(placement.branches),
                     "label": placement.label(), "state": placement.state, "merged": placement.merged,
                     "known": placement.known, "containing": list(containing.branches[:MAX_CONTAINING_LISTED]),
                     "containing_count": len(containing.branches), "containing_complete": containing.complete}
    if not placement.on_head:
        lines.append(f"  branch     {placement.label() or placement.state}")
    lines.append(f"  branches   {containing.phrase()}")
    if relations["copy_of"]:
        lines.append(f"  copy of    {relations['copy_of']} (the same capture stored again; listings show it once)")
    elif found.meta and found.meta.superseded_by:
        lines.append(f"  superseded by {label(view, found.meta.superseded_by)}")
    lines += [f"  replaces   {text}" for text in relations["replaces_labels"]]
    lines += [f"  conflict   {note}" for note in relations["conflicts"]]
    if relations["next_tier"]:
        lines.append(f"  next run   moves it to {relations['next_tier']} (its retention changed since the last run; "
                     "a run — the daemon's or `memactors consolidate` — applies it)")
    if found.meta and found.meta.consolidated_into:
        lines.append(f"  summarized in summary:{found.meta.consolidated_into}")
    if found.meta and found.meta.pin:
        lines.append(f"  {found.meta.pin:<10} by you on {found.meta.pinned_at:%Y-%m-%d}: runs keep its tier "
                     f"(`memactors {'pin' if found.meta.pin == 'pinned' else 'archive'} --undo ID` releases it)")
    if found.memory.body:
        lines += ["", found.memory.body]
    return Outcome(doc, "\n".join(lines))


#: `show --json` lists at most this many of the branches that contain a memory's commit (and counts them all).
MAX_CONTAINING_LISTED = 100


def _placement(store, memory):
    """Where the commits a memory hangs on stand, the best of them (on HEAD's line, merged, not merged on
    other branches or a deleted one, unknown), and which branches contain them."""
    from memactors.adapters.git.branches import BranchMap, Placement

    branches = BranchMap(store.git.repo)
    commits = sorted(memory.commits())
    placements = [branches.placement(commit) for commit in commits]
    placement = (next((p for p in placements if p.on_head), None)
                 or next((p for p in placements if p.known and p.merged != "no"), None)
                 or Placement(on_head=False, branches=tuple(sorted({b for p in placements for b in p.branches})),
                              known=any(p.known for p in placements)))
    return placement, branches.containing(commits)


def _relations(state, view, found) -> dict[str, Any]:
    """What `show` says about a memory's place: the capture it copies, what it replaces, its conflicts,
    and the tier the next run gives it when that differs from the one stored."""
    from memactors.events.retention import tier_for

    key = found.memory.key
    copy_of = None
    replaces: list[str] = []
    replaces_labels: list[str] = []
    conflicts: list[str] = []
    for edge in state.edges.values():
        kind, copy = edge.edge_type.value, edge.reason.startswith("duplicate")
        if edge.target_key == key and copy and kind == "subsumes":
            copy_of = label(view, edge.source_key)
        elif edge.source_key == key and kind in ("supersedes", "subsumes") and not copy and edge.in_force:
            other = view.find(edge.target_key)
            replaces.append(other.memory.id if other else edge.target_key)
            replaces_labels.append(f"{label(view, edge.target_key)} ({edge.reason})")
        elif kind == "contradicts" and key in (edge.source_key, edge.target_key):
            other_key = edge.target_key if edge.source_key == key else edge.source_key
            if not edge.resolution:
                conflicts.append(f"{edge.id[:12]} with {label(view, other_key)}: waiting for you "
                                 f"(`memactors resolve {edge.id[:12]} --keep ID | --both`)")
            else:
                decided = "both stand" if edge.resolution == "both" else (
                    "you kept this one" if edge.resolution == f"keep:{key}" else "you kept the other")
                conflicts.append(f"{edge.id[:12]} with {label(view, other_key)}: resolved, {decided}")
    stored = found.tier
    settings = load_settings()
    upcoming = tier_for(settings.retention_policy(), found.retention.score).value
    moves = settings.forgetting_enabled  # with forgetting off the next run keeps the stored tier
    return {"copy_of": copy_of, "replaces": replaces, "replaces_labels": replaces_labels, "conflicts": conflicts,
            "next_tier": upcoming if moves and stored not in ("untiered", upcoming) else None}


# --- status and tiers -------------------------------------------------------------------------


def status(repo: Path, *, verbose: bool = False) -> Outcome:
    """Counts per namespace and tier, skipped entries, the last run; code 1 when a ref cannot be read."""
    from memactors.events.tier import TIER_ORDER

    store, view = open_view(repo)
    by_ns: dict[str, dict[str, int]] = {}
    for item in view.memories:
        row = by_ns.setdefault(item.memory.namespace, {})
        row[item.tier] = row.get(item.tier, 0) + 1
    last = store.last_run()
    unreadable = [*view.scan.unreadable_refs.values(), *(str(e) for e in store.readable_runs()[1])]
    doc = {
        "repository": store.git.description,
        "memories": len(view.memories),
        "namespaces": {ns: dict(sorted(row.items())) for ns, row in sorted(by_ns.items())},
        "tier_counts": dict(view.tier_counts()),
        "skipped": dict(sorted(view.scan.skipped.items())),
        "parse_warnings": dict(sorted(view.scan.warnings.items())),
        "last_run": last,
        "unreadable": unreadable,
        "skipped_notes": [{"ref": ref, "commit": commit, "reason": reason, "entries": n}
                          for ref, commit, reason, n in view.scan.skipped_notes],
    }
    columns = [t.value for t in TIER_ORDER] + ["untiered"]
    count = len(view.memories)
    lines = [f"memactors status: {count} memor{'y' if count == 1 else 'ies'} in {store.git.description}"]
    if view.memories:
        lines.append(f"  {'namespace':<14}" + "".join(f"{c:>10}" for c in columns))
        for ns, row in sorted(by_ns.items()):
            lines.append(f"  {ns:<14}" + "".join(f"{row.get(c, 0):>10}" for c in columns))
    lines.append(f"  skipped entries: {counts(dict(view.scan.skipped))}")
    where = view.scan.skipped_notes
    if verbose:
        if view.scan.warnings:
            lines.append(f"  read with: {counts(dict(view.scan.warnings))} (originals untouched)")
        for ref, commit, reason, n in where:
            lines.append(f"    {n} {reason:<18} {ref} on {commit[:12]}: `git notes --ref={ref} show {commit[:12]}`")
        if last:
            lines.append(f"  last run's tiers: {counts(last.get('tier_counts', {}))}; "
                         f"took {last.get('duration_seconds', 0):.2f} s")
    elif where:
        lines.append(f"  (unreadable entries sit in {len(where)} note{'s' if len(where) != 1 else ''}: "
                     "`memactors status --verbose` lists them; copies are not counted there)")
    if last:
        lines.append(f"  last run: {last['run_id']} ({last['trigger']}) at {last['completed_at']}, "
                     f"{last['memories_processed']} memories, {len(last.get('errors', []))} errors")
    elif view.memories:
        lines.append("  no run yet: `memactors consolidate` scores and tiers every memory")
    else:
        lines.append("  nothing to consolidate yet: capture a memory (`memactors capture`) or let the agent's "
                     "plugin do it; a run that finds nothing writes nothing")
    lines += _bridge_lines(store, doc)
    lines += [f"  unreadable: {line}" for line in unreadable]
    return Outcome(doc, "\n".join(lines), EXIT_ERRORS if unreadable else 0)


def _bridge_lines(store, doc: dict[str, Any]) -> list[str]:
    """Status of the bridge to Claude Code's auto memory (added to `doc` as "automemory")."""
    from memactors.adapters.operations.automemory import bridge_status

    bridge = bridge_status(store)
    doc["automemory"] = bridge
    done = [f"{what} {when['at']} ({', '.join(f'{k} {v}' for k, v in when.items() if k != 'at')})"
            for what, when in (("imported", bridge["last_import"]), ("exported", bridge["last_export"])) if when]
    switch = ("on: every `memactors consolidate` imports and exports it" if bridge["enabled"] else
              "off (MEMACTORS_AUTOMEMORY=on bridges it with every `memactors consolidate`)")
    if not done:
        return [f"  auto memory bridge {switch}; never imported or exported (`memactors automemory import` / "
                "`export`)"]
    return [f"  auto memory bridge {switch}; {'; '.join(done)}"]


def tiers(repo: Path, *, limit: int = 10, listed: int | None = None) -> Outcome:
    """The tier distribution and the memories of each tier, best first: `limit` in the text; `listed` in the
    document (None: all)."""
    from memactors.events.tier import TIER_ORDER

    if limit < 0:
        raise UsageError("--limit must be 0 or more (0 lists counts only; --json lists all)")
    _, view = open_view(repo)
    groups: dict[str, list] = {t.value: [] for t in TIER_ORDER}
    for item in view.memories:
        groups.setdefault(item.tier, []).append(item)
    for items in groups.values():
        items.sort(key=lambda v: (-v.retention.score, v.memory.id))
    doc = {
        "tier_counts": {tier: len(items) for tier, items in groups.items()},
        "tiers": {
            tier: [
                {"id": v.memory.id, "namespace": v.memory.namespace, "summary": v.memory.summary,
                 "title": v.quality.title, "quality": v.quality.score,
                 "score": round(v.retention.score, 4), "timestamp": v.memory.timestamp.isoformat()}
                for v in (items if listed is None else items[:listed])
            ]
            for tier, items in groups.items()
        },
    }
    lines = []
    for tier, items in groups.items():
        lines.append(f"{tier.upper()} ({len(items)})")
        for v in items[: max(limit, 0)]:
            lines.append(f"  {v.retention.score:.2f}  {v.memory.namespace:<13} {v.quality.title[:70]}  "
                         f"{v.memory.namespace}:{v.memory.commit[:7]}:{v.memory.index}")
        if len(items) > limit:
            lines.append(f"  … {len(items) - limit} more (--limit, or --json for all)")
    return Outcome(doc, "\n".join(lines))


# --- edges, conflicts, resolve ----------------------------------------------------------------


def edge_json(edge) -> dict[str, Any]:
    doc = edge.model_dump(mode="json")
    doc["conflict_id" if edge.edge_type.value == "contradicts" else "edge_id"] = edge.id
    return doc


_PHRASES = {
    ("supersedes", True): "supersedes", ("supersedes", False): "superseded by",
    ("subsumes", True): "subsumes", ("subsumes", False): "subsumed by",
    ("consolidates", False): "summarized in", ("references", True): "references",
    ("references", False): "referenced by", ("contradicts", True): "contradicts",
    ("contradicts", False): "contradicted by", ("relates_to", True): "relates to",
    ("relates_to", False): "related from", ("depends_on", True): "depends on", ("depends_on", False): "needed by",
    ("implements", True): "implements", ("implements", False): "implemented by", ("extends", True): "extends",
    ("extends", False): "extended by", ("supports", True): "supports", ("supports", False): "supported by",
}


def phrase(edge_type: str, outgoing: bool) -> str:
    """How an edge reads from the side of the memory it starts (`outgoing`) or ends at."""
    return _PHRASES.get((edge_type, outgoing), edge_type)


def edges(repo: Path, memory_id: str) -> Outcome:
    _, view, state = open_view_and_state(repo)
    found = view.find(memory_id.strip())
    if found is None:
        return Outcome(None, f"no memory {memory_id!r} in {place(repo)} (see `memactors tiers`)", EXIT_USAGE)
    key = found.memory.key
    found_edges = sorted((e for e in state.edges.values() if key in (e.source_key, e.target_key) and e.in_force),
                         key=lambda e: (e.edge_type.value, e.created_at))
    lines = [f"{found.memory.id} \"{found.quality.title}\""]
    for e in found_edges:
        outgoing = e.source_key == key
        other = e.target_key if outgoing else e.source_key
        partial = " (partially)" if e.partial else ""
        state_note = (" [added by you]" if e.is_link and e.resolution else
                      f" [resolved: {e.resolution}]" if e.resolution else "")
        said = phrase(e.edge_type.value, outgoing)
        why = f"\n      {e.reason}" if e.reason.strip() and e.reason.strip() not in (said, e.edge_type.value) else ""
        lines.append(f"  {said}{partial} {label(view, other)}{state_note}{why}")
    if not found_edges:
        lines.append("  no relationships yet (run `memactors consolidate`)")
    return Outcome([titled(view, e) for e in found_edges], "\n".join(lines))


def open_conflicts(state):
    return sorted((e for e in state.edges.values() if e.edge_type.value == "contradicts" and not e.resolution),
                  key=lambda e: e.created_at)


def decided_conflicts(state):
    """Conflicts the user decided, newest first."""
    return sorted((e for e in state.edges.values() if e.edge_type.value == "contradicts" and e.resolution),
                  key=lambda e: e.created_at, reverse=True)


def decision_words(view, resolution: str) -> str:
    """A recorded decision as the user reads it: `both stand` or `kept <title> (<id>)`."""
    if resolution == "both":
        return "both stand"
    key = resolution.removeprefix("keep:")
    found = view.by_key.get(key)
    return f"kept {found.quality.title} ({found.memory.id})" if found else f"kept {key}"


def conflicts(repo: Path, *, decided: bool = False) -> Outcome:
    """Conflicts waiting for the user, oldest first; `decided`: those the user decided instead (newest first),
    each with its decision."""
    _, view, state = open_view_and_state(repo)
    if decided:
        done = decided_conflicts(state)
        lines = [f"{len(done)} conflicts you decided"] + [
            f"  {e.id}  {decision_words(view, e.resolution)}" for e in done]
        return Outcome([{**titled(view, e), "decision": decision_words(view, e.resolution),
                         "kept_id": _kept_id(view, e.resolution),
                         "sides": {"newer": _side(view, e.source_key), "older": _side(view, e.target_key)}}
                        for e in done], "\n".join(lines))
    waiting = open_conflicts(state)
    lines = [f"{len(waiting)} conflicts waiting for you"]
    for e in waiting:
        lines += [f"  {e.id}  {e.reason}", f"      newer {label(view, e.source_key)}",
                  f"      older {label(view, e.target_key)}"]
    if waiting:
        lines.append("decide with: memactors resolve CONFLICT-ID --keep MEMORY-ID | --both")
    return Outcome([{**titled(view, e), "sides": {"newer": _side(view, e.source_key), "older": _side(view, e.target_key)}}
                    for e in waiting], "\n".join(lines))


def _kept_id(view, resolution: str) -> str | None:
    """The id of the memory a decision kept (None: both stand)."""
    if not resolution.startswith("keep:"):
        return None
    found = view.by_key.get(resolution.removeprefix("keep:"))
    return found.memory.id if found else resolution.removeprefix("keep:")


class AlreadyDecided(UsageError):
    """A different decision for a conflict the user already decided, without saying to change it."""

    def __init__(self, conflict_id: str, earlier: str) -> None:
        self.conflict_id, self.earlier = conflict_id, earlier
        super().__init__(f"conflict {conflict_id[:12]} is already decided ({earlier}); to change the decision, "
                         "resolve it again and pass --change")


def _side(view, key: str) -> dict[str, Any]:
    """One side of a conflict as the user weighs it: its id, title, date and text."""
    found = view.by_key.get(key)
    if found is None:
        return {"id": key, "title": key, "timestamp": None, "body": ""}
    return {"id": found.memory.id, "title": found.quality.title, "timestamp": found.memory.timestamp.isoformat(),
            "body": found.memory.body}


def titled(view, edge) -> dict[str, Any]:
    """An edge's JSON with the titles of its two ends (a summary's end keeps its id)."""
    def title(key: str) -> str:
        found = view.by_key.get(key)
        return found.quality.title if found else key

    return {**edge_json(edge), "source_title": title(edge.source_key), "target_title": title(edge.target_key)}


def resolve(repo: Path, conflict_id: str, *, keep: str | None = None, both: bool = False,
            change: bool = False) -> Outcome:
    """Record the user's decision on one conflict at once (compare-and-swap, retried); the next run applies it.
    A conflict already decided otherwise is changed only with `change` (AlreadyDecided without it); the same
    decision again changes nothing."""
    from memactors.actors.ports import StateConflict
    from memactors.adapters.git.repo_lock import daemon_holder

    if (keep is None) == (not both):
        raise UsageError("say which memory stands (keep) or that both do (both)")
    store, view = open_view(repo)
    for attempt in range(1, RESOLVE_ATTEMPTS + 1):
        # no run lock: a daemon or run in progress loses the compare-and-swap and starts over with this
        # decision, or this command does and records it again on the run's result
        try:
            edge, resolution, earlier = _record_resolution(store, view, conflict_id, keep, both, change)
            break
        except StateConflict as exc:
            if attempt == RESOLVE_ATTEMPTS:
                raise UsageError(f"the state kept changing ({exc}); run the command again") from None
    when = "the daemon's next run applies it" if daemon_holder(store.git.common_dir) is not None else \
        "the next `memactors consolidate` applies it"
    decided = decision_words(view, resolution)
    if earlier == resolution:
        return Outcome({"conflict_id": edge.id, "resolution": resolution, "applies": "already applied",
                        "changed_from": None}, f"conflict {edge.id} was already decided that way: {decided}")
    changed = f" (changed from: {decision_words(view, earlier)})" if earlier else ""
    text = (f"conflict {edge.id} resolved: {decided}{changed}\n"
            f"  recall, the session's context and surfacing see it now; tiers and retention change when a run "
            f"applies it ({when})")
    return Outcome({"conflict_id": edge.id, "resolution": resolution, "applies": "next run",
                    "changed_from": earlier}, text)


def _record_resolution(store, view, conflict_id: str, keep: str | None, both: bool, change: bool = False):
    """Write the user's decision on one conflict with compare-and-swap; (edge, resolution, the earlier resolution
    or None). Raises StateConflict, or AlreadyDecided for a different decision without `change`."""
    state = store.load_state()
    wanted = conflict_id.strip()
    matches = [e for e in state.edges.values()
               if e.edge_type.value == "contradicts" and len(wanted) >= 6 and e.id.startswith(wanted)]
    if len(matches) != 1:
        raise UsageError(f"no single conflict {wanted!r}" + (" (ambiguous prefix)" if matches else "")
                         + "; see `memactors conflicts`")
    edge = matches[0]
    earlier = edge.resolution or None
    pair = (edge.source_key, edge.target_key)
    meta_updates = {}
    if both:
        resolution = "both"
        for key in pair:
            meta = state.meta.get(key)
            if meta and meta.superseded_by in pair:
                meta_updates[key] = meta.model_copy(update={"superseded_by": None})
    else:
        assert keep is not None
        kept = view.find(keep.strip())
        if kept is None or kept.memory.key not in pair:
            raise UsageError(f"{keep!r} is not one of the two memories of conflict {edge.id}")
        resolution = f"keep:{kept.memory.key}"
        loser = pair[1] if kept.memory.key == pair[0] else pair[0]
        meta = state.meta.get(loser)
        if meta is not None:
            meta_updates[loser] = meta.model_copy(update={"superseded_by": kept.memory.key})
        winner = state.meta.get(kept.memory.key)
        if winner is not None and winner.superseded_by == loser:  # an earlier decision kept the other
            meta_updates[kept.memory.key] = winner.model_copy(update={"superseded_by": None})
    if earlier == resolution:
        return edge, resolution, earlier
    if earlier and not change:
        raise AlreadyDecided(edge.id, decision_words(view, earlier))
    resolved = edge.model_copy(update={"resolution": resolution})
    commit_user_decision(store, state, {edge.id: (resolved, state.edge_commits[edge.id])}, meta_updates,
                         trigger="resolve", fallback_commit=state.meta[pair[0]].commit)
    return edge, resolution, earlier


def commit_user_decision(store, state, edge_changes: dict, meta_updates: dict, *, trigger: str,
                         fallback_commit: str) -> None:
    """Write the user's decision (edges by id -> (edge, commit it hangs on), metadata by key) in one
    compare-and-swap against the state read; raises StateConflict when a run moved the refs meanwhile."""
    from memactors.actors.persister import whole_notes
    from memactors.actors.ports import StateChange
    from memactors.adapters.system.clock import SystemClock
    from memactors.adapters.runtime.pipeline import new_run_id
    from memactors.events.report import RunReport

    now = SystemClock().now()
    report = RunReport(run_id=new_run_id(now), trigger=trigger, started_at=now, completed_at=now,
                       phase="completed", persisted=True, head=store.head())
    change = StateChange(
        meta_by_commit=whole_notes(state.meta, {k: m.commit for k, m in state.meta.items()},
                                   {k: (m, m.commit) for k, m in meta_updates.items()}),
        edges_by_commit=whole_notes(state.edges, state.edge_commits, edge_changes),
        report=report, run_commit=store.head() or fallback_commit,
    )
    store.commit(change, dict(state.tips))
    decided = [(e.source_key, e.target_key) for e, _ in edge_changes.values()
               if e.edge_type.value == "contradicts" and e.resolution]
    if meta_updates or decided:
        _apply_to_read_model(store, {k: m.superseded_by for k, m in meta_updates.items()}, decided)


def _apply_to_read_model(store, superseded_by: dict[str, str | None], decided=()) -> None:
    """What the user decided, seen by recall, the SessionStart context and surfacing at once (a failure here
    costs nothing the next run does not redo)."""
    from memactors.adapters.git.commit_files import CACHE_FILE, CommitFiles
    from memactors.adapters.reading.read_cache import ReadCache

    common = store.git.common_dir
    try:
        ReadCache(common, files=CommitFiles(store.git.repo, common / "memactors" / CACHE_FILE)
                  ).apply_decisions(superseded_by, decided)
    except OSError as exc:
        print(f"memactors: recall shows the decision after the next run ({exc})", file=sys.stderr)


# --- context ----------------------------------------------------------------------------------


def context_block(repo: Path, *, budget_tokens: int | None = None) -> Outcome:
    """The block the SessionStart hook injects, rendered now from what the last run precomputed."""
    import os

    from memactors.adapters.claude.session_context import session_start

    block, notes = session_start(None, repo, os.environ, budget_tokens=budget_tokens)
    return Outcome({"block": block, "notes": notes}, block or "\n".join(notes))


def not_superseded(repo: Path, memory_id: str) -> Outcome:
    """The user says a memory is not replaced: every supersession of it the judge recorded is marked removed
    (kept, not shown or followed) and it stands again; later runs never judge those pairs again."""
    from memactors.actors.ports import StateConflict
    from memactors.events.edge import REMOVED

    store, view = open_view(repo)
    found = view.find(memory_id.strip())
    if found is None:
        raise UsageError(f"no memory {memory_id!r} (see `memactors recall` or `memactors tiers`)")
    key = found.memory.key
    for attempt in range(1, RESOLVE_ATTEMPTS + 1):
        try:
            state = store.load_state()
            wrong = [e for e in state.edges.values()
                     if e.target_key == key and e.edge_type.value in ("supersedes", "subsumes") and e.in_force
                     and not e.reason.startswith("duplicate")]
            if not wrong:
                raise UsageError(f"{found.memory.id} is not replaced by any judged supersession (a copy of a "
                                 "capture is folded into it, not replaced)")
            meta = state.meta.get(key)
            updates = {key: meta.model_copy(update={"superseded_by": None})} if meta and meta.superseded_by else {}
            changes = {e.id: (e.model_copy(update={"resolution": REMOVED}), state.edge_commits[e.id]) for e in wrong}
            commit_user_decision(store, state, changes, updates, trigger="not-superseded",
                                 fallback_commit=found.memory.commit)
            break
        except StateConflict as exc:
            if attempt == RESOLVE_ATTEMPTS:
                raise UsageError(f"the state kept changing ({exc}); try again") from None
    names = ", ".join(label(view, e.source_key) for e in wrong)
    return Outcome({"id": found.memory.id, "removed": [edge_json(e) for e in wrong]},
                   f"{found.memory.id} stands again: the supersession by {names} is marked wrong\n"
                   "  later runs keep it that way")
