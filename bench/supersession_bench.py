"""Benchmark: does the offline judge replace the right memories, and does recall answer with the current one?

Run by hand: `python bench/supersession_bench.py [--held-out] [--json] [--show-edges]`, or `--cost` for what
finding and judging the pairs clusters miss costs a run on realistic stores of growing size.

Builds the labelled store of tests/supersession_facts.py (45 replacements in many wordings, 49 look-alike pairs
that replace nothing, four tasks' progress, auto-captured headings, table rows, narration and cuts around them)
and five first-day stores (three to ten memories), consolidates each offline (local MiniLM, no LLM) and reports:
- precision and recall of the hiding edges (supersedes, or subsumes between memories that are not copies) on the
  labelled pairs; every other hiding edge between two statements counts as wrong (listed with --show-edges), and
  so does any edge whose source is auto-captured noise;
- for each replacement's question ("what linter do we use"), whether recall lists the current memory above the
  replaced one (or without it);
- the SessionStart block: its items, and how many are narration, headings, empty titles, checklists or cuts.
Labels were written before the judge was tuned; every third topic is held out (reported with --held-out).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402
from bench.quality_bench import chatter  # noqa: E402
from memactors.adapters.claude.session_context import session_start  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.reading.read_cache import ReadCache  # noqa: E402
from memactors.adapters.reading.recall import search  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402
from memactors.events.edge import EdgeType  # noqa: E402
from memactors.events.read_model import EntryKind  # noqa: E402
from tests.supersession_facts import ALSO_RIGHT, NOISE, Note, chains, replacements, traps  # noqa: E402
from tests.supersession_store import SupersessionStore, build_supersession_store  # noqa: E402

#: First-day stores: (the notes, the topic whose question is asked).
SMALL = (
    ("lint", ("lint-old", "lint-new", "fmt-old", "tests-old")),
    ("db", ("db-old", "db-new", "orm-old", "t-wal-old", "n-3", "n-4")),
    ("deps", ("deps-old", "deps-new", "t-poetry-new", "ci-old")),
    ("payments", ("payments-old", "payments-new", "n-8", "t-sentry-old", "uploads-old")),
    ("cache", ("cache-old", "cache-new", "t-redis-old", "n-7", "logs-old", "lock-old", "secrets-old", "py-old",
               "proxy-old", "docs-old")),
)


def hiding_edges(path: Path) -> set[tuple[str, str]]:
    """(source key, target key) of every supersedes edge, and every subsumes edge that is not a copy's."""
    state = MemoryStore(GitStore(path)).load_state()
    return {(e.source_key, e.target_key) for e in state.edges.values()
            if e.edge_type is EdgeType.SUPERSEDES
            or (e.edge_type is EdgeType.SUBSUMES and not e.reason.startswith("duplicate:"))}


def consolidated(path: Path, store: SupersessionStore):
    services = build_services(MemoryStore(GitStore(path)), Settings(), FixedClock(store.now))
    trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
    return services


def judge_scores(store: SupersessionStore, held_out: bool | None) -> dict[str, object]:
    """Precision and recall of the hiding edges on the labelled pairs (`held_out`: which part; None: all)."""
    note_of = store.note_of()
    noise = {n.id for n in NOISE}
    wanted, unwanted, elsewhere = set(), set(), set()
    for r in replacements():
        (wanted if held_out is None or r.held_out == held_out else elsewhere).add((r.new.id, r.old.id))
    for c in chains():
        pairs = {(later.id, earlier.id) for i, later in enumerate(c.notes) for earlier in c.notes[:i]}
        if held_out is None or c.held_out == held_out:
            wanted |= pairs
        else:
            elsewhere |= pairs
    for t in traps():
        (unwanted if held_out is None or t.held_out == held_out else elsewhere).add((t.new.id, t.old.id))
    in_part = {n for pair in wanted | unwanted for n in pair}
    edges = {(note_of.get(s), note_of.get(t)) for s, t in hiding_edges(store.path)}
    edges = {(s, t) for s, t in edges if s and t and s != t}
    found = edges & wanted
    # wrong: a labelled non-replacement, noise replacing anything, or an unlabelled pair of statements of this part
    wrong = {(s, t) for s, t in edges - wanted - elsewhere - ALSO_RIGHT
             if (s, t) in unwanted or s in noise or (t not in noise and (s in in_part or t in in_part))}
    predicted = len(found) + len(wrong)
    return {"replacements": len(wanted), "non_replacements": len(unwanted), "edges_found": len(found),
            "wrong_edges": len(wrong), "precision": round(len(found) / predicted, 3) if predicted else 1.0,
            "recall": round(len(found) / len(wanted), 3) if wanted else 1.0,
            "wrong": sorted(f"{s} -> {t}" for s, t in wrong), "missed": sorted(f"{s} -> {t}" for s, t in wanted - found)}


def current_first(store: SupersessionStore, embedder, topics) -> dict[str, object]:
    """For each topic's question: is the current memory listed above the replaced one (or without it)?"""
    index = ReadCache(GitStore(store.path).common_dir).load()
    note_of = store.note_of()
    good, failures = 0, []
    for r in topics:
        hits = search(index, r.question, limit=10, embedder=embedder)
        notes = []
        for h in hits:
            keys = [h.entry.key] if h.entry.kind is EntryKind.MEMORY else []
            keys += [e.key for s in h.entry.sources if (row := index.entries.row_of(s)) is not None
                     for e in [index.entries[row]]] if h.entry.kind is EntryKind.SUMMARY else []
            notes.append({note_of.get(k) for k in keys})
        new_at = next((i for i, n in enumerate(notes) if r.new.id in n), None)
        old_at = next((i for i, n in enumerate(notes) if r.old.id in n), None)
        ok = new_at is not None and (old_at is None or new_at < old_at or (new_at == old_at and len(notes[new_at]) > 1))
        good += ok
        if not ok:
            failures.append(f"{r.question!r}: current at {new_at}, replaced at {old_at}")
    return {"topics": len(topics), "current_first_share": round(good / len(topics), 3) if topics else 1.0,
            "failures": failures}


def block_report(store: SupersessionStore) -> dict[str, object]:
    block, _ = session_start(None, store.path, {}, now=store.now.timestamp())
    items = [re.sub(r"^- (\[\d{4}-\d{2}-\d{2}\] )?", "", line) for line in block.splitlines() if line.startswith("- ")]
    found = [i for i in items if chatter(re.split(r" \((?:replaces|\d+ memories)", i)[0].strip())]
    return {"block_items": len(items), "block_chatter": len(found), "chatter_items": found}


def judge_cost(scales: tuple[int, ...]) -> list[dict[str, object]]:
    """What the pairs clusters miss cost: on realistic stores of growing size, a full offline consolidation (it
    judges every pair worth judging: the first run after the rules changed pays this), then a run with nothing
    new (it still reads every statement for its words and claims, and judges no known pair again), beside the
    time `lexical_pairs` takes over the store's statements in a fresh process state (its caches cleared)."""
    from memactors.actors.algorithms import change_claim, heuristic_judge
    from memactors.actors.algorithms.lexical_pairs import lexical_pairs
    from memactors.events.quality import QualityPolicy, assess, asserts
    from tests.realistic_store import build_realistic_store

    rows = []
    with TemporaryDirectory() as tmp:
        for scale in scales:
            store = build_realistic_store(Path(tmp) / f"scale-{scale}", dormant=False, scale=scale)
            services = build_services(MemoryStore(GitStore(store.path)), Settings(), FixedClock(store.now))
            start = time.perf_counter()
            trio.run(lambda: consolidate(services, RunOptions(trigger="bench", full=True)))
            full = time.perf_counter() - start
            start = time.perf_counter()
            trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
            again = time.perf_counter() - start
            memories = MemoryStore(GitStore(store.path)).scan(None).memories
            policy = QualityPolicy()
            statements = [m for m in memories
                          if asserts((q := assess(policy, summary=m.summary, body=m.body, tags=m.tags)).score,
                                     q.readable, m.summary)]
            for cached in (change_claim.words, change_claim.changes, heuristic_judge._prose):
                cached.cache_clear()
            start = time.perf_counter()
            pairs = lexical_pairs(statements, {m.key: m.timestamp for m in statements})
            found = time.perf_counter() - start
            rows.append({"memories": len(memories), "statements": len(statements), "pairs": len(pairs),
                         "full_run_s": round(full, 1), "nothing_new_run_s": round(again, 2),
                         "find_pairs_s": round(found, 2), "find_share_of_nothing_new": round(found / again, 2)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held-out", action="store_true", help="also report the held-out third")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show-edges", action="store_true", help="list wrong and missed edges")
    parser.add_argument("--cost", action="store_true",
                        help="only time the pairs clusters miss on realistic stores of 760 to 15,000 memories")
    args = parser.parse_args()
    if args.cost:
        print(f"machine: {machine()}")
        for row in judge_cost((1, 5, 20)):
            print("    " + ", ".join(f"{k}={v}" for k, v in row.items()))
        return
    results: dict[str, object] = {"machine": machine()}
    topics = replacements()
    with TemporaryDirectory() as tmp:
        store = build_supersession_store(Path(tmp) / "labelled")
        start = time.perf_counter()
        services = consolidated(store.path, store)
        results["consolidate_s"] = round(time.perf_counter() - start, 1)
        parts = {"tuning": False, **({"held_out": True} if args.held_out else {})}
        for name, held in parts.items():
            row = judge_scores(store, held)
            row.update(current_first(store, services.embedder, [r for r in topics if r.held_out == held]))
            results[name] = row
        results.update(block_report(store))
        by_id = {n.id: n for r in topics for n in (r.old, r.new)}
        by_id.update({n.id: n for t in traps() for n in (t.old, t.new)})
        by_id.update({n.id: n for n in NOISE})
        small_good, small_rows = 0, []
        for i, (topic, ids) in enumerate(SMALL):
            notes: list[Note] = [by_id[n] for n in ids]
            small = build_supersession_store(Path(tmp) / f"small-{i}", notes)
            small_services = consolidated(small.path, small)
            asked = [r for r in topics if r.id == topic]
            row = current_first(small, small_services.embedder, asked)
            scores = judge_scores(small, None)
            small_good += row["current_first_share"] == 1.0
            small_rows.append({"topic": topic, "memories": len(ids), "edge_found": scores["edges_found"],
                               "wrong_edges": scores["wrong_edges"], **row})
        results["small_stores"] = {"stores": len(SMALL), "current_first": small_good, "rows": small_rows}
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
        return
    print(f"machine: {results['machine']}; consolidated in {results['consolidate_s']} s")
    for name in ("tuning", "held_out"):
        if name in results:
            row = results[name]  # type: ignore[assignment]
            print(f"{name}: precision={row['precision']} recall={row['recall']} ({row['edges_found']}/"
                  f"{row['replacements']} found, {row['wrong_edges']} wrong; {row['non_replacements']} traps); "
                  f"current first {row['current_first_share']} of {row['topics']} topics")
            if args.show_edges:
                for line in row["wrong"]:
                    print(f"    wrong  {line}")
                for line in row["missed"]:
                    print(f"    missed {line}")
                for line in row["failures"]:
                    print(f"    order  {line}")
    print(f"block: {results['block_items']} items, {results['block_chatter']} chatter")
    for item in results["chatter_items"]:  # type: ignore[attr-defined]
        print(f"    | {item}")
    small = results["small_stores"]
    print(f"first-day stores: current first in {small['current_first']}/{small['stores']}")  # type: ignore[index]
    for row in small["rows"]:  # type: ignore[index]
        print(f"    {row['topic']}: {row['memories']} memories, edge found {row['edge_found']}, "
              f"wrong {row['wrong_edges']}, {row['failures'] or 'current first'}")


if __name__ == "__main__":
    main()
