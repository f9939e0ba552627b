"""The viewer's search answers the question when asked: an answer box above the results, in a real browser."""

from __future__ import annotations

from pathlib import Path

from tests.adapters.viewer.browser import chromium_page
from tests.adapters.viewer.test_viewer_browser import served  # noqa: F401 - the fixture

__all__ = ["served"]


def test_a_search_asked_to_answer_shows_the_answer_citing_the_current_memory(served: str,  # noqa: F811
                                                                              tmp_path: Path) -> None:
    with chromium_page(served) as (page, problems):
        page.get_by_role("link", name="Timeline").first.click()
        page.get_by_label("Search").fill("which database do we use for storage")
        page.get_by_label("Answer the question").check()
        page.get_by_role("button", name="Show").click()
        box = page.get_by_role("region", name="Answer from the memories")
        assert box.is_visible()
        text = box.locator(".answer-text").inner_text()
        assert "CockroachDB" in text and "[decisions:" in text and "One file is enough" not in text
        cited = box.locator("ol.citations a").first
        assert cited.inner_text() == "Switch storage from PostgreSQL to CockroachDB"
        page.screenshot(path=str(tmp_path / "answer.png"), full_page=True)
        cited.click()
        assert "CockroachDB" in page.locator("h1").inner_text()
        page.go_back()
        page.get_by_label("Search").fill("how do we deploy the Kubernetes autoscaler")
        page.get_by_role("button", name="Show").click()
        assert page.get_by_role("region", name="Answer from the memories").locator(".answer-text").inner_text() \
            == "The memories do not say."
        page.get_by_label("Answer the question").uncheck()
        page.get_by_role("button", name="Show").click()
        assert page.get_by_role("region", name="Answer from the memories").count() == 0
    assert problems == []
