"""`memactors run` with the auto memory bridge on: Claude Code's topic files (written in its format in a
temporary home) imported before each of the daemon's runs, the team's memory exported after them."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from tests.adapters.claude.test_auto_memory import _auto_memory, _topic
from tests.conftest import Repo


class LoggedDaemon:
    """`memactors run` in its own process, its log lines collected as they come."""

    def __init__(self, repo: Repo, env: dict[str, str]) -> None:
        self.lines: list[str] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "memactors.adapters.cli", "run", "--repo", str(repo.path),
             "--debounce-seconds", "0.2"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={**os.environ, **env})
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, pattern: str, *, after: int = 0, timeout: float = 90) -> str:
        """The first log line from index `after` on that matches `pattern`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines[after:]:
                if re.search(pattern, line):
                    return line
            assert self.process.poll() is None, "\n".join(self.lines)
            time.sleep(0.1)
        raise AssertionError(f"no log line matching {pattern!r}:\n" + "\n".join(self.lines))

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout=5)
        return self.process.returncode


def test_the_daemon_imports_before_each_run_and_exports_after_when_the_bridge_is_on(repo: Repo) -> None:
    directory = _auto_memory(Path(os.environ["HOME"]), repo.path)
    # captured now, as the imported ones are: the store's clock counts recency from its newest memory
    repo.capture("decisions", "Deploy with blue-green releases only", "Zero downtime.",
                 when=datetime.now(timezone.utc))
    repo.commit("work")
    daemon = LoggedDaemon(repo, {"MEMACTORS_AUTOMEMORY": "on", "MEMACTORS_EMBEDDINGS": "none"})
    try:
        daemon.wait_for(r"auto memory: imported 3 new and 0 edited")
        # the startup run read the store after the import: the three imported memories are in it
        daemon.wait_for(r"\(startup\): 4 memories")
        daemon.wait_for(r"auto memory: exported \d+ memories")
        team = (directory / "memactors-team.md").read_text()
        assert "Deploy with blue-green releases only" in team
        assert "memactors-team.md" in (directory / "MEMORY.md").read_text()

        seen = len(daemon.lines)
        _topic(directory, "reference_grafana.md", "Dashboards", "Latency dashboards live in Grafana", "reference",
               "Folder Checkout.")
        repo.capture("learnings", "Retries must be idempotent", when=datetime.now(timezone.utc))
        daemon.wait_for(r"auto memory: imported 1 new and 0 edited .* \(3 unchanged\)", after=seen)
        daemon.wait_for(r"\(notes\): 6 memories", after=seen)
    finally:
        code = daemon.stop()
    assert code == 0, "\n".join(daemon.lines)
    assert not any("Traceback" in line for line in daemon.lines)

