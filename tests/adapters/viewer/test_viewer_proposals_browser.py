"""Consolidation proposals in real Chromium: the Proposals page shows what `consolidate --propose` would write (a
summary with its members, a supersession and a contradiction with their reasons, tier moves), Apply writes it,
Discard drops the next ones and writes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from tests.adapters.operations.test_proposals import build, refs_and_bytes
from tests.adapters.viewer.browser import CHROMIUM, FLAGS, chromium_page, serving
from tests.conftest import NOW, Repo


@pytest.fixture
def proposed(repo: Repo, cli) -> Repo:
    build(repo)
    done = cli("consolidate", "--propose", "--repo", str(repo.path))
    assert done.returncode == 0, done.stderr
    return repo


@pytest.fixture
def served_proposals(proposed: Repo) -> Iterator[str]:
    with serving(proposed.path) as url:
        yield url


def test_a_user_reviews_applies_and_discards_proposals(proposed: Repo, served_proposals: str, cli,
                                                       tmp_path: Path) -> None:
    repo = proposed
    before = refs_and_bytes(repo)
    with chromium_page(served_proposals) as (page, problems):
        page.get_by_role("link", name="Proposals").first.click()
        assert page.locator("h1").inner_text() == "Proposals"
        summary = page.locator("section.proposal.summary")
        assert summary.count() == 1
        members = summary.locator("li").all_inner_texts()
        assert sorted(members) == ["Retries must be idempotent", "Retries must be idempotent, always",
                                   "Retries need idempotency keys"]
        replaced = page.locator("#supersessions + ul li", has_text="Switch storage from SQLite to PostgreSQL")
        assert "Use SQLite for storage" in replaced.inner_text() and "Because: " in replaced.inner_text()
        conflict = page.locator("#conflicts + ul li")
        assert "Do not use Redis for session caching" in conflict.inner_text()
        assert "undecided" in conflict.inner_text() and "Because: " in conflict.inner_text()
        assert page.locator("table.tiers tbody tr").count() == 7
        page.screenshot(path=str(tmp_path / "proposals.png"), full_page=True)
        assert refs_and_bytes(repo) == before  # looking writes nothing

        page.get_by_role("button", name="Apply the proposals").click()
        assert "Applied" in page.get_by_role("status").inner_text()
        assert page.get_by_text("No proposals wait").is_visible()
        applied = refs_and_bytes(repo)
        assert {"refs/notes/mem-meta", "refs/notes/mem-summaries", "refs/notes/mem-edges",
                "refs/notes/mem-runs"} <= set(applied["refs"])
        conflicts = page.request.get(served_proposals.split("/?")[0] + "/conflicts?format=json").json()
        assert len(conflicts) == 1  # the proposed contradiction now waits for the user

        repo.capture("progress", "Milestone 1 done", "Tests green.", when=NOW - timedelta(days=1))
        assert cli("consolidate", "--propose", "--repo", str(repo.path)).returncode == 0
        captured = refs_and_bytes(repo)
        page.reload()
        assert page.locator("table.tiers").inner_text().count("Milestone 1 done") == 1
        page.get_by_role("button", name="Discard the proposals").click()
        assert "Discarded" in page.get_by_role("status").inner_text()
        assert page.get_by_text("No proposals wait").is_visible()
        assert refs_and_bytes(repo) == captured
    assert problems == []
    assert (tmp_path / "proposals.png").stat().st_size > 5_000


@pytest.mark.parametrize("width", [1280, 420])
def test_the_proposals_page_has_no_serious_or_critical_accessibility_violation(served_proposals: str,
                                                                               width: int) -> None:
    from playwright.sync_api import sync_playwright

    from tests.adapters.viewer.test_viewer_a11y import TAGS, _axe_script

    assert CHROMIUM is not None, "chromium is required here (MEMACTORS_REQUIRE_BROWSER=1): apt-get install chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        context = browser.new_context(bypass_csp=True, viewport={"width": width, "height": 900})
        page = context.new_page()
        page.goto(served_proposals)
        page.goto(served_proposals.split("/?")[0] + "/proposals")
        assert page.locator("table.tiers tbody tr").count() == 7
        page.add_script_tag(content=_axe_script())
        result = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags},"
                               " resultTypes: ['violations']})", TAGS)
        wide = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        browser.close()
    problems = [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
                for v in result["violations"] if v["impact"] in ("serious", "critical")]
    assert problems == []
    assert wide[0] <= wide[1], f"scrolls sideways: {wide[0]} px wide in a {wide[1]} px window"
