"""The user's decisions in the viewer over HTTP (its ASGI app on trio): conflicts weighed and confirmed, a decided
conflict changed only on purpose, proposals edited from their current values, and what the overview and a
memory's page say in words."""

from __future__ import annotations

import html
import re

from memactors.adapters.git.memory_store import MemoryStore
from memactors.adapters.git.store import GitStore
from memactors.events.memory import KNOWN_NAMESPACES
from tests.adapters.viewer.test_viewer_http import _csrf, _ids, session
from tests.conftest import Repo


def _resolution(repo: Repo, conflict_id: str) -> str | None:
    return MemoryStore(GitStore(repo.path)).load_state().edges[conflict_id].resolution


async def test_a_conflict_shows_both_sides_and_a_decision_is_confirmed_and_changed_only_on_purpose(
        viewer_store: Repo) -> None:
    async with session(viewer_store) as client:
        [conflict] = (await client.get("/conflicts?format=json")).json()
        newer, older = conflict["sides"]["newer"], conflict["sides"]["older"]
        assert newer["timestamp"] > older["timestamp"]
        page = (await client.get("/conflicts")).text
        for side, which in ((newer, "newer"), (older, "older")):
            card = re.search(rf'<article class="side {which}">(.*?)</article>', page, re.S)[1]
            assert html.escape(side["body"]) in card and side["timestamp"][:10] in card
            assert f'value="{side["id"]}"' in card and html.escape(side["title"]) in card
        action = f"/conflicts/{conflict['conflict_id']}/resolve"
        done = await client.post(action, data={"keep": older["id"], "csrf": _csrf(page)})
        assert done.status_code == 303 and done.headers["location"].startswith("/conflicts?decided=")
        after = (await client.get(done.headers["location"])).text
        notice = re.search(r'<section class="notice"[^>]*>(.*?)</section>', after, re.S)[1]
        assert f"kept {html.escape(older['title'])}" in notice
        assert "at once" in notice and "recall" in notice and "next run" in notice
        assert "No conflict waits for you" in after
        decided = re.search(r'<section class="conflict decided"[^>]*>(.*?)</section>', after, re.S)[1]
        assert f"kept {html.escape(older['title'])}" in decided and "Change the decision" in decided
        assert _resolution(viewer_store, conflict["conflict_id"]).startswith("keep:")
        # a different decision without saying to change it: refused, the earlier one stands, the page leads back
        refused = await client.post(action, data={"both": "1", "csrf": _csrf(after)})
        assert refused.status_code == 400 and "already decided" in refused.text
        assert "Change the decision" in refused.text and 'href="/conflicts"' in refused.text
        assert _resolution(viewer_store, conflict["conflict_id"]).startswith("keep:")
        changed = await client.post(action, data={"both": "1", "change": "1", "csrf": _csrf(after)})
        assert changed.status_code == 303
        assert "both stand" in (await client.get(changed.headers["location"])).text
    assert _resolution(viewer_store, conflict["conflict_id"]) == "both"


async def test_edit_one_starts_from_the_proposals_values_and_an_error_leads_back_to_review(
        viewer_store: Repo) -> None:
    async with session(viewer_store) as client:
        pending = (await client.get("/review?format=json")).json()["pending"]
        first, third = pending[0], pending[2]
        for path, chosen in (("/review", first), (f"/review?edit={third['id']}", third)):
            page = (await client.get(path)).text
            form = re.search(r'<form method="post" action="/review/edit"[^>]*>(.*?)</form>', page, re.S)[1]
            assert f'name="id" value="{chosen["id"]}"' in form
            assert f'name="summary" maxlength="100" value="{html.escape(chosen["summary"])}"' in form
            options = re.findall(r'<option value="([a-z]+)"( selected)?>', form)
            assert [o for o, _ in options] == list(KNOWN_NAMESPACES)
            assert [o for o, s in options if s] == [chosen["namespace"]]
            assert re.search(r'<textarea name="content"[^>]*>\n(.*?)</textarea>', form, re.S)[1] == html.escape(
                chosen["content"])
            assert f'href="/review?edit={third["id"]}#edit"' in page  # each proposal offers its edit
        token = _csrf(page)
        empty = await client.post("/review/edit", data={"id": third["id"], "summary": "", "namespace": "decisions",
                                                        "content": "", "csrf": token})
        assert empty.status_code == 400 and "summary is empty" in empty.text
        assert f'<a href="/review?edit={third["id"]}">Back to the review</a>' in empty.text
        unchanged = await client.post("/review/edit", data={"id": third["id"], "summary": third["summary"],
                                                            "namespace": third["namespace"],
                                                            "content": third["content"], "csrf": token})
        assert unchanged.status_code == 400 and "nothing changed" in unchanged.text
        moved = await client.post("/review/edit", data={"id": third["id"], "summary": third["summary"],
                                                        "namespace": "learnings", "content": third["content"],
                                                        "csrf": token})
        assert moved.status_code == 303 and moved.headers["location"] == "/review"
        after = {c["summary"]: c for c in (await client.get("/review?format=json")).json()["pending"]}
        assert after[third["summary"]]["namespace"] == "learnings"
        refused = await client.post("/review/approve", data={"csrf": token})
        assert refused.status_code == 400 and 'href="/review"' in refused.text and 'href="/">Back' not in refused.text


async def test_the_overview_needs_you_only_for_what_is_there_and_factors_are_in_words(viewer_store: Repo) -> None:
    sqlite = _ids(viewer_store)["Use SQLite for storage"]
    async with session(viewer_store) as client:
        assert (await client.get("/?format=json")).json()["status"]["skipped"] == {}
        overview = (await client.get("/")).text
        needs = re.search(r'<section class="needs">(.*?)</section>', overview, re.S)[1]
        assert "skipped" not in needs and "1 conflict" in needs
        page = (await client.get(f"/memory/{sqlite}")).text
        factors = " ".join(re.findall(r"<th>(.*?)</th>", re.search(r'<h2>Retention and quality</h2>(.*?)</section>',
                                                                    page, re.S)[1]))
        for internal in ("information_words", "markup_share", "auto_captured", "superseded", "activation"):
            assert internal not in factors, internal
        for words in ("distinct words", "markup", "captured automatically", "replaced", "uses"):
            assert words in factors, words


async def test_the_tier_plot_has_axes_and_shows_a_single_run(viewer_store: Repo) -> None:
    async with session(viewer_store) as client:
        overview = (await client.get("/")).text
    plot = re.search(r'<svg class="plot"(.*?)</svg>', overview, re.S)[1]
    assert plot.count("<circle") == 4  # one run: a dot per tier where a line has nothing to join
    labels = re.findall(r'<text class="axis"[^>]*>([^<]*)</text>', plot)
    assert "0" in labels and re.fullmatch(r"\d{4}-\d{2}-\d{2}", labels[-3])
    assert "memories per tier, run by run (1 run)" in labels
    assert "The one run" in overview and "All 1 runs" not in overview
