"""The viewer over HTTP, through its ASGI app on trio: every page and action, and its guard."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

from memactors.adapters.git.memory_store import MemoryStore
from memactors.adapters.git.store import GitStore
from memactors.adapters.viewer.server import build
from tests.adapters.viewer.conftest import HOSTILE, PORT
from tests.conftest import Repo

BASE = f"http://127.0.0.1:{PORT}"
TOKEN = "test-token-0123456789"


@asynccontextmanager
async def session(repo: Repo) -> AsyncIterator[httpx.AsyncClient]:
    """A client that opened the printed URL (so it holds the session cookie)."""
    app, url = build(repo.path, PORT, token=TOKEN)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE) as client:
        opened = await client.get(url.removeprefix(BASE))
        assert opened.status_code == 303 and opened.headers["location"] == "/"
        assert "HttpOnly" in opened.headers["set-cookie"] and "SameSite=Strict" in opened.headers["set-cookie"]
        yield client


def _ids(repo: Repo) -> dict[str, str]:
    return {m.summary: m.id for m in MemoryStore(GitStore(repo.path)).scan(None).memories}


def _csrf(page: str) -> str:
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page)[1]


async def test_every_page_answers_for_the_session_and_nothing_without_it(viewer_store: Repo) -> None:
    ids = _ids(viewer_store)
    async with session(viewer_store) as client:
        run_id = (await client.get("/runs?format=json")).json()["runs"][0]["run_id"]
        for path in ("/", "/timeline", "/timeline?q=storage", "/timeline?tier=hot&namespace=decisions",
                     f"/memory/{ids['Use SQLite for storage']}", f"/run/{run_id}", "/runs", "/conflicts",
                     "/review", "/static/style.css"):
            page = await client.get(path)
            assert page.status_code == 200, (path, page.text[:300])
            assert "access-control-allow-origin" not in page.headers
            assert page.headers["x-frame-options"] == "DENY" and "default-src 'none'" in page.headers[
                "content-security-policy"]
        stranger = httpx.AsyncClient(transport=client._transport, base_url=BASE)
        for path in ("/", "/timeline", "/static/style.css", f"/memory/{ids['Use SQLite for storage']}"):
            assert (await stranger.get(path)).status_code == 403
        assert (await stranger.get("/?token=guess")).status_code == 403
        assert (await client.get("/", headers={"host": f"attacker.example:{PORT}"})).status_code == 400
        assert (await client.get("/", headers={"host": "127.0.0.1:9"})).status_code == 400


async def test_hostile_memory_text_is_shown_as_text(viewer_store: Repo) -> None:
    hostile = _ids(viewer_store)[HOSTILE]
    async with session(viewer_store) as client:
        for path in ("/timeline", f"/memory/{hostile}"):
            page = (await client.get(path)).text
            assert "<script>" not in page and "<b>bold</b>" not in page and "onerror=\"alert" not in page
            assert "&lt;script&gt;alert(" in page


async def test_pages_are_bounded_and_bad_parameters_say_what_is_wrong(viewer_store: Repo) -> None:
    async with session(viewer_store) as client:
        doc = (await client.get("/timeline?format=json")).json()
        assert doc["total"] >= 6 and doc["page"] == 1 and len(doc["memories"]) <= doc["per_page"]
        copies_folded = {m["title"] for m in doc["memories"]}
        assert len(copies_folded) == len(doc["memories"])
        for query, says in (("page=0", "1 or more"), ("page=99", "past the last page"), ("page=two", "whole number"),
                            ("tier=lukewarm", "unknown tier"), ("min_quality=2", "between 0 and 1"),
                            ("namespace=nonsense", "no namespace")):
            answer = await client.get(f"/timeline?{query}")
            assert answer.status_code == 400 and says in answer.text, query
            assert (await client.get(f"/timeline?{query}&format=json")).json()["error"]
        missing = await client.get("/memory/decisions:0000000:9")
        assert missing.status_code == 404 and "no memory" in missing.text
        assert (await client.get("/run/nope")).status_code == 404


async def test_replaced_memories_are_struck_through_and_point_at_their_replacement(viewer_store: Repo) -> None:
    ids = _ids(viewer_store)
    async with session(viewer_store) as client:
        rows = {m["title"]: m for m in (await client.get("/timeline?format=json")).json()["memories"]}
        sqlite = rows["Use SQLite for storage"]
        assert sqlite["superseded_by"] == ids["Switch storage from SQLite to PostgreSQL"]
        page = (await client.get("/timeline")).text
        assert "<s>Use SQLite for storage</s>" in page and f'href="/memory/{sqlite["superseded_by"]}"' in page
        memory = await client.get(f"/memory/{ids['Use SQLite for storage']}")
        assert memory.status_code == 200 and "<svg class=\"chain\"" in memory.text
        chain = (await client.get(f"/memory/{ids['Use SQLite for storage']}?format=json")).json()["chain"]
        assert len(chain["nodes"]) == 3


async def test_a_post_needs_the_pages_csrf_token_and_a_same_origin(viewer_store: Repo) -> None:
    async with session(viewer_store) as client:
        [conflict] = (await client.get("/conflicts?format=json")).json()
        action = f"/conflicts/{conflict['conflict_id']}/resolve"
        assert (await client.post(action, data={"both": "1"})).status_code == 403
        assert (await client.post(action, data={"both": "1", "csrf": "0" * 64})).status_code == 403
        token = _csrf((await client.get("/conflicts")).text)
        refused = await client.post(action, data={"both": "1", "csrf": token}, headers={"origin": "http://evil.test"})
        assert refused.status_code == 403
        assert (await client.get("/conflicts?format=json")).json() != []
        assert (await client.put("/conflicts")).status_code == 405


async def test_resolving_a_conflict_from_the_page_records_the_decision(viewer_store: Repo) -> None:
    async with session(viewer_store) as client:
        [conflict] = (await client.get("/conflicts?format=json")).json()
        token = _csrf((await client.get("/conflicts")).text)
        done = await client.post(f"/conflicts/{conflict['conflict_id']}/resolve",
                                 data={"keep": conflict["source_id"], "csrf": token}, headers={"origin": BASE})
        assert done.status_code == 303 and done.headers["location"].startswith("/conflicts?decided=")
        assert (await client.get("/conflicts?format=json")).json() == []
    edge = MemoryStore(GitStore(viewer_store.path)).load_state().edges[conflict["conflict_id"]]
    assert edge.resolution == f"keep:{conflict['source_key']}"


async def test_review_actions_approve_reject_and_edit_proposals(viewer_store: Repo) -> None:
    async with session(viewer_store) as client:
        pending = (await client.get("/review?format=json")).json()["pending"]
        assert len(pending) >= 3
        token = _csrf((await client.get("/review")).text)
        first, second, third = pending[:3]
        approved = await client.post("/review/approve", data={"ids": [first["id"]], "csrf": token})
        assert approved.status_code == 303
        assert (await client.post("/review/reject", data={"ids": [second["id"]], "csrf": token})).status_code == 303
        edited = await client.post("/review/edit", data={"id": third["id"], "summary": "Edited in the viewer",
                                                          "csrf": token})
        assert edited.status_code == 303
        after = {c["summary"]: c for c in (await client.get("/review?format=json")).json()["pending"]}
        assert first["summary"] not in after and second["summary"] not in after and "Edited in the viewer" in after
        none = await client.post("/review/approve", data={"csrf": token})
        assert none.status_code == 400 and "choose at least one" in none.text
    assert first["summary"] in _ids(viewer_store)


async def test_marking_a_supersession_wrong_stands_through_later_runs(viewer_store: Repo, cli) -> None:
    ids = _ids(viewer_store)
    sqlite = ids["Use SQLite for storage"]
    originals = viewer_store.originals()
    async with session(viewer_store) as client:
        page = (await client.get(f"/memory/{sqlite}")).text
        assert "the supersession is wrong" in page
        done = await client.post(f"/not-superseded/{sqlite}", data={"csrf": _csrf(page)})
        assert done.status_code == 303
    assert cli("consolidate", "--full", "--repo", str(viewer_store.path)).returncode == 0
    state = MemoryStore(GitStore(viewer_store.path)).load_state()
    key = next(m.key for m in MemoryStore(GitStore(viewer_store.path)).scan(None).memories if m.id == sqlite)
    assert state.meta[key].superseded_by is None
    assert [e.resolution for e in state.edges.values() if e.target_key == key and e.edge_type.value == "supersedes"] \
        == ["removed"]
    shown = json.loads(cli("show", sqlite, "--json", "--repo", str(viewer_store.path)).stdout)
    assert shown["replaces"] == [] and not (shown["meta"] or {}).get("superseded_by")
    assert viewer_store.originals() == originals


def test_the_daemon_serves_the_viewer_with_run_view_and_stops_cleanly(repo: Repo) -> None:
    import os
    import signal
    import subprocess
    import sys
    import urllib.request

    repo.capture("decisions", "Use SQLite for storage")
    daemon = subprocess.Popen([sys.executable, "-m", "memactors.adapters.cli", "run", "--view", "--repo",
                               str(repo.path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ})
    try:
        line = daemon.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", line)[0]
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with opener.open(url, timeout=60) as page:  # the redirect sets the cookie, then the overview answers
            assert page.status == 200 and b"<h1>Overview</h1>" in page.read()
        try:
            urllib.request.urlopen(url.split("?")[0] + "timeline", timeout=30)
            raise AssertionError("answered without the session")
        except urllib.error.HTTPError as refused:
            assert refused.code == 403
        daemon.send_signal(signal.SIGINT)
        _, err = daemon.communicate(timeout=60)
    finally:
        if daemon.poll() is None:
            daemon.kill()
    assert daemon.returncode == 0 and "Traceback" not in err, err


def test_view_outside_a_repository_or_on_a_bad_port_says_what_to_do(tmp_path) -> None:
    from tests.conftest import run_cli

    outside = run_cli("view", "--no-open", "--repo", str(tmp_path))
    assert outside.returncode == 2 and "not inside a git repository" in outside.stderr
    assert "Traceback" not in outside.stderr
    bad = run_cli("view", "--no-open", "--port", "70000", "--repo", str(tmp_path))
    assert bad.returncode == 2 and "--port must be" in bad.stderr


def test_view_or_run_view_on_a_port_in_use_says_so_in_one_line_and_to_try_port_0(repo: Repo) -> None:
    import os
    import socket
    import subprocess
    import sys

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "memactors.adapters.cli", *args, "--repo", str(repo.path)],
                              capture_output=True, text=True, env={**os.environ}, timeout=120)

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        viewer = cli("view", "--no-open", "--port", port)
        daemon = cli("run", "--view", "--view-port", port)
    assert viewer.returncode == 2 and viewer.stdout == "", viewer
    assert viewer.stderr.splitlines() == [f"memactors: cannot listen on 127.0.0.1:{port}: Address already in use; "
                                          "try --port 0 (a free one)"]
    assert daemon.returncode == 2, daemon
    assert daemon.stderr.splitlines()[-1] == (f"memactors run: cannot listen on 127.0.0.1:{port}: Address already "
                                              "in use; try --view-port 0 (a free one)")
    assert "Traceback" not in viewer.stderr + daemon.stderr


async def test_a_memory_captured_twice_lists_its_copy(repo: Repo, cli) -> None:
    from datetime import timedelta

    from tests.conftest import NOW

    repo.capture("decisions", "Use ruff for linting", "Ruff replaces flake8 and isort.", when=NOW - timedelta(days=3))
    repo.commit("later")
    repo.capture("decisions", "Use ruff for linting", "Ruff replaces flake8 and isort.", when=NOW - timedelta(days=1))
    assert cli("consolidate", "--repo", str(repo.path)).returncode == 0
    shown = {m.id: m.timestamp for m in MemoryStore(GitStore(repo.path)).scan(None).memories}
    newest, oldest = sorted(shown, key=shown.get, reverse=True)
    async with session(repo) as client:
        page = (await client.get(f"/memory/{newest}")).text
        rows = (await client.get("/timeline?format=json")).json()["memories"]
    assert "Copies (1)" in page and f'href="/memory/{oldest}"' in page
    assert [(r["id"], r["copies"]) for r in rows] == [(newest, 1)]
