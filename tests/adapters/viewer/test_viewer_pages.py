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


async def test_a_chain_folds_copies_into_one_box_and_a_replaced_memory_names_what_replaced_it(repo: Repo, cli) -> None:
    from datetime import timedelta

    from memactors.adapters.git.memory_store import MemoryStore
    from memactors.adapters.git.store import GitStore
    from tests.conftest import NOW

    repo.capture("decisions", "Use SQLite for storage", "One file is enough.", when=NOW - timedelta(days=30))
    for day in (12, 11, 10):
        repo.commit(f"later {day}")
        repo.capture("decisions", "Switch storage from SQLite to PostgreSQL", "We need concurrent writers.",
                     when=NOW - timedelta(days=day))
    assert cli("consolidate", "--repo", str(repo.path)).returncode == 0
    memories = MemoryStore(GitStore(repo.path)).scan(None).memories
    old = next(m.id for m in memories if m.summary == "Use SQLite for storage")
    async with session(repo) as client:
        page = (await client.get(f"/memory/{old}")).text
        doc = (await client.get(f"/memory/{old}?format=json")).json()
    replacer = next(e["source_id"] for e in doc["edges"] if e["edge_type"] == "supersedes" and e["target_id"] == old)
    drawing = page[page.index('<svg class="chain"'): page.index("</svg>")]
    # two boxes, not five: the three captures of the new decision are one box saying it has copies
    assert drawing.count("<rect") == 2 and "+2 copies" in drawing
    assert re.search(r'viewBox="0 0 \d+ \d+"', drawing) and 'role="img"' not in drawing
    chain_list = _text(page[page.index('<ul class="chain-list">'): page.index("</ul>", page.index("chain-list"))])
    assert chain_list.count("subsumes") == 0 and chain_list.count("supersedes") == 1
    assert "stored 3 times" in chain_list
    banner = page[page.index('<section class="replaced">'): page.index("</section>", page.index('class="replaced"'))]
    assert "Switch storage from SQLite to PostgreSQL" in banner and f'href="/memory/{replacer}"' in banner


async def test_a_search_is_one_ranked_list_and_finds_archived_memories_and_copies_when_asked(repo: Repo, cli,
                                                                                              tmp_path) -> None:
    from datetime import timedelta

    from tests.adapters.viewer.conftest import HOSTILE, build_viewer_store
    from tests.conftest import NOW

    repo.capture("decisions", "Use ruff for linting", "Ruff replaces flake8 and isort.", when=NOW - timedelta(days=3))
    repo.commit("later")
    repo.capture("decisions", "Use ruff for linting", "Ruff replaces flake8 and isort.", when=NOW - timedelta(days=1))
    build_viewer_store(repo, cli, tmp_path / "sessions")
    ids = _ids(repo)
    async with session(repo) as client:
        doc = (await client.get("/timeline?q=storage&format=json")).json()
        html = (await client.get("/timeline?q=storage")).text
        # best first, as one list: no date headings (they would run out of order), the date on every row
        assert doc["total"] >= 3 and "<h2>20" not in html
        rows = re.findall(r'<a class="title" href="/memory/([^"]+)"', html)
        assert rows == [r["id"] for r in doc["memories"]]
        assert len(re.findall(r'<time datetime="\d{4}-\d\d-\d\d', html)) == len(rows)
        # an archived memory is found when the search asks for archived ones
        hostile = ids[HOSTILE]
        tiers = (await client.get(f"/memory/{hostile}?format=json")).json()["tier"]
        assert tiers == "archived"
        found = (await client.get("/timeline?q=bold+names&tier=archived&format=json")).json()
        assert [r["id"] for r in found["memories"]] == [hostile]
        assert _text((await client.get("/timeline?q=bold+names&tier=archived")).text).count("1 memory matching") == 1
        # a copy is folded away in listings, and found when copies are asked for
        folded = (await client.get("/timeline?q=ruff+linting&format=json")).json()["memories"]
        assert [r["copies"] for r in folded] == [1]
        both = (await client.get("/timeline?q=ruff+linting&copies=1&format=json")).json()["memories"]
        assert len(both) == 2 and {r["title"] for r in both} == {"Use ruff for linting"}
        assert any(r["copy_of"] == folded[0]["id"] for r in both)
