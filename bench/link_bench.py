"""Benchmark: are the links consolidation finds ones a developer would follow, and are they typed right?

Run by hand: `python bench/link_bench.py [--held-out] [--show] [--json]`, `--cost N` for what finding links
costs a run on a realistic store of about N memories, or `--synthetic N` for discovery alone on N distinct ones.

Builds the labelled store of tests/link_facts.py (a web shop's decisions, progress, learnings and blockers over
two weeks, with the commits their work changed, narration and busy commits around them), consolidates it offline
(local MiniLM, no LLM) and reports, on the labelled links (a third held out):
- precision: links found between labelled pairs, over those plus links found between traps or between memories
  with no topic in common (every such link is wrong);
- recall: labelled links found (either direction);
- type accuracy: found labelled links whose type is one the label accepts;
- links found between memories of a shared topic that no label names (neither right nor wrong, listed).
Labels were written before the discovery was built.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402
from tests.link_facts import BY_ID, LINKS, TRAPS  # noqa: E402
from tests.link_store import LinkStore, build_link_store  # noqa: E402


def found_links(path: Path, store: LinkStore) -> list[tuple[str, str, str, float, str]]:
    """(source note, target note, type, weight, reason) of every link in the store's state."""
    note_of = store.note_of()
    state = MemoryStore(GitStore(path)).load_state()
    return [(note_of.get(e.source_key, e.source_key), note_of.get(e.target_key, e.target_key), e.edge_type.value,
             e.weight, e.reason) for e in state.edges.values() if e.is_link and e.in_force]


def scores(found: list[tuple[str, str, str, float, str]], held_out: bool | None) -> dict[str, object]:
    def part(flag: bool) -> bool:
        return held_out is None or flag == held_out

    labelled = {frozenset((k.source, k.target)): k for k in LINKS if part(k.held_out)}
    other_labels = {frozenset((k.source, k.target)) for k in LINKS if not part(k.held_out)}
    traps = {frozenset((t.a, t.b)): t for t in TRAPS if part(t.held_out)}
    other_traps = {frozenset((t.a, t.b)) for t in TRAPS if not part(t.held_out)}
    right, wrong, unlabelled, typed = [], [], [], 0
    for source, target, kind, weight, reason in found:
        pair = frozenset((source, target))
        if pair in labelled:
            right.append((source, target, kind))
            typed += kind in labelled[pair].types
        elif pair in traps:
            wrong.append((source, target, kind, "trap: " + traps[pair].why, reason))
        elif pair in other_labels or pair in other_traps:
            continue  # the other part's pair
        elif source in BY_ID and target in BY_ID and not set(BY_ID[source].topics) & set(BY_ID[target].topics):
            if held_out is None:
                wrong.append((source, target, kind, "no topic in common", reason))
        else:
            if held_out is None:
                unlabelled.append((source, target, kind, reason))
    hit = {frozenset(r[:2]) for r in right}
    return {
        "labelled": len(labelled), "found": len(right), "wrong": len(wrong),
        "precision": round(len(right) / (len(right) + len(wrong)), 3) if right or wrong else None,
        "recall": round(len(hit) / len(labelled), 3) if labelled else None,
        "type_accuracy": round(typed / len(right), 3) if right else None,
        "missed": sorted(f"{k.source} -> {k.target}" for p, k in labelled.items() if p not in hit),
        "wrong_links": [" ".join(map(str, w)) for w in wrong], "unlabelled": [" ".join(map(str, u)) for u in unlabelled],
    }


def evaluate() -> dict[str, object]:
    with TemporaryDirectory() as tmp:
        path = Path(tmp) / "links"
        store = build_link_store(path)
        services = build_services(MemoryStore(GitStore(path)), Settings(), FixedClock(store.now))
        trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
        found = found_links(path, store)
    return {"all": scores(found, None), "tuning": scores(found, False), "held_out": scores(found, True),
            "links": [f"{s} -[{k} {w}]-> {t}: {r}" for s, t, k, w, r in sorted(found)]}


def cost(size: int) -> dict[str, object]:
    """What link discovery costs on a realistic store of about `size` memories: a whole offline run, then
    discovery alone on the same statements (vectors from the run's cache), and what it found."""
    from collections import Counter

    from memactors.actors.algorithms.clustering import embedding_text
    from memactors.actors.algorithms.heuristic_judge import prose
    from memactors.actors.algorithms.link_discovery import Candidate, discover_links
    from memactors.adapters.git.commit_files import CommitFiles
    from tests.realistic_store import build_realistic_store

    with TemporaryDirectory() as tmp:
        store = build_realistic_store(Path(tmp) / "r", dormant=False, scale=max(1, size // 760))
        services = build_services(MemoryStore(GitStore(store.path)), Settings(), FixedClock(store.now))
        start = time.perf_counter()
        trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
        run = time.perf_counter() - start
        memory_store = MemoryStore(GitStore(store.path))
        state = memory_store.load_state()
        links = [e for e in state.edges.values() if e.is_link]
        memories = [m for m in memory_store.scan(None).memories if state.meta.get(m.key) is not None]
        copies = {e.target_key for e in state.edges.values() if e.reason.startswith("duplicate:")}
        canonical = [m for m in memories if m.key not in copies]
        vectors = services.embedder.embed([embedding_text(m) for m in canonical])
        files = CommitFiles(memory_store.git.repo, Path(tmp) / "files.json")
        start = time.perf_counter()
        found = discover_links([Candidate(m.key, m.namespace, m.timestamp, m.summary, prose(m), m.commit, m.tags)
                                for m in canonical], commit_files=files.changed(m.commit for m in canonical),
                               repo_files=files.head_files(), captures=Counter(m.commit for m in memories),
                               vectors=vectors)
        alone = time.perf_counter() - start
        truth = store.truth
        kinds = Counter(e.edge_type.value for e in links)
        same_fact = sum(1 for e in links if getattr(truth.get(e.source_key), "fact", None) is not None
                        and getattr(truth.get(e.source_key), "fact", None) == getattr(truth.get(e.target_key), "fact", 0))
    return {"memories": store.entries, "run_s": round(run, 2), "discovery_alone_s": round(alone, 3),
            "canonical_memories": len(canonical), "links_found_alone": len(found), "links_stored": len(links),
            "by_type": dict(kinds), "links_within_one_fact": same_fact, "machine": machine()}


def synthetic(size: int, seed: int = 3) -> dict[str, object]:
    """Discovery alone on `size` distinct memories: words drawn from a Zipf-like vocabulary of 20,000 (a project's
    names and words), random unit vectors made to agree where words do (the worst case for the pair count)."""
    import random
    from datetime import datetime, timedelta, timezone

    import numpy as np

    from memactors.actors.algorithms.link_discovery import Candidate, discover_links

    rng = random.Random(seed)
    vocabulary = [f"term{i}x" for i in range(20_000)]
    weights = [1 / (i + 1) for i in range(len(vocabulary))]
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    candidates, topics = [], []
    for i in range(size):
        chosen = rng.choices(vocabulary, weights, k=30)
        candidates.append(Candidate(f"k{i}", rng.choice(["decisions", "learnings", "progress"]),
                                    start + timedelta(minutes=i), " ".join(chosen[:6]), " ".join(chosen)))
        topics.append(hash(chosen[0]) % 64)
    vectors = np.random.default_rng(seed).normal(size=(size, 64)).astype(np.float32)
    vectors[:, 0] += np.array(topics, dtype=np.float32) / 8  # some pairs agree
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    from memactors.actors.algorithms.link_discovery import vocabulary

    started = time.perf_counter()
    found = discover_links(candidates, vectors=vectors)
    every_pair = time.perf_counter() - started
    vocabularies = [vocabulary(c) for c in candidates]  # what the daemon's actor keeps between runs
    started = time.perf_counter()
    discover_links(candidates, vectors=vectors, vocabularies=vocabularies, focus=range(size - 10, size))
    ten_new = time.perf_counter() - started
    return {"memories": size, "discovery_s": round(every_pair, 2), "ten_new_memories_s": round(ten_new, 2),
            "links": len(found), "machine": machine()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held-out", action="store_true", help="print the held-out figures only")
    parser.add_argument("--show", action="store_true", help="list every link found, and the wrong ones")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--cost", type=int, metavar="N", help="time link discovery on about N memories instead")
    parser.add_argument("--synthetic", type=int, metavar="N", help="time discovery alone on N distinct memories")
    args = parser.parse_args()
    if args.synthetic:
        print(json.dumps(synthetic(args.synthetic), indent=2))
        return
    if args.cost:
        print(json.dumps(cost(args.cost), indent=2))
        return
    result = evaluate()
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for part in (("held_out",) if args.held_out else ("tuning", "held_out", "all")):
        s = result[part]
        print(f"{part:9} labelled {s['labelled']:3}  found {s['found']:3}  wrong {s['wrong']:3}  "
              f"precision {s['precision']}  recall {s['recall']}  type accuracy {s['type_accuracy']}")
    if args.show:
        print("\nmissed:", *result["all"]["missed"], sep="\n  ")
        print("\nwrong:", *result["all"]["wrong_links"], sep="\n  ")
        print("\nunlabelled:", *result["all"]["unlabelled"], sep="\n  ")
        print("\nlinks:", *result["links"], sep="\n  ")


if __name__ == "__main__":
    main()
