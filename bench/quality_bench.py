"""Benchmark: what a user and the agent read from a realistic store (issue 14).

Run by hand: `python bench/quality_bench.py [--held-out] [--json]`.

Builds two stores with tests/realistic_store.py (the dormant one: written over
a week, read a year later; the active one: written over two months up to
yesterday), consolidates each once at the store's "now" (local MiniLM,
offline summaries, no LLM), then measures with the generator's truth:
- the SessionStart block: items, share of readable items (judged by the
  lexical check below, not by memactors' own quality signal), lines that are
  chatter (narration, lead-ins, headings, empty titles, checklists), distinct
  current decisions/learnings it carries, and superseded facts it presents
  as current;
- share of HOT+WARM memories that are explicit captures;
- recall hit@1 / hit@5 (standard mode) on the labelled questions of
  bench/labels/quality_questions.json, and the readable share of the top 5.
  The held-out third is reported only with --held-out.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path
from tempfile import TemporaryDirectory

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402
from memactors.adapters.claude.session_context import session_start  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.reading.read_cache import ReadCache  # noqa: E402
from memactors.adapters.reading.recall import search  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402
from memactors.events.read_model import EntryKind  # noqa: E402
from tests.realistic_store import FACTS, RealisticStore, build_realistic_store, current_facts  # noqa: E402

LABELS = ROOT / "bench" / "labels" / "quality_questions.json"
_MARKUP = re.compile(r"[▶─★│|`<>{}=\\]|&lt;|&gt;|\*\*|^#|\.\.\.|…$")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
#: What a person reads as chatter in the block: narration, lead-ins, empty titles, checklists, cuts (written for
#: this benchmark, independently of memactors' own check), and bare Title Case headings (below).
CHATTER = re.compile(
    r"^(?:let me|let's|now i|now let|i found|i'll|i will|i see|here is|here's|here are|looking at)\b"
    r"|^(?:done|ok|okay|great|perfect|excellent)\b\s*[!,.]"
    r"|:\s*$|^\[[ xX]?\]|…$|\.\.\.$|^(?:summary of|summary$|the key insight|for future reference|what went well)",
    re.IGNORECASE)
_TITLE_CASE = re.compile(r"^[A-Z][\w-]*(?:\s+(?:[A-Z][\w-]*|in|of|and|the|for|to|a))*$")
_INSTRUCTION = re.compile(r"^(?:Use|Run|Keep|Store|Switch|Move|Replace|Add|Avoid|Prefer|Pin|Cap|Build|Deploy)\b")


def chatter(line: str) -> bool:
    """Whether a block line is chatter: see CHATTER, or a heading of at most four Title Case words."""
    line = line.strip()
    heading = len(line.split()) <= 4 and _TITLE_CASE.match(line) and not _INSTRUCTION.match(line)
    return bool(CHATTER.search(line) or heading)


def readable(text: str) -> bool:
    """A line a person reads as a statement: no markup or cut marks, starts with a word, mostly words."""
    text = text.strip()
    tokens = text.split()
    if len(tokens) < 4 or _MARKUP.search(text) or not text[0].isalnum():
        return False
    return sum(bool(_WORD.fullmatch(t.strip(".,;:()'\"!?"))) for t in tokens) / len(tokens) >= 0.6


def _item_text(line: str) -> str:
    """An item line of the block without its bullet, date and trailing notes of what it replaces."""
    text = re.sub(r"^- (\[\d{4}-\d{2}-\d{2}\] )?", "", line)
    return re.split(r" \((?:replaces|\d+ memories)|\s+no longer true|\s+— replaces", text)[0].strip()


def block_items(store: RealisticStore) -> list[str]:
    block, _ = session_start(None, store.path, {}, now=store.now.timestamp())
    return [_item_text(line) for line in block.splitlines() if line.startswith("- ")]


def facts_in(text: str) -> set[str]:
    return {f.id for f in FACTS if f.summary.lower() in text.lower()}


def fact_of_entry(store: RealisticStore, by_id: dict, entry) -> str | None:
    """The fact a recalled memory states (the generator's truth); a summary's: its lead's, else its sources' most
    common fact."""
    if entry.kind is EntryKind.MEMORY:
        truth = store.truth.get(entry.key)
        return truth.fact if truth else None
    title = (entry.title or entry.summary).casefold()
    lead = [store.truth[by_id[s].key].fact for s in entry.sources if s in by_id and store.truth.get(by_id[s].key)
            and (by_id[s].title or by_id[s].summary).casefold() == title]
    if lead and lead[0]:  # what the user reads is the summary's lead statement
        return lead[0]
    votes = Counter(store.truth[by_id[s].key].fact for s in entry.sources
                    if s in by_id and store.truth.get(by_id[s].key) and store.truth[by_id[s].key].fact)
    return votes.most_common(1)[0][0] if votes else None


def measure(store: RealisticStore, questions: list[dict], embedder) -> dict[str, object]:
    items = block_items(store)
    shown = set().union(*(facts_in(t) for t in items)) if items else set()
    wanted = current_facts()
    stale = {f.replaces for f in FACTS if f.replaces}
    index = ReadCache(GitStore(store.path).common_dir).load()
    by_id = {e.id: e for e in index.entries}
    hot_warm = [e for e in index.entries if e.kind is EntryKind.MEMORY and e.tier.value in ("hot", "warm")]
    explicit = sum(1 for e in hot_warm if store.truth.get(e.key) and store.truth[e.key].explicit)
    # explicit captures and the plugin's complete block captures: whole memories, not transcript windows
    whole = sum(1 for e in hot_warm if store.truth.get(e.key) and store.truth[e.key].kind in ("explicit", "block"))

    def fact_of_hit(entry) -> str | None:
        return fact_of_entry(store, by_id, entry)

    def title(entry) -> str:
        return getattr(entry, "title", None) or entry.summary

    hits1 = hits5 = 0
    listed = listed_readable = 0
    for q in questions:
        found = search(index, q["q"], mode="standard", limit=5, embedder=embedder)
        facts = [fact_of_hit(h.entry) for h in found]
        hits1 += bool(facts) and facts[0] in q["expect"]
        hits5 += any(f in q["expect"] for f in facts)
        listed += len(found)
        listed_readable += sum(readable(title(h.entry)) for h in found)
    n = max(1, len(questions))
    return {
        "block_items": len(items),
        "block_readable_share": round(sum(map(readable, items)) / len(items), 3) if items else 0.0,
        "block_chatter": sum(map(chatter, items)),
        "block_decisions_learnings": len(shown & wanted),
        "block_stale_as_current": sorted(shown & stale),
        "hot_warm": len(hot_warm),
        "hot_warm_explicit_share": round(explicit / len(hot_warm), 3) if hot_warm else 0.0,
        "hot_warm_whole_share": round(whole / len(hot_warm), 3) if hot_warm else 0.0,
        "recall_questions": len(questions),
        "recall_hit_at_1": round(hits1 / n, 3),
        "recall_hit_at_5": round(hits5 / n, 3),
        "recall_top5_readable_share": round(listed_readable / listed, 3) if listed else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held-out", action="store_true", help="also report the held-out questions")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show-block", action="store_true", help="print the SessionStart block items")
    args = parser.parse_args()
    labels = json.loads(LABELS.read_text())["questions"]
    tuning = [q for q in labels if not q["held_out"]]
    held_out = [q for q in labels if q["held_out"]]
    results: dict[str, object] = {"machine": machine()}
    with TemporaryDirectory() as tmp:
        for name, dormant in (("dormant", True), ("active", False)):
            store = build_realistic_store(Path(tmp) / name, dormant=dormant)
            services = build_services(MemoryStore(GitStore(store.path)), Settings(), FixedClock(store.now))
            start = time.perf_counter()
            report = trio.run(lambda: consolidate(services, RunOptions(trigger="bench")))
            row: dict[str, object] = {"entries": store.entries, "memories": report.memories_processed,
                                      "consolidate_s": round(time.perf_counter() - start, 1)}
            row["tuning"] = measure(store, tuning, services.embedder)
            if args.held_out:
                row["held_out"] = measure(store, held_out, services.embedder)
            if args.show_block:
                row["block"] = block_items(store)
            results[name] = row
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
        return
    print(f"machine: {results['machine']}")
    for name in ("dormant", "active"):
        row = results[name]  # type: ignore[assignment]
        print(f"{name}: {row['entries']} entries, {row['memories']} memories, consolidated in {row['consolidate_s']} s")
        for part in ("tuning", "held_out"):
            if part in row:
                print(f"  {part}: " + ", ".join(f"{k}={v}" for k, v in row[part].items()))
        for item in row.get("block", []):
            print(f"    | {item}")


if __name__ == "__main__":
    main()
