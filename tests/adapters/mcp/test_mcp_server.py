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

TOOLS = {"recall", "show", "capture", "graph", "status", "tiers", "conflicts", "resolve", "review", "context",
         "link"}


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
        assert _doc(await client.call_tool("conflicts", {}))["conflicts"] == []
        assert _doc(await client.call_tool("review", {}))["proposals"] == []
        block = _doc(await client.call_tool("context", {}))["block"]
        assert block.startswith("<memory_consolidated_summaries") and "PostgreSQL" in block
        dated = _doc(await client.call_tool("recall", {"query": "when did we switch storage to PostgreSQL?"}))
        assert dated["date_answer"]["answer"] and dated["date_answer"]["source_memory_ids"]
        assert "results" in dated and dated["query"].startswith("when did we")


async def test_bad_arguments_are_tool_errors_and_the_server_goes_on(consolidated: Repo, tmp_path) -> None:
    async with session(consolidated.path, tmp_path / "err") as (client, _):
        assert "no memory" in _error(await client.call_tool("show", {"id": "decisions:0000000:9"}))
        assert _error(await client.call_tool("capture", {"namespace": "gossip", "summary": "x y z"}))
        assert "at most 100" in _error(await client.call_tool("capture", {"namespace": "decisions",
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


# --- schemas an agent reads without guessing ----------------------------------------------------------------


def _text_of(result) -> str:
    return result.content[0].text


async def test_every_parameter_is_described_with_its_bounds_and_every_tool_has_an_output_schema(
        consolidated: Repo, tmp_path) -> None:
    async with session(consolidated.path, tmp_path / "err") as (client, init):
        listed = {t.name: t for t in (await client.list_tools()).tools}
    assert init.server_info.version and init.server_info.version != "0+unknown"
    for tool in listed.values():
        for name, prop in tool.input_schema.get("properties", {}).items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"
        assert tool.output_schema and tool.output_schema.get("properties"), f"{tool.name} has no output schema"
    recall = listed["recall"].input_schema["properties"]
    assert (recall["limit"]["minimum"], recall["limit"]["maximum"]) == (1, 25)
    assert recall["query"]["maxLength"] == 2000
    depth = listed["graph"].input_schema["properties"]["depth"]
    assert (depth["minimum"], depth["maximum"]) == (1, 5)
    assert listed["capture"].input_schema["properties"]["summary"]["maxLength"] == 100
    assert "7" in listed["show"].input_schema["properties"]["id"]["description"]
    assert set(listed["recall"].output_schema["properties"]) >= {"results", "nothing_relevant", "date_answer"}


async def test_every_answer_validates_against_its_schema_and_its_text_is_compact_json(
        consolidated: Repo, tmp_path) -> None:
    import jsonschema

    async with session(consolidated.path, tmp_path / "err") as (client, _):
        schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        stored = _doc(await client.call_tool("recall", {"query": "what storage do we use"}))["results"][0]["id"]
        calls = [("recall", {"query": "what storage do we use"}),
                 ("recall", {"query": "when did we switch storage to PostgreSQL?"}),
                 ("show", {"id": stored}), ("graph", {"id": stored}), ("status", {}), ("tiers", {}),
                 ("conflicts", {}), ("review", {}), ("context", {})]
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            assert not result.is_error, (name, _text_of(result))
            jsonschema.validate(result.structured_content, schemas[name])
            text = _text_of(result)
            assert "\n" not in text and ": " not in text[:40] and json.loads(text) == result.structured_content


async def test_bad_arguments_get_one_line_in_the_tools_own_words(consolidated: Repo, tmp_path) -> None:
    async with session(consolidated.path, tmp_path / "err") as (client, _):
        errors = {
            "limit -5": _error(await client.call_tool("recall", {"query": "storage", "limit": -5})),
            "limit many": _error(await client.call_tool("recall", {"query": "storage", "limit": "many"})),
            "depth -1": _error(await client.call_tool("graph", {"id": "x", "depth": -1})),
            "depth 9": _error(await client.call_tool("graph", {"id": "x", "depth": 9})),
            "tiers": _error(await client.call_tool("tiers", {"limit": 100000})),
            "namespace": _error(await client.call_tool("capture", {"namespace": "gossip", "summary": "x y z"})),
            "summary": _error(await client.call_tool("capture", {"namespace": "decisions", "summary": "x" * 150})),
            "unknown id": _error(await client.call_tool("show", {"id": "decisions:0000000:9"})),
        }
    for case, message in errors.items():
        assert "\n" not in message, (case, message)
        assert "--" not in message and "pydantic" not in message and "http" not in message, (case, message)
        assert "Error executing tool" not in message, (case, message)
    assert "limit" in errors["limit -5"] and "greater than or equal to 1" in errors["limit -5"]
    assert "depth" in errors["depth -1"] and "depth" in errors["depth 9"]
    assert "less than or equal to 25" in errors["tiers"]
    assert "the tiers tool" in errors["unknown id"]


async def test_long_answers_fit_the_promised_size_and_say_what_was_left_out(repo: Repo, tmp_path) -> None:
    for i in range(80):
        repo.capture("decisions", f"Storage rule {i}: keep table t{i} small, pruned nightly, and never wider than "
                     f"{i + 8} columns",
                     f"Storage detail {i}: " + "the table grows with every write and must be pruned. " * 12)
    repo.commit("many")
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    async with session(repo.path, tmp_path / "err") as (client, _):
        found = await client.call_tool("recall", {"query": "storage table rule", "limit": 25, "mode": "exhaustive"})
        listed = await client.call_tool("tiers", {"limit": 25})
    for result in (found, listed):
        assert not result.is_error and len(_text_of(result)) <= 12_000
    assert found.structured_content["left_out"] > 0
    assert len(found.structured_content["results"]) + found.structured_content["left_out"] == 25


async def test_a_line_that_is_not_json_gets_a_parse_error_and_the_server_goes_on(consolidated: Repo) -> None:
    import select
    import subprocess

    server = subprocess.Popen([sys.executable, "-m", "memactors.adapters.cli", "mcp", "--repo",
                               str(consolidated.path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    def answer_to(line: str) -> dict[str, Any]:
        server.stdin.write(line + "\n")
        server.stdin.flush()
        ready, _, _ = select.select([server.stdout], [], [], 60)
        assert ready, f"no answer to {line!r}"
        return json.loads(server.stdout.readline())

    try:
        parse_error = answer_to("{this is not json")
        pong = answer_to('{"jsonrpc": "2.0", "id": 1, "method": "ping"}')
    finally:
        server.kill()
        server.wait(timeout=30)
    assert parse_error["error"]["code"] == -32700 and parse_error["id"] is None
    assert pong["id"] == 1 and "result" in pong


async def test_link_adds_and_removes_and_review_edits_a_proposal(consolidated: Repo, tmp_path) -> None:
    async with session(consolidated.path, tmp_path / "err") as (client, _):
        found = _doc(await client.call_tool("recall", {"query": "idempotent retries", "limit": 1}))["results"][0]
        other = _doc(await client.call_tool("recall", {"query": "cache keys version", "limit": 1}))["results"][0]
        added = _doc(await client.call_tool("link", {"source": found["id"], "target": other["id"],
                                                     "edge_type": "supports", "reason": "said by the user"}))
        assert added["action"] == "add" and added["edges"][0]["edge_type"] == "supports"
        linked = _doc(await client.call_tool("graph", {"id": found["id"], "depth": 1}))
        assert any(e["edge_type"] == "supports" for e in linked["edges"])
        removed = _doc(await client.call_tool("link", {"source": found["id"], "target": other["id"],
                                                       "action": "remove"}))
        assert removed["action"] == "remove" and removed["edges"]
        after = _doc(await client.call_tool("graph", {"id": found["id"], "depth": 1}))
        assert not any(e["edge_type"] == "supports" for e in after["edges"])
        assert "no proposal" in _error(await client.call_tool("review", {"action": "edit", "ids": ["abcdef12"],
                                                                         "summary": "Use tabs"}))


async def test_resolving_a_decided_conflict_differently_needs_change(repo: Repo, tmp_path) -> None:
    from datetime import timedelta

    from tests.conftest import NOW

    repo.capture("decisions", "Use Redis for session caching", "Fast and simple.", when=NOW - timedelta(days=3))
    repo.capture("decisions", "Do not use Redis for session caching", "It loses sessions on restart.",
                 when=NOW - timedelta(days=1))
    assert run_cli("consolidate", "--repo", str(repo.path)).returncode == 0
    async with session(repo.path, tmp_path / "err") as (client, _):
        [conflict] = _doc(await client.call_tool("conflicts", {}))["conflicts"]
        cid, newer, older = conflict["conflict_id"], conflict["newer"]["id"], conflict["older"]["id"]
        assert _doc(await client.call_tool("resolve", {"conflict_id": cid, "keep": newer}))["resolution"]
        refused = _error(await client.call_tool("resolve", {"conflict_id": cid, "both": True}))
        assert "already decided" in refused and "Do not use Redis for session caching" in refused
        assert "pass change" in refused and "--" not in refused and "\n" not in refused
        same = _doc(await client.call_tool("resolve", {"conflict_id": cid, "keep": newer}))
        assert same["applies"] == "already applied"
        changed = _doc(await client.call_tool("resolve", {"conflict_id": cid, "keep": older, "change": True}))
        assert changed["changed_from"].startswith("keep:") and changed["resolution"] != changed["changed_from"]
    shown = json.loads(run_cli("show", newer, "--json", "--repo", str(repo.path)).stdout)
    assert shown["meta"]["superseded_by"]  # the newer one now stands replaced by the older, as decided
    kept = json.loads(run_cli("show", older, "--json", "--repo", str(repo.path)).stdout)
    assert not kept["meta"]["superseded_by"]
