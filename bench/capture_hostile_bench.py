"""Benchmark: what one long hostile turn costs the offline proposer: a user line of rule words with no sentence
end, an assistant turn with no spaces (one word of 4,000, 8,000 and 16,000 characters; a turn is read to
TURN_CHARS, 16,000), a user's stressed rule holding a run of as many dots, and a heading followed by 1,000 to 4,000 blanks.

`python bench/capture_hostile_bench.py` — seconds per `propose` call for user lines of 25, 50 and 100 KB and
assistant words and runs of dots of 4, 8 and 16 thousand characters (near-linear: each should cost about twice the one before).
"""

from __future__ import annotations

import argparse
import json
import time

from memactors.actors.algorithms.session_proposals import SessionTurn, propose

UNIT = "always add docstrings to the functions and type hints to the methods in the modules, "


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    seconds: dict[str, float] = {}
    for size in (25_000, 50_000, 100_000):
        turn = SessionTurn("u1", "user", "Please " + UNIT * (size // len(UNIT)), 1)
        started = time.perf_counter()
        propose([turn])
        seconds[f"{size // 1000} KB"] = round(time.perf_counter() - started, 2)
    for size in (4_000, 8_000, 16_000):  # issue 33: a path-stripping pattern retried every start inside the word
        turn = SessionTurn("a1", "assistant", "a" * size, 1)
        started = time.perf_counter()
        propose([turn])
        seconds[f"assistant {size // 1000} K chars, no spaces"] = round(time.perf_counter() - started, 3)
    for size in (4_000, 8_000, 16_000):  # issue 33: a clause's word pattern backtracked over a run of dots
        turn = SessionTurn("u2", "user", "the build must NEVER use " + "." * (size - 100) + " x", 1)  # within TURN_CHARS
        started = time.perf_counter()
        propose([turn])
        seconds[f"user stress, {size // 1000} K dots"] = round(time.perf_counter() - started, 3)
    for size in (1_000, 2_000, 4_000):  # issue 33: the heading pattern's closing-hash tail backtracked over blanks
        turn = SessionTurn("a2", "assistant", "## Decisions" + " " * size + "x\n- Use pnpm for every install.", 1)
        started = time.perf_counter()
        propose([turn])
        seconds[f"heading, {size // 1000} K blanks"] = round(time.perf_counter() - started, 3)
    print(json.dumps(seconds) if args.json else "  ".join(f"{k}: {v} s" for k, v in seconds.items()))


if __name__ == "__main__":
    main()
