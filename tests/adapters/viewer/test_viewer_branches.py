"""The viewer's memory page names the branches that hold the memory's commit, over HTTP through its ASGI app, on
a real repository with merged, unmerged and deleted branches."""

from __future__ import annotations

from tests.adapters.git.test_branches import _branchy
from tests.adapters.viewer.test_viewer_http import session
from tests.adapters.viewer.test_viewer_pages import _text
from tests.conftest import Repo, git


def _section(html: str) -> str:
    start = html.index('<section class="branches">')
    return _text(html[start: html.index("</section>", start)])


async def test_the_memory_page_lists_the_branches_holding_its_commit_ten_then_and_n_more(repo: Repo) -> None:
    commits = _branchy(repo)
    for number in range(12):
        git(repo.path, "branch", f"release/{number:02d}", "main")
    async with session(repo) as client:
        on_main = _section((await client.get(f"/memory/decisions:{commits['main']}:0")).text)
        unmerged = _section((await client.get(f"/memory/decisions:{commits['unmerged']}:0")).text)
        deleted = _section((await client.get(f"/memory/decisions:{commits['deleted']}:0")).text)
    assert "Its commit is in HEAD's history." in on_main
    assert "15 branches contain it:" in on_main
    assert on_main.split("contain it:")[1].split() == [
        "main", "feature/merged", "feature/x", *(f"release/{n:02d}" for n in range(7)), "and", "5", "more"]
    assert "Its commit is not merged into HEAD (not in its history, and HEAD does not hold its change)" in unmerged
    assert "1 branch contains it: feature/x" in unmerged
    assert "no branch holds it: the branch it was made on was deleted without merging" in deleted and "contain" not in deleted
