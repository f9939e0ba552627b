"""What the viewer's pages tell a person, over HTTP through its ASGI app: whole runs, timeline search, chains."""

from __future__ import annotations

import re
from html import unescape

from tests.adapters.viewer.conftest import PORT
from tests.adapters.viewer.test_viewer_http import _ids, session
from tests.conftest import Repo


def _text(html: str) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


async def test_a_runs_every_change_is_reachable_page_by_page_readable_and_linked(viewer_store: Repo) -> None:
    ids = _ids(viewer_store)
    async with session(viewer_store) as client:
        runs = (await client.get("/runs?format=json")).json()["runs"]
        first = runs[-1]["run_id"]  # the consolidation: every memory new, edges added
        whole = (await client.get(f"/run/{first}?format=json")).json()
        total = whole["totals"]["tier_moves"]
        assert total >= 6 and len(whole["tier_moves"]) == total and whole["pages"] == 1
        seen, page, pages = [], 1, None
        while True:
            html = (await client.get(f"/run/{first}?page={page}&per_page=2")).text
            text = _text(html)
            doc = (await client.get(f"/run/{first}?page={page}&per_page=2&format=json")).json()
            pages = doc["pages"]
            assert f"Tier moves ({total})" in text
            if doc["tier_moves"]:
                assert f"{len(doc['tier_moves'])} of {total}" in text
            seen += [m["key"] for m in doc["tier_moves"]]
            if page < pages:
                assert f'href="/run/{first}?page={page + 1}&amp;per_page=2"' in html and "next page" in text
            else:
                assert "next page" not in text
                break
            page += 1
        assert sorted(seen) == sorted(m["key"] for m in whole["tier_moves"]) and len(set(seen)) == total
        html = (await client.get(f"/run/{first}")).text
        assert "None" not in _text(html) and "new → hot" in _text(html)
        assert "new → hot" in whole["tier_move_counts"]
        # every memory a move or an edge names is a link to it, shown by its title
        assert f'<a href="/memory/{ids["Use SQLite for storage"]}">Use SQLite for storage</a>' in html
        added = whole["edges"]["added"]
        assert added, "the consolidation found the supersessions"
        for edge in added:
            assert f'href="/memory/{edge["source_id"]}"' in html and f'href="/memory/{edge["target_id"]}"' in html
        assert (await client.get(f"/run/{first}?page={pages + 1}&per_page=2")).status_code == 400
        assert (await client.get(f"/run/{first}?per_page=0")).status_code == 400
