"""What the reading commands print says each thing once, whole, with the numbers it rests on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("plain") / "demo"
    assert run_cli("demo", str(path), "--memories", "120").returncode == 0
    return path


def _ids(demo: Path) -> list[str]:
    tiers = json.loads(run_cli("tiers", "--json", "--limit", "100", "--repo", str(demo)).stdout)
    return [m["id"] for items in tiers["tiers"].values() for m in items]


def test_edges_name_a_summary_once_and_graph_never_cuts_a_word(demo: Path) -> None:
    seen_summary = seen_long = False
    for memory_id in _ids(demo)[:25]:
        text = run_cli("edges", memory_id, "--repo", str(demo)).stdout
        assert text.count("summarized in") <= 1
        seen_summary |= "summarized in summary:" in text
        drawn = run_cli("graph", memory_id, "--repo", str(demo)).stdout
        for edge in json.loads(run_cli("graph", memory_id, "--json", "--repo", str(demo)).stdout)["edges"]:
            reason = " ".join(edge["reason"].split())
            if len(reason) > 80 and reason[79] != " " and reason[80] != " ":
                seen_long = True
                assert f"{reason[:80]}\n" not in drawn and reason[:reason[:79].rfind(" ")] in drawn
    assert seen_summary and seen_long


def test_decay_says_which_bar_a_memory_falls_below(demo: Path) -> None:
    text = run_cli("decay", "--repo", str(demo)).stdout
    assert "falls below the tier's bar: hot 0.60, warm 0.30, cold 0.10" in text
    assert any(" -> warm" in line and " < 0.60 " in line for line in text.splitlines())


def test_status_verbose_ends_with_nothing_left_blank(demo: Path) -> None:
    text = run_cli("status", "--verbose", "--repo", str(demo)).stdout
    assert not any(line.rstrip().endswith(("refs", ";", ":")) for line in text.splitlines())


def test_an_unknown_id_is_exit_2_and_names_the_repository_in_every_command(demo: Path) -> None:
    for command in ("show", "graph", "edges"):
        done = run_cli(command, "decisions:0000000:9", cwd=demo)
        assert done.returncode == 2 and f"in {demo.resolve()}" in done.stderr and " in ." not in done.stderr, command
