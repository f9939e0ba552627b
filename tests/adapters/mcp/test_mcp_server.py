"""`memactors mcp` through the SDK's own client: a real subprocess speaking MCP over stdio, on trio."""

from __future__ import annotations

import json
import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import Repo, run_cli

TOOLS = {"recall", "show", "capture", "graph", "status", "tiers", "conflicts", "resolve", "review", "context"}


@asynccontextmanager
async def session(repo: Path, errlog_path: Path):
    params = StdioServerParameters(command=sys.executable, args=["-m", "memactors.adapters.cli", "mcp",
                                                                  "--repo", str(repo)], env=dict(os.environ))
    with errlog_path.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as client:
                init = await client.initialize()
                yield client, init


def _doc(result) -> Any:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def _error(result) -> str:
    assert result.is_error
    return result.content[0].text


@pytest.fixture
def consolidated(populated: Repo) -> Repo:
    assert run_cli("consolidate", "--repo", str(populated.path)).returncode == 0
    return populated


async def test_every_tool_is_listed_with_a_teaching_description_and_hints(consolidated: Repo, tmp_path) -> None:
    async with session(consolidated.path, tmp_path / "err") as (client, init):
        assert "recall" in init.instructions and "never act on a memory marked superseded" in init.instructions
        listed = (await client.list_tools()).tools
    assert {t.name for t in listed} == TOOLS
    by_name = {t.name: t for t in listed}
    for tool in listed:
        assert len(tool.description) > 60 and tool.annotations is not None
        assert tool.annotations.destructive_hint is False
    assert {n for n, t in by_name.items() if t.annotations.read_only_hint} == {
        "recall", "show", "graph", "status", "tiers", "conflicts", "context"}
    assert "namespace" in by_name["capture"].input_schema["required"]
    assert by_name["recall"].input_schema["properties"]["mode"]


async def test_a_capture_is_found_by_the_next_recall_before_any_run(consolidated: Repo, tmp_path) -> None:
    async with session(consolidated.path, tmp_path / "err") as (client, _):
        captured = _doc(await client.call_tool("capture", {
            "namespace": "decisions", "summary": "Vendor the protobuf compiler in tools/protoc",
            "content": "CI must not download it."}))
        found = _doc(await client.call_tool("recall", {"query": "where does the protobuf compiler come from",
                                                        "limit": 3}))
        assert found["results"][0]["id"] == captured["id"] and found["results"][0]["new_since_last_run"]


async def test_capture_then_recall_finds_it_and_show_and_graph_follow_it(consolidated: Repo, tmp_path) -> None:
    async with session(consolidated.path, tmp_path / "err") as (client, _):
        captured = _doc(await client.call_tool("capture", {
            "namespace": "decisions", "summary": "Use trio for every actor of the pipeline",
            "content": "Structured concurrency keeps cancellation sane.", "tags": ["architecture"]}))
        assert captured["id"].startswith("decisions:")
        assert run_cli("consolidate", "--repo", str(consolidated.path)).returncode == 0
        found = _doc(await client.call_tool("recall", {"query": "which concurrency library do the actors use",
                                                        "limit": 3}))
        assert found["results"][0]["id"] == captured["id"]
        shown = _doc(await client.call_tool("show", {"id": captured["id"][:len("decisions:") + 7] + ":"
                                                     + captured["id"].rsplit(":", 1)[1]}))
        assert shown["summary"] == "Use trio for every actor of the pipeline" and shown["tags"] == ["architecture"]
        replaced = _doc(await client.call_tool("recall", {"query": "what storage do we use"}))
        storage = next(r for r in replaced["results"] if r["title"].startswith("Use SQLite"))
        assert storage["superseded_by"]
        linked = _doc(await client.call_tool("graph", {"id": storage["id"], "depth": 2}))
        assert any(e["edge_type"] == "supersedes" and e["target_id"] == storage["id"] for e in linked["edges"])


async def test_the_read_tools_answer_compactly(consolidated: Repo, tmp_path) -> None:
    async with session(consolidated.path, tmp_path / "err") as (client, _):
        status = _doc(await client.call_tool("status", {}))
        assert status["memories"] == 6 and "skipped_notes" not in status
        tiers = _doc(await client.call_tool("tiers", {"limit": 1}))
        assert all(len(items) <= 1 for items in tiers["tiers"].values())
        assert sum(tiers["tier_counts"].values()) == 6
        assert _doc(await client.call_tool("conflicts", {})) == {"conflicts": []}
        assert _doc(await client.call_tool("review", {})) == {"proposals": []}
        block = _doc(await client.call_tool("context", {}))["block"]
        assert block.startswith("<memory_consolidated_summaries") and "PostgreSQL" in block
        dated = _doc(await client.call_tool("recall", {"query": "when did we switch storage to PostgreSQL?"}))
        assert dated["answer"] and dated["source_memory_ids"]


async def test_bad_arguments_are_tool_errors_and_the_server_goes_on(consolidated: Repo, tmp_path) -> None:
    async with session(consolidated.path, tmp_path / "err") as (client, _):
        assert "no memory" in _error(await client.call_tool("show", {"id": "decisions:0000000:9"}))
        assert _error(await client.call_tool("capture", {"namespace": "gossip", "summary": "x y z"}))
        assert "limit is 100" in _error(await client.call_tool("capture", {"namespace": "decisions",
                                                                           "summary": "x" * 150}))
        assert _error(await client.call_tool("recall", {"query": "storage", "limit": "many"}))
        assert "empty" in _error(await client.call_tool("recall", {"query": "   "}))
        assert "depth" in _error(await client.call_tool("graph", {"id": "x", "depth": 9}))
        assert "no single conflict" in _error(await client.call_tool("resolve", {"conflict_id": "abcdef",
                                                                                  "both": True}))
        assert "needs ids" in _error(await client.call_tool("review", {"action": "approve"}))
        assert "Unknown tool" in _error(await client.call_tool("forget_everything", {}))
        assert _doc(await client.call_tool("status", {}))["memories"] == 6  # still serving
    assert "Traceback" not in (tmp_path / "err").read_text()


async def test_a_server_outside_a_repository_says_so_once(tmp_path) -> None:
    nowhere = tmp_path / "plain-folder"
    nowhere.mkdir()
    async with session(nowhere, tmp_path / "err") as (client, _):
        assert "not inside a git repository" in _error(await client.call_tool("status", {}))
        assert "not inside a git repository" in _error(await client.call_tool("recall", {"query": "x"}))
    assert (tmp_path / "err").read_text().count("not inside a git repository") == 1
