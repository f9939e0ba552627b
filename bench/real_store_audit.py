"""Audit: what the judge decides on a real store nobody here wrote, against labels a person wrote.

Run by hand on a local clone of a git-notes-memory store (the plugin's own public repository,
zircote/git-notes-memory-manager, with its `refs/notes/mem/*` fetched):

    python bench/real_store_audit.py PATH [--labels bench/labels/real_store_edges.json] [--dump FILE] [--json]
    python bench/real_store_audit.py PATH --questions-only --tuning-only --keep DIR --json   # while tuning recall

The store is copied to a temporary directory and consolidated offline there (local MiniLM, no LLM); PATH is never
written. Printed:
- every non-copy edge (supersedes, subsumes between two distinct captures, contradicts, links) with both texts and
  the reason, and, where labelled, the label's verdict: share of edges right by the labels (an unlabelled edge is
  counted apart, never as right);
- recall of the real replacements a person found by reading the store (`replacements` in the labels file): found
  when the newer memory (or a copy of it) supersedes the older (or a copy of it);
- the questions of `bench/labels/real_store_questions.json`: hit@1, hit@5 and MRR of recall (standard mode), an
  answer being any memory the label lists or a copy of one.
`--dump FILE` writes the edges as JSON (what a labeller reads). `--questions-only` scores the questions alone (no
edges, no replacements); `--tuning-only` leaves the held-out questions unasked; `--keep DIR` keeps the consolidated
copy in DIR and, when DIR holds one already, asks it again without consolidating (fit only for changes to recall
itself: a change to what a run writes needs a fresh DIR). Labels name memories by stable key (a hash of
namespace, timestamp and content), so they survive re-runs and rebases.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
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
from memactors.adapters.reading.read_cache import ReadCache  # noqa: E402
from memactors.adapters.reading.recall import search  # noqa: E402
from memactors.adapters.system.clock import SystemClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402
from memactors.events.edge import EdgeType  # noqa: E402
from memactors.events.read_model import EntryKind  # noqa: E402

LABELS = ROOT / "bench" / "labels" / "real_store_edges.json"
QUESTIONS = ROOT / "bench" / "labels" / "real_store_questions.json"
COPY_REASON = "duplicate:"
TEXT = 600


def _copy(path: Path, into: Path) -> Path:
    """A private clone of the store (refs and objects), so the audit never writes to PATH."""
    target = into / "store"
    shutil.copytree(path, target, symlinks=True)
    shutil.rmtree(target / ".git" / "memactors", ignore_errors=True)
    for ref in ("refs/notes/mem-meta", "refs/notes/mem-summaries", "refs/notes/mem-edges", "refs/notes/mem-runs"):
        subprocess.run(["git", "-C", str(target), "update-ref", "-d", ref], capture_output=True)
    return target


def _consolidate(repo: Path) -> tuple[dict, object]:
    services = build_services(MemoryStore(GitStore(repo)), Settings(), SystemClock())
    report = trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
    return json.loads(report.model_dump_json()), services.embedder


def consolidated_copy(path: Path, work: Path) -> tuple[Path, object]:
    """The consolidated private copy of `path` in `work` (made once, reused when `work` holds one), and an
    embedder for asking it (bench/answer_bench.py and bench/relevance_bench.py keep theirs this way)."""
    repo = work / "store"
    if (repo / ".git" / "memactors").is_dir():
        from memactors.adapters.models.embeddings import embedder_from_env

        return repo, embedder_from_env()
    repo = _copy(path, work)
    _report, embedder = _consolidate(repo)
    return repo, embedder


def _kept(repo: Path) -> tuple[dict, object]:
    """A copy consolidated by an earlier `--keep` run: its report, and the embedder a run would use."""
    services = build_services(MemoryStore(GitStore(repo)), Settings(), SystemClock())
    return json.loads((repo.parent / "report.json").read_text()), services.embedder


def copies_of(store: MemoryStore) -> dict[str, str]:
    """memory key -> its canonical's key (a canonical maps to itself), from the copy edges of the state."""
    state = store.load_state()
    canonical: dict[str, str] = {}
    for edge in state.edges.values():
        if edge.edge_type is EdgeType.SUBSUMES and edge.reason.startswith(COPY_REASON):
            canonical[edge.target_key] = edge.source_key
    return canonical


def audited_edges(store: MemoryStore) -> list[dict]:
    """Every edge a person should sign: not a copy's, not a summary's."""
    state = store.load_state()
    by_key = {m.key: m for m in store.scan(None).memories}
    rows = []
    for edge in state.edges.values():
        if edge.edge_type is EdgeType.CONSOLIDATES or edge.source_key.startswith("summary:"):
            continue
        if edge.edge_type is EdgeType.SUBSUMES and edge.reason.startswith(COPY_REASON):
            continue
        if edge.edge_type is EdgeType.REFERENCES or not edge.in_force:
            continue  # relates_to written by the agent itself; a link the user removed

        def side(key: str) -> dict:
            m = by_key.get(key)
            if m is None:
                return {"key": key, "missing": True}
            return {"key": key, "id": m.id, "namespace": m.namespace, "timestamp": m.timestamp.isoformat(),
                    "summary": m.summary, "body": m.body[:TEXT]}

        rows.append({"edge": edge.id, "type": edge.edge_type.value, "reason": edge.reason,
                     "weight": edge.weight, "source": side(edge.source_key), "target": side(edge.target_key)})
    return sorted(rows, key=lambda r: (r["type"], r["source"].get("timestamp", ""), r["edge"]))


def distinct_memories(store: MemoryStore, copy_of: dict[str, str]) -> list[dict]:
    """Each capture once (its canonical copy), oldest first, with how many copies it has and when it was first
    captured: what a person reads to find the real replacements and the answers to questions."""
    memories = store.scan(None).memories
    groups: dict[str, list] = {}
    for m in memories:
        groups.setdefault(_canon(m.key, copy_of), []).append(m)
    by_key = {m.key: m for m in memories}
    rows = []
    for key, group in groups.items():
        m = by_key.get(key, group[0])
        rows.append({"key": m.key, "id": m.id, "namespace": m.namespace,
                     "first_seen": min(c.timestamp for c in group).isoformat(), "copies": len(group),
                     "tags": list(m.tags), "summary": m.summary, "body": m.body[:2000]})
    return sorted(rows, key=lambda r: r["first_seen"])


def _canon(key: str, copy_of: dict[str, str]) -> str:
    return copy_of.get(key, key)


def score_edges(rows: list[dict], labels: dict, copy_of: dict[str, str]) -> dict:
    """Edges right / wrong / unlabelled by the labels; a label names (type, source key, target key) and is matched
    through copies (the canonical a run picks may differ from the one labelled)."""
    verdicts = {}
    for label in labels.get("edges", []):
        verdicts[(label["type"], _canon(label["source"], copy_of), _canon(label["target"], copy_of))] = label
    right = wrong = unlabelled = 0
    for row in rows:
        found = verdicts.get((row["type"], _canon(row["source"]["key"], copy_of),
                              _canon(row["target"]["key"], copy_of)))
        row["label"] = found["verdict"] if found else None
        row["why"] = found.get("why") if found else None
        if found is None:
            unlabelled += 1
        elif found["verdict"] == "right":
            right += 1
        else:
            wrong += 1
    total = len(rows)
    return {"edges": total, "right": right, "wrong": wrong, "unlabelled": unlabelled,
            "right_share": round(right / total, 3) if total else 1.0}


def replacement_recall(store: MemoryStore, labels: dict, copy_of: dict[str, str]) -> dict:
    """Labelled real replacements the run recorded (newer or a copy supersedes older or a copy)."""
    state = store.load_state()
    superseding = {(_canon(e.source_key, copy_of), _canon(e.target_key, copy_of))
                   for e in state.edges.values() if e.edge_type is EdgeType.SUPERSEDES and e.in_force}
    superseded_by = {_canon(k, copy_of): _canon(m.superseded_by, copy_of)
                     for k, m in state.meta.items() if m.superseded_by}
    found, missed = [], []
    for item in labels.get("replacements", []):
        newer, older = _canon(item["newer"], copy_of), _canon(item["older"], copy_of)
        ok = (newer, older) in superseding or superseded_by.get(older) == newer
        (found if ok else missed).append(item)
    total = len(found) + len(missed)
    held = [i for i in found + missed if i.get("held_out")]
    held_found = [i for i in found if i.get("held_out")]
    return {"labelled": total, "found": len(found), "recall": round(len(found) / total, 3) if total else None,
            "tuning": f"{len(found) - len(held_found)}/{total - len(held)}",
            "held_out": f"{len(held_found)}/{len(held)}",
            "missed": [m.get("why", "") for m in missed if not m.get("held_out")]}


def question_scores(repo: Path, embedder, questions: list[dict], copy_of: dict[str, str]) -> dict:
    index = ReadCache(GitStore(repo).common_dir).load()
    hits1 = hits5 = 0
    rr = 0.0
    misses = []
    ranks: list[tuple[bool, int | None]] = []
    for q in questions:
        answers = {_canon(k, copy_of) for k in q["answers"]}
        hits = search(index, q["question"], limit=10, embedder=embedder)
        ranked = []
        for h in hits:  # a summary answers when one of its sources does
            keys = [h.entry.key] if h.entry.kind is EntryKind.MEMORY else [
                index.entries[row].key for s in h.entry.sources if (row := index.entries.row_of(s)) is not None]
            if any(_canon(k, copy_of) in answers for k in keys):
                ranked.append(True)
                break
            ranked.append(False)
        rank = next((i + 1 for i, ok in enumerate(ranked) if ok), None)
        if rank == 1:
            hits1 += 1
        if rank is not None and rank <= 5:
            hits5 += 1
        rr += 1 / rank if rank else 0.0
        if rank != 1 and not q.get("held_out"):
            misses.append({"question": q["question"], "rank": rank,
                           "above": [f"{h.entry.kind.value} {h.entry.namespace}: {h.entry.title or h.entry.summary}"[:140]
                                     for h in hits[:min(rank or 3, 3) - (1 if rank else 0)]]})
        ranks.append((bool(q.get("held_out")), rank))
    n = len(questions)

    def part(held: bool) -> dict:
        got = [r for h, r in ranks if h == held]
        return {"questions": len(got), "hit@1": round(sum(r == 1 for r in got) / len(got), 3) if got else None,
                "hit@5": round(sum(r is not None and r <= 5 for r in got) / len(got), 3) if got else None,
                "mrr": round(sum(1 / r for r in got if r) / len(got), 3) if got else None}

    return {"questions": n, "hit@1": round(hits1 / n, 3) if n else None, "hit@5": round(hits5 / n, 3) if n else None,
            "mrr": round(rr / n, 3) if n else None, "tuning": part(False), "held_out": part(True),
            "misses": misses}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="a local clone of a git-notes-memory store (never written)")
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("--dump", type=Path, help="write every audited edge as JSON here")
    parser.add_argument("--dump-memories", type=Path,
                        help="write every distinct memory (copies folded, with their count) as JSON lines here")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quiet", action="store_true", help="figures only, no edge listing")
    parser.add_argument("--questions-only", action="store_true",
                        help="score the questions alone: no edges, no replacements")
    parser.add_argument("--tuning-only", action="store_true", help="leave the held-out questions unasked")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep the consolidated copy in DIR; reuse it when DIR holds one (recall changes only)")
    args = parser.parse_args()
    if not (args.path / ".git").exists():
        print(f"real_store_audit: {args.path} is not a git work tree", file=sys.stderr)
        return 2
    labels = json.loads(args.labels.read_text()) if args.labels.exists() else {}
    questions = json.loads(args.questions.read_text())["questions"] if args.questions.exists() else []
    if args.tuning_only:
        questions = [q for q in questions if not q.get("held_out")]
    with TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        if (work / "report.json").exists():
            repo = work / "store"
            report, embedder = _kept(repo)
        else:
            repo = _copy(args.path, work)
            report, embedder = _consolidate(repo)
            if args.keep:
                (work / "report.json").write_text(json.dumps(report))
        took = time.perf_counter() - started
        store = MemoryStore(GitStore(repo))
        copy_of = copies_of(store)
        rows = [] if args.questions_only else audited_edges(store)
        distinct = distinct_memories(store, copy_of) if args.dump_memories else []
        edges = None if args.questions_only else score_edges(rows, labels, copy_of)
        replaced = None if args.questions_only else replacement_recall(store, labels, copy_of)
        asked = question_scores(repo, embedder, questions, copy_of) if questions else None
    if args.dump:
        args.dump.write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    if args.dump_memories:
        args.dump_memories.write_text("".join(json.dumps(m, ensure_ascii=False) + "\n" for m in distinct))
    result = {"machine": machine(), "consolidate_seconds": round(took, 1),
              "memories": report["memories_processed"], "edges": edges, "replacements": replaced,
              "questions": asked}
    if args.json:
        print(json.dumps({**result, "rows": rows}, indent=1, ensure_ascii=False))
        return 0
    if not args.quiet:
        for row in rows:
            s, t = row["source"], row["target"]
            print(f"[{row['label'] or 'unlabelled'}] {row['type']} {row['edge']}  ({row['reason'][:160]})")
            print(f"   {s.get('namespace')} {s.get('timestamp', '')[:10]}: {s.get('summary', '')[:120]}")
            print(f"   {t.get('namespace')} {t.get('timestamp', '')[:10]}: {t.get('summary', '')[:120]}")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
