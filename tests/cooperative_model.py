"""A model that follows the schema, as the stand-in servers and CLIs answer: standard library only.

`cooperative(request)` answers an OpenAI-style chat request (the schema named by `response_format`, or
by the forced tool's parameters): summaries cite the cluster's members, a newer decision supersedes
the older one, everything else is compatible.
"""

from __future__ import annotations

import json
import re
from typing import Any

PAIR = re.compile(r"- newer (M\d+) vs older (M\d+)")


def schema_name(request: dict[str, Any]) -> str:
    """The answer schema's name: response_format's, else the first tool's parameters' title."""
    if "response_format" in request:
        return request["response_format"]["json_schema"]["name"]
    return request["tools"][0]["function"]["parameters"].get("title", "")


def cooperative(request: dict[str, Any]) -> str:
    """A model that follows the schema: summaries cite M1, decisions replace, the rest are compatible."""
    schema = schema_name(request)
    user = request["messages"][-1]["content"]
    if schema == "SummaryBatchAnswer":
        summaries = []
        for cluster, body in re.findall(r'<cluster label="(C\d+)">(.*?)</cluster>', user, re.S):
            summaries.append({"cluster": cluster, "summary": "Payment webhooks must be idempotent; use the event id.",
                              "key_facts": ["retries happen"], "decisions": [], "superseded_facts": [],
                              "cited": re.findall(r'label="(M\d+)"', body), "confidence": 0.8})
        return json.dumps({"summaries": summaries})
    if schema == "LinkCheck":
        return json.dumps({"status": "ok", "echo": "pong"})
    verdicts = []
    for newer, older in PAIR.findall(user):
        decision = 'namespace="decisions"' in user.split(f'label="{newer}"')[1][:40]
        verdicts.append({"newer": newer, "older": older, "relation": "supersedes" if decision else "compatible",
                         "partial": False, "container": None, "reason": "scripted", "confidence": 0.8})
    return json.dumps({"verdicts": verdicts})
