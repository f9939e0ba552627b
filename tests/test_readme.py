"""The README and the docs are true: every flag their command tables name is accepted, the --repo and --json
claims hold, and every file they point at exists."""

from __future__ import annotations

import argparse
import re

import pytest

from memactors.adapters.cli.dispatch import build_parser
from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()
DOCS = {path.relative_to(ROOT).as_posix(): path.read_text() for path in sorted((ROOT / "docs").rglob("*.md"))}
#: Where the command table with every flag, and the --repo / --json sentences, moved.
GETTING_STARTED = DOCS["docs/getting-started.md"]
#: The hand-written command tables: the README's short one and the docs' one at a glance.
TABLES = {"README.md": README, "docs/getting-started.md": GETTING_STARTED}
#: `| \`memactors ...\` | ... |` rows of a command table: the first cell, whose alternatives may be split into
#: code spans (`a` \| `b`: a pipe inside a code span would end the cell on GitHub, and show its backslash in mkdocs).
ROWS = [(name, row.replace("` \\| `", " | ").replace("\\|", "|")) for name, text in TABLES.items()
        for row in re.findall(r"^\| `memactors ((?:\\\||[^|])+?)` \|", text, re.M)]


def _subparsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    parser, _ = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    return parser, dict(action.choices)


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    return {flag for action in parser._actions for flag in action.option_strings}  # noqa: SLF001


@pytest.mark.parametrize("table", sorted(TABLES))
def test_the_command_table_lists_every_command(table: str) -> None:
    _, commands = _subparsers()
    listed = {row.split()[0] for name, row in ROWS if name == table}
    assert set(commands) <= listed, f"{table} lacks {set(commands) - listed}"


@pytest.mark.parametrize(("table", "row"), ROWS)
def test_every_flag_the_command_table_names_is_accepted(table: str, row: str) -> None:
    top, commands = _subparsers()
    name = row.split()[0]
    parser = top if name.startswith("-") else commands[name]
    named = set(re.findall(r"--[a-z][a-z-]*", row))
    assert named <= _flags(parser) | _flags(top), f"{table}: memactors {name} rejects {named - _flags(parser)}"


def _sentence(text: str, start: str) -> str:
    at = text.index(start)
    return text[at : text.index(". ", at)]


def test_the_json_and_repo_claims_hold() -> None:
    _, commands = _subparsers()
    json_sentence = " ".join(_sentence(GETTING_STARTED, "`--json` (one JSON document on stdout)").split())
    claimed = set(re.findall(r"`([a-z]+)(?: check)?`", json_sentence.split("is taken by", 1)[1].split(";")[0]))
    assert claimed and all("--json" in _flags(commands[name]) for name in claimed), claimed
    no_json = {name for name, p in commands.items() if "--json" not in _flags(p)}
    assert no_json == {"run", "mcp", "view", "hooks", "context", "publish"}
    no_repo = {name for name, p in commands.items() if "--repo" not in _flags(p)}
    repo_sentence = " ".join(_sentence(GETTING_STARTED, "`--repo PATH` (default").split())
    assert no_repo == set(re.findall(r"`([a-z]+)` \(", repo_sentence)), (no_repo, repo_sentence)


@pytest.mark.parametrize("page", ["README.md", *DOCS])
def test_every_file_the_readme_and_the_docs_name_exists(page: str) -> None:
    text = README if page == "README.md" else DOCS[page]
    assert "DESIGN.md" not in text and "shared/" not in text
    named = set(re.findall(r"`((?:adapters|actors|events|bus|tests|bench|claude-plugin|\.claude-plugin|\.ci)/"
                           r"[\w./-]*\w)(?::[^`]*)?`", text))
    missing = sorted(path for path in named if not (ROOT / path).exists())
    assert not missing, missing


def test_every_page_the_readme_links_to_exists() -> None:
    links = re.findall(r"\]\(((?:docs/)[^)#]+)(?:#[^)]*)?\)", README)
    assert len(links) >= 10
    missing = sorted({link for link in links if not (ROOT / link).exists()})
    assert not missing, missing


def test_the_readme_stays_short_and_keeps_the_test_command() -> None:
    assert len(README.splitlines()) <= 250
    assert "```sh\npytest\n```" in README
    assert "pytest-xdist" in README


def test_the_package_source_points_only_at_files_a_checkout_holds() -> None:
    """Docstrings and comments name docs pages and repository files that exist, never a README section (its
    depth moved to docs/) nor a file outside the repository."""
    wrong = []
    for root in ("adapters", "actors", "events", "bus"):
        for path in sorted((ROOT / root).rglob("*.py")):
            text = path.read_text()
            where = path.relative_to(ROOT).as_posix()
            wrong += [f"{where}: {m}" for m in re.findall(r"\(README[,)][^)]*\)?|DESIGN\.md|\.\./shared", text)]
            wrong += [f"{where}: {p}" for p in re.findall(r"(?<![\"'/\w])((?:bench|tests|docs)/[\w./-]*\w)", text)
                      if not (ROOT / p).exists()]
    assert not wrong, wrong
