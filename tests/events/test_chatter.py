"""Lines that assert nothing never become a memory's title, so no reader shows them as one."""

from __future__ import annotations

import pytest

from memactors.events.chatter import chatter
from memactors.events.memory_text import display_title
from memactors.events.quality import QualityPolicy, assess

NOT_STATEMENTS = {
    "Let me check the existing context builder to understand the pattern:": "narration",
    "Now I understand the tracing system. (4 memories)": "narration",
    "Done! The rebase completed, but note:": "narration",
    "I found 2 active projects. Since you just completed the sync work": "narration",
    "Perfect! Let me run the linter next:": "narration",
    "Here's what I changed:": "narration",
    "Now, let me update the tests to match.": "narration",
    "Now, I'll run the migration again.": "narration",
    "Let's check the config first.": "narration",
    "Changes in this commit:": "lead-in",
    "else:": "lead-in",
    "Defense in Depth": "heading",
    "Optimizations": "heading",
    "What Went Well": "empty title",
    "Summary of decision": "empty title",
    "Summary of what was done": "empty title",
    "The key insight": "empty title",
    "for future reference": "empty title",
    "[ ] Multi-layer secret detection for captured text": "checklist",
    "| flake8 | replaced | ruff |": "table row",
    "Purpose |": "table row",
    "2026-01-19T10:42:11Z": "timestamp",
}
STATEMENTS = ("Use flake8 for linting", "Use PostgreSQL", "Public API: REST -> GraphQL",
              "Switch linting from flake8 to ruff", "Payments switched to Paddle",
              "Caddy instead of Nginx as the reverse proxy", "Approved specification for 'Fix Git Notes Fetch Refspec'",
              "Hooks must finish within 100 milliseconds", "Important: the index must never block a hook",
              # an instruction to the reader, however it opens ("Now, ...", "First, ...", "Let's use ...")
              "Now, when it comes to argument names, I want you to start ending them with '_i'.",
              "Now, for method names, ensure that you always end them with '_n'.",
              "Now, one of the things we do here is avoid using virtual environments.",
              "First, I want you to avoid using virtual environments altogether.",
              "Let's use uv for every install.")


@pytest.mark.parametrize("line", sorted(NOT_STATEMENTS))
def test_narration_lead_ins_headings_and_empty_titles_are_named_as_chatter(line: str) -> None:
    assert chatter(line) == NOT_STATEMENTS[line]


@pytest.mark.parametrize("line", STATEMENTS)
def test_statements_are_not_chatter(line: str) -> None:
    assert chatter(line) is None


@pytest.mark.parametrize("line", sorted(NOT_STATEMENTS))
def test_a_memory_that_only_narrates_has_no_readable_title(line: str) -> None:
    quality = assess(QualityPolicy(), summary=line, body="", tags=("auto-captured", "pre-compact"))
    assert not quality.readable and quality.score < 0.5


def test_a_narrating_summary_yields_to_the_statement_in_its_body() -> None:
    title = display_title("Let me check the existing context builder to understand the pattern:",
                          "Now I see it.\n\nThe context builder reads the summaries before the memories.")
    assert title.readable and title.text == "The context builder reads the summaries before the memories."
