"""Probe: can a linear head over the local embedding model tell a sentence worth keeping from the rest, across
real Claude Code sessions it never saw? Evidence for issue 33's offline capture, not a feature.

Run by hand on the labelled transcripts `bench/real_capture_bench.py` reads (tuning part only: the held-out third
is never read here):

    python bench/capture_probe.py SESSIONS [--labels bench/labels/real_sessions.json] [--json]

Every sentence of every turn (as the offline proposer cuts them) is a candidate; it is a keeper when it states a
labelled keeper by the real-session bench's own quote rule. Features: the MiniLM vector, the speaker, whether the
turn came from the machinery (an answer, a plan, a queued message), whether it reads as another language, its
length. A class-weighted logistic regression (numpy, plain gradient descent) is fitted on all sessions but one and
scores the one left out, for each session in turn; the pooled ranking's precision and recall at its top k are
printed. A head that generalised would keep its precision near the rules' (0.8 on the tuning part) as k grows.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402
from bench.real_capture_bench import LABELS, states, transcript_path  # noqa: E402
from memactors.actors.algorithms.session_proposals import _sentences, foreign, rejoin  # noqa: E402
from memactors.adapters.claude.transcript import read_transcript  # noqa: E402
from memactors.adapters.models.embeddings import LocalMiniLM  # noqa: E402

TOP = (50, 100, 150, 250, 400)


def candidates(sessions: Path, labels: list[dict]) -> list[dict]:
    """Every sentence of the tuning sessions' turns, with whether it states a labelled keeper."""
    rows = []
    for number, label in enumerate(labels):
        if number % 3 == 2:
            continue  # the held-out third
        for turn in read_transcript(transcript_path(sessions, label)).turns:
            for sentence, _ in _sentences(rejoin(turn.text)):
                if not 15 <= len(sentence) <= 600:
                    continue
                said = {"lines": (turn.line, turn.line), "summary": sentence, "content": ""}
                rows.append({"session": number, "role": turn.role, "source": turn.source, "text": sentence,
                             "foreign": foreign(sentence),
                             "keeper": any(states(said, k) for k in label["keepers"])})
    return rows


def fit(x: np.ndarray, y: np.ndarray, *, l2: float = 1.0, steps: int = 400, rate: float = 0.5) -> tuple:
    """Class-weighted logistic regression by gradient descent."""
    w, b = np.zeros(x.shape[1]), 0.0
    weight = np.where(y > 0, (1 - y.mean()) / y.mean(), 1.0)
    weight /= weight.mean()
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = (p - y) * weight
        w -= rate * (x.T @ g / len(y) + l2 * w / len(y))
        b -= rate * g.mean()
    return w, b


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sessions", type=Path, help="folder holding the labelled transcripts")
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.sessions.is_dir():
        print(f"capture_probe: {args.sessions} is no folder of transcripts", file=sys.stderr)
        return 2
    started = time.monotonic()
    rows = candidates(args.sessions, json.loads(args.labels.read_text())["sessions"])
    model = LocalMiniLM()
    vectors = np.vstack([model.embed([r["text"] for r in rows[i:i + 256]]) for i in range(0, len(rows), 256)])
    extra = np.array([[r["role"] == "user", r["role"] == "assistant", bool(r["source"]), r["foreign"],
                       min(len(r["text"]), 300) / 300] for r in rows], dtype=np.float32)
    x, y = np.hstack([vectors, extra]), np.array([r["keeper"] for r in rows], dtype=np.float64)
    session = np.array([r["session"] for r in rows])
    scores = np.zeros(len(y))
    for left_out in np.unique(session):
        w, b = fit(x[session != left_out], y[session != left_out])
        scores[session == left_out] = x[session == left_out] @ w + b
    order = np.argsort(-scores)
    report = {"machine": machine(), "sentences": len(rows), "keeper_sentences": int(y.sum()),
              "top": [{"k": k, "precision": round(float(y[order[:k]].mean()), 3),
                       "recall": round(float(y[order[:k]].sum() / y.sum()), 3)} for k in TOP],
              "seconds": round(time.monotonic() - started, 1)}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{report['sentences']} sentences, {report['keeper_sentences']} state a keeper "
              f"(leave one session out, {len(np.unique(session))} sessions)")
        for row in report["top"]:
            print(f"  top {row['k']:>3}: precision {row['precision']:.3f}, recall {row['recall']:.3f}")
        print(f"{report['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
