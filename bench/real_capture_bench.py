"""Benchmark: what capture proposes from real Claude Code sessions nobody here wrote, against labels a person wrote.

Run by hand on local copies of the labelled transcripts (public repositories; their licences vary, so they are
never committed):

    python bench/real_capture_bench.py SESSIONS [--labels bench/labels/real_sessions.json]
                                       [--part tuning|held-out|all] [--show] [--json]

SESSIONS holds each labelled transcript at `<owner>+<repo>/<path with "/" as "__">`. Every third labelled session
(by its place in the labels file: index % 3 == 2) is the held-out part. Each transcript is read as `memactors
extract --dry-run` reads it (offline, an empty repository: every proposal is new), and a proposal counts when its
confidence reaches the review queue's bar. Scored:
- precision: the share of proposals that state a labelled keeper (the keeper's line, and most of its quote's
  words, or the quote itself, in the proposal);
- recall: the share of keepers some proposal states;
- both per source of the keeper (`where`: user, assistant, ask_user_answer, approved_plan, queued_message,
  tool_result) and per language;
- both again with the keeper's statement also matched ("same statement", printed after the quote-only figures,
  which stay the headline): a proposal from the keeper's line (within two) whose summary's content words (four at
  least) are mostly (STATEMENT_SHARE) in the keeper's statement or quote. The labeller quoted one sentence of a
  turn; a proposal made from another sentence of the same turn that says the same thing is then counted;
- turns the offline reader could not read (another language), as the report says them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import unicodedata
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import pygit2
import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.session_capture import Routing, SessionCapture  # noqa: E402

LABELS = ROOT / "bench" / "labels" / "real_sessions.json"
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=timezone.utc)
_WORD = re.compile(r"\w+", re.UNICODE)
#: Share of a keeper quote's words a proposal must hold to state it.
QUOTE_SHARE = 0.6
#: Share of a proposal summary's content words the keeper's statement (or quote) must hold ("same statement").
STATEMENT_SHARE = 0.6
#: Words that say nothing of what a statement is about (left out of the "same statement" match).
_PLAIN = frozenset("""the and you your our for with that this from all any are was were have has will would should
must can not but its it's into only also just then than when what which who how there their they them been being
want need like please make sure use using""".split())


def transcript_path(sessions: Path, label: dict[str, Any]) -> Path:
    owner_repo = label["repo"].replace("/", "+")
    return sessions / owner_repo / label["path"].replace("/", "__")


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(_norm(text)) if len(w) >= 3 or not w.isascii()]


def states(proposal: dict[str, Any], keeper: dict[str, Any]) -> bool:
    """Whether a proposal states a keeper: from the keeper's line (or the line of the tool result or queued
    message it came from, within two lines), holding the quote or most of its words."""
    first, last = proposal["lines"]
    if not first - 2 <= keeper["line"] <= last + 2:
        return False
    text = _norm(f"{proposal['summary']} {proposal['content']}")
    quote = _norm(keeper["quote"])
    if quote in text:
        return True
    wanted = set(_words(quote))
    if not wanted:
        return False
    held = set(_words(text))
    return len(wanted & held) >= QUOTE_SHARE * len(wanted)


def same_statement(proposal: dict[str, Any], keeper: dict[str, Any]) -> bool:
    """Whether a proposal states a keeper by quote (`states`) or says what the keeper's statement says: from the
    keeper's line (within two), most of its summary's content words in the statement or the quote."""
    if states(proposal, keeper):
        return True
    first, last = proposal["lines"]
    if not first - 2 <= keeper["line"] <= last + 2:
        return False
    said = set(_words(proposal["summary"])) - _PLAIN
    labelled = set(_words(f"{keeper['statement']} {keeper['quote']}"))
    return len(said) >= 4 and len(said & labelled) >= STATEMENT_SHARE * len(said)


def read_session(path: Path) -> dict[str, Any]:
    """The dry-run report of one transcript, read into an empty repository offline."""
    with TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        pygit2.init_repository(str(repo), initial_head="main")
        store = MemoryStore(GitStore(repo))
        capture = SessionCapture(store, FixedClock(NOW), embedder=None, routing=Routing())
        report = trio.run(lambda: capture.read_paths([path], dry_run=True))
        return report.as_json()


def score(sessions: Path, labels: list[dict[str, Any]], show: bool) -> dict[str, Any]:
    proposals = right = keepers = found = 0
    right_same = found_same = 0
    by_source_same: dict[str, Counter] = {}
    by_source: dict[str, Counter] = {}
    by_language: dict[str, Counter] = {}
    unread = Counter()
    missing: list[str] = []
    per_session = []
    for label in labels:
        path = transcript_path(sessions, label)
        if not path.is_file():
            missing.append(str(path))
            continue
        report = read_session(path)
        review_min = Routing().review_min
        proposed = [c for c in report["candidates"] if c["confidence"] >= review_min]
        language = label.get("language", "?").split(" ")[0]
        hits = [k for k in label["keepers"] if any(states(p, k) for p in proposed)]
        good = [p for p in proposed if any(states(p, k) for k in label["keepers"])]
        hits_same = [k for k in label["keepers"] if any(same_statement(p, k) for p in proposed)]
        good_same = [p for p in proposed if any(same_statement(p, k) for k in label["keepers"])]
        right_same += len(good_same)
        found_same += len(hits_same)
        proposals += len(proposed)
        right += len(good)
        keepers += len(label["keepers"])
        found += len(hits)
        for k in label["keepers"]:
            source = by_source.setdefault(k["where"], Counter())
            source["keepers"] += 1
            source["found"] += k in hits
            same = by_source_same.setdefault(k["where"], Counter())
            same["keepers"] += 1
            same["found"] += k in hits_same
        lang = by_language.setdefault(language, Counter())
        lang["keepers"] += len(label["keepers"])
        lang["found"] += len(hits)
        lang["proposals"] += len(proposed)
        lang["right"] += len(good)
        unread["not English"] += report.get("unread_foreign", 0)
        per_session.append({"repo": label["repo"], "language": language, "keepers": len(label["keepers"]),
                            "found": len(hits), "proposals": len(proposed), "right": len(good)})
        if show:
            print(f"\n## {label['repo']} ({language}): {len(hits)}/{len(label['keepers'])} found, "
                  f"{len(good)}/{len(proposed)} proposals right")
            for p in proposed:
                mark = "+" if p in good else "~" if p in good_same else "-"
                print(f"  {mark} L{p['lines'][0]} [{p['namespace']}] {p['summary'][:110]}")
            for k in label["keepers"]:
                if k not in hits:
                    print(f"  {'missed' if k not in hits_same else 'same  '} L{k['line']} {k['where']}/{k['kind']}: {k['statement'][:110]}")
    return {
        "sessions": len(per_session), "missing": missing,
        "proposals": proposals, "right": right, "precision": round(right / proposals, 3) if proposals else None,
        "keepers": keepers, "found": found, "recall": round(found / keepers, 3) if keepers else None,
        "by_source": {k: {**v, "recall": round(v["found"] / v["keepers"], 3)} for k, v in sorted(by_source.items())},
        "by_language": {k: dict(v) for k, v in sorted(by_language.items())},
        "unread": dict(unread),
        "same_statement": {
            "right": right_same, "precision": round(right_same / proposals, 3) if proposals else None,
            "found": found_same, "recall": round(found_same / keepers, 3) if keepers else None,
            "by_source": {k: {**v, "recall": round(v["found"] / v["keepers"], 3)}
                          for k, v in sorted(by_source_same.items())},
        },
        "per_session": per_session,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sessions", type=Path, help="folder holding the labelled transcripts")
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--part", choices=("tuning", "held-out", "all"), default="tuning",
                        help="which third to score (default tuning; the held-out third only when checking, apart)")
    parser.add_argument("--show", action="store_true", help="list every proposal and every missed keeper")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.sessions.is_dir():
        print(f"real_capture_bench: {args.sessions} is not a folder", file=sys.stderr)
        return 2
    labelled = json.loads(args.labels.read_text())["sessions"]
    parts = {"tuning": [s for i, s in enumerate(labelled) if i % 3 != 2],
             "held-out": [s for i, s in enumerate(labelled) if i % 3 == 2]}
    chosen = ("tuning", "held-out") if args.part == "all" else (args.part,)
    started = time.perf_counter()
    result: dict[str, Any] = {"machine": machine()}
    for part in chosen:
        result[part] = score(args.sessions, parts[part], args.show and not args.json)
    result["seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(result, indent=1, ensure_ascii=False))
        return 0
    for part in chosen:
        r = result[part]
        print(f"\n{part}: {r['sessions']} sessions, precision {r['precision']} ({r['right']}/{r['proposals']}), "
              f"recall {r['recall']} ({r['found']}/{r['keepers']})")
        for source, v in r["by_source"].items():
            print(f"  {source:<16} {v['found']:>3}/{v['keepers']:<3} recall {v['recall']}")
        for language, v in r["by_language"].items():
            print(f"  {language:<16} found {v.get('found', 0)}/{v['keepers']}, "
                  f"right {v.get('right', 0)}/{v.get('proposals', 0)}")
        same = r["same_statement"]
        print(f"  same statement: precision {same['precision']} ({same['right']}/{r['proposals']}), "
              f"recall {same['recall']} ({same['found']}/{r['keepers']})")
        for source, v in same["by_source"].items():
            print(f"    {source:<14} {v['found']:>3}/{v['keepers']:<3} recall {v['recall']}")
        if r["unread"]:
            print(f"  unread turns: {r['unread']}")
        if r["missing"]:
            print(f"  missing transcripts: {', '.join(r['missing'])}")
    print(f"\n{result['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
