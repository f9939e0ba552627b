"""`memactors graph`: a memory's links followed to a depth over a real consolidated store."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from memactors.adapters.operations.graph import graph
from tests.conftest import NOW, Repo, run_cli


@pytest.fixture
def chain(repo: Repo) -> Repo:
    """SQLite, replaced by PostgreSQL, replaced by CockroachDB; a note that references two of them."""
    repo.capture("decisions", "Use SQLite for storage", "One file is enough.", when=NOW - timedelta(days=30))
    repo.capture("decisions", "Switch storage from SQLite to PostgreSQL", "We need concurrent writers.",
                 when=NOW - timedelta(days=20))
    repo.capture("decisions", "Switch storage from PostgreSQL to CockroachDB", "We need several regions.",
                 when=NOW - timedelta(days=10))
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    return repo


def _id(repo: Repo, summary: str) -> str:
    listed = json.loads(run_cli("tiers", "--json", "--repo", str(repo.path)).stdout)["tiers"]
    return next(m["id"] for items in listed.values() for m in items if m["summary"] == summary)


def test_a_supersession_chain_is_followed_to_the_depth_asked(chain: Repo) -> None:
    start = _id(chain, "Use SQLite for storage")
    near = graph(chain.path, start, depth=1).document
    assert [n["title"] for n in near["nodes"]] == ["Use SQLite for storage", "Switch storage from SQLite to PostgreSQL"]
    far = graph(chain.path, start, depth=2).document
    assert [n["hop"] for n in far["nodes"]] == [0, 1, 2]
    assert far["nodes"][2]["title"] == "Switch storage from PostgreSQL to CockroachDB"
    pairs = {(e["source_id"], e["target_id"], e["edge_type"]) for e in far["edges"]}
    ids = [n["id"] for n in far["nodes"]]
    assert (ids[1], ids[0], "supersedes") in pairs and (ids[2], ids[1], "supersedes") in pairs
    only = graph(chain.path, start, depth=2, types=["references"]).document
    assert len(only["nodes"]) == 1 and only["edges"] == []


def test_a_cycle_is_visited_once_and_a_big_graph_is_cut(repo: Repo) -> None:
    first = run_cli("capture", "--repo", str(repo.path), "--namespace", "learnings", "--summary",
                    "Retries must be idempotent").stdout.strip()
    second = run_cli("capture", "--repo", str(repo.path), "--namespace", "learnings", "--summary",
                     "Payment calls carry an idempotency key", "--relates-to", first).stdout.strip()
    run_cli("capture", "--repo", str(repo.path), "--namespace", "learnings", "--summary",
            "The queue redelivers after a timeout", "--relates-to", f"{first},{second}")
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    around = graph(repo.path, first, depth=5).document
    assert len(around["nodes"]) == 3 and len({n["id"] for n in around["nodes"]}) == 3
    assert len(around["edges"]) == 3 and not around["truncated"]
    cut = graph(repo.path, first, depth=5, max_nodes=2).document
    assert len(cut["nodes"]) == 2 and cut["truncated"]


def test_formats_render_safely_and_bad_requests_say_what_is_wrong(chain: Repo) -> None:
    start = _id(chain, "Use SQLite for storage")
    mermaid = run_cli("graph", start, "--depth", "2", "--format", "mermaid", "--repo", str(chain.path))
    assert mermaid.returncode == 0 and mermaid.stdout.startswith("graph LR") and "-->|supersedes|" in mermaid.stdout
    dot = run_cli("graph", start, "--format", "dot", "--repo", str(chain.path))
    assert dot.stdout.startswith("digraph memories {") and dot.stdout.rstrip().endswith("}")
    text = run_cli("graph", start, "--repo", str(chain.path))
    assert f"-> supersedes {start}" in text.stdout and "Use SQLite for storage" in text.stdout
    as_json = json.loads(run_cli("graph", start, "--json", "--repo", str(chain.path)).stdout)
    assert as_json["root"] == start and len(as_json["nodes"]) == 3
    for args, code, says in ((["--depth", "0"], 2, "between 1 and 5"), (["--type", "likes"], 2, "unknown edge type")):
        done = run_cli("graph", start, *args, "--repo", str(chain.path))
        assert done.returncode == code and says in done.stderr
    missing = run_cli("graph", "decisions:0000000:7", "--repo", str(chain.path))
    assert missing.returncode == 2 and "no memory" in missing.stderr


def test_labels_cannot_break_out_of_a_mermaid_or_dot_graph(repo: Repo) -> None:
    repo.capture("decisions", 'Use "quotes" ] and } in <names> | always', "x")
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    memory = _id(repo, 'Use "quotes" ] and } in <names> | always')
    for fmt in ("mermaid", "dot"):
        rendered = graph(repo.path, memory, fmt=fmt).text
        label_line = rendered.splitlines()[1 if fmt == "mermaid" else 2]
        inside = label_line.split('"')[1]
        assert not any(ch in inside for ch in '"]}<>|') and "quotes" in inside
