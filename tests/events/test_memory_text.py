"""Readable titles: what a person reads for a memory, whatever the capture machinery wrapped it in."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from memactors.events.memory_text import TITLE_CHARS, display_title, is_echo, markup_share, prose_lines, sentences

BLOCK_SUMMARY = ("▶ decision ──────────────────────────── Run the indexer as a detached subprocess instea...")
BLOCK_BODY = ("Run the indexer as a detached subprocess instead of a thread\n"
              "Indexing now runs in a detached subprocess that outlives the hook. A crashed hook no longer "
              "interrupts an index write.")
WINDOW = ("...died with the capture process, leaving the index half written. After comparing the options we "
          "decided on this. Indexing now runs in a detached subprocess that outlives the hook that star...")


def test_an_explicit_summary_is_its_own_title() -> None:
    title = display_title("Use SQLite with sqlite-vec for the memory index", "## Context\nOffline.")
    assert title.readable and title.text == "Use SQLite with sqlite-vec for the memory index"


def test_a_cut_block_summary_takes_the_whole_line_from_its_body() -> None:
    title = display_title(BLOCK_SUMMARY, BLOCK_BODY)
    assert title.readable and title.text == "Run the indexer as a detached subprocess instead of a thread"


def test_a_transcript_window_takes_its_first_complete_sentence() -> None:
    title = display_title(WINDOW[:100].rstrip() + "...", WINDOW)
    assert title.readable and title.text == "After comparing the options we decided on this."


def test_a_fragment_without_any_sentence_is_shown_bare_and_unreadable() -> None:
    title = display_title('...namespace="decisions",', '...namespace="decisions", relevance="0.8"...')
    assert not title.readable and "..." not in title.text and title.text.startswith("namespace")
    assert not display_title("...Examples", "").readable


def test_generic_section_headings_are_not_titles_but_real_headings_are() -> None:
    body = "## Context\n\n## Decision\n\n## Move the index to WAL mode\n| a | b |"
    assert display_title("...cut here...", body).text == "Move the index to WAL mode"


def test_code_tables_and_echoed_context_give_no_sentences() -> None:
    code = "```python\ndef capture(config: Config) -> None:\n    # Important: we validate first.\n```"
    table = "| Option | Outcome |\n|---|---|\n| We went with SQLite for the index. | chosen |"
    echo = '<memory id="decisions:abc:0" namespace="decisions">We decided to use SQLite for it.</memory>'
    assert sentences(code) == [] and sentences(table) == [] and sentences(echo) == []
    assert is_echo(echo) and is_echo('\\"additionalContext\\": \\"&lt;memory_consolidated_summaries')
    assert markup_share(code) > 0.9 and markup_share(table) > 0.9 and markup_share(BLOCK_BODY) == 0.0


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400), st.text(max_size=2000))
def test_a_title_is_never_longer_than_100_characters_nor_cut_marked_when_readable(summary: str, body: str) -> None:
    title = display_title(summary, body)
    assert len(title.text) <= TITLE_CHARS and "\n" not in title.text
    if title.readable:
        assert not title.text.startswith(("...", "…"))


def test_a_heading_or_block_marker_followed_by_a_long_blank_run_is_read_in_linear_time() -> None:
    # Hostile or broken captures: each took seconds (the heading cubic, the marker quadratic in the blanks).
    for text in ("# Retry policy" + " " * 1_000 + "x", "▶" + " " * 5_000 + "x", "` " + " " * 5_000 + "▶ x"):
        start = time.perf_counter()
        prose_lines(text), markup_share(text), display_title(text, text)
        assert time.perf_counter() - start < 0.5, text[:20]
    assert prose_lines("## Retry policy ##") == [("Retry policy", True)] and prose_lines("# C#") == [("C", True)]
