"""Probe: does the local embedding model tell two instructions on one topic from two on different topics?
Evidence for issue 32's MemoryCode figures (current first, the block), not a feature.

Run by hand on a copy of the MemoryCode data set (even-numbered dialogues, tuning part only: the held-out third and
the odd-numbered dialogues are never read):

    python bench/memorycode_topic_probe.py PATH/dataset PATH/topics.json [--json]

Each instruction memory is the mentor's sentence `bench/memorycode_bench.py` picks. For every pair of memories of
one dialogue said in different sessions (not one sentence stating two), the MiniLM cosine of the two sentences is
taken; a pair is "one topic, changed" when the data set gives both one topic and different values. At each cosine
bar, the share of changed pairs above it (what a "newer on the same topic replaces" rule would find) and how many of
the pairs above it are one topic (that rule's precision) are printed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402
from bench.memorycode_bench import even_dialogues, load_dialogue  # noqa: E402
from memactors.adapters.models.embeddings import LocalMiniLM  # noqa: E402

BARS = (0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="the data set's dataset/ folder")
    parser.add_argument("topics", type=Path, help="the data set's topics.json")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if not args.dataset.is_dir() or not args.topics.is_file():
        print("memorycode_topic_probe: pass the data set's dataset/ folder and its topics.json", file=sys.stderr)
        return 2
    topics = json.loads(args.topics.read_text())
    dialogues = [d for d in (load_dialogue(p, topics, share=True) for p in even_dialogues(args.dataset))
                 if not d.held_out and len({i.session for i in d.instructions}) >= 2]
    model = LocalMiniLM()
    changed: list[float] = []
    other_topic: list[float] = []
    for d in dialogues:
        said = d.instructions
        vectors = model.embed([i.summary for i in said])
        vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        cosines = vectors @ vectors.T
        for a in range(len(said)):
            for b in range(a):
                x, y = said[a], said[b]
                if x.session == y.session or x.summary == y.summary:
                    continue
                if x.topic != y.topic:
                    other_topic.append(float(cosines[a, b]))
                elif x.version != y.version:
                    changed.append(float(cosines[a, b]))
    same, other = np.array(changed), np.array(other_topic)
    rows = [{"bar": bar, "changed_pairs_above": round(float((same >= bar).mean()), 3),
             "other_topic_pairs_above": int((other >= bar).sum()),
             "precision": round(float((same >= bar).sum() / max(1, (same >= bar).sum() + (other >= bar).sum())), 3)}
            for bar in BARS]
    result = {"machine": machine(), "dialogues": len(dialogues), "changed_pairs": len(same),
              "other_topic_pairs": len(other), "bars": rows}
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"{len(dialogues)} tuning dialogues: {len(same)} one-topic changed pairs, {len(other)} other-topic pairs")
        for row in rows:
            print(f"cosine >= {row['bar']:.2f}: {row['changed_pairs_above']:.3f} of changed pairs above, "
                  f"{row['other_topic_pairs_above']} other-topic pairs above, precision {row['precision']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
