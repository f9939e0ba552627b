"""Benchmark: does recall say "nothing relevant" when the store does not hold the answer, without losing the
answers it holds, and does each result's excerpt show the passage that answers? (issue 34, item 7)

Run by hand on a local clone of a git-notes-memory store with its `refs/notes/mem/*` (the plugin's own public
repository, zircote/git-notes-memory-manager, is the one the labels are written for):

    python bench/relevance_bench.py PATH [--answerable bench/labels/real_store_questions.json]
        [--unanswerable bench/labels/real_store_unanswerable.json] [--limit 10] [--work DIR] [--json] [--verbose]

The store is copied to a temporary directory and consolidated offline there (local MiniLM, no LLM); PATH is never
written. Every question is asked the way `memactors recall QUESTION --json` asks it (the recall operation, no
--mode, the model kept warm, nothing tracked). Reported:
- unanswerable questions (no memory holds their topic; each label names the words checked, and the bench checks
  again that no memory holds them): the share answered "nothing relevant", tuning and held-out apart;
- answerable questions (`real_store_questions.json`): hit@1 and hit@5 (an answer being a memory the label lists, a
  copy of one, or a summary made from one) and how many were answered "nothing relevant";
- for each answerable question whose answer is listed in the top 5 as a memory: whether the excerpt shown holds the
  passage the label gives for that memory (`passages`, memory key -> phrases of its body, any one will do), and
  the share of the label's `why` words the excerpt holds, beside the same for the body's start (what the read
  model stores);
- the median time of one recall.
A document that is an empty list (before "nothing relevant" existed) counts as nothing relevant.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path
from tempfile import TemporaryDirectory

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402
from bench.real_store_audit import _canon, consolidated_copy, copies_of  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.operations.recall import recall  # noqa: E402
from memactors.adapters.reading.read_cache import ReadCache  # noqa: E402
from memactors.events.read_model import EntryKind  # noqa: E402

ANSWERABLE = ROOT / "bench" / "labels" / "real_store_questions.json"
UNANSWERABLE = ROOT / "bench" / "labels" / "real_store_unanswerable.json"
_WORD = re.compile(r"[a-z][a-z0-9]+")
_STOP = frozenset("the and for with that this from into are was were not but its has have had all any can via "
                  "then than they them their when what which who why how does did our you your was".split())


def _results(document) -> tuple[list[dict], bool]:
    """(results, answered nothing relevant) of a recall document."""
    if isinstance(document, list):
        return document, not document
    if isinstance(document, dict) and "results" in document:
        return list(document["results"]), bool(document.get("nothing_relevant")) or not document["results"]
    return [], False


def _words(text: str) -> set[str]:
    return {w[:6] for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2}


def _flat(text: str) -> str:
    return " ".join(text.replace("…", " ").split()).casefold()


def absent_words_held(store: MemoryStore, questions: list[dict]) -> list[str]:
    """The words an unanswerable label says no memory holds (each from a word's start) that some memory holds."""
    text = "\n".join(f"{m.summary}\n{m.body}" for m in store.scan(None).memories)
    return [f"{q['question']}: {w}" for q in questions for w in q.get("absent", ())
            if re.search(r"\b" + re.escape(w), text, re.IGNORECASE)]


def ask(repo: Path, embedder, question: str, limit: int) -> tuple[list[dict], bool, float]:
    started = time.perf_counter()
    outcome = recall(repo, question, limit=limit, track=False, embedder=embedder)
    return (*_results(outcome.document), time.perf_counter() - started)


def answerable(repo: Path, embedder, questions: list[dict], copy_of: dict[str, str], limit: int,
               verbose: bool) -> tuple[dict, list[float]]:
    index = ReadCache(GitStore(repo).common_dir).load()

    def keys_of(result: dict) -> list[str]:
        row = index.entries.row_of(result["id"])
        if row is None:
            return []
        entry = index.entries[row]
        if entry.kind is EntryKind.MEMORY:
            return [entry.key]
        return [index.entries[r].key for s in entry.sources if (r := index.entries.row_of(s)) is not None]

    ranks: list[tuple[bool, int | None]] = []
    nothing = 0
    passages = {"labelled": 0, "held": 0, "held_by_start": 0}
    why_shares: list[tuple[float, float]] = []
    took: list[float] = []
    for q in questions:
        answers = {_canon(k, copy_of) for k in q["answers"]}
        results, empty, seconds = ask(repo, embedder, q["question"], limit)
        took.append(seconds)
        nothing += empty
        rank = next((i + 1 for i, r in enumerate(results) if any(_canon(k, copy_of) in answers for k in keys_of(r))),
                    None)
        ranks.append((bool(q.get("held_out")), rank))
        if verbose and rank != 1:
            print(f"  rank {rank}: {q['question'][:90]}", file=sys.stderr)
        shown = next((r for r in results[:5] if r["kind"] == "memory"
                      and any(_canon(k, copy_of) in answers for k in keys_of(r))), None)
        if shown is None:
            continue
        entry = index.entries[index.entries.row_of(shown["id"])]
        excerpt, start = shown.get("excerpt") or "", entry.excerpt
        why = _words(q.get("why", ""))
        if why:
            why_shares.append((len(why & _words(excerpt)) / len(why), len(why & _words(start)) / len(why)))
        phrases = next((p for k, p in q.get("passages", {}).items()
                        if _canon(k, copy_of) == _canon(entry.key, copy_of)), None)
        if phrases:
            phrases = [phrases] if isinstance(phrases, str) else phrases
            passages["labelled"] += 1
            held = any(_flat(p) in _flat(excerpt) for p in phrases)
            passages["held"] += held
            passages["held_by_start"] += any(_flat(p) in _flat(start) for p in phrases)
            if verbose and not held:
                print(f"  passage missed: {q['question'][:60]} | {phrases[0][:60]} | {excerpt[:300]!r}",
                      file=sys.stderr)

    def part(held: bool | None) -> dict:
        got = [r for h, r in ranks if held is None or h == held]
        n = len(got)
        return {"questions": n, "hit@1": round(sum(r == 1 for r in got) / n, 3) if n else None,
                "hit@5": round(sum(r is not None and r <= 5 for r in got) / n, 3) if n else None}

    return ({**part(None), "tuning": part(False), "held_out": part(True), "nothing_relevant": nothing,
             "excerpt": {"answers_shown_in_top5": len(why_shares),
                         "why_words_in_excerpt": round(statistics.mean(s for s, _ in why_shares), 3) if why_shares
                         else None,
                         "why_words_in_body_start": round(statistics.mean(s for _, s in why_shares), 3) if why_shares
                         else None,
                         "passages_labelled": passages["labelled"], "passage_in_excerpt": passages["held"],
                         "passage_in_body_start": passages["held_by_start"]}}, took)


def unanswerable(repo: Path, embedder, questions: list[dict], limit: int) -> tuple[dict, list[float]]:
    said: list[tuple[bool, bool]] = []
    shown = []
    took: list[float] = []
    for q in questions:
        results, empty, seconds = ask(repo, embedder, q["question"], limit)
        took.append(seconds)
        said.append((bool(q.get("held_out")), empty))
        if not empty:
            top = results[0]
            shown.append({"question": q["question"], "results": len(results), "top": top.get("title", "")[:80],
                          "relevance": top.get("relevance")})

    def share(held: bool | None) -> str:
        got = [e for h, e in said if held is None or h == held]
        return f"{sum(got)}/{len(got)}"

    return ({"questions": len(said), "nothing_relevant": share(None),
             "nothing_relevant_share": round(sum(e for _, e in said) / len(said), 3) if said else None,
             "tuning": share(False), "held_out": share(True), "answered_anyway": shown}, took)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="a local clone of a git-notes-memory store (never written)")
    parser.add_argument("--answerable", type=Path, default=ANSWERABLE)
    parser.add_argument("--unanswerable", type=Path, default=UNANSWERABLE)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--work", type=Path,
                        help="where the consolidated private copy is made, and reused when there (recall changes only)")
    parser.add_argument("--verbose", action="store_true", help="list misses and excerpts without their passage")
    args = parser.parse_args()
    if not (args.path / ".git").exists():
        print(f"relevance_bench: {args.path} is not a git work tree", file=sys.stderr)
        return 2
    answers = json.loads(args.answerable.read_text())["questions"]
    absent = json.loads(args.unanswerable.read_text())["questions"]
    with TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        repo, embedder = consolidated_copy(args.path, work)
        store = MemoryStore(GitStore(repo))
        held = absent_words_held(store, absent)
        copy_of = copies_of(store)
        recall(repo, "warm up", track=False, embedder=embedder)
        asked, took = answerable(repo, embedder, answers, copy_of, args.limit, args.verbose)
        missing, took_more = unanswerable(repo, embedder, absent, args.limit)
    result = {"machine": machine(), "answerable": asked, "unanswerable": missing,
              "recall_ms_median": round(1000 * statistics.median(took + took_more)),
              "absent_words_found": held}
    if args.json:
        print(json.dumps(result, indent=1, ensure_ascii=False))
        return 0
    u, a, e = missing, asked, asked["excerpt"]
    print(f"unanswerable: nothing relevant {u['nothing_relevant']} ({u['nothing_relevant_share']}); "
          f"tuning {u['tuning']}, held out {u['held_out']}")
    for row in u["answered_anyway"]:
        print(f"  answered anyway ({row['results']} results, top {row['relevance']}): {row['question']} -> "
              f"{row['top']}")
    print(f"answerable: hit@1 {a['hit@1']} hit@5 {a['hit@5']} (tuning {a['tuning']['hit@1']}/{a['tuning']['hit@5']}, "
          f"held out {a['held_out']['hit@1']}/{a['held_out']['hit@5']}); nothing relevant {a['nothing_relevant']}"
          f"/{a['questions']}")
    print(f"excerpts of {e['answers_shown_in_top5']} answers in the top 5: label's why words held "
          f"{e['why_words_in_excerpt']} (body start {e['why_words_in_body_start']}); labelled passage held "
          f"{e['passage_in_excerpt']}/{e['passages_labelled']} (body start {e['passage_in_body_start']})")
    print(f"recall median {result['recall_ms_median']} ms")
    if held:
        print("labels to fix, words a memory holds: " + "; ".join(held))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
