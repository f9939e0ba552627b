"""A running daemon serves the user: it holds the repository only while it runs, takes `consolidate` over,
lets `resolve`, `sync` and `doctor --repair` through, and every refusal names who holds the repository."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest

from memactors.adapters.git.repo_lock import RepoLock, daemon_holder
from tests.conftest import NOW, Repo, git, run_cli

META_REF = "refs/notes/mem-meta"


@contextmanager
def running_daemon(repo: Repo) -> Iterator[subprocess.Popen]:
    """`memactors run` on `repo`, returned once its startup run completed."""
    command = [sys.executable, "-m", "memactors.adapters.cli", "run", "--repo", str(repo.path),
               "--debounce-seconds", "0.2"]
    daemon = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert daemon.stderr is not None
        for line in daemon.stderr:
            if "(startup)" in line:
                break
        else:
            pytest.fail(f"the daemon ended before its startup run: {daemon.wait()}")
        yield daemon
    finally:
        if daemon.poll() is None:
            daemon.send_signal(signal.SIGINT)
            try:
                daemon.wait(timeout=60)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()


def _common(repo: Repo) -> Path:
    found = Path(git(repo.path, "rev-parse", "--git-common-dir").stdout.strip())
    return found if found.is_absolute() else repo.path / found


def test_an_idle_daemon_holds_no_run_lock_and_says_it_serves(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite for storage")
    with running_daemon(repo) as daemon:
        assert daemon_holder(_common(repo)) == str(daemon.pid)
        lock = RepoLock(_common(repo), role="test")
        # a run the notes feed starts right after the startup run (the capture above) may still hold it: once
        # that is done the daemon is idle, and idle it must hold nothing
        deadline = time.monotonic() + 60
        while not lock.try_acquire():
            assert time.monotonic() < deadline, "an idle daemon must leave the run lock free"
            time.sleep(0.1)
        lock.release()
    assert daemon_holder(_common(repo)) is None


def test_consolidate_during_the_daemon_is_handed_to_it_and_prints_its_report(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite for storage")
    with running_daemon(repo) as daemon:
        repo.capture("learnings", "WAL mode is needed for concurrent hook writes")
        result = run_cli("consolidate", "--json", "--repo", str(repo.path))
        assert result.returncode == 0, result.stderr
        assert f"handed to the memactors daemon (pid {daemon.pid})" in result.stderr
        report = json.loads(result.stdout)
        assert report["phase"] == "completed" and "consolidate" in report["trigger"]
        assert report["memories_processed"] == 2
        queued = run_cli("consolidate", "--no-wait", "--repo", str(repo.path))
        assert queued.returncode == 0 and "queued for the memactors daemon" in queued.stderr
        assert queued.stdout == ""
        inbox = _common(repo) / "memactors" / "inbox"
        deadline = time.monotonic() + 60
        while list(inbox.glob("*.json")):  # the daemon ran it and released the request
            assert time.monotonic() < deadline, "the queued run never happened"
            time.sleep(0.1)


def test_a_request_the_daemon_never_ran_is_run_by_the_command_itself(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite for storage")
    with running_daemon(repo) as daemon:
        daemon.send_signal(signal.SIGSTOP)  # alive but stuck: the request waits
        waiting = subprocess.Popen([sys.executable, "-m", "memactors.adapters.cli", "consolidate", "--json",
                                    "--repo", str(repo.path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        inbox = _common(repo) / "memactors" / "inbox"
        deadline = time.monotonic() + 60
        while not list(inbox.glob("*.json")):  # the request is queued
            assert time.monotonic() < deadline and waiting.poll() is None, waiting.poll()
            time.sleep(0.05)
        daemon.send_signal(signal.SIGKILL)  # it dies without running it
        daemon.wait()
        out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err
    assert "the daemon stopped before it ran; running here" in err
    assert json.loads(out)["phase"] == "completed"
    assert not list((_common(repo) / "memactors" / "inbox").glob("*.json"))


def test_resolve_sync_and_doctor_repair_work_while_the_daemon_runs(repo: Repo, tmp_path: Path) -> None:
    repo.capture("decisions", "Use Redis for session caching", "Fast and simple.", when=NOW - timedelta(days=3))
    repo.capture("decisions", "Do not use Redis for session caching", "It loses sessions on restart.",
                 when=NOW - timedelta(days=1))
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(repo.path, "remote", "add", "origin", str(remote))
    git(repo.path, "push", "-q", "origin", "HEAD:refs/heads/main")
    with running_daemon(repo):
        conflicts = json.loads(run_cli("conflicts", "--json", "--repo", str(repo.path)).stdout)
        assert len(conflicts) == 1
        resolved = run_cli("resolve", conflicts[0]["conflict_id"][:8], "--both", "--repo", str(repo.path))
        assert resolved.returncode == 0, resolved.stderr
        assert "the daemon's next run applies it" in resolved.stdout
        assert json.loads(run_cli("conflicts", "--json", "--repo", str(repo.path)).stdout) == []
        synced = run_cli("sync", "--repo", str(repo.path))
        assert synced.returncode == 0, synced.stderr
        repaired = run_cli("doctor", "--repair", "--repo", str(repo.path))
        assert repaired.returncode == 0, repaired.stderr


def test_a_command_that_waited_too_long_names_the_daemon_and_its_pid(repo: Repo) -> None:
    """The daemon mid-run (its run lock held, as during a long LLM run): sync waits, then says who and what to do."""
    repo.capture("decisions", "Use SQLite for storage")
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from pathlib import Path; from memactors.adapters.git.repo_lock import RepoLock\n"
        f"lock = RepoLock(Path({str(_common(repo))!r}), role='daemon'); lock.acquire(); print('held', flush=True)\n"
        "time.sleep(60)")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        for command in (["sync"], ["doctor", "--repair"]):
            result = run_cli(*command, "--repo", str(repo.path), env={"MEMACTORS_LOCK_WAIT_SECONDS": "0.5"})
            assert result.returncode == 3, result.stderr
            assert f"the memactors daemon (`memactors run`, pid {holder.pid}) is consolidating this repository " \
                   "(waited 0.5 s); wait for it to finish, then retry" in result.stderr
        assert time.monotonic() - started > 1.0  # both waited before refusing
    finally:
        holder.kill()
        holder.wait()


def test_the_daemon_waits_for_a_one_shot_run_instead_of_failing(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite for storage")
    lock = RepoLock(_common(repo), role="consolidate")
    lock.acquire()  # a one-shot run in progress when the daemon starts
    command = [sys.executable, "-m", "memactors.adapters.cli", "run", "--repo", str(repo.path)]
    daemon = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert daemon.stderr is not None
        for line in daemon.stderr:
            if "waiting: a one-shot `memactors consolidate`" in line:
                assert f"pid {os.getpid()}" in line
                break
        assert git(repo.path, "rev-parse", "-q", "--verify", META_REF, check=False).returncode != 0
        lock.release()
        for line in daemon.stderr:
            if "(startup)" in line:
                break
        assert git(repo.path, "rev-parse", "-q", "--verify", META_REF, check=False).returncode == 0
    finally:
        lock.release()
        daemon.send_signal(signal.SIGINT)
        daemon.wait(timeout=60)
