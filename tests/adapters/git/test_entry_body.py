"""One entry's body read from a note without parsing the rest: what recall's passages read."""

from __future__ import annotations

from datetime import timedelta

from memactors.adapters.git.note_blocks import _find_blocks, delimiter_lines
from memactors.adapters.git.note_format import append_entry, entry_body, parse_note
from tests.conftest import NOW, entry


def note_of(*entries: str) -> bytes:
    data = None
    for text in entries:
        data = append_entry(data, text)
    assert data is not None
    return data


def test_each_entry_body_is_the_one_the_full_parse_reads_rules_and_yaml_in_bodies_included() -> None:
    data = note_of(
        entry("decisions", "Use SQLite", "Simple.\n\n---\n\nA rule above, not an entry.", when=NOW),
        entry("decisions", "Fence", "```yaml\n---\ntype: x\ntimestamp: y\n---\n```\nYAML in a body.",
              when=NOW + timedelta(minutes=1)),
        entry("learnings", "Empty body", when=NOW + timedelta(minutes=2)),
        entry("decisions", "Last", "The end.\n   \n", when=NOW + timedelta(minutes=3)),
    )
    parsed = parse_note("decisions", "c" * 40, data).memories
    assert [entry_body(data, m.index) for m in parsed] == [m.body for m in parsed]
    assert entry_body(data, len(parsed)) is None


def test_the_delimiter_lines_a_regex_finds_are_the_ones_a_line_by_line_reading_finds() -> None:
    text = "---\ntype: a\n---\nbody\n--- \n\n---\t\n----\n ---\nx---\n---\r\n---"
    lines = text.split("\n")
    assert delimiter_lines(text) == [i for i, line in enumerate(lines) if line.rstrip() == "---"]
    assert _find_blocks(lines)[0].close == 2
