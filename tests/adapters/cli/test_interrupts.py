"""Ctrl-C at any moment ends a command with its documented exit code: never an abort, never a traceback.

Documented: a one-shot command interrupted exits 130; `memactors run` stopped by a signal exits 0; a
`recall` before the first consolidation searches the memories as captured (exit 0). The model loads in a worker thread early in both, so
random moments land before, during and after the load.
"""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time

import pytest

from memactors.adapters.system.process_exit import in_flight, native_work
from tests.conftest import Repo, run_cli


def _interrupted(command: list[str], after: float) -> subprocess.CompletedProcess:
    # as from a terminal: a suite started in the background (`cmd &` in a script) ignores SIGINT, and
    # an ignored disposition is inherited across exec
    proc = subprocess.Popen([sys.executable, "-m", "memactors.adapters.cli", *command],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(after)
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"{command[0]} interrupted after {after} s did not end within 120 s: {err[-3000:]}")
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def _check(results: list[tuple[float, subprocess.CompletedProcess]], allowed: set[int]) -> None:
    for after, result in results:
        assert result.returncode in allowed, (after, result.returncode, result.stderr[-2000:])
        assert "Traceback" not in result.stderr and "terminate called" not in result.stderr, (after, result.stderr)


def test_recall_interrupted_at_random_moments_exits_only_with_documented_codes(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite for storage", "WAL mode for concurrent writers.")
    # from 0.25 s: after the interpreter itself started (a Ctrl-C inside Python's own start-up is Python's)
    moments = random.Random(22).sample([i / 20 for i in range(5, 26)], 8)
    before = [(t, _interrupted(["recall", "storage", "--repo", str(repo.path)], t)) for t in moments]
    _check(before, {0, 130})  # not consolidated yet: searched as captured
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    after = [(t, _interrupted(["recall", "storage", "--no-track", "--repo", str(repo.path)], t)) for t in moments]
    _check(after, {0, 130})
    assert {r.returncode for _, r in before + after} & {130}, "no moment landed while the command ran"


def test_run_interrupted_at_random_moments_always_stops_with_exit_0(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite for storage")
    moments = random.Random(7).sample([i / 10 for i in range(3, 25)], 8)
    results = [(t, _interrupted(["run", "--repo", str(repo.path)], t)) for t in moments]
    _check(results, {0})
    assert all("memactors run: stopped" in r.stderr for _, r in results)


def test_a_process_leaving_during_native_work_exits_at_once_with_its_code() -> None:
    """What `leave` does when a worker thread is still inside native code: flushed output, the exact code."""
    script = (
        "import sys, threading, time\n"
        "from memactors.adapters.system.process_exit import native_work, leave\n"
        "started = threading.Event()\n"
        "def work():\n"
        "    with native_work():\n"
        "        started.set(); time.sleep(30)\n"
        "threading.Thread(target=work).start()\n"  # not a daemon thread: a normal exit would wait 30 s
        "started.wait(); print('bye', end='')\n"
        "leave(7)\n")
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=25)
    assert (result.returncode, result.stdout) == (7, "bye")
    assert time.monotonic() - started < 20


def test_native_work_is_counted_while_it_runs_and_not_after() -> None:
    assert not in_flight()
    with native_work():
        assert in_flight()
    with pytest.raises(RuntimeError), native_work():
        raise RuntimeError("a failed load")
    assert not in_flight()


# Python drops a KeyboardInterrupt raised inside a callback it runs itself ("Exception ignored in ..."): a
# weakref callback is one, as the import machinery's module-lock callback is, where CI once lost a Ctrl-C
_CTRL_C_DROPPED_IN_A_CALLBACK = (
    "import os, signal, weakref\n"
    "class Thing: pass\n"
    "thing = Thing()\n"
    "ref = weakref.ref(thing, lambda _r: (os.kill(os.getpid(), signal.SIGINT), [i for i in range(1000)]))\n"
    "del thing\n")


def _after_a_dropped_ctrl_c(then: str) -> subprocess.CompletedProcess:
    """Run `then` (Python source) in a fresh interpreter after a Ctrl-C whose KeyboardInterrupt Python dropped."""
    script = ("import sys\n"
              "from memactors.adapters.system.process_exit import remember_dropped_interrupts, interrupt_dropped\n"
              "remember_dropped_interrupts()\n" + _CTRL_C_DROPPED_IN_A_CALLBACK
              + "print('went on', file=sys.stderr)\n" + then)
    try:
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"still running 120 s after a Ctrl-C: {str(exc.stderr or '')[-2000:]}")
    assert "went on" in result.stderr  # the KeyboardInterrupt was dropped: the script did not end there
    assert "Exception ignored" not in result.stderr and "Traceback" not in result.stderr, result.stderr[-2000:]
    return result


def test_a_ctrl_c_python_drops_inside_a_callback_is_still_seen() -> None:
    result = _after_a_dropped_ctrl_c("print(interrupt_dropped())\n")
    assert (result.returncode, result.stdout) == (0, "True\n")


def test_run_whose_ctrl_c_python_dropped_before_it_watched_still_stops_with_exit_0(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite for storage")
    result = _after_a_dropped_ctrl_c(f"from memactors.adapters.cli import main\n"
                                     f"sys.exit(main(['run', '--repo', {str(repo.path)!r}]))\n")
    assert result.returncode == 0 and "memactors run: stopped" in result.stderr, result.stderr[-2000:]


def test_view_whose_ctrl_c_python_dropped_while_starting_stops_with_exit_0(repo: Repo) -> None:
    repo.capture("decisions", "Use SQLite for storage")
    result = _after_a_dropped_ctrl_c(f"from memactors.adapters.cli import main\n"
                                     f"sys.exit(main(['view', '--no-open', '--repo', {str(repo.path)!r}]))\n")
    assert (result.returncode, result.stdout.strip()) == (0, "memactors view: stopped"), result.stderr[-2000:]
