"""Hook entry points as subprocesses with real hook JSON, the hook installer, and the plugin folder."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from memactors.adapters.claude.inbox import Inbox
from memactors.adapters.cli.dispatch import build_parser
from tests.conftest import ROOT, Repo, git, run_cli

PLUGIN = ROOT / "claude-plugin"
# Claude Code's documented hook configuration: event -> [{matcher?, hooks: [{type: command, command, timeout?}]}]
HOOKS_SCHEMA = {
    "type": "object",
    "required": ["hooks"],
    "properties": {
        "description": {"type": "string"},
        "hooks": {
            "type": "object",
            "propertyNames": {"enum": ["PreToolUse", "PostToolUse", "PostToolUseFailure", "Notification",
                                       "UserPromptSubmit", "Stop",
                                       "SubagentStop", "PreCompact", "SessionStart", "SessionEnd"]},
            "additionalProperties": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["hooks"],
                    "additionalProperties": False,
                    "properties": {
                        "matcher": {"type": "string"},
                        "hooks": {"type": "array", "minItems": 1, "items": {
                            "type": "object", "required": ["type", "command"], "additionalProperties": False,
                            "properties": {"type": {"const": "command"}, "command": {"type": "string"},
                                           "timeout": {"type": "number", "exclusiveMinimum": 0}}}},
                    },
                },
            },
        },
    },
}


def inbox_of(repo: Repo) -> list[dict]:
    events, _ = Inbox(repo.path / ".git").pending()
    return [{"kind": e.kind, **e.payload} for e in events]


def test_session_hooks_queue_their_event_from_the_hook_json(repo: Repo, tmp_path: Path) -> None:
    stop = {"session_id": "abc", "transcript_path": str(tmp_path / "t.jsonl"), "cwd": str(repo.path),
            "hook_event_name": "Stop", "stop_hook_active": False}
    end = {**stop, "hook_event_name": "SessionEnd", "reason": "exit"}
    for hook in (stop, end):
        result = run_cli("publish", "session-end", cwd=tmp_path, input=json.dumps(hook))
        assert result.returncode == 0 and result.stderr == ""
    assert [(e["kind"], e["session_id"]) for e in inbox_of(repo)] == [("stop", "abc"), ("session-end", "abc")]


@pytest.mark.parametrize("stdin", ["{not json", "[1, 2]"])
def test_a_bad_hook_input_never_fails_the_hook(repo: Repo, stdin: str) -> None:
    result = run_cli("publish", "session-end", "--repo", str(repo.path), input=stdin)
    assert result.returncode == 0 and "event not recorded" in result.stderr
    assert inbox_of(repo) == []


def test_every_hook_command_is_a_no_op_under_the_hooks_off_marker(repo: Repo, tmp_path: Path) -> None:
    """What keeps memactors' own LLM sub-sessions (claude-code provider) from queueing or injecting anything."""
    from memactors.adapters.cli.dispatch import HOOK_COMMANDS

    hook = json.dumps({"session_id": "s", "hook_event_name": "SessionEnd", "cwd": str(repo.path)})
    runs = {"publish": [("publish", "commit", "--repo", str(repo.path)), ("publish", "session-end")],
            "context": [("context", "--repo", str(repo.path))], "surface": [("surface",)]}
    assert set(runs) == set(HOOK_COMMANDS)  # a hook command added later gets a case here
    for argv_list in runs.values():
        for argv in argv_list:
            result = run_cli(*argv, cwd=tmp_path, input=hook, env={"MEMACTORS_HOOKS": "off"})
            assert (result.returncode, result.stdout, result.stderr) == (0, "", ""), argv
    assert inbox_of(repo) == []
    assert run_cli("context", "--repo", str(repo.path), input=hook).stdout != ""  # without it, context speaks


def test_publish_outside_a_repository_exits_0_with_a_note(tmp_path: Path) -> None:
    result = run_cli("publish", "commit", "--repo", str(tmp_path))
    assert result.returncode == 0 and "not inside a git repository" in result.stderr


def test_the_publish_path_imports_only_the_standard_library(repo: Repo) -> None:
    code = ("import sys; from memactors.adapters.cli import main; main(['publish', 'commit', '--repo', sys.argv[1]]);"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'trio', 'pydantic', 'pygit2', 'numpy', "
            "'openai', 'yaml', 'onnxruntime', 'tenacity'}))")
    out = subprocess.run([sys.executable, "-c", code, str(repo.path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert [e["kind"] for e in inbox_of(repo)] == ["commit"]


def test_a_hook_loads_only_the_command_group_it_runs(repo: Repo) -> None:
    """The hook path parses its own command only: the other groups' modules cost every agent turn."""
    code = ("import sys; from memactors.adapters.cli import main; main(['publish', 'commit', '--repo', sys.argv[1]]);"
            "print(sorted(m for m in sys.modules if m.startswith('memactors.adapters.cli.')))")
    out = subprocess.run([sys.executable, "-c", code, str(repo.path)], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[0] == str(["memactors.adapters.cli.common", "memactors.adapters.cli.dispatch",
                                             "memactors.adapters.cli.hooks"])


def test_a_corrupt_inbox_file_is_moved_aside_once(repo: Repo) -> None:
    inbox = Inbox(repo.path / ".git")
    inbox.drop("commit")
    (inbox.directory / "0000-broken.json").write_text("{")
    events, corrupt = inbox.pending()
    assert len(events) == 1 and [p.name for p in corrupt] == ["0000-broken.json"]
    assert inbox.pending()[1] == []


def test_installed_git_hook_chains_and_a_real_commit_queues_an_event(repo: Repo) -> None:
    hook = repo.path / ".git" / "hooks" / "post-commit"
    hook.write_text("#!/bin/sh\necho existing >> \"$(git rev-parse --git-dir)/chained.log\"\n")
    hook.chmod(0o755)
    assert run_cli("hooks", "install", "--git", "--repo", str(repo.path)).returncode == 0
    assert run_cli("hooks", "install", "--git", "--repo", str(repo.path)).stdout.count("already installed") == 1
    repo.commit("with hooks")
    assert (repo.path / ".git" / "chained.log").read_text() == "existing\n"
    assert [e["kind"] for e in inbox_of(repo)] == ["commit"]
    assert run_cli("hooks", "uninstall", "--git", "--repo", str(repo.path)).returncode == 0
    assert hook.read_text() == "#!/bin/sh\necho existing >> \"$(git rev-parse --git-dir)/chained.log\"\n"


def test_claude_settings_are_merged_and_uninstall_removes_exactly_ours(repo: Repo) -> None:
    settings = repo.path / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}
    settings.write_text(json.dumps(mine))
    printed = run_cli("hooks", "install", "--claude", "--print", "--repo", str(repo.path))
    assert "would become" in printed.stdout and json.loads(settings.read_text()) == mine
    done = run_cli("hooks", "install", "--claude", "--repo", str(repo.path))
    assert done.returncode == 0
    # offline until an LLM is named: the two ways to use the Claude a user already has, one line each
    assert "PROVIDER=anthropic ANTHROPIC_API_KEY" in done.stdout and "PROVIDER=claude-code" in done.stdout
    named = run_cli("hooks", "install", "--claude", "--repo", str(repo.path),
                    env={"MEMORY_CONSOLIDATION_LLM_PROVIDER": "claude-code"})
    assert "PROVIDER=anthropic" not in named.stdout
    installed = json.loads(settings.read_text())
    jsonschema.validate({"hooks": installed["hooks"]}, HOOKS_SCHEMA)
    assert installed["model"] == "opus" and len(installed["hooks"]["Stop"]) == 2
    assert "SessionEnd" in installed["hooks"] and "PreCompact" in installed["hooks"]  # transcripts read before compaction
    assert installed["hooks"]["SessionStart"][0]["hooks"][0]["command"] == "memactors context"
    run_cli("hooks", "install", "--claude", "--repo", str(repo.path))
    assert json.loads(settings.read_text()) == installed
    assert run_cli("hooks", "uninstall", "--claude", "--repo", str(repo.path)).returncode == 0
    assert json.loads(settings.read_text()) == mine


def test_the_plugin_folder_follows_the_documented_schema() -> None:
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    assert re.fullmatch(r"[a-z][a-z0-9-]*", manifest["name"])
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())
    jsonschema.validate(hooks, HOOKS_SCHEMA)
    parser, _ = build_parser()
    for entries in hooks["hooks"].values():
        for entry in entries:
            for hook in entry["hooks"]:
                words = hook["command"].split()
                assert words[0] == "memactors"
                parser.parse_args(words[1:])  # a command the CLI really has
    commands = sorted(p.stem for p in (PLUGIN / "commands").glob("*.md"))
    assert commands == ["automemory", "consolidate", "edges", "recall", "review", "status", "tiers"]
    from memactors.adapters.claude.hook_setup import CLAUDE_HOOKS

    # the plugin and `hooks install --claude` register the same events, matchers and commands
    assert {(event, entry.get("matcher"), entry["hooks"][0]["command"]) for event, entries in hooks["hooks"].items()
            for entry in entries} == {(event, matcher, f"memactors {arguments}")
                                      for event, matcher, arguments, _timeout in CLAUDE_HOOKS}
    for path in (PLUGIN / "commands").glob("*.md"):
        text = path.read_text()
        front = text.split("---")[1]
        assert "description:" in front and f"memactors {path.stem}" in text


def test_consolidate_drains_the_inbox(repo: Repo) -> None:
    Inbox(repo.path / ".git").drop("commit")
    result = run_cli("consolidate", "--json", "--repo", str(repo.path), env={**os.environ})
    assert json.loads(result.stdout)["inbox_events"] == 1 and inbox_of(repo) == []
    assert git(repo.path, "status", "--porcelain").stdout == ""


def test_shared_settings_get_commands_that_work_on_any_machine_and_local_ones_this_machines_path(
        repo: Repo) -> None:
    """What a teammate's clone reads from the committed settings names no path of this machine."""
    assert run_cli("hooks", "install", "--claude", "--repo", str(repo.path)).returncode == 0
    shared = (repo.path / ".claude" / "settings.json").read_text()
    assert sys.executable not in shared and str(Path.home()) not in shared
    commands = [h["command"] for entries in json.loads(shared)["hooks"].values() for e in entries for h in e["hooks"]]
    assert sorted(commands) == ["memactors context", "memactors publish session-end", "memactors publish session-end",
                                "memactors publish session-end", "memactors surface", "memactors surface",
                                "memactors surface"]

    assert run_cli("hooks", "install", "--claude", "--local", "--repo", str(repo.path)).returncode == 0
    local = json.loads((repo.path / ".claude" / "settings.local.json").read_text())
    start = local["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert start == f'"{sys.executable}" -m memactors.adapters.cli context'
    assert (repo.path / ".claude" / "settings.json").read_text() == shared  # the committed file is untouched

    assert run_cli("hooks", "uninstall", "--claude", "--repo", str(repo.path)).returncode == 0
    # install created both files: uninstall removes them, and the .claude folder it left empty
    assert not (repo.path / ".claude").exists()


def test_hooks_an_earlier_version_wrote_keep_working_and_are_replaced_or_removed(repo: Repo) -> None:
    old = f'"{sys.executable}" -m memactors.adapters.cli'
    mine = {"type": "command", "command": "say done"}
    written_before = {"hooks": {
        "Stop": [{"hooks": [mine]}, {"hooks": [{"type": "command", "command": f"{old} publish session-end"}]}],
        "SessionStart": [{"hooks": [{"type": "command", "command": f"{old} context", "timeout": 10}]}],
    }}
    settings = repo.path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(written_before))
    ran = subprocess.run(f"{old} publish session-end", shell=True, cwd=repo.path, input='{"hook_event_name": "Stop"}',
                         capture_output=True, text=True)
    assert ran.returncode == 0 and [e["kind"] for e in inbox_of(repo)] == ["stop"]  # the old command still runs

    assert run_cli("hooks", "install", "--claude", "--repo", str(repo.path)).returncode == 0
    stop = json.loads(settings.read_text())["hooks"]["Stop"]
    assert [h["command"] for e in stop for h in e["hooks"]] == ["say done", "memactors publish session-end"]

    settings.write_text(json.dumps(written_before))
    assert run_cli("hooks", "uninstall", "--claude", "--repo", str(repo.path)).returncode == 0
    assert json.loads(settings.read_text()) == {"hooks": {"Stop": [{"hooks": [mine]}]}}


def test_the_mcp_server_is_registered_portably_and_uninstall_removes_exactly_it(repo: Repo) -> None:
    mcp = repo.path / ".mcp.json"
    theirs = {"mcpServers": {"docs": {"type": "stdio", "command": "docs-server", "args": []}}}
    mcp.write_text(json.dumps(theirs))
    assert run_cli("hooks", "install", "--claude", "--repo", str(repo.path)).returncode == 0
    installed = json.loads(mcp.read_text())
    assert installed["mcpServers"]["docs"] == theirs["mcpServers"]["docs"]
    assert installed["mcpServers"]["memactors"] == {"type": "stdio", "command": "memactors", "args": ["mcp"]}
    assert sys.executable not in mcp.read_text()  # committed with the project: no path of this machine
    assert run_cli("hooks", "install", "--claude", "--repo", str(repo.path)).returncode == 0
    assert json.loads(mcp.read_text()) == installed
    assert run_cli("hooks", "uninstall", "--claude", "--repo", str(repo.path)).returncode == 0
    assert json.loads(mcp.read_text()) == theirs
    mcp.unlink()
    assert run_cli("hooks", "install", "--claude", "--repo", str(repo.path)).returncode == 0
    assert run_cli("hooks", "uninstall", "--claude", "--repo", str(repo.path)).returncode == 0
    assert not mcp.exists()  # it held only ours
    local = run_cli("hooks", "install", "--claude", "--local", "--repo", str(repo.path))
    assert not mcp.exists() and "claude mcp add --scope local memactors" in local.stdout


def test_someone_else_s_server_named_memactors_is_left_alone(repo: Repo) -> None:
    mcp = repo.path / ".mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {"memactors": {"command": "something-else"}}}))
    done = run_cli("hooks", "install", "--claude", "--repo", str(repo.path))
    assert done.returncode == 2 and "already names another server" in done.stderr
    assert json.loads(mcp.read_text()) == {"mcpServers": {"memactors": {"command": "something-else"}}}


def test_the_plugin_declares_the_mcp_server() -> None:
    from memactors.adapters.claude.hook_setup import mcp_server

    declared = json.loads((PLUGIN / ".mcp.json").read_text())
    assert declared["mcpServers"]["memactors"] == mcp_server()
    parser, _ = build_parser()
    parser.parse_args([*declared["mcpServers"]["memactors"]["args"]])  # a command the CLI really has
