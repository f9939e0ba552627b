"""Benchmark: what one long hostile user line (rule words, no sentence end) costs the offline proposer.

`python bench/capture_hostile_bench.py` — seconds per `propose` call for lines of 25, 50 and 100 KB.
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
    print(json.dumps(seconds) if args.json else "  ".join(f"{k}: {v} s" for k, v in seconds.items()))


if __name__ == "__main__":
    main()
