"""The viewer's pages and actions: each reads or decides through the shared operations, nothing more.

Every page is rendered on the server (Jinja2, autoescaped: a memory's text is never HTML) and readable without
JavaScript; `?format=json` answers with the operation's document instead. Actions are POSTs carrying the
page's CSRF token (security.Guard checks it along with the session); each redirects back to the page it
came from. Operations run one at a time in a worker thread (they read git and files).
"""

from __future__ import annotations

import hmac
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from memactors.adapters.operations.errors import UsageError
from memactors.adapters.operations.outcome import Outcome
from memactors.adapters.viewer.chain import chain_drawing, fold_copies, is_copy

HERE = Path(__file__).resolve().parent
#: A posted form larger than this is refused (the largest is an edited proposal: 100 KB of content at most).
MAX_FORM_BYTES = 256 * 1024
#: An address whose query is longer than this gets a short page saying so (a search is 2,000 characters at most).
MAX_QUERY_BYTES = 16 * 1024
#: Items each section of the proposals page lists (the rest are counted).
PROPOSALS_SHOWN = 100
#: Decided conflicts listed on the conflicts page, newest first.
DECIDED_SHOWN = 20
#: A memory's retention and quality factors as the page names them (its JSON keeps the field names).
FACTORS = {
    "score": "score", "recency": "recency (how recent)", "activation": "uses (recalled or surfaced)",
    "importance": "importance (its namespace)", "superseded": "replaced", "quality": "quality",
    "title": "title shown", "readable": "readable", "auto_captured": "captured automatically",
    "cut": "cut off mid-sentence", "echo": "echoes a prompt or tool output", "markup_share": "share of markup",
    "information_words": "distinct words", "threat": "screened threat",
}


def create_app(repo: Path, *, warm: Any = None) -> Any:
    """The viewer (an ASGI app) of the repository at `repo` (wrap it in security.Guard before serving it);
    `warm.embedder`, once set, is the loaded embedding model searches use (until then a search loads it itself)."""
    import jinja2

    # every template is escaped, whatever its file name says: memory text is never HTML
    templates = Jinja2Templates(env=jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "templates")),
                                                       autoescape=True, undefined=jinja2.StrictUndefined))
    templates.env.filters["factor"] = lambda name: FACTORS.get(name, name.replace("_", " "))
    templates.env.filters["yesno"] = lambda value: ("yes" if value else "no") if isinstance(value, bool) else value
    one_at_a_time = anyio.CapacityLimiter(1)

    async def run(function, *args: Any, **kwargs: Any) -> Outcome:
        return await anyio.to_thread.run_sync(lambda: function(*args, **kwargs), limiter=one_at_a_time)

    def page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
        if request.query_params.get("format") == "json":
            return JSONResponse(context.get("json", {}), status_code=status)
        context = {**context, "csrf": request.scope.get("memactors.csrf", ""), "path": request.url.path,
                   "repo": str(repo.resolve())}
        return templates.TemplateResponse(request, name, context, status_code=status)

    def problem(request: Request, message: str, status: int) -> Response:
        if request.query_params.get("format") == "json":
            return JSONResponse({"error": message}, status_code=status)
        back, where = back_to(request)
        return page(request, "problem.html", {"message": message, "status": status, "back": back, "where": where},
                    status)

    async def form(request: Request) -> dict[str, Any]:
        """The posted form (URL-encoded: the pages post nothing else), after its CSRF token is checked."""
        body = await request.body()
        if len(body) > MAX_FORM_BYTES:
            raise UsageError(f"the form is over {MAX_FORM_BYTES} bytes")
        fields: dict[str, Any] = {"ids": []}
        for name, value in parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True):
            if name == "ids":
                fields["ids"].append(value)
            else:
                fields[name] = value
        if not hmac.compare_digest(str(fields.get("csrf", "")), request.scope.get("memactors.csrf", "")):
            raise PermissionError("the form's CSRF token is missing or stale: reload the page and try again")
        return fields

    def number(request: Request, name: str, default: int) -> int:
        raw = request.query_params.get(name, str(default))
        try:
            return int(raw)
        except ValueError:
            raise UsageError(f"{name} must be a whole number, not {raw[:20]!r}") from None

    async def overview(request: Request) -> Response:
        from memactors.adapters.operations import memories, review, runs

        status = (await run(memories.status, repo)).document
        history = (await run(runs.runs, repo, page=1, per_page=10)).document
        conflicts = (await run(memories.conflicts, repo)).document or []
        waiting = (await run(review.listing, repo)).document or []
        doc = {"status": status, "runs": history, "conflicts": len(conflicts), "review_waiting": len(waiting)}
        return page(request, "overview.html", {"json": doc, "status": status, "history": history,
                                                "conflicts": len(conflicts), "waiting": len(waiting),
                                                "plot": tier_plot(history["tier_history"])})

    async def timeline(request: Request) -> Response:
        from memactors.adapters.operations.timeline import timeline as listing

        q = request.query_params
        try:
            min_quality = float(q.get("min_quality", "0") or 0)
        except ValueError:
            raise UsageError("min_quality must be a number between 0 and 1") from None
        doc = (await run(listing, repo, query=q.get("q", ""), namespace=q.get("namespace", ""),
                         tier=q.get("tier", ""), min_quality=min_quality, page=number(request, "page", 1),
                         embedder=getattr(warm, "embedder", None), copies=q.get("copies") == "1")).document
        days: dict[str, list[dict[str, Any]]] = {}
        for row in doc["memories"]:
            days.setdefault(row["day"], []).append(row)
        answered, notes = None, []
        if q.get("answer") == "1" and q.get("q", "").strip():  # the answer box above the results, when asked
            from memactors.adapters.operations.answer import answer

            answered = (await run(answer, repo, q["q"], track=False, embedder=getattr(warm, "embedder", None),
                                  notes=notes)).document["answer"]
            doc = {**doc, "answer": answered}
        return page(request, "timeline.html", {"json": doc, "doc": doc, "days": days, "answer": answered,
                                                "answer_notes": notes, "asked": q.get("answer") == "1",
                                                "tiers": ("hot", "warm", "cold", "archived", "untiered")})

    async def memory(request: Request) -> Response:
        from memactors.adapters.git.branches import MAX_NAMED
        from memactors.adapters.operations import graph, memories, runs

        memory_id = request.path_params["memory_id"]
        shown = await run(memories.show, repo, memory_id)
        if shown.document is None:
            return problem(request, shown.text, 404)
        doc = shown.document
        if doc.get("kind") == "summary" or "members" in doc and "namespace" not in doc:
            return page(request, "summary.html", {"json": doc, "summary": doc})
        edges = (await run(memories.edges, repo, memory_id)).document or []
        chain = (await run(graph.graph, repo, memory_id, depth=5, types=["supersedes", "subsumes"],
                           fmt="json")).document
        history = (await run(runs.tier_history, repo, memory_id)).document
        copies = [e for e in edges if e["edge_type"] == "subsumes" and e["source_id"] == doc["id"]
                  and e["reason"].startswith("duplicate")]
        replaced_by = None  # what replaced it (for a copy: the memory it copies), to name and link in the banner
        original = next((e for e in edges if is_copy(e) and e["target_id"] == doc["id"]), None)
        if original is not None:
            replaced_by = {"id": original["source_id"], "title": original["source_title"]}
        elif (doc.get("meta") or {}).get("superseded_by"):
            replacer = (await run(memories.show, repo, doc["meta"]["superseded_by"])).document
            if replacer is not None:
                replaced_by = {"id": replacer["id"], "title": replacer.get("title") or replacer["id"]}
        return page(request, "memory.html", {"json": {**doc, "edges": edges, "chain": chain, "tier_history": history},
                                              "m": doc, "edges": edges, "chain": chain, "history": history,
                                              "copies": copies, "replaced_by": replaced_by,
                                              "folded": fold_copies(chain), "drawing": chain_drawing(chain),
                                              "named": MAX_NAMED})

    async def run_page(request: Request) -> Response:
        from memactors.adapters.operations import runs

        found = await run(runs.run_changes, repo, request.path_params["run_id"], page=number(request, "page", 1),
                          per_page=number(request, "per_page", runs.MAX_CHANGES))
        if found.document is None:
            return problem(request, found.text, 404)
        return page(request, "run.html", {"json": found.document, "doc": found.document})

    async def runs_page(request: Request) -> Response:
        from memactors.adapters.operations import runs

        doc = (await run(runs.runs, repo, page=number(request, "page", 1))).document
        return page(request, "runs.html", {"json": doc, "doc": doc})

    async def conflicts(request: Request) -> Response:
        from memactors.adapters.operations import memories

        listed = (await run(memories.conflicts, repo)).document or []
        decided = (await run(memories.conflicts, repo, decided=True)).document or []
        just = request.query_params.get("decided", "")
        notice = next((c for c in decided if just and c["conflict_id"] == just), None)
        return page(request, "conflicts.html", {"json": listed, "conflicts": listed, "notice": notice,
                                                "decided": decided[:DECIDED_SHOWN],
                                                "earlier": max(0, len(decided) - DECIDED_SHOWN)})

    async def resolve(request: Request) -> Response:
        from memactors.adapters.operations import memories

        data = await form(request)
        keep = data.get("keep") or None
        try:
            done = await run(memories.resolve, repo, request.path_params["conflict_id"], keep=keep,
                             both=keep is None, change=data.get("change") == "1")
        except memories.AlreadyDecided as exc:
            raise UsageError(f"this conflict is already decided ({exc.earlier}); to change it, use "
                             "\u201cChange the decision\u201d under Decided on the conflicts page") from None
        return RedirectResponse(f"/conflicts?decided={quote(done.document['conflict_id'])}#decided",
                                status_code=303)

    async def review_page(request: Request) -> Response:
        from memactors.adapters.operations import review

        from memactors.events.memory import KNOWN_NAMESPACES

        waiting = (await run(review.listing, repo)).document or []
        blocked = (await run(review.listing, repo, blocked=True)).document or []
        chosen = request.query_params.get("edit", "")
        editing = next((c for c in waiting if c["id"] == chosen), waiting[0] if waiting else None)
        namespaces = list(KNOWN_NAMESPACES)
        if editing is not None and editing["namespace"] not in namespaces:
            namespaces.append(editing["namespace"])
        return page(request, "review.html", {"json": {"pending": waiting, "blocked": blocked},
                                              "pending": waiting, "blocked": blocked, "sources": review.SOURCES,
                                              "editing": editing, "namespaces": namespaces})

    async def review_action(request: Request) -> Response:
        from memactors.adapters.operations import review

        data = await form(request)
        action = request.path_params["action"]
        ids = [i for i in data.get("ids", []) if i]
        if action == "edit":
            await edit_proposal(request, data)
        elif not ids:
            raise UsageError("choose at least one proposed memory")
        elif action == "approve":
            await run(review.approve, repo, ids)
        elif action == "reject":
            await run(review.reject, repo, ids)
        else:
            return problem(request, f"no review action {action!r}", 404)
        return RedirectResponse("/review", status_code=303)

    async def edit_proposal(request: Request, data: dict[str, Any]) -> None:
        """The edit form starts from the proposal's values: what differs from them is the edit."""
        from memactors.adapters.operations import review

        chosen = data.get("id", "")
        request.scope["memactors.back"] = f"/review?edit={quote(chosen)}" if chosen else "/review"
        waiting = (await run(review.listing, repo)).document or []
        current = next((c for c in waiting if c["id"] == chosen), None)
        if current is None:
            raise UsageError("that proposal is no longer waiting (approved, rejected or edited meanwhile)")
        summary = data.get("summary", current["summary"])
        if not " ".join(summary.split()):
            raise UsageError("the summary is empty: a proposed memory needs one line (1 to 100 characters)")
        content = data.get("content", current["content"]).replace("\r\n", "\n")
        changes = {"summary": summary if " ".join(summary.split()) != current["summary"] else None,
                   "namespace": data.get("namespace") if data.get("namespace", current["namespace"])
                   != current["namespace"] else None,
                   "content": content if content != current["content"] else None}
        if all(value is None for value in changes.values()):
            raise UsageError("nothing changed: edit the summary, the namespace or the content first")
        await run(review.edit, repo, chosen, **changes)

    async def proposals_page(request: Request) -> Response:
        from memactors.adapters.operations import proposals

        doc = (await run(proposals.listing, repo)).document
        saved = doc if doc and doc.get("run_id") else None
        notice = {"applied": "Applied: the proposals are written.", "discarded": "Discarded: nothing was written."}
        return page(request, "proposals.html", {"json": doc, "doc": saved, "shown": PROPOSALS_SHOWN,
                                                 "has_change": bool(saved and saved.get("writes")),
                                                 "notice": notice.get(request.query_params.get("done", ""))})

    async def proposals_action(request: Request) -> Response:
        from memactors.adapters.operations import proposals

        data = await form(request)
        action = request.path_params["action"]
        if action not in ("apply", "discard"):
            return problem(request, f"no proposals action {action!r}", 404)
        done = await run(getattr(proposals, action), repo, expected_run=data.get("run_id") or None)
        if done.document is None:
            return problem(request, done.text, 409)
        return RedirectResponse(f"/proposals?done={'applied' if action == 'apply' else 'discarded'}",
                                status_code=303)

    async def not_superseded(request: Request) -> Response:
        from memactors.adapters.operations import memories

        await form(request)
        memory_id = request.path_params["memory_id"]
        await run(memories.not_superseded, repo, memory_id)
        return RedirectResponse(f"/memory/{memory_id}", status_code=303)

    async def usage_error(request: Request, exc: Exception) -> Response:
        return problem(request, str(exc), 400)

    async def forbidden(request: Request, exc: Exception) -> Response:
        return problem(request, str(exc), 403)

    async def store_error(request: Request, exc: Exception) -> Response:
        return problem(request, f"the store cannot be read: {str(exc).splitlines()[0]}", 500)

    from memactors.adapters.git.store import StoreError

    async def no_icon(request: Request) -> Response:
        return Response(status_code=204)  # browsers ask; the viewer has none (and the CSP allows no data: URL)

    async def too_long(request: Request) -> Response:
        size = len(request.scope.get("query_string", b""))
        return problem(request, f"the address is too long ({size:,} bytes after the ?; the viewer reads "
                                f"{MAX_QUERY_BYTES:,} at most): search with fewer words", 414)

    routes = [
        Route("/favicon.ico", no_icon), Route("/", overview), Route("/timeline", timeline), Route("/memory/{memory_id:path}", memory),
        Route("/run/{run_id}", run_page), Route("/runs", runs_page), Route("/conflicts", conflicts),
        Route("/conflicts/{conflict_id}/resolve", resolve, methods=["POST"]),
        Route("/review", review_page), Route("/review/{action}", review_action, methods=["POST"]),
        Route("/not-superseded/{memory_id:path}", not_superseded, methods=["POST"]),
        Route("/proposals", proposals_page), Route("/proposals/{action}", proposals_action, methods=["POST"]),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={UsageError: usage_error, PermissionError: forbidden,
                                                        StoreError: store_error})

    async def bounded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and len(scope.get("query_string", b"")) > MAX_QUERY_BYTES:
            await (await too_long(Request(scope, receive)))(scope, receive, send)
            return
        await app(scope, receive, send)

    return bounded


def back_to(request: Request) -> tuple[str, str]:
    """Where an error page leads back to: the page the user was on (its link and its name)."""
    path = request.scope.get("memactors.back") or request.url.path
    pages = {"/review": "the review", "/conflicts": "the conflicts", "/timeline": "the timeline", "/runs": "the runs",
             "/proposals": "the proposals"}
    for start, name in pages.items():
        if path == start or path.startswith(start + "/") or path.startswith(start + "?"):
            return (path if "?" in path else start), name
    if path.startswith("/not-superseded/"):
        return "/memory/" + path.removeprefix("/not-superseded/"), "the memory"
    if path.startswith("/run/"):
        return "/runs", "the runs"
    return "/", "the overview"


def tier_plot(history: list[dict[str, Any]], width: int = 640, height: int = 160) -> dict[str, Any]:
    """Lines (one per tier, a dot at each run) of the tier counts run by run, scaled into a width x height
    box, with the y axis's ticks (memories) and the x axis's first and last run dates."""
    tiers = ("hot", "warm", "cold", "archived")
    if not history:
        return {"width": width, "height": height, "lines": [], "top": 0}
    top = max(1, max(sum((h.get("tier_counts") or {}).values()) for h in history))
    # one run sits in the middle; several spread over the width
    step = width / max(1, len(history) - 1)
    xs = [width / 2] if len(history) == 1 else [i * step for i in range(len(history))]
    lines = []
    for tier in tiers:
        points = [(x, height - (h.get("tier_counts") or {}).get(tier, 0) / top * height) for x, h in zip(xs, history)]
        lines.append({"tier": tier, "points": " ".join(f"{x:.1f},{y:.1f}" for x, y in points),
                      "dots": [{"x": round(x, 1), "y": round(y, 1)} for x, y in points]})
    ticks = sorted({0, top // 2, top})
    day = [str(h.get("started_at") or "")[:10] for h in history]
    return {"width": width, "height": height, "lines": lines, "top": top, "runs": len(history),
            "y_ticks": [{"y": round(height - t / top * height, 1), "label": f"{t:,}"} for t in ticks],
            "first": day[0], "last": day[-1]}
