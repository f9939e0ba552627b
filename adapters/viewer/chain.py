"""A supersession chain drawn as a layered graph: copies folded into one box with a count, the boxes placed by
grandalf's Sugiyama layout (the layered "dot" method, in pure Python), titles wrapped to fit, arrows clipped to
the boxes' edges. The drawing is a viewBox the page scales to its width.
"""

from __future__ import annotations

import textwrap
from typing import Any

#: A box's size and the room between layers and between boxes of one layer, in SVG units.
BOX_W, BOX_H, LAYER_GAP, SIDE_GAP, MARGIN = 200, 58, 46, 24, 10
#: Characters on one line of a box's title, and lines of it (the whole title is the box's tooltip and name).
LINE_CHARS, LINES = 28, 2


def is_copy(edge: dict[str, Any]) -> bool:
    """A `subsumes` edge whose reason says the target is the same capture stored again."""
    return edge.get("edge_type") == "subsumes" and str(edge.get("reason", "")).startswith("duplicate")


def fold_copies(chain: dict[str, Any] | None) -> dict[str, Any]:
    """The chain with every copy folded into the memory it copies: nodes carry `copies` (how many), edges between
    the same two memories are one, copy edges are gone. `folded` counts the copies per kept node's id."""
    if not chain or not chain.get("nodes"):
        return {"nodes": [], "edges": [], "folded": {}}
    copy_of = {e["target_id"]: e["source_id"] for e in chain.get("edges", []) if is_copy(e)}

    def canonical(node_id: str) -> str:
        seen = set()
        while node_id in copy_of and node_id not in seen:
            seen.add(node_id)
            node_id = copy_of[node_id]
        return node_id

    folded: dict[str, int] = {}
    for copy in copy_of:
        folded[canonical(copy)] = folded.get(canonical(copy), 0) + 1
    nodes = [{**n, "copies": folded.get(n["id"], 0)} for n in chain["nodes"] if canonical(n["id"]) == n["id"]]
    edges, seen_pairs = [], set()
    for e in chain.get("edges", []):
        if is_copy(e):
            continue
        source, target = canonical(e["source_id"]), canonical(e["target_id"])
        pair = (source, target, e["edge_type"])
        if source == target or pair in seen_pairs:
            continue
        seen_pairs.add(pair)
        edges.append({**e, "source_id": source, "target_id": target})
    return {"nodes": nodes, "edges": edges, "folded": folded}


def chain_drawing(chain: dict[str, Any] | None) -> dict[str, Any]:
    """Boxes and arrows for an SVG of the folded chain, laid out in layers (what replaced a memory above it)."""
    from grandalf.graphs import Edge, Graph, Vertex
    from grandalf.layouts import SugiyamaLayout

    folded = fold_copies(chain)
    nodes = folded["nodes"]
    if not nodes:
        return {"boxes": [], "arrows": [], "width": 0, "height": 0}

    class Size:  # what grandalf reads of a vertex's view: its size, and where it puts the centre
        w, h, xy = BOX_W + SIDE_GAP, BOX_H, (0.0, 0.0)

    vertices = {n["id"]: Vertex(n["id"]) for n in nodes}
    for vertex in vertices.values():
        vertex.view = Size()
    graph = Graph(list(vertices.values()),
                  [Edge(vertices[e["source_id"]], vertices[e["target_id"]]) for e in folded["edges"]])
    left = 0.0
    placed: dict[str, tuple[float, float]] = {}
    for component in graph.C:  # each connected part laid out alone, side by side
        layout = SugiyamaLayout(component)
        layout.yspace, layout.xspace = LAYER_GAP, SIDE_GAP
        layout.init_all()
        layout.draw()
        xs = [v.view.xy[0] for v in component.sV]
        for v in component.sV:
            placed[v.data] = (left + v.view.xy[0] - min(xs), v.view.xy[1])
        left += max(xs) - min(xs) + BOX_W + SIDE_GAP
    top = min(y for _, y in placed.values())
    boxes, centre = [], {}
    for n in nodes:
        cx, cy = placed[n["id"]]
        x, y = MARGIN + cx, MARGIN + cy - top
        centre[n["id"]] = (x + BOX_W / 2, y + BOX_H / 2)
        title = n.get("title") or n["id"]
        lines = textwrap.wrap(title, LINE_CHARS, max_lines=LINES, placeholder="…") or [title[:LINE_CHARS]]
        boxes.append({"x": round(x, 1), "y": round(y, 1), "w": BOX_W, "h": BOX_H, "id": n["id"], "title": title,
                      "lines": lines, "tier": n.get("tier") or "", "copies": n.get("copies", 0)})
    arrows = []
    for e in folded["edges"]:
        (sx, sy), (tx, ty) = centre[e["source_id"]], centre[e["target_id"]]
        x1, y1 = _border(sx, sy, tx, ty)
        x2, y2 = _border(tx, ty, sx, sy)
        arrows.append({"x1": round(x1, 1), "y1": round(y1, 1), "x2": round(x2, 1), "y2": round(y2, 1),
                       "label": e["edge_type"]})
    width = max(b["x"] for b in boxes) + BOX_W + MARGIN
    height = max(b["y"] for b in boxes) + BOX_H + MARGIN
    return {"boxes": boxes, "arrows": arrows, "width": round(width), "height": round(height)}


def _border(cx: float, cy: float, tx: float, ty: float) -> tuple[float, float]:
    """Where the line from a box's centre (cx, cy) towards (tx, ty) leaves the box."""
    dx, dy = tx - cx, ty - cy
    if dx == 0 and dy == 0:
        return cx, cy
    scale = min(BOX_W / 2 / abs(dx) if dx else float("inf"), BOX_H / 2 / abs(dy) if dy else float("inf"))
    return cx + dx * scale, cy + dy * scale
