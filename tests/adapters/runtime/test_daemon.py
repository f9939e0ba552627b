"""The real daemon against real repositories: in a trio nursery, and as `memactors run`."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable

import pytest
import trio

from memactors.adapters.claude.inbox import Inbox
from memactors.adapters.git.memory_store import META_REF, MemoryStore
from memactors.adapters.git.notes_feed import NotesFeed
from memactors.adapters.git.store import GitStore
from memactors.adapters.models.embeddings import LocalMiniLM
from memactors.adapters.models.vector_cache import CachedEmbedder
from memactors.adapters.system.clock import SystemClock
from memactors.adapters.runtime.daemon import Daemon, DaemonSettings
from memactors.adapters.runtime.pipeline import Services
from memactors.adapters.runtime.settings import Settings
from memactors.events.cluster import cluster_id
from memactors.events.pipeline import RunCompleted, RunFailed
from tests.conftest import Repo, entry, git, run_cli


async def test_a_capture_by_the_git_cli_starts_a_run_and_refs_update(repo: Repo) -> None:
    store = MemoryStore(GitStore(repo.path))
    common = store.git.common_dir
    daemon = Daemon(Services(store=store, settings=Settings(), clock=SystemClock()), NotesFeed(common),
                    Inbox(common), DaemonSettings(debounce=0.3, inbox_interval=0.2))
    completed = daemon.bus.subscribe("test", (RunCompleted,))
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            await nursery.start(daemon.run)
            startup = await completed.receive()
            assert startup.report.trigger == "startup" and not startup.report.persisted
            await trio.to_thread.run_sync(repo.capture, "decisions", "Captured while the daemon watches")
            run = await completed.receive()
            assert run.report.trigger == "notes" and run.report.persisted
            assert json.loads(repo.note(META_REF, "HEAD"))["memories"]
            Inbox(common).drop("session-end", {"session_id": "s"})
            hooked = await completed.receive()
            assert hooked.report.trigger == "session-end"
            daemon.stop()
    await trio.sleep(0.3)
    assert Inbox(common).pending() == ([], [])


async def test_each_daemon_run_counts_its_llm_caps_afresh(repo: Repo) -> None:
    from memactors.adapters.models.llm_chain import LLMChain
    from memactors.adapters.models.llm_checkpoint import CheckpointedLLM

    store = MemoryStore(GitStore(repo.path))
    common = store.git.common_dir
    chain = LLMChain([], max_calls=10, max_cost_usd=1.0)
    chain.requests, chain.spent = 10, 1.0  # what an earlier run of this daemon used up
    services = Services(store=store, settings=Settings(), clock=SystemClock(),
                        llm=CheckpointedLLM(chain, common / "memactors" / "llm-checkpoint.jsonl"))
    daemon = Daemon(services, NotesFeed(common), Inbox(common), DaemonSettings(debounce=0.3, inbox_interval=0.2))
    completed = daemon.bus.subscribe("test", (RunCompleted,))
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            await nursery.start(daemon.run)
            await completed.receive()
            daemon.stop()
    assert (chain.requests, chain.spent) == (0, 0.0)


def test_sigint_stops_the_daemon_cleanly_and_a_second_daemon_is_refused(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite for storage")
    command = [sys.executable, "-m", "memactors.adapters.cli", "run", "--repo", str(repo.path),
               "--debounce-seconds", "0.2"]
    daemon = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ})
    try:
        assert daemon.stderr is not None
        for line in daemon.stderr:
            if "(startup)" in line:
                break
        second = run_cli("run", "--repo", str(repo.path))
        assert second.returncode == 3, second.stderr
        assert f"the memactors daemon (`memactors run`, pid {daemon.pid}) already serves" in second.stderr
        deadline = time.monotonic() + 30
        while git(repo.path, "rev-parse", "-q", "--verify", META_REF, check=False).returncode != 0:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        daemon.send_signal(signal.SIGINT)
        _, err = daemon.communicate(timeout=60)
    finally:
        if daemon.poll() is None:
            daemon.kill()
    assert daemon.returncode == 0, err
    assert "stopped" in err and "Traceback" not in err
    assert json.loads(repo.note(META_REF, "HEAD"))["memories"]


# --- faults: the world changes under a running daemon ------------------------------------------

class CountingMiniLM(LocalMiniLM):
    """The real local model, counting what it is asked (to see when the daemon loads it)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def embed(self, texts):  # type: ignore[override]
        self.calls.append(list(texts))
        return super().embed(texts)


def semantic_daemon(repo: Repo, model: LocalMiniLM, **settings: float) -> Daemon:
    store = MemoryStore(GitStore(repo.path))
    common = store.git.common_dir
    services = Services(store=store, settings=Settings(), clock=SystemClock(),
                        embedder=CachedEmbedder(model, common / "memactors" / "vectors"))
    return Daemon(services, NotesFeed(common), Inbox(common),
                  DaemonSettings(**{"debounce": 0.3, "inbox_interval": 0.2, "health_interval": 0.2, **settings}))


async def until(outcomes: trio.MemoryReceiveChannel, done: Callable[[RunCompleted], bool]) -> RunCompleted:
    """The first completed run `done` accepts; any failed run fails the test."""
    async for event in outcomes:
        assert not isinstance(event, RunFailed), event
        if done(event):
            return event
    raise AssertionError("the bus closed")


async def test_memory_refs_pruned_or_forced_under_the_daemon_are_read_afresh_and_left_alone(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite for storage", "A single file is enough to start.")
    repo.capture("learnings", "Retries of payment webhooks must be idempotent", "A retried webhook charged twice.")
    repo.capture("learnings", "Payment webhook retries need idempotency keys", "Stripe retried and we double charged.")
    git(repo.path, "checkout", "-q", "-b", "side")
    side = repo.commit("side work")
    repo.capture("learnings", "Make webhook handlers idempotent: payments were retried", "Use the event id as key.")
    repo.capture("decisions", "Cache sessions in Redis", "Only on the side branch.")
    git(repo.path, "checkout", "-q", "main")
    head = git(repo.path, "rev-parse", "HEAD").stdout.strip()
    daemon = semantic_daemon(repo, LocalMiniLM())
    outcomes = daemon.bus.subscribe("test", (RunCompleted, RunFailed))
    store = MemoryStore(GitStore(repo.path))
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            await nursery.start(daemon.run)
            await until(outcomes, lambda e: e.report.trigger == "startup")
            webhooks = {m.summary: m.key for m in store.scan(None).memories if "ebhook" in m.summary}
            assert len({store.load_state().meta[k].cluster_id for k in webhooks.values()}) == 1  # one cluster of 3

            # the side branch goes away and upstream's `git notes prune` drops its notes
            git(repo.path, "branch", "-D", "side")
            git(repo.path, "reflog", "expire", "--expire=now", "--all")
            git(repo.path, "gc", "-q", "--prune=now")
            assert git(repo.path, "cat-file", "-e", side, check=False).returncode != 0
            for namespace in ("decisions", "learnings"):
                git(repo.path, "notes", f"--ref=refs/notes/mem/{namespace}", "prune")
            pruned = repo.originals()
            report = (await until(outcomes, lambda e: e.report.memories_processed == 3)).report
            assert report.trigger != "startup" and repo.originals() == pruned
            state = store.load_state()
            left = [k for s, k in webhooks.items() if not s.startswith("Make")]
            assert state.meta[left[0]].cluster_id == state.meta[left[1]].cluster_id == cluster_id(left)

            # a fetch with `+` forces the decisions ref to an unrelated notes history
            git(repo.path, "notes", "--ref=refs/notes/incoming", "add", "-m",
                entry("decisions", "Switch storage to PostgreSQL", "Replaces SQLite."), head)
            git(repo.path, "update-ref", "refs/notes/mem/decisions", "refs/notes/incoming")
            forced = repo.originals()
            await until(outcomes, lambda e: e.report.memories_processed == 3 and e.report.persisted)
            assert repo.originals() == forced
            memories = {m.summary: m for m in store.scan(None).memories}
            assert "Use SQLite for storage" not in memories
            postgres = memories["Switch storage to PostgreSQL"]
            meta = store.load_state().meta[postgres.key]
            assert meta.commit == head and meta.namespace == "decisions"
            assert postgres.key in repo.note(META_REF, head)  # readable with plain `git notes show`
            assert set(daemon.supervisor.restarts.values()) == {0}
            daemon.stop()


def test_a_deleted_repository_stops_memactors_run_with_exit_2_and_no_spinning(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite for storage")
    command = [sys.executable, "-m", "memactors.adapters.cli", "run", "--repo", str(repo.path),
               "--debounce-seconds", "0.2"]
    daemon = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "MEMACTORS_EMBEDDINGS": "none"})
    try:
        assert daemon.stderr is not None
        for line in daemon.stderr:
            if "(startup)" in line:
                break
        subprocess.run(["rm", "-rf", str(repo.path)], check=True)
        _, err = daemon.communicate(timeout=60)  # a deadlock guard, not a timing
    finally:
        if daemon.poll() is None:
            daemon.kill()
    lines = err.strip().splitlines()
    assert daemon.returncode == 2, err
    assert lines[-1].startswith("memactors run: the repository at ") and lines[-1].endswith("was deleted or moved; stopped")
    assert "Traceback" not in err and "repeated failures" not in err
    assert sum("failed in" in line for line in lines) <= 2 and sum("crashed" in line for line in lines) <= 2
    assert not repo.path.exists()  # nothing recreated its directories


DAEMON_SCRIPT = """
import logging, sys, trio
from memactors.adapters.system.clock import SystemClock
from memactors.adapters.runtime.daemon import Daemon, DaemonSettings
from memactors.adapters.models.embeddings import LocalMiniLM
from memactors.adapters.git.store import GitStore
from memactors.adapters.claude.inbox import Inbox
from memactors.adapters.git.memory_store import MemoryStore
from memactors.adapters.git.notes_feed import NotesFeed
from memactors.adapters.runtime.pipeline import Services
from memactors.adapters.runtime.settings import Settings

logging.basicConfig(level=logging.INFO, format="memactors: %(message)s", stream=sys.stderr)
store = MemoryStore(GitStore(sys.argv[1]))
common = store.git.common_dir
daemon = Daemon(Services(store=store, settings=Settings(), clock=SystemClock()), NotesFeed(common), Inbox(common),
                DaemonSettings(debounce=0.2, retry_base=0.5, retry_max=2.0, restart_backoff=0.1, health_interval=0.5))
trio.run(lambda: daemon.run(handle_signals=True))
print("daemon stopped cleanly", file=sys.stderr)
"""


class Lines:
    """A child's stderr, collected by a thread, waited on line by line."""

    def __init__(self, stream) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()

    def wait(self, predicate: Callable[[list[str]], bool], timeout: float = 60) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: predicate(self.lines), timeout), "\n".join(self.lines)


def test_a_full_disk_fails_runs_with_back_off_and_the_daemon_recovers_when_space_returns(repo: Repo) -> None:
    """The real kernel refuses the daemon's writes (RLIMIT_FSIZE 0, works as root too): EFBIG, like ENOSPC."""
    repo.capture("decisions", "Use SQLite for storage")
    daemon = subprocess.Popen([sys.executable, "-c", DAEMON_SCRIPT, str(repo.path)], stderr=subprocess.PIPE,
                              text=True, env={**os.environ, "MEMACTORS_EMBEDDINGS": "none"})
    assert daemon.stderr is not None
    log = Lines(daemon.stderr)
    try:
        log.wait(lambda lines: any("(startup)" in line and "persisted" in line for line in lines))
        soft, hard = resource.prlimit(daemon.pid, resource.RLIMIT_FSIZE)
        resource.prlimit(daemon.pid, resource.RLIMIT_FSIZE, (0, hard))
        state = repo.refs("refs/notes/mem-")
        repo.capture("decisions", "Captured while the disk is full")
        originals = repo.originals()
        log.wait(lambda lines: sum("failed in persister" in line for line in lines) >= 4)
        assert daemon.poll() is None
        assert repo.refs("refs/notes/mem-") == state and repo.originals() == originals
        failures = [line for line in log.lines if "failed in persister" in line]
        assert all("File too large" in line for line in failures)
        delays = [line.rsplit(" in ", 1)[1] for line in failures[:4]]
        assert delays == ["0.5 s", "1 s", "2 s", "2 s"]  # backed off, capped: never a hot loop
        resource.prlimit(daemon.pid, resource.RLIMIT_FSIZE, (soft, hard))
        log.wait(lambda lines: any("(retry)" in line and "persisted" in line for line in lines))
        assert repo.originals() == originals
        meta = MemoryStore(GitStore(repo.path)).load_state().meta
        assert {m.id.split(":")[0] for m in meta.values()} == {"decisions"} and len(meta) == 2
        daemon.send_signal(signal.SIGINT)
        daemon.wait(timeout=60)
    finally:
        if daemon.poll() is None:
            daemon.kill()
    assert daemon.returncode == 0 and log.lines[-1] == "daemon stopped cleanly", "\n".join(log.lines)
    assert not any("Traceback" in line or "gave up" in line for line in log.lines)


def test_a_corrupt_hook_file_that_cannot_be_moved_aside_is_reported_once_and_skipped(
        repo: Repo, caplog: pytest.LogCaptureFixture) -> None:
    common = MemoryStore(GitStore(repo.path)).git.common_dir
    inbox = Inbox(common)
    good = inbox.drop("commit")
    (inbox.directory / "0-broken.json").write_text("{not json")
    inbox.corrupt_directory.write_text("a file where the corrupt/ directory should be")  # mkdir fails: EEXIST
    for _ in range(3):
        events, corrupt = inbox.pending()
        assert [e.path for e in events] == [good] and corrupt == []
    assert sum("could not be moved aside" in r.getMessage() for r in caplog.records) == 1
    assert (inbox.directory / "0-broken.json").exists()


# --- warm state: the embedding model and pynndescent ---------------------------------------------

class BlockingCompile:
    """A compile port for KnnWarmup: records calls and blocks until released (stands in for 20-30 s of numba)."""

    def __init__(self) -> None:
        self.calls = 0
        self.started = threading.Event()
        self.release = threading.Event()

    def __call__(self) -> None:
        self.calls += 1
        self.started.set()
        self.release.wait(120)


async def test_the_daemon_loads_the_model_first_and_warms_knn_once_in_the_background_for_big_stores(
        repo: Repo) -> None:
    from memactors.adapters.models.knn_warmup import KnnWarmup, WarmState

    repo.capture("decisions", "Use SQLite for storage")
    repo.capture("learnings", "Retries of payment webhooks must be idempotent")
    model = CountingMiniLM()
    store = MemoryStore(GitStore(repo.path))
    common = store.git.common_dir
    compile = BlockingCompile()
    knn = KnnWarmup(cold_crossover=40_000, warm_crossover=4, compile=compile)
    services = Services(store=store, settings=Settings(), clock=SystemClock(),
                        embedder=CachedEmbedder(model, common / "memactors" / "vectors"))
    daemon = Daemon(services, NotesFeed(common), Inbox(common),
                    DaemonSettings(debounce=0.3, inbox_interval=0.2), knn=knn)
    outcomes = daemon.bus.subscribe("test", (RunCompleted, RunFailed))
    try:
        with trio.fail_after(120):
            async with trio.open_nursery() as nursery:
                await nursery.start(daemon.run)
                await until(outcomes, lambda e: e.report.trigger == "startup")
                assert model.calls[0] == ["memactors warm-up"]  # loaded before any run asked
                assert knn.state is WarmState.COLD and compile.calls == 0  # 2 memories: not worth 30 s
                for summary in ("Payment webhook retries need idempotency keys", "Cache sessions in Redis"):
                    await trio.to_thread.run_sync(repo.capture, "learnings", summary)
                await until(outcomes, lambda e: e.report.memories_embedded == 4)
                await trio.to_thread.run_sync(compile.started.wait, 60)
                assert knn.state is WarmState.WARMING and knn.crossover() == 40_000
                await trio.to_thread.run_sync(repo.capture, "learnings", "Captured while the compile runs")
                done = await until(outcomes, lambda e: e.report.memories_embedded == 5)
                assert done.report.persisted and knn.state is WarmState.WARMING  # the run did not wait
                daemon.stop()  # mid-compile: the daemon must not wait for it
        assert compile.calls == 1 and not compile.release.is_set()
    finally:
        compile.release.set()


async def test_a_finished_warm_up_lowers_the_crossover_and_a_failed_one_keeps_the_exact_path() -> None:
    from memactors.adapters.models.knn_warmup import KnnWarmup, WarmState

    compiled: list[int] = []
    knn = KnnWarmup(cold_crossover=40_000, warm_crossover=10_000, compile=lambda: compiled.append(1))
    assert not knn.should_warm(9_999) and knn.should_warm(10_000)
    await knn.warm()
    assert knn.state is WarmState.WARM and knn.crossover() == 10_000 and compiled == [1]
    assert not knn.should_warm(50_000)  # once per process

    def broken() -> None:
        raise ImportError("No module named 'pynndescent'")

    failed = KnnWarmup(cold_crossover=40_000, warm_crossover=10_000, compile=broken)
    await failed.warm()
    assert failed.state is WarmState.FAILED and failed.crossover() == 40_000 and not failed.should_warm(20_000)
    pointless = KnnWarmup(cold_crossover=5_000, warm_crossover=10_000, compile=broken)
    assert not pointless.should_warm(20_000)  # runs already cross over earlier than a warm daemon would


def test_memactors_run_that_cannot_write_at_all_says_so_in_one_line_and_exits_2(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite for storage")

    def no_room() -> None:  # in the child: every write to a file fails with EFBIG, as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    done = subprocess.run([sys.executable, "-m", "memactors.adapters.cli", "run", "--repo", str(repo.path)],
                          capture_output=True, text=True, timeout=120, preexec_fn=no_room,
                          env={**os.environ, "MEMACTORS_EMBEDDINGS": "none"})
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith("memactors run: cannot write under ") and "File too large" in done.stderr


async def test_the_daemon_reads_a_queued_session_into_proposals_after_its_run(repo: Repo, tmp_path) -> None:
    from memactors.adapters.claude.review_queue import ReviewQueue
    from memactors.adapters.claude.transcript_queue import queue_transcript, queued
    from tests.session_transcripts import s01

    store = MemoryStore(GitStore(repo.path))
    common = store.git.common_dir
    transcript = s01().write(tmp_path)
    daemon = Daemon(Services(store=store, settings=Settings(), clock=SystemClock()), NotesFeed(common),
                    Inbox(common), DaemonSettings(debounce=0.3, inbox_interval=0.2))
    completed = daemon.bus.subscribe("test", (RunCompleted,))
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            await nursery.start(daemon.run)
            await completed.receive()  # the startup run
            queue_transcript(common, str(transcript), "0b6c1c1e-0001", "SessionEnd")
            Inbox(common).drop("session-end", {"session_id": "0b6c1c1e-0001", "transcript_path": str(transcript)})
            await completed.receive()
            while queued(common):  # read after the run completed, in the daemon's own time
                await trio.sleep(0.1)
            daemon.stop()
    pending = ReviewQueue(common).load(SystemClock().now()).pending
    assert sorted(c.summary for c in pending) == [
        "Pin numpy below 3.0 until pynndescent publishes wheels that support it.",
        "Use uv for dependency management from now on."]


async def test_recall_is_answered_by_the_running_daemon_and_falls_back_once_it_stopped(repo: Repo) -> None:
    from memactors.adapters.operations.recall import answer_request
    from memactors.adapters.reading.read_cache import ReadCache
    from memactors.adapters.runtime.query_client import socket_path

    repo.capture("decisions", "Use the Stripe event id as idempotency key", "Stripe retries deliveries.")
    repo.capture("learnings", "Invoice listing needed an index on customer_id", "2 s to 40 ms.")
    store = MemoryStore(GitStore(repo.path))
    common = store.git.common_dir
    model = CachedEmbedder(LocalMiniLM(), common / "memactors" / "vectors")
    services = Services(store=store, settings=Settings(), clock=SystemClock(), embedder=model,
                        read_cache=ReadCache(common, model))
    daemon = Daemon(services, NotesFeed(common), Inbox(common), DaemonSettings(debounce=0.3, inbox_interval=0.2),
                    answer_query=answer_request)
    completed = daemon.bus.subscribe("test", (RunCompleted,))
    words_only = {"MEMACTORS_EMBEDDINGS": "none"}  # the client alone could only match words

    def ask() -> subprocess.CompletedProcess:
        return run_cli("recall", "why are webhook retries not charged twice", "--json", "--repo", str(repo.path),
                       env=words_only)

    with trio.fail_after(90):
        async with trio.open_nursery() as nursery:
            await nursery.start(daemon.run)
            await completed.receive()
            answered = await trio.to_thread.run_sync(ask)
            assert os.stat(socket_path(common)).st_mode & 0o777 == 0o600
            refused = await trio.to_thread.run_sync(lambda: run_cli("recall", "x", "--limit", "0", "--repo",
                                                                    str(repo.path)))
            malformed = await trio.to_thread.run_sync(lambda: run_cli("recall", "x", "--limit", "many", "--repo",
                                                                      str(repo.path)))
            daemon.stop()
    assert refused.returncode == 2 and "--limit must be at least 1" in refused.stderr  # said by the daemon
    assert malformed.returncode == 2 and "invalid int value" in malformed.stderr  # the full parser's word
    assert answered.returncode == 0, answered.stderr
    assert "matching words only" not in answered.stderr  # the daemon's warm model answered
    assert json.loads(answered.stdout)[0]["summary"] == "Use the Stripe event id as idempotency key"
    assert not os.path.exists(socket_path(common))
    alone = ask()
    assert alone.returncode == 0 and "matching words only" in alone.stderr
