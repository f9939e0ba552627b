"""`memactors service install | uninstall`: a per-user service for `memactors run`, removed exactly."""

from __future__ import annotations

import plistlib
import shutil
import sys
from pathlib import Path

import pytest

from memactors.adapters.runtime.service_unit import service_for
from tests.conftest import Repo, run_cli


def _units(home: Path) -> Path:
    return home / ".config" / "systemd" / "user"


def test_install_writes_a_unit_that_runs_the_daemon_with_this_python_and_uninstall_removes_exactly_it(
        repo: Repo, tmp_path: Path) -> None:
    home = tmp_path / "home"
    neighbour = _units(home) / "other.service"
    neighbour.parent.mkdir(parents=True)
    neighbour.write_text("[Service]\nExecStart=/bin/true\n")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": ""}
    installed = run_cli("service", "install", "--no-start", "--repo", str(repo.path), env=env)
    assert installed.returncode == 0, installed.stderr
    [unit] = [p for p in _units(home).glob("memactors-*.service")]
    text = unit.read_text()
    assert f"ExecStart={sys.executable} -m memactors.adapters.cli run --repo {repo.path.resolve()}" in text
    assert "Restart=on-failure" in text and "WantedBy=default.target" in text
    assert "start it with: systemctl --user daemon-reload" in installed.stdout
    again = run_cli("service", "install", "--no-start", "--repo", str(repo.path), env=env)
    assert again.returncode == 0 and list(_units(home).glob("memactors-*.service")) == [unit]
    removed = run_cli("service", "uninstall", "--no-start", "--repo", str(repo.path), env=env)
    assert removed.returncode == 0 and not unit.exists()
    assert neighbour.read_text() == "[Service]\nExecStart=/bin/true\n"
    nothing = run_cli("service", "uninstall", "--no-start", "--repo", str(repo.path), env=env)
    assert nothing.returncode == 0 and "nothing to remove" in nothing.stdout


def test_a_file_memactors_did_not_write_is_never_overwritten_or_removed(repo: Repo, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    unit = service_for(repo.path, platform="linux", home=home)
    unit.path.parent.mkdir(parents=True)
    unit.path.write_text("mine\n")
    env = {"HOME": str(home), "XDG_CONFIG_HOME": ""}
    for action in ("install", "uninstall"):
        result = run_cli("service", action, "--no-start", "--repo", str(repo.path), env=env)
        assert result.returncode == 2 and "not written by memactors" in result.stderr
    assert unit.path.read_text() == "mine\n"


@pytest.mark.skipif(shutil.which("systemctl") is None, reason="systemctl is not on this machine")
def test_with_systemctl_but_no_user_manager_install_says_how_to_start_and_uninstall_leaves_nothing(
        repo: Repo, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": "", "XDG_RUNTIME_DIR": str(tmp_path / "no-runtime"),
           "DBUS_SESSION_BUS_ADDRESS": "unix:path=" + str(tmp_path / "no-bus")}
    installed = run_cli("service", "install", "--repo", str(repo.path), env=env)
    assert installed.returncode in (0, 1), installed.stderr
    if installed.returncode == 1:
        assert "start it with: systemctl --user" in installed.stdout and "Traceback" not in installed.stderr
    removed = run_cli("service", "uninstall", "--repo", str(repo.path), env=env)
    assert "removed" in removed.stdout
    left = [p for p in home.rglob("*") if p.is_file() or p.is_symlink()]
    assert left == [], left


def test_the_launchd_agent_runs_the_daemon_and_restarts_it_after_a_failure(tmp_path: Path) -> None:
    unit = service_for(tmp_path, platform="darwin", home=tmp_path / "home", python="/opt/py/bin/python3")
    plist = plistlib.loads(unit.text.encode())
    assert plist["ProgramArguments"] == ["/opt/py/bin/python3", "-m", "memactors.adapters.cli", "run", "--repo",
                                         str(tmp_path.resolve())]
    assert plist["RunAtLoad"] is True and plist["KeepAlive"] == {"SuccessfulExit": False}
    assert unit.path.parent == tmp_path / "home" / "Library" / "LaunchAgents"
    assert unit.start == (("launchctl", "load", "-w", str(unit.path)),)
