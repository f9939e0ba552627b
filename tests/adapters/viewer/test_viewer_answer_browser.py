"""The viewer's search answers the question when asked: an answer box above the results, in a real browser."""

from __future__ import annotations

from pathlib import Path

from tests.adapters.viewer.test_viewer_browser import CHROMIUM, FLAGS, served  # noqa: F401 - the fixture

__all__ = ["served"]


def test_a_search_asked_to_answer_shows_the_answer_citing_the_current_memory(served: str,  # noqa: F811
                                                                              tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None, "chromium is required here (MEMACTORS_REQUIRE_BROWSER=1): apt-get install chromium"
    base = served.split("/?")[0]
    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto(served)
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
        browser.close()
    assert problems == [] and base
