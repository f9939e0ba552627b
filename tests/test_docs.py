"""The docs site builds without a warning and without the network, and its reference pages are what the code
generates: every command from the parser, every setting from the Settings model."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from memactors.adapters import FLOORS
from memactors.adapters.cli import docs_reference
from memactors.adapters.runtime.settings import READ_ELSEWHERE, Settings
from tests.conftest import ROOT

REFERENCE = ROOT / "docs" / "reference"
PACKAGE = [ROOT / name for name in ("adapters", "actors", "events", "bus")]


@pytest.mark.parametrize("name", sorted(docs_reference.pages()))
def test_the_reference_pages_are_what_the_code_generates(name: str) -> None:
    expected = docs_reference.pages()[name]
    actual = (REFERENCE / name).read_text(encoding="utf-8")
    assert actual == expected, (f"docs/reference/{name} is out of date with the code; regenerate it from the root "
                                f"of the checkout: {docs_reference.REGENERATE}")


def test_the_docs_build_strictly_and_offline(tmp_path: Path) -> None:
    # a proxy that refuses every connection: a theme or plugin that fetched anything would fail the build
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY":
           "http://127.0.0.1:9", "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    configuration = (tmp_path / "site" / "configuration" / "index.html").read_text(encoding="utf-8")
    assert "MEMACTORS_CLUSTER_THRESHOLD" in configuration  # the generated table is included, not only linked
    commands = (tmp_path / "site" / "reference" / "commands" / "index.html").read_text(encoding="utf-8")
    assert 'id="consolidate"' in commands


def test_every_setting_has_a_description() -> None:
    missing = [name for name, field in Settings.model_fields.items() if not (field.description or "").strip()]
    assert not missing, f"add description= to these Settings fields: {missing}"


def test_every_variable_the_package_reads_is_in_the_settings_table() -> None:
    table = (REFERENCE / "settings.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", table))
    read = {name for root in PACKAGE for path in root.rglob("*.py")
            for name in re.findall(r"\b(MEMACTORS_[A-Z0-9_]*[A-Z0-9]|MEMORY_[A-Z_]*LLM_[A-Z_]*[A-Z]|"
                                   r"MEMORY_PLUGIN_GIT_NAMESPACE)\b", path.read_text(encoding="utf-8"))}
    assert read and not read - documented, f"not in docs/reference/settings.md: {sorted(read - documented)}"


def test_the_settings_table_lists_each_variable_once() -> None:
    names = [name for names, *_ in docs_reference.settings_rows() for name in names]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})
    assert {v.name for v in READ_ELSEWHERE} <= set(names)  # those Settings reads too are listed in its row


def test_the_settings_table_gives_type_default_and_bounds() -> None:
    rows = {names[0]: (type_, default, bounds) for names, type_, default, bounds, _ in docs_reference.settings_rows()}
    assert rows["MEMACTORS_CLUSTER_THRESHOLD"] == ("float", "`0.6`", "> 0, ≤ 1")
    assert rows["MEMACTORS_RECENCY_CLOCK"][0] == "store | wall"
    assert rows["MEMACTORS_EMBEDDINGS"][0] == "local | openai | none"
    assert rows["MEMACTORS_MAX_COST_USD"][:2] == ("float or none", "none")
    assert rows["MEMACTORS_IMPORTANCE"][:2] == ("JSON object of float", "`{}`")


def test_the_command_reference_shows_every_command_and_argument() -> None:
    page = docs_reference.commands_page()
    parser, _ = docs_reference.build_parser()
    for name, _help, command in docs_reference._commands(parser):  # noqa: SLF001
        assert f"## memactors {name} {{#{name}}}" in page
        for action in command._actions:  # noqa: SLF001
            for flag in set(action.option_strings) - {"-h", "--help"}:
                assert flag in page, (name, flag)


def test_the_generator_check_names_the_command_that_regenerates(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "commands.md").write_text("stale\n")
    assert docs_reference.main(["--out", str(tmp_path), "--check"]) == 1
    assert docs_reference.REGENERATE in capsys.readouterr().err
    assert (tmp_path / "commands.md").read_text() == "stale\n"  # --check writes nothing
    assert docs_reference.main(["--out", str(tmp_path)]) == 0
    assert docs_reference.main(["--out", str(tmp_path), "--check"]) == 0
    assert (tmp_path / "settings.md").read_text() == docs_reference.settings_page()


def test_the_generator_outside_a_checkout_is_one_line_and_exit_2(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert docs_reference.main(["--out", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--out" in err


def test_the_architecture_page_names_the_floors_in_order() -> None:
    page = " ".join((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").split())
    chain = re.search(r"\((system <- [a-z <-]+)\)", page)
    assert chain, "docs/architecture.md names no chain of floors"
    assert tuple(chain.group(1).split(" <- ")) == FLOORS


def test_the_architecture_table_lists_the_floors_ground_first() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| `adapters/([a-z]+)/` \|[^|]*\| ([^|]+) \|$", page, re.M)
    assert [name for _, name, _ in rows] == list(FLOORS)
    for floor, name, below in rows:
        assert below.strip() == (", ".join(FLOORS[: int(floor)]) or "nothing"), name
