"""Benchmark: does `recall --answer` cite the memories that answer, and say "The memories do not say." when none
does? (issue 38, item 1)

Run by hand on a local clone of a git-notes-memory store with its `refs/notes/mem/*` (the plugin's own public
repository, zircote/git-notes-memory-manager, is the one the labels are written for):

    python bench/answer_bench.py PATH [--work DIR] [--limit 10] [--json] [--verbose]

The store is copied to a private directory (DIR, reused when it already holds a consolidated copy; else a
temporary one) and consolidated offline there (local MiniLM, no LLM); PATH is never written. Every question is
asked as `memactors recall QUESTION --answer --json --no-track` asks it, offline (any LLM setting is ignored).
Reported, tuning and held-out questions apart (the labels hold every third question out; nothing here is tuned
on those):
- answerable questions (bench/labels/real_store_questions.json): the share answered, the share whose answer cites
  at least one labelled memory, the share citing only labelled memories, and the share whose first citation is
  labelled (a citation counts as labelled when it is a labelled memory, a copy of one, or a summary made from
  one);
- unanswerable questions (bench/labels/real_store_unanswerable.json): the share answered "The memories do not
  say.";
- the confidence of answers citing a labelled memory first against the others (absent topics answered
  included): each group's mean, and how often a right one is the more confident of a pair;
- the median time of one answer.
"""

from __future__ import annotations

import argparse
import json
import os
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
from memactors.adapters.operations.answer import NOT_SAID, answer  # noqa: E402
from memactors.adapters.reading.read_cache import ReadCache  # noqa: E402
from memactors.events.read_model import EntryKind  # noqa: E402

ANSWERABLE = ROOT / "bench" / "labels" / "real_store_questions.json"
UNANSWERABLE = ROOT / "bench" / "labels" / "real_store_unanswerable.json"


def ask(repo: Path, embedder, question: str, limit: int) -> tuple[dict, float]:
    started = time.perf_counter()
    outcome = answer(repo, question, limit=limit, track=False, embedder=embedder, llm=False)
    return outcome.document["answer"], time.perf_counter() - started


#: The confidence of every answer given: its first citation labelled, or not (an absent topic answered included).
CONFIDENCE: dict[str, list[float]] = {"first citation labelled": [], "wrong": []}


def _separation() -> dict:
    """Mean confidence of right and wrong answers, and how often a right one is more confident than a wrong one."""
    right, wrong = CONFIDENCE["first citation labelled"], CONFIDENCE["wrong"]
    pairs = [(r > w) + 0.5 * (r == w) for r in right for w in wrong]
    return {"right": len(right), "right_mean": round(statistics.mean(right), 3) if right else None,
            "wrong": len(wrong), "wrong_mean": round(statistics.mean(wrong), 3) if wrong else None,
            "right_above_wrong": round(sum(pairs) / len(pairs), 3) if pairs else None}


def _share(hits: int, n: int) -> float | None:
    return round(hits / n, 3) if n else None


def answerable(repo: Path, embedder, questions: list[dict], copy_of: dict[str, str], limit: int,
               verbose: bool) -> tuple[dict, list[float]]:
    index = ReadCache(GitStore(repo).common_dir).load()

    def keys_of(memory_id: str) -> list[str]:
        row = index.entries.row_of(memory_id)
        if row is None:
            return []
        entry = index.entries[row]
        if entry.kind is EntryKind.MEMORY:
            return [entry.key]
        return [index.entries[r].key for s in entry.sources if (r := index.entries.row_of(s)) is not None]

    rows: list[tuple[bool, bool, bool, bool, bool]] = []  # held out, answered, cites a labelled one, only those, first
    took: list[float] = []
    for q in questions:
        labelled = {_canon(k, copy_of) for k in q["answers"]}
        got, seconds = ask(repo, embedder, q["question"], limit)
        took.append(seconds)
        right = [any(_canon(k, copy_of) in labelled for k in keys_of(c["id"])) for c in got["citations"]]
        rows.append((bool(q.get("held_out")), got["answered"], any(right), bool(right) and all(right),
                     bool(right) and right[0]))
        if got["answered"]:
            CONFIDENCE["first citation labelled" if right and right[0] else "wrong"].append(got["confidence"])
        if verbose and not all(right or [False]):
            print(f"  {'held-out ' if q.get('held_out') else ''}{sum(right)}/{len(right)} right: "
                  f"{q['question'][:80]}\n    -> {got['text'][:200]}", file=sys.stderr)

    def part(held: bool | None) -> dict:
        got = [r for r in rows if held is None or r[0] == held]
        n = len(got)
        return {"questions": n, "answered": _share(sum(r[1] for r in got), n),
                "cites_a_labelled_memory": _share(sum(r[2] for r in got), n),
                "cites_only_labelled_memories": _share(sum(r[3] for r in got), n),
                "first_citation_labelled": _share(sum(r[4] for r in got), n)}

    return {**part(None), "tuning": part(False), "held_out": part(True)}, took


def unanswerable(repo: Path, embedder, questions: list[dict], limit: int,
                 verbose: bool) -> tuple[dict, list[float]]:
    said: list[tuple[bool, bool]] = []
    took: list[float] = []
    for q in questions:
        got, seconds = ask(repo, embedder, q["question"], limit)
        took.append(seconds)
        said.append((bool(q.get("held_out")), got["text"] == NOT_SAID))
        if got["answered"]:
            CONFIDENCE["wrong"].append(got["confidence"])
        if verbose and got["text"] != NOT_SAID:
            print(f"  answered anyway: {q['question'][:80]}\n    -> {got['text'][:160]}", file=sys.stderr)

    def part(held: bool | None) -> dict:
        got = [s for h, s in said if held is None or h == held]
        return {"questions": len(got), "do_not_say": _share(sum(got), len(got))}

    return {**part(None), "tuning": part(False), "held_out": part(True)}, took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="a local clone of a git-notes-memory store (never written)")
    parser.add_argument("--work", type=Path, help="where the consolidated private copy is made (and reused)")
    parser.add_argument("--answerable", type=Path, default=ANSWERABLE)
    parser.add_argument("--unanswerable", type=Path, default=UNANSWERABLE)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="list the questions answered wrongly on stderr")
    args = parser.parse_args()
    if not (args.path / ".git").exists():
        print(f"answer_bench: {args.path} is not a git work tree", file=sys.stderr)
        return 2
    for key in [k for k in os.environ if k.startswith("MEMORY_CONSOLIDATION_LLM")]:
        del os.environ[key]  # offline: the figures are the extractive answer's
    answers = json.loads(args.answerable.read_text())["questions"]
    absent = json.loads(args.unanswerable.read_text())["questions"]
    with TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        repo, embedder = consolidated_copy(args.path, work)
        copy_of = copies_of(MemoryStore(GitStore(repo)))
        ask(repo, embedder, "warm up", args.limit)
        asked, took = answerable(repo, embedder, answers, copy_of, args.limit, args.verbose)
        missing, took_more = unanswerable(repo, embedder, absent, args.limit, args.verbose)
    result = {"machine": machine(), "answerable": asked, "unanswerable": missing,
              "confidence": _separation(), "answer_ms_median": round(1000 * statistics.median(took + took_more))}
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    for name, part in (("tuning", asked["tuning"]), ("held out", asked["held_out"]), ("all", asked)):
        print(f"answerable, {name} ({part['questions']}): answered {part['answered']}, cites a labelled memory "
              f"{part['cites_a_labelled_memory']}, cites only labelled memories {part['cites_only_labelled_memories']}, "
              f"first citation labelled {part['first_citation_labelled']}")
    for name, part in (("tuning", missing["tuning"]), ("held out", missing["held_out"]), ("all", missing)):
        print(f"unanswerable, {name} ({part['questions']}): 'The memories do not say.' {part['do_not_say']}")
    c = result["confidence"]
    print(f"confidence: {c['right']} answers citing a labelled memory first, mean {c['right_mean']}; {c['wrong']} "
          f"others, mean {c['wrong_mean']}; a right one above a wrong one {c['right_above_wrong']}")
    print(f"answer median {result['answer_ms_median']} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
