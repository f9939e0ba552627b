"""The MCP `recall` tool with `answer: true`, through the SDK's own client over stdio."""

from __future__ import annotations

import json

from tests.adapters.mcp.test_mcp_server import session
from tests.conftest import Repo, run_cli


async def test_recall_with_answer_cites_the_current_memory_and_validates_against_its_schema(
        populated: Repo, tmp_path) -> None:
    import jsonschema

    assert run_cli("consolidate", "--repo", str(populated.path)).returncode == 0
    async with session(populated.path, tmp_path / "err") as (client, _):
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert listed["recall"].input_schema["properties"]["answer"]["description"]
        found = await client.call_tool("recall", {"query": "which database do we use for storage", "answer": True,
                                                  "mode": "exhaustive"})
        unknown = await client.call_tool("recall", {"query": "how is Kubernetes autoscaling configured for the "
                                                             "API pods", "answer": True})
    schema = listed["recall"].output_schema
    for result in (found, unknown):
        assert not result.is_error, result.content
        jsonschema.validate(result.structured_content, schema)
        assert json.loads(result.content[0].text) == result.structured_content
    got = found.structured_content["answer"]
    assert got["answered"] and "PostgreSQL" in got["text"] and got["provider"] == "offline"
    cited = [c["id"] for c in got["citations"]]
    by_title = {r["title"]: r["id"] for r in found.structured_content["results"]}
    assert cited[0] == by_title["Switch storage to PostgreSQL"]
    assert by_title["Use SQLite for storage"] not in cited
    missing = unknown.structured_content
    assert missing["answer"]["text"] == "The memories do not say." and missing["nothing_relevant"] is True
