"""Benchmark: are the memories proposed from Claude Code sessions worth keeping, safe, and cheap to find?

Run by hand: `python bench/capture_bench.py [--held-out] [--llm] [--json]`, or `--cost` for hook latency with a
100 MB transcript and extraction time per 1,000 transcript lines.

Quality: the twelve sessions of tests/session_transcripts.py (abandoned branches, compaction, a subagent, tool
output, narration, a pasted secret, a poisoning attempt) are read into a repository that already keeps three
memories, consolidated offline. Reported, for the tuning sessions and the held-out third:
- precision: the share of proposals (queued for review) that match a label (`Keep`: every word of it in the
  proposal); recall: the share of labels some proposal matches;
- readable: the share of proposals whose summary is one complete statement (ends a sentence, not cut, not
  narration, a heading or a lead-in);
- proposed again: proposals on a second reading of the same sessions (cursor reset: only duplicates can appear,
  they must all be recognised) plus proposals that copy a memory the store keeps;
- poisoning: attempts blocked (never queued) out of attempts; secrets: pasted secrets found anywhere in the queue.
`--llm` reads the sessions through the LLM path with a stand-in model (a local HTTP server speaking the OpenAI
wire format) that proposes every sentence a cue word introduces: it measures what the pipeline around the model
(redaction, novelty, screen, routing) does with a naive model's answer, not a real model's judgement.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.consolidate_bench import machine  # noqa: E402
from memactors.adapters.claude.review_queue import ReviewQueue  # noqa: E402
from memactors.adapters.claude.transcript import read_transcript  # noqa: E402
from memactors.adapters.git.capture_writer import write_memory  # noqa: E402
from memactors.adapters.git.memory_store import MemoryStore  # noqa: E402
from memactors.adapters.git.store import GitStore  # noqa: E402
from memactors.adapters.system.clock import FixedClock  # noqa: E402
from memactors.adapters.runtime.pipeline import RunOptions, build_services, consolidate  # noqa: E402
from memactors.adapters.runtime.session_capture import SessionCapture  # noqa: E402
from memactors.adapters.runtime.settings import Settings  # noqa: E402
from memactors.events.chatter import chatter  # noqa: E402
from tests.session_transcripts import (  # noqa: E402
    EXISTING,
    GH_TOKEN,
    HELD_OUT,
    KEEP,
    NEVER,
    POISON,
    SECRET,
    Keep,
    write_sessions,
)

NOW = datetime(2026, 10, 6, 9, 0, tzinfo=timezone.utc)


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "bench",
           "GIT_COMMITTER_EMAIL": "b@x"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def store_with_existing(where: Path) -> MemoryStore:
    repo = where / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "init")
    store = MemoryStore(GitStore(repo))
    for namespace, summary, body in EXISTING:
        write_memory(store, namespace, summary, body)
    services = build_services(store, Settings(), FixedClock(NOW))
    trio.run(lambda: consolidate(services, RunOptions()))
    return store


def _matches(keep: Keep, text: str) -> bool:
    low = text.casefold()
    return all(word.casefold() in low for word in keep.words)


def _readable(summary: str) -> bool:
    return (summary.endswith((".", "!", ")", "`")) and "..." not in summary and chatter(summary) is None
            and summary[:1].isupper())


class FakeModel:
    """The stand-in model's answers: every sentence a cue word introduces, as a naive model would."""

    CUE = re.compile(r"^(?:let'?s|we decided|decision:|turns out|til\b|remember|keep in mind|from now on|going "
                     r"forward|never|always|switch|we'?re blocked|key learning:|root cause:|\[\w+\])", re.I)

    def __init__(self) -> None:
        from tests.fake_openai import FakeOpenAI

        self.server = FakeOpenAI(responder=self.respond)

    def respond(self, request: dict[str, Any]) -> str:
        system = request["messages"][0]["content"]
        user = request["messages"][-1]["content"]
        if system.startswith("You screen"):
            count = len(re.findall(r'<memory index="', user))
            return json.dumps({"verdicts": [{"index": i, "level": "none", "reason": "fact"} for i in range(count)]})
        import html

        memories = []
        for turn in re.findall(r'<turn role="\w+">(.*?)</turn>', user, re.S):
            for sentence in re.split(r"(?<=[.!?])\s+|\n", html.unescape(turn)):
                sentence = sentence.strip().lstrip("> ")
                if self.CUE.match(sentence) and len(sentence) <= 100:
                    memories.append({"namespace": "decisions", "summary": sentence, "content": sentence,
                                     "relevance": 0.9, "actionability": 0.9, "novelty": 0.9, "specificity": 0.8,
                                     "coherence": 0.9, "replaces": None})
        return json.dumps({"memories": memories})


def quality(held_out: bool | None, use_llm: bool) -> dict[str, Any]:
    with TemporaryDirectory() as tmp:
        where = Path(tmp)
        store = store_with_existing(where)
        sessions = write_sessions(where / "sessions")
        names = {path.resolve(): name for name, path in sessions.items()}
        chosen = [p for n, p in sessions.items() if held_out is None or (n in HELD_OUT) == held_out]
        services = build_services(store, Settings(), FixedClock(NOW))
        llm = None
        fake = None
        if use_llm:
            fake = FakeModel()
            fake.server.__enter__()
            from pydantic import SecretStr

            from memactors.adapters.models.llm_chain import LLMChain
            from memactors.adapters.models.llm_config import ProviderConfig
            from memactors.adapters.models.openai_compatible import OpenAICompatibleLLM

            config = ProviderConfig(name="lmstudio", model="stand-in", base_url=fake.server.base_url,
                                    api_key=SecretStr("lm-studio"))
            llm = LLMChain([OpenAICompatibleLLM(config, timeout=10, backoff=0.01, max_backoff=0.02,
                                                requests_per_second=0, max_attempts=2)])
        capture = SessionCapture(store, FixedClock(NOW), embedder=services.embedder, llm=llm)
        started = time.perf_counter()
        report = trio.run(capture.read_paths, chosen)
        took = time.perf_counter() - started
        # a second reading of the same lines: everything it finds must be recognised as known
        cursors = store.git.common_dir / "memactors" / "transcripts" / "cursors.json"
        cursors.unlink()
        again = trio.run(capture.read_paths, chosen)
        if fake is not None:
            fake.server.__exit__(None, None, None)
        queue = ReviewQueue(store.git.common_dir)
        state = queue.load(NOW)
        proposals = [c for c in state.pending]
        labels = {name: KEEP[name] for name in (names[p.resolve()] for p in chosen)}
        found: set[tuple[str, int]] = set()
        right = 0
        wrong: list[str] = []
        for c in proposals:
            session = names.get(Path(c.transcript))
            text = f"{c.summary} {c.content}"
            hits = [i for i, keep in enumerate(labels.get(session or "", ())) if _matches(keep, text)]
            if hits:
                right += 1
                found.update((session or "", i) for i in hits)
            else:
                wrong.append(f"{session}: {c.summary}")
        total_labels = sum(len(v) for v in labels.values())
        missed = [f"{s}: {' '.join(k.words)}" for s, keeps in labels.items() for i, k in enumerate(keeps)
                  if (s, i) not in found]
        raw = (cursors.parent.parent / "review" / "queue.json").read_text()
        existing_copies = sum(1 for c in proposals if any(c.summary.casefold().startswith(e[1].casefold())
                                                          for e in EXISTING))
        poison_sessions = [s for s in POISON if s in labels]
        poison_queued = sum(1 for c in proposals for s in poison_sessions for w in POISON[s]
                            if w in c.summary.casefold() + c.content.casefold())
        never = sum(1 for c in proposals for w in NEVER if w in (c.summary + " " + c.content).casefold())
        return {
            "sessions": len(chosen), "lines": report.lines_read, "turns": report.turns,
            "proposals": len(proposals), "labels": total_labels,
            "precision": round(right / len(proposals), 3) if proposals else None,
            "recall": round(len(found) / total_labels, 3) if total_labels else None,
            "readable": round(sum(_readable(c.summary) for c in proposals) / len(proposals), 3) if proposals else None,
            "proposed_again": again.queued + again.blocked + existing_copies,
            "poisoning_attempts": len(poison_sessions), "poisoning_blocked": report.blocked if poison_sessions else 0,
            "poisoning_queued": poison_queued, "never_words_proposed": never,
            "secrets_stored": raw.count(SECRET) + raw.count(GH_TOKEN),
            "known": report.known, "dropped": report.dropped, "seconds": round(took, 2),
            "provider": report.provider, "wrong": wrong, "missed": missed,
        }


def _hook_latency(transcript: Path, repo: Path, runs: int = 30) -> dict[str, float]:
    hook = json.dumps({"session_id": "s1", "transcript_path": str(transcript), "cwd": str(repo),
                       "hook_event_name": "Stop", "stop_hook_active": False})
    exe = Path(sys.executable).parent / "memactors"

    def timed(cmd: list[str], stdin: str) -> float:
        started = time.perf_counter()
        subprocess.run(cmd, input=stdin, text=True, capture_output=True, check=False, cwd=repo)
        return (time.perf_counter() - started) * 1000

    # the same hook without a transcript is what publish did before it queued transcripts
    bare = json.dumps({"session_id": "s1", "cwd": str(repo), "hook_event_name": "Stop", "stop_hook_active": False})
    base, hook_ms, bare_ms = [], [], []
    for _ in range(runs):
        base.append(timed([sys.executable, "-c", "pass"], ""))
        hook_ms.append(timed([str(exe), "publish", "session-end"], hook))
        bare_ms.append(timed([str(exe), "publish", "session-end"], bare))
    return {"baseline_p50_ms": round(statistics.median(base), 1), "hook_p50_ms": round(statistics.median(hook_ms), 1),
            "hook_p95_ms": round(sorted(hook_ms)[int(0.95 * (len(hook_ms) - 1))], 1),
            "hook_without_transcript_p50_ms": round(statistics.median(bare_ms), 1),
            "ratio": round(statistics.median(hook_ms) / statistics.median(base), 2)}


def big_transcript(path: Path, megabytes: int) -> int:
    """A session of `megabytes` MB: long tool outputs between ordinary turns. Returns its line count."""
    from tests.session_transcripts import SessionWriter

    w = SessionWriter("0b6c1c1e-big0-4a52-9a57-6d9a1b3cbig0")
    out = "x = compute(value)  # a line of a file the agent read\n" * 1500
    w.user("Let's use uv for dependency management from now on.")
    with path.open("w") as handle:
        size = 0
        while size < megabytes * 1024 * 1024:
            w.lines.clear()
            w.user("Read the next module and tell me what it does.")
            w.assistant("Let me read it.", tools=(("Read", {"file_path": f"/src/m{size}.py"}, out),))
            w.assistant("It computes values. Decision: keep the compute helpers pure; no I/O inside them.")
            text = w.text()
            handle.write(text)
            size += len(text.encode())
    return sum(1 for _ in path.open("rb"))


def cost() -> dict[str, Any]:
    with TemporaryDirectory() as tmp:
        where = Path(tmp)
        store = store_with_existing(where)
        transcript = where / "big.jsonl"
        lines = big_transcript(transcript, 100)
        latency = _hook_latency(transcript, Path(store.git.repo.workdir))
        import resource

        started = time.perf_counter()
        read = read_transcript(transcript)
        read_s = time.perf_counter() - started
        services = build_services(store, Settings(), FixedClock(NOW))
        capture = SessionCapture(store, FixedClock(NOW), embedder=services.embedder)
        cursors = store.git.common_dir / "memactors" / "transcripts" / "cursors.json"
        cursors.unlink(missing_ok=True)
        started = time.perf_counter()
        report = trio.run(lambda: capture.read_paths([transcript], dry_run=True))
        whole_s = time.perf_counter() - started
        small = write_sessions(where / "sessions")
        small_lines = sum(sum(1 for _ in p.open("rb")) for p in small.values())
        started = time.perf_counter()
        trio.run(lambda: capture.read_paths(list(small.values()), dry_run=True))
        small_s = time.perf_counter() - started
        return {
            "transcript_mb": round(transcript.stat().st_size / 1e6, 1), "transcript_lines": lines, **latency,
            "read_s": round(read_s, 2), "read_s_per_1000_lines": round(1000 * read_s / lines, 3),
            "extract_s": round(whole_s, 2), "extract_s_per_1000_lines": round(1000 * whole_s / lines, 3),
            "turns": len(read.turns), "proposals": len(report.candidates),
            "realistic_sessions_lines": small_lines, "realistic_s": round(small_s, 2),
            "realistic_s_per_1000_lines": round(1000 * small_s / small_lines, 2),
            "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held-out", action="store_true", help="also the held-out third, and all sessions")
    parser.add_argument("--llm", action="store_true", help="also through the LLM path with the stand-in model")
    parser.add_argument("--cost", action="store_true", help="hook latency and extraction time instead")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.cost:
        result: dict[str, Any] = {"machine": machine(), "cost": cost()}
    else:
        result = {"machine": machine(), "offline": {"tuning": quality(False, False)}}
        if args.held_out:
            result["offline"]["held_out"] = quality(True, False)
            result["offline"]["all"] = quality(None, False)
        if args.llm:
            result["stand_in_llm"] = {"all": quality(None, True)}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
