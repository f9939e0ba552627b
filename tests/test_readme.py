"""The README is true: every flag its command table names is accepted, its --repo and --json claims hold, and
every file it points at exists."""

from __future__ import annotations

import argparse
import re

import pytest

from memactors.adapters.cli.dispatch import build_parser
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()
#: `| \`memactors ...\` | ... |` rows of the command table.
ROWS = re.findall(r"^\| `memactors ([^`]+)` \|", README, re.M)


def _subparsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    parser, _ = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    return parser, dict(action.choices)


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    return {flag for action in parser._actions for flag in action.option_strings}  # noqa: SLF001


def test_the_command_table_lists_every_command() -> None:
    _, commands = _subparsers()
    listed = {row.split()[0] for row in ROWS}
    assert set(commands) <= listed, set(commands) - listed


@pytest.mark.parametrize("row", ROWS)
def test_every_flag_the_command_table_names_is_accepted(row: str) -> None:
    top, commands = _subparsers()
    name = row.split()[0]
    parser = top if name.startswith("-") else commands[name]
    named = set(re.findall(r"--[a-z][a-z-]*", row))
    assert named <= _flags(parser) | _flags(top), f"memactors {name} rejects {named - _flags(parser)}"


def _sentence(start: str) -> str:
    at = README.index(start)
    return README[at : README.index(". ", at)]


def test_the_json_and_repo_claims_hold() -> None:
    _, commands = _subparsers()
    json_sentence = " ".join(_sentence("`--json` (one JSON document on stdout)").split())
    claimed = set(re.findall(r"`([a-z]+)(?: check)?`", json_sentence.split("is taken by", 1)[1].split(";")[0]))
    assert claimed and all("--json" in _flags(commands[name]) for name in claimed), claimed
    no_json = {name for name, p in commands.items() if "--json" not in _flags(p)}
    assert no_json == {"run", "mcp", "view", "hooks", "context", "publish"}
    no_repo = {name for name, p in commands.items() if "--repo" not in _flags(p)}
    repo_sentence = " ".join(_sentence("`--repo PATH` (default").split())
    assert no_repo == set(re.findall(r"`([a-z]+)` \(", repo_sentence)), (no_repo, repo_sentence)


def test_every_file_the_readme_names_exists() -> None:
    assert "DESIGN.md" not in README and "shared/" not in README
    named = set(re.findall(r"`((?:adapters|actors|events|bus|tests|bench|claude-plugin|\.claude-plugin|\.ci)/"
                           r"[\w./-]*\w)(?::[^`]*)?`", README))
    assert named
    missing = sorted(path for path in named if not (ROOT / path).exists())
    assert not missing, missing
