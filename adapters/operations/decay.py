"""The decay preview: which memories the coming runs move to a colder tier if nothing is used, and why."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from memactors.adapters.operations.errors import UsageError
from memactors.adapters.operations.outcome import Outcome
from memactors.adapters.operations.store import load_settings, open_store

#: Longest preview: past a year every unused memory is wherever importance and quality alone put it.
MAX_DAYS = 365.0


def decay(repo: Path, *, days: float = 30.0, threshold: float | None = None, limit: int = 50) -> Outcome:
    """Each memory's retention `days` ahead with no use beyond those recorded (the next run folds those in),
    against the tier it holds now: the moves to colder tiers, with the factors behind each; and, given
    `threshold`, the memories whose retention then falls below it. `days` move the clock recency counts from:
    on the store clock (the default) that clock moves only as the project captures memories, so the preview
    says where `days` more of captures leave the unused ones."""
    from memactors.adapters.claude.activation_log import ActivationLog
    from memactors.adapters.reading.traits_cache import TraitsCache
    from memactors.adapters.system.clock import SystemClock
    from memactors.events.edge import replaced_in_part
    from memactors.events.quality import quality_score
    from memactors.events.retention import fold_uses, reference_time, score, tier_for
    from memactors.events.tier import TIER_ORDER

    if not 0 <= days <= MAX_DAYS:
        raise UsageError(f"--days must be between 0 and {MAX_DAYS:.0f}")
    if threshold is not None and not 0 <= threshold <= 1:
        raise UsageError("--threshold must be between 0 and 1")
    if limit < 0:
        raise UsageError("--limit must be 0 or more")
    settings = load_settings()
    policy = settings.retention_policy()
    store = open_store(repo, settings)
    store.check_readable()
    state = store.load_state()
    memories = store.scan(None).memories
    now = reference_time(policy, SystemClock().now(), (m.timestamp for m in memories))
    at = now + timedelta(days=days)
    traits = TraitsCache(store.git.common_dir / "memactors").traits(memories)
    pending = ActivationLog(store.git.common_dir).read()
    order = {tier.value: i for i, tier in enumerate(TIER_ORDER)}
    moves: list[dict[str, Any]] = []
    below: list[dict[str, Any]] = []
    partial = replaced_in_part(state.edges.values())
    abandoned = store.abandoned(memories)
    held: list[dict[str, Any]] = []
    for memory in memories:
        meta = state.meta.get(memory.key)
        if meta is None:
            continue  # not tiered yet: the next run gives it its first tier
        last, count = fold_uses(meta, pending.get(memory.key, ()))
        retention = score(policy, namespace=memory.namespace, created=memory.timestamp, last_access=last,
                          activation_count=count, superseded=meta.superseded_by is not None, now=at,
                          quality=quality_score(policy.quality, traits[memory.key]),
                          partially_superseded=memory.key in partial, summarized=meta.consolidated_into is not None,
                          abandoned=memory.key in abandoned)
        tier = tier_for(policy, retention.score).value
        if meta.pin:  # the user's word holds its tier, whatever its retention does
            held.append({"id": memory.id, "summary": memory.summary, "pin": meta.pin, "tier": meta.tier.value})
            continue
        row = {"id": memory.id, "namespace": memory.namespace, "summary": memory.summary,
               "timestamp": memory.timestamp.isoformat(), "tier": meta.tier.value, "becomes": tier,
               "retention": round(retention.score, 4), "recency": round(retention.recency, 3),
               "activation": round(retention.activation, 3), "importance": round(retention.importance, 3),
               "quality": round(retention.quality, 3), "superseded": retention.superseded}
        if order[tier] > order[meta.tier.value]:
            row["below"] = {"hot": policy.hot_threshold, "warm": policy.warm_threshold,
                            "cold": policy.cold_threshold}.get(meta.tier.value)
            moves.append(row)
        if threshold is not None and retention.score < threshold:
            below.append(row)
    moves.sort(key=lambda r: (order[r["becomes"]], -r["retention"]))
    below.sort(key=lambda r: r["retention"])
    counts: dict[str, int] = {}
    for row in moves:
        counts[f"{row['tier']}->{row['becomes']}"] = counts.get(f"{row['tier']}->{row['becomes']}", 0) + 1
    doc = {"clock": policy.recency_clock, "reference_time": now.isoformat(), "at": at.isoformat(), "days": days,
           "move_counts": dict(sorted(counts.items())), "moves": moves, "threshold": threshold,
           "below_threshold": below if threshold is not None else None, "held": held}
    clock = ("the store's clock (it moves as memories are captured)" if policy.recency_clock == "store"
             else "the wall clock")
    lines = [f"in {days:g} days on {clock}, unused: {len(moves)} "
             f"{'memory moves' if len(moves) == 1 else 'memories move'} to a colder tier"
             + (f" ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})" if counts else "")]
    if moves:
        lines.append(f"  a memory leaves its tier when its retention falls below the tier's bar: hot "
                     f"{policy.hot_threshold:.2f}, warm {policy.warm_threshold:.2f}, cold {policy.cold_threshold:.2f}")
    for row in moves[:limit]:
        bar = f" < {row['below']:.2f}" if row.get("below") is not None else ""
        lines.append(f"  {row['tier']:>8} -> {row['becomes']:<8} {row['retention']:.2f}{bar}  {row['namespace']:<12} "
                     f"{' '.join(row['summary'].split())[:70]}")
        lines.append(f"      {row['id']}  recency {row['recency']:.2f} · activation {row['activation']:.2f} · "
                     f"importance {row['importance']:.2f} · quality {row['quality']:.2f}"
                     + ("  (superseded x0.2)" if row["superseded"] else ""))
    if len(moves) > limit:
        lines.append(f"  … {len(moves) - limit} more (--limit, or --json for all)")
    if threshold is not None:
        lines.append(f"below {threshold:g} by then: {len(below)}")
        lines += [f"  {row['retention']:.2f}  {row['becomes']:<8} {row['id']}  {' '.join(row['summary'].split())[:60]}"
                  for row in below[:limit]]
    if not settings.forgetting_enabled:  # a preview of what a run would do, and runs do none of it now
        doc["forgetting_off"] = settings.stages_off()["forgetting"]
        lines.insert(0, f"forgetting is off ({doc['forgetting_off']}): runs move none of these until it is on; "
                        "what follows is where retention would take them")
    if held:
        lines.append(f"held where you put them ({len(held)}; `memactors pin|archive --undo ID` releases one):")
        lines += [f"  {row['pin']:<8} {row['id']}  {' '.join(row['summary'].split())[:60]}" for row in held[:limit]]
    if moves:
        lines.append("a recall of a memory (a use) keeps it warm; `memactors show ID` explains its score")
    return Outcome(doc, "\n".join(lines))
