"""The user's word on links: add one between two memories, or remove one (found or added), recorded at once.

A link is stored like a conflict's resolution: an edge in `refs/notes/mem-edges` whose `resolution` says the user
decided (`added`, `removed`). Runs never withdraw an added link and never find a removed pair again; readers
neither show nor follow a removed link. Nothing else changes: no memory is rewritten.
"""

from __future__ import annotations

from pathlib import Path

from memactors.adapters.operations.errors import UsageError
from memactors.adapters.operations.memories import RESOLVE_ATTEMPTS, commit_user_decision, edge_json, label, open_view
from memactors.adapters.operations.outcome import Outcome

LINK_TYPE_NAMES = ("relates_to", "depends_on", "implements", "extends", "supports")
#: A reason the user gives is kept to this many characters.
MAX_REASON = 300


def link(repo: Path, source: str, target: str, *, edge_type: str | None = None, remove: bool = False,
         reason: str = "") -> Outcome:
    """Add `source` -> `target` of `edge_type` (default relates_to), or with `remove` mark the pair's links of
    `edge_type` (every type when None) removed; compare-and-swap with a run in progress, retried."""
    from memactors.actors.ports import StateConflict

    if edge_type is not None and edge_type not in LINK_TYPE_NAMES:
        raise UsageError(f"unknown link type {edge_type!r}; use one of: {', '.join(LINK_TYPE_NAMES)}")
    store, view = open_view(repo)
    ends, names = [], {}
    for wanted in (source, target):
        found = view.find(wanted.strip())
        if found is None:
            raise UsageError(f"no memory {wanted!r} (see `memactors recall` or `memactors tiers`)")
        ends.append(found.memory.key)
        names[found.memory.key] = found.memory.id
    if ends[0] == ends[1]:
        raise UsageError("a memory cannot be linked to itself")
    for attempt in range(1, RESOLVE_ATTEMPTS + 1):
        try:
            written = _record(store, ends[0], ends[1], names, edge_type, remove, reason.strip()[:MAX_REASON])
            break
        except StateConflict as exc:
            if attempt == RESOLVE_ATTEMPTS:
                raise UsageError(f"the state kept changing ({exc}); run the command again") from None
    a, b = label(view, ends[0]), label(view, ends[1])
    if remove:
        kinds = ", ".join(sorted({e.edge_type.value for e in written}))
        text = f"removed {kinds} between {a} and {b}\n  runs will not link these two again"
    else:
        text = f"linked {a} -[{written[0].edge_type.value}]-> {b}\n  runs keep it; `memactors link --remove` undoes it"
    return Outcome({"removed" if remove else "added": [edge_json(e) for e in written]}, text)


def _record(store, source: str, target: str, names: dict[str, str], edge_type: str | None, remove: bool,
            reason: str):
    """Write the decision; the edges written. Raises StateConflict when a run moved the state meanwhile."""
    from memactors.adapters.system.clock import SystemClock
    from memactors.events.edge import ADDED, LINK_TYPES, REMOVED, Edge, EdgeType, edge_id

    state = store.load_state()
    missing = [k for k in (source, target) if k not in state.meta]
    if missing:
        raise UsageError("memactors has not consolidated these memories yet: run `memactors consolidate` first")
    now = SystemClock().now()
    commits = {source: state.meta[source].commit, target: state.meta[target].commit}
    run_id = f"user-{now:%Y%m%dT%H%M%SZ}"
    changes: dict[str, tuple[Edge, str]] = {}
    if remove:
        pair = {source, target}
        for edge in state.edges.values():
            if (edge.is_link and {edge.source_key, edge.target_key} == pair
                    and (edge_type is None or edge.edge_type.value == edge_type) and edge.resolution != REMOVED):
                changes[edge.id] = (edge.model_copy(update={"resolution": REMOVED, "created_at": now,
                                                            "consolidation_run_id": run_id}),
                                    state.edge_commits.get(edge.id, commits[edge.source_key]))
        if not changes:  # nothing to take back: record that the user wants no such link, so no run adds one
            kind = EdgeType(edge_type or "relates_to")
            changes[edge_id(source, target, kind)] = (
                _user_edge(source, target, names, kind, REMOVED, reason, now, run_id), commits[source])
    else:
        kind = EdgeType(edge_type or "relates_to")
        assert kind in LINK_TYPES
        changes[edge_id(source, target, kind)] = (
            _user_edge(source, target, names, kind, ADDED, reason, now, run_id), commits[source])
    commit_user_decision(store, state, dict(changes), {}, trigger="link", fallback_commit=commits[source])
    return [edge for edge, _ in changes.values()]


def _user_edge(source: str, target: str, names: dict[str, str], kind, resolution: str, reason: str, now,
               run_id: str):
    from memactors.events.edge import Edge

    return Edge(source_key=source, target_key=target, source_id=names[source], target_id=names[target], edge_type=kind, weight=1.0,
                reason=reason or ("added by the user" if resolution == "added" else "removed by the user"),
                created_at=now, consolidation_run_id=run_id, resolution=resolution, found_by="user")
