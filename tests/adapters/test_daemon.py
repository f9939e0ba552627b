"""The real daemon against real repositories: in a trio nursery, and as `memactors run`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import trio

from memactors.adapters.clock import SystemClock
from memactors.adapters.daemon import Daemon, DaemonSettings
from memactors.adapters.git_store import GitStore
from memactors.adapters.inbox import Inbox
from memactors.adapters.memory_store import META_REF, MemoryStore
from memactors.adapters.notes_feed import NotesFeed
from memactors.adapters.runtime import Services
from memactors.adapters.settings import Settings
from memactors.events.pipeline import RunCompleted
from tests.conftest import Repo, git, run_cli


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
        assert second.returncode == 3 and "another memactors run holds" in second.stderr
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
