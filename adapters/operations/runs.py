"""The runs and what each changed: the record every run leaves, and the difference its commits made."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from memactors.adapters.operations.errors import UsageError
from memactors.adapters.operations.memories import label, open_view_and_state
from memactors.adapters.operations.outcome import EXIT_USAGE, Outcome, place

#: Runs listed on one page, and changes of each kind listed on one page of a run (every change is on some page).
PER_PAGE = 20
MAX_CHANGES = 200
#: Runs the tier plot covers, newest last.
PLOTTED = 60


def _records(store) -> list[dict[str, Any]]:
    from memactors.adapters.git.state_codec import started

    runs, _ = store.readable_runs()
    unique = {str(r.get("run_id")): r for r in runs if isinstance(r, dict)}
    return sorted(unique.values(), key=started, reverse=True)


def _brief(run: dict[str, Any]) -> dict[str, Any]:
    usage = run.get("token_usage") or {}
    return {
        "run_id": run.get("run_id"), "trigger": run.get("trigger"), "started_at": run.get("started_at"),
        "duration_seconds": run.get("duration_seconds"), "memories_processed": run.get("memories_processed", 0),
        "tier_counts": run.get("tier_counts") or {}, "tier_transitions": run.get("tier_transitions") or {},
        "summaries_created": run.get("summaries_created", 0),
        "supersessions_detected": run.get("supersessions_detected", 0),
        "contradictions_flagged": run.get("contradictions_flagged", 0), "edges_written": run.get("edges_written", 0),
        "llm_calls": usage.get("llm_calls", 0), "cost_usd": usage.get("cost_usd", 0.0),
        "errors": list(run.get("errors") or []), "fallbacks": list(run.get("fallbacks") or []),
        "stages_off": dict(run.get("stages_off") or {}),
    }


def runs(repo: Path, *, page: int = 1, per_page: int = PER_PAGE) -> Outcome:
    """The runs, newest first, a page at a time, and each run's tier counts for a plot (oldest first)."""
    if page < 1:
        raise UsageError("page must be 1 or more")
    store, _, _ = open_view_and_state(repo)
    records = _records(store)
    listed = [_brief(r) for r in records[(page - 1) * per_page: page * per_page]]
    plotted = [{"run_id": r.get("run_id"), "started_at": r.get("started_at"), "tier_counts": r.get("tier_counts")}
               for r in reversed(records[:PLOTTED]) if r.get("tier_counts")]
    doc = {"total": len(records), "page": page, "per_page": per_page, "runs": listed, "tier_history": plotted}
    lines = [f"{len(records)} runs" + (f" (page {page})" if page > 1 else "")]
    for r in listed:
        lines.append(f"  {r['run_id']}  {r['trigger']:<10} {r['memories_processed']} memories, "
                     f"{sum(r['tier_transitions'].values())} tier moves, {len(r['errors'])} errors"
                     + "".join(f", {stage.replace('_', ' ')} off" for stage in r["stages_off"]))
    return Outcome(doc, "\n".join(lines))


def run_changes(repo: Path, run_id: str, *, page: int = 1, per_page: int = MAX_CHANGES) -> Outcome:
    """One run's record and what its commits changed against the state before it: tier moves, summaries,
    and edges (supersessions, contradictions, links) added or withdrawn. Each kind of change is listed
    `per_page` at a time (page `page` of each); `totals` counts them all and `pages` is the last page."""
    from memactors.adapters.git.memory_store import EDGES_REF, META_REF, SUMMARIES_REF
    from memactors.adapters.git.run_history import changed_notes
    from memactors.adapters.git.state_codec import (
        UnreadableState,
        decode_edges_note,
        decode_meta_note,
        decode_summaries_note,
    )

    if page < 1 or not 1 <= per_page <= MAX_CHANGES:
        raise UsageError(f"page must be 1 or more and per_page between 1 and {MAX_CHANGES}")
    store, view, _ = open_view_and_state(repo)
    records = _records(store)
    wanted = run_id.strip()
    matches = [r for r in records if len(wanted) >= 6 and str(r.get("run_id", "")).startswith(wanted)]
    if len(matches) != 1:
        return Outcome(None, f"no single run {wanted!r} in {place(repo)} (see `memactors view` or the runs list)",
                       EXIT_USAGE)
    run = matches[0]
    full_id = str(run["run_id"])

    def records_of(ref: str, decode) -> tuple[dict[str, Any], dict[str, Any]] | None:
        notes = changed_notes(store.git, ref, full_id)
        if notes is None:
            return None
        before, after = {}, {}
        for annotated, old, new in notes:
            try:
                before.update({_rid(r): r for r in decode(annotated, old)} if old else {})
                after.update({_rid(r): r for r in decode(annotated, new)} if new else {})
            except UnreadableState:
                continue
        return before, after

    moves, summaries, edges = [], {"added": [], "withdrawn": []}, {"added": [], "withdrawn": []}
    meta = records_of(META_REF, decode_meta_note)
    if meta is not None:
        before, after = meta
        for key, record in after.items():
            old = before.get(key)
            if old is None or old.tier != record.tier:
                moves.append({"memory": label(view, key), "key": key, "id": _id(view, key),
                              "title": _title(view, key), "from": old.tier.value if old else None,
                              "to": record.tier.value})
    found = records_of(SUMMARIES_REF, decode_summaries_note)
    if found is not None:
        before, after = found
        summaries["added"] = [{"id": s.id, "text": s.text[:300]} for k, s in after.items() if k not in before]
        summaries["withdrawn"] = [{"id": s.id, "text": s.text[:300]} for k, s in before.items() if k not in after]
    found = records_of(EDGES_REF, decode_edges_note)
    if found is not None:
        before, after = found
        for side, chosen in (("added", [e for k, e in after.items() if k not in before or
                                        before[k].resolution != e.resolution]),
                             ("withdrawn", [e for k, e in before.items() if k not in after])):
            edges[side] = [{"id": e.id, "edge_type": e.edge_type.value, "source": label(view, e.source_key),
                            "target": label(view, e.target_key), "source_id": _id(view, e.source_key),
                            "target_id": _id(view, e.target_key), "source_title": _title(view, e.source_key),
                            "target_title": _title(view, e.target_key), "reason": e.reason,
                            "resolution": e.resolution}
                           for e in chosen if e.edge_type.value != "consolidates"]
    counts = Counter(f"{m['from'] or 'new'} → {m['to']}" for m in moves)
    window = slice((page - 1) * per_page, page * per_page)
    totals = {"tier_moves": len(moves), "summaries_added": len(summaries["added"]),
              "summaries_withdrawn": len(summaries["withdrawn"]), "edges_added": len(edges["added"]),
              "edges_withdrawn": len(edges["withdrawn"])}
    pages = max(1, -(-max(totals.values()) // per_page))
    if page > pages:
        raise UsageError(f"page {page} is past the last page ({pages})")
    doc = {"run": _brief(run), "page": page, "pages": pages, "per_page": per_page, "first": window.start + 1,
           "totals": totals, "tier_moves": moves[window], "tier_move_counts": dict(counts.most_common()),
           "summaries": {k: v[window] for k, v in summaries.items()},
           "edges": {k: v[window] for k, v in edges.items()},
           "found_in_history": meta is not None or found is not None}
    lines = [f"run {full_id} ({run.get('trigger')}): {len(moves)} tier moves, "
             f"{len(summaries['added'])} new summaries, {len(edges['added'])} new edges, "
             f"{len(edges['withdrawn'])} withdrawn"]
    lines += [f"  {m['memory']}: {m['from'] or 'new'} → {m['to']}" for m in moves[:20]]
    return Outcome(doc, "\n".join(lines))


def tier_history(repo: Path, memory_id: str) -> Outcome:
    """The tiers a memory held, run by run (from the metadata note's history), newest first."""
    from memactors.adapters.git.memory_store import META_REF
    from memactors.adapters.git.run_history import note_history
    from memactors.adapters.git.state_codec import UnreadableState, decode_meta_note

    store, view, _ = open_view_and_state(repo)
    found = view.find(memory_id.strip())
    if found is None:
        return Outcome(None, f"no memory {memory_id!r} in {place(repo)}", EXIT_USAGE)
    key, commit = found.memory.key, found.memory.commit
    history, last = [], None
    for run_id, data in reversed(note_history(store.git, META_REF, commit)):
        try:
            record = next((m for m in decode_meta_note(commit, data) if m.key == key), None)
        except UnreadableState:
            continue
        if record is None:
            continue
        state = (record.tier.value, record.superseded_by)
        if state != last:
            history.append({"run_id": run_id, "tier": record.tier.value, "superseded_by": record.superseded_by})
            last = state
    history.reverse()
    text = "\n".join(f"  {h['run_id']}: {h['tier']}" + (" (superseded)" if h["superseded_by"] else "")
                     for h in history) or "  no run has tiered it yet"
    return Outcome({"id": found.memory.id, "history": history}, f"{found.memory.id}\n{text}")


def _id(view, key: str) -> str:
    """The id a page links to for a memory's key (a summary's key is its own id)."""
    found = None if key.startswith("summary:") else view.by_key.get(key)
    return found.memory.id if found else key


def _title(view, key: str) -> str:
    found = None if key.startswith("summary:") else view.by_key.get(key)
    return (found.quality.title or found.memory.summary) if found else key


def _rid(record: Any) -> str:
    return getattr(record, "key", None) or getattr(record, "id")
