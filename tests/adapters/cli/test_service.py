"""`memactors service install | uninstall`: a per-user service for `memactors run`, removed exactly."""

from __future__ import annotations

import json
import os
import plistlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memactors.adapters.runtime.service_unit import environment_file, service_for
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
    assert not (home / ".config" / "memactors" / f"{unit.stem}.env").exists()  # untouched: it goes with the unit
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
    assert removed.returncode == 0 and "removed" in removed.stdout, removed.stdout
    left = [p for p in home.rglob("*") if p.is_file() or p.is_symlink()]
    assert left == [], left


def test_the_launchd_agent_runs_the_daemon_and_restarts_it_after_a_failure(tmp_path: Path) -> None:
    unit = service_for(tmp_path, platform="darwin", home=tmp_path / "home", python="/opt/py/bin/python3")
    plist = plistlib.loads(unit.text.encode())
    assert plist["ProgramArguments"][-6:] == ["/opt/py/bin/python3", "-m", "memactors.adapters.cli", "run",
                                              "--repo", str(tmp_path.resolve())]
    assert plist["RunAtLoad"] is True and plist["KeepAlive"] == {"SuccessfulExit": False}
    assert unit.path.parent == tmp_path / "home" / "Library" / "LaunchAgents"
    assert unit.start == (("launchctl", "load", "-w", str(unit.path)),)


#: Shaped like an Anthropic key, so that any file or output holding it is found.
SECRET = "sk-ant-api03-" + "Zq7" * 30 + "-AA"


def _files(home: Path) -> list[Path]:
    return [p for p in home.rglob("*") if p.is_file()]


def test_install_carries_the_llm_settings_in_an_environment_file_the_unit_reads_and_never_writes_a_key(
        repo: Repo, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": "", "MEMORY_CONSOLIDATION_LLM_PROVIDER": "anthropic",
           "MEMORY_CONSOLIDATION_LLM_MODEL": "claude-sonnet-4-5", "MEMACTORS_MAX_COST_USD_PER_DAY": "0.5",
           "ANTHROPIC_API_KEY": SECRET}
    installed = run_cli("service", "install", "--no-start", "--repo", str(repo.path), env=env)
    assert installed.returncode == 0, installed.stderr
    [unit] = list(_units(home).glob("memactors-*.service"))
    settings = home / ".config" / "memactors" / f"{unit.stem}.env"
    assert f"EnvironmentFile=-{settings}\n" in unit.read_text()
    lines = settings.read_text().splitlines()
    assert 'MEMORY_CONSOLIDATION_LLM_PROVIDER="anthropic"' in lines
    assert 'MEMORY_CONSOLIDATION_LLM_MODEL="claude-sonnet-4-5"' in lines
    assert 'MEMACTORS_MAX_COST_USD_PER_DAY="0.5"' in lines
    assert "# ANTHROPIC_API_KEY=" in lines  # where the user puts it
    assert settings.stat().st_mode & 0o777 == 0o600  # it will hold the user's key
    assert all(SECRET not in f.read_text() for f in _files(home))
    assert SECRET not in installed.stdout + installed.stderr
    said = installed.stdout.splitlines()
    assert (f"memactors service: wrote {settings} (the service's environment, yours to edit): "
            "MEMORY_CONSOLIDATION_LLM_PROVIDER=anthropic, MEMORY_CONSOLIDATION_LLM_MODEL=claude-sonnet-4-5, "
            "MEMACTORS_MAX_COST_USD_PER_DAY=0.5") in said
    assert (f"memactors service: add ANTHROPIC_API_KEY=<your key> to {settings} yourself (install never copies "
            f"a secret), then restart it: systemctl --user restart {unit.name}") in said

    # the user adds the key: a second install keeps the file as it is, uninstall leaves it
    settings.write_text(settings.read_text() + f"ANTHROPIC_API_KEY={SECRET}\n")
    again = run_cli("service", "install", "--no-start", "--json", "--repo", str(repo.path),
                    env={**env, "MEMORY_CONSOLIDATION_LLM_MODEL": "claude-haiku-4-5"})
    document = json.loads(again.stdout)
    assert again.returncode == 0 and document["environment_file"] == str(settings)
    assert document["environment_file_kept"] is True and document["add_yourself"] == []
    assert settings.read_text().endswith(f"ANTHROPIC_API_KEY={SECRET}\n")
    assert 'MEMORY_CONSOLIDATION_LLM_MODEL="claude-sonnet-4-5"' in settings.read_text()
    removed = run_cli("service", "uninstall", "--no-start", "--repo", str(repo.path), env=env)
    assert removed.returncode == 0 and not unit.exists() and settings.exists()
    assert f"memactors service: kept {settings}: you edited it; delete it when you no longer need it" \
        in removed.stdout.splitlines()


def test_with_no_provider_named_install_says_the_daemon_runs_offline_and_where_to_name_one(
        repo: Repo, tmp_path: Path) -> None:
    home = tmp_path / "home"
    installed = run_cli("service", "install", "--no-start", "--repo", str(repo.path),
                        env={"HOME": str(home), "XDG_CONFIG_HOME": ""})
    [settings] = list((home / ".config" / "memactors").glob("memactors-*.env"))
    assert installed.returncode == 0
    assert (f"memactors service: wrote {settings} (the service's environment, yours to edit): no LLM provider is "
            "named in your environment, so the daemon runs offline; set MEMORY_CONSOLIDATION_LLM_PROVIDER there "
            "to name one") in installed.stdout.splitlines()


def test_for_claude_code_the_file_names_the_claude_found_on_the_shells_path(repo: Repo, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    claude = bin_dir / "claude"
    claude.write_text("#!/bin/sh\nexit 0\n")
    claude.chmod(0o755)
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": "", "MEMORY_LLM_PROVIDER": "claude-code",
           "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    installed = run_cli("service", "install", "--no-start", "--repo", str(repo.path), env=env)
    assert installed.returncode == 0, installed.stderr
    [settings] = list((home / ".config" / "memactors").glob("memactors-*.env"))
    lines = settings.read_text().splitlines()
    assert 'MEMORY_LLM_PROVIDER="claude-code"' in lines and f'MEMACTORS_CLAUDE_COMMAND="{claude}"' in lines
    assert "add " not in installed.stdout  # claude-code needs no key


def test_uninstall_without_a_reachable_service_manager_removes_the_file_and_exits_0(
        repo: Repo, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": ""}
    assert run_cli("service", "install", "--no-start", "--repo", str(repo.path), env=env).returncode == 0
    [unit] = list(_units(home).glob("memactors-*.service"))
    only_git = tmp_path / "only-git"  # a PATH with git and no systemctl
    only_git.mkdir()
    (only_git / "git").symlink_to(shutil.which("git"))
    removed = run_cli("service", "uninstall", "--repo", str(repo.path), env={**env, "PATH": str(only_git)})
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert not unit.exists() and _files(home) == []
    said = removed.stdout.splitlines()
    assert f"memactors service: removed {unit}" in said
    assert ("memactors service: systemctl could not be reached; if the service still runs, stop it with: "
            f"systemctl --user disable --now {unit.name}") in said
    assert "Traceback" not in removed.stderr


def test_the_launchd_agent_reads_the_environment_file_at_each_start(tmp_path: Path) -> None:
    """The plist's program is a wrapper that reads the file, then runs the daemon: run it as launchd would."""
    fake_python = tmp_path / "python3"  # stands in for the daemon: prints what it was given
    fake_python.write_text('#!/bin/sh\nprintf \'%s|%s|%s\\n\' "$MEMORY_CONSOLIDATION_LLM_PROVIDER" '
                           '"$MEMORY_CONSOLIDATION_LLM_BASE_URL" "$*"\n')
    fake_python.chmod(0o755)
    unit = service_for(tmp_path, platform="darwin", home=tmp_path / "home", python=str(fake_python))
    odd = 'http://localhost:1234/v1?a="b"&c=$HOME`x`\\'
    made = environment_file(unit, {"MEMORY_CONSOLIDATION_LLM_PROVIDER": "lmstudio",
                                   "MEMORY_CONSOLIDATION_LLM_BASE_URL": odd, "OPENAI_API_KEY": SECRET})
    assert made.add_yourself == ("OPENAI_API_KEY",) and SECRET not in made.text
    unit.environment_file.parent.mkdir(parents=True)
    unit.environment_file.write_text(made.text)
    program = plistlib.loads(unit.text.encode())["ProgramArguments"]
    ran = subprocess.run(program, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}, timeout=30)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == f"lmstudio|{odd}|-m memactors.adapters.cli run --repo {tmp_path.resolve()}\n"
    unit.environment_file.unlink()  # deleted by the user: the daemon still starts (offline)
    ran = subprocess.run(program, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}, timeout=30)
    assert ran.returncode == 0 and ran.stdout.startswith("||-m memactors.adapters.cli run"), ran.stderr
