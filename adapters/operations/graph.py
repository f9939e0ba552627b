"""A memory's links followed to a depth: what it replaced, what replaced it, what it copies, what summarizes it,
and the links worth following (relates to, depends on, implements, extends, supports; not those the user removed)."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memactors.adapters.operations.errors import UsageError
from memactors.adapters.operations.memories import open_view_and_state, phrase
from memactors.adapters.operations.outcome import EXIT_USAGE, Outcome, place

EDGE_TYPES = ("supersedes", "subsumes", "consolidates", "references", "contradicts", "relates_to", "depends_on",
              "implements", "extends", "supports")
FORMATS = ("text", "json", "mermaid", "dot")
MAX_DEPTH = 5
#: At most this many memories in one graph: the answer stays readable (and fits a model's context).
MAX_NODES = 60


def clip(text: str, limit: int) -> str:
    """`text` whole, or cut at the last word that fits, with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:")
    return f"{cut}…"


def graph(repo: Path, memory_id: str, *, depth: int = 2, types: Sequence[str] | None = None,
          fmt: str = "text", max_nodes: int = MAX_NODES) -> Outcome:
    """Breadth-first from the memory over the state's edges, both directions, at most `depth` hops and
    `max_nodes` memories (cycles are visited once). The document lists nodes and edges; the text is `fmt`."""
    if not 1 <= depth <= MAX_DEPTH:
        raise UsageError(f"--depth must be between 1 and {MAX_DEPTH}")
    wanted = tuple(types) if types else EDGE_TYPES
    unknown = [t for t in wanted if t not in EDGE_TYPES]
    if unknown:
        raise UsageError(f"unknown edge type {unknown[0]!r}; use some of: {', '.join(EDGE_TYPES)}")
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; use one of: {', '.join(FORMATS)}")
    _, view, state = open_view_and_state(repo)
    found = view.find(memory_id.strip())
    if found is not None:
        start, root = found.memory.key, found.memory.id
    else:  # a summary: its members are its links
        wanted = memory_id.strip().removeprefix("summary:")
        matches = [sid for sid in state.summaries if len(wanted) >= 6 and sid.startswith(wanted)]
        if len(matches) != 1:
            return Outcome(None, f"no memory {memory_id!r} in {place(repo)} (see `memactors tiers`)", EXIT_USAGE)
        start = root = f"summary:{matches[0]}"
    by_key: dict[str, list[Any]] = {}
    for edge in state.edges.values():
        if edge.edge_type.value in wanted and edge.in_force:
            by_key.setdefault(edge.source_key, []).append(edge)
            by_key.setdefault(edge.target_key, []).append(edge)
    hops = {start: 0}
    order = [start]
    kept: dict[str, Any] = {}
    queue = deque([start])
    truncated = False
    while queue:
        key = queue.popleft()
        if hops[key] == depth:
            continue
        for edge in sorted(by_key.get(key, ()), key=lambda e: (e.edge_type.value, e.created_at, e.id)):
            other = edge.target_key if edge.source_key == key else edge.source_key
            if other not in hops:
                if len(order) >= max_nodes:
                    truncated = True
                    continue
                hops[other] = hops[key] + 1
                order.append(other)
                queue.append(other)
            kept[edge.id] = edge
    nodes = [_node(view, state, key, hops[key]) for key in order]
    ids = {n["key"]: n["id"] for n in nodes}
    links = [{"source_id": ids.get(e.source_key, e.source_key), "target_id": ids.get(e.target_key, e.target_key),
              "edge_type": e.edge_type.value, "weight": e.weight, "reason": e.reason, "resolution": e.resolution}
             for e in kept.values() if e.source_key in ids and e.target_key in ids]
    doc = {"root": root, "depth": depth, "edge_types": list(wanted), "truncated": truncated,
           "nodes": nodes, "edges": links}
    render = {"text": _text, "json": _json_text, "mermaid": _mermaid, "dot": _dot}[fmt]
    return Outcome(doc, render(doc))


def _node(view, state, key: str, hop: int) -> dict[str, Any]:
    if key.startswith("summary:") or key in state.summaries:
        sid = key.removeprefix("summary:")
        summary = state.summaries.get(sid)
        return {"key": key, "id": f"summary:{sid}", "kind": "summary", "hop": hop, "tier": "warm",
                "title": (summary.text[:100] if summary else sid), "namespace": None, "timestamp": None}
    item = view.find(key)
    if item is None:
        return {"key": key, "id": key, "kind": "memory", "hop": hop, "tier": None, "title": "(not in the store)",
                "namespace": None, "timestamp": None}
    return {"key": key, "id": item.memory.id, "kind": "memory", "hop": hop, "tier": item.tier,
            "title": item.quality.title, "namespace": item.memory.namespace,
            "timestamp": item.memory.timestamp.isoformat(),
            "superseded_by": item.meta.superseded_by if item.meta else None}


def _text(doc: dict[str, Any]) -> str:
    titles = {n["id"]: n for n in doc["nodes"]}
    lines = []
    for node in doc["nodes"]:
        lines.append(f"{'  ' * node['hop']}{node['id']}  [{node['tier'] or '?'}]  {clip(node['title'], 80)}")
        for edge in doc["edges"]:
            if edge["source_id"] == node["id"]:
                other = titles[edge["target_id"]]
                lines.append(f"{'  ' * node['hop']}  -> {phrase(edge['edge_type'], True)} {other['id']}: "
                             f"{clip(edge['reason'], 80)}")
    if len(doc["nodes"]) == 1:
        lines.append("  no links yet (run `memactors consolidate`)")
    if doc["truncated"]:
        lines.append(f"  … more links beyond {len(doc['nodes'])} memories (lower --depth or filter --type)")
    return "\n".join(lines)


def _json_text(doc: dict[str, Any]) -> str:
    import json

    return json.dumps(doc, indent=2)


def _label_text(text: str, limit: int = 60) -> str:
    """A label safe inside double quotes of Mermaid and DOT: no quotes, brackets, backslashes or newlines."""
    cleaned = "".join(" " if ch in '"\\<>{}[]|\n\r`' else ch for ch in text)
    return " ".join(cleaned.split())[:limit]


def _mermaid(doc: dict[str, Any]) -> str:
    names = {n["id"]: f"n{i}" for i, n in enumerate(doc["nodes"])}
    lines = ["graph LR"]
    for node in doc["nodes"]:
        lines.append(f'  {names[node["id"]]}["{_label_text(node["title"])} ({node["tier"] or "?"})"]')
    for edge in doc["edges"]:
        lines.append(f'  {names[edge["source_id"]]} -->|{edge["edge_type"]}| {names[edge["target_id"]]}')
    return "\n".join(lines)


def _dot(doc: dict[str, Any]) -> str:
    names = {n["id"]: f"n{i}" for i, n in enumerate(doc["nodes"])}
    lines = ["digraph memories {", "  rankdir=LR;"]
    for node in doc["nodes"]:
        lines.append(f'  {names[node["id"]]} [label="{_label_text(node["title"])} ({node["tier"] or "?"})"];')
    for edge in doc["edges"]:
        lines.append(f'  {names[edge["source_id"]]} -> {names[edge["target_id"]]} [label="{edge["edge_type"]}"];')
    lines.append("}")
    return "\n".join(lines)
