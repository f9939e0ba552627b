from __future__ import annotations

import string
from datetime import timezone

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from memactors.adapters.git.note_format import (
    MAX_BODY_CHARS,
    append_entry,
    parse_front_matter,
    parse_note,
    serialize_entry,
    stripspace,
    upstream_next_index,
)
from tests.conftest import Repo, entry, git

SHA = "a" * 40


def test_entries_appended_by_git_parse_in_order_with_their_ids(repo: Repo) -> None:
    repo.capture("decisions", "First", "one")
    repo.capture("decisions", "Second", "two", tags=["db", "arch"])
    note = repo.note("refs/notes/mem/decisions").encode()
    parsed = parse_note("decisions", SHA, note)
    assert [m.summary for m in parsed.memories] == ["First", "Second"]
    assert [m.index for m in parsed.memories] == [0, 1]
    assert parsed.memories[1].tags == ("db", "arch")
    assert parsed.memories[1].body == "two"
    assert parsed.memories[0].timestamp.tzinfo is not None
    assert not parsed.skipped


def test_a_rule_inside_a_body_stays_in_the_body_and_the_upstream_alias_drifts(repo: Repo) -> None:
    repo.capture("learnings", "With a rule", "above\n\n---\n\nbelow\n---\nstill body")
    repo.capture("learnings", "After")
    parsed = parse_note("learnings", SHA, repo.note("refs/notes/mem/learnings").encode())
    first, second = parsed.memories
    assert "below" in first.body and "still body" in first.body
    assert second.summary == "After" and second.index == 1
    assert second.upstream_index == 2  # git-notes-memory counts `\n---\n` pairs and drifts


def test_bad_entries_are_skipped_and_counted_by_reason() -> None:
    note = "\n".join([
        "---", "type: decisions", "summary: no timestamp", "---", "",
        "---", "type: decisions", "timestamp: 'not a date'", "summary: bad date", "---", "",
        "---", "type: decisions", "timestamp: '2024-01-01T00:00:00+00:00'", "summary: [unclosed", "---", "",
        "---", "type: decisions", "timestamp: '2024-01-01T00:00:00+00:00'", "summary: good", "---", "",
    ])
    parsed = parse_note("decisions", SHA, note.encode())
    assert [m.summary for m in parsed.memories] == ["good"]
    assert parsed.memories[0].index == 3
    assert parsed.skipped == {"missing_timestamp": 1, "invalid_timestamp": 1, "invalid_yaml": 1}


def test_a_note_that_is_not_yaml_at_all_is_one_skipped_entry() -> None:
    parsed = parse_note("progress", SHA, b"just words\nin a note\n")
    assert parsed.memories == [] and parsed.skipped == {"no_front_matter": 1}


def test_front_matter_that_is_not_a_mapping_is_refused() -> None:
    with_list = "---\n- type: decisions\n- timestamp: x\n---\n"
    assert parse_note("d", SHA, with_list.encode()).skipped == {"no_front_matter": 1}
    with pytest.raises(ValueError, match="front_matter_not_mapping"):
        parse_front_matter("- a\n- b")


def test_non_utf8_bytes_are_read_with_replacement_and_counted() -> None:
    raw = entry("decisions", "Caf\u00e9 choice", "body \u00e9").encode("latin-1")
    parsed = parse_note("decisions", SHA, raw)
    assert len(parsed.memories) == 1
    assert "\ufffd" in parsed.memories[0].summary
    assert parsed.warnings == {"non_utf8": 1}


def test_a_five_megabyte_body_is_truncated_for_processing_not_skipped() -> None:
    raw = entry("research", "Huge dump", "x" * (5 * 1024 * 1024)).encode()
    parsed = parse_note("research", SHA, raw)
    assert len(parsed.memories[0].body) == MAX_BODY_CHARS
    assert parsed.warnings == {"body_truncated": 1}


def test_unquoted_yaml_timestamps_and_naive_times_are_accepted() -> None:
    raw = b"---\ntype: progress\ntimestamp: 2024-03-01T10:00:00Z\nsummary: s\n---\n\n---\ntype: progress\ntimestamp: '2024-03-02T10:00:00'\nsummary: t\n---\n"
    parsed = parse_note("progress", SHA, raw)
    assert [m.timestamp.tzinfo for m in parsed.memories] == [timezone.utc, timezone.utc]
    assert parsed.warnings == {"timestamp_without_offset": 1}


def test_our_writer_produces_the_bytes_git_notes_append_produces(repo: Repo) -> None:
    first = serialize_entry({"type": "decisions", "timestamp": "2024-01-01T00:00:00+00:00",
                             "summary": "Use: colons 'and' quotes", "tags": ["a", "b"]},
                            "Body  \n\n\n\nwith blank runs and trailing spaces   \n")
    second = serialize_entry({"type": "decisions", "timestamp": "2024-01-02T00:00:00+00:00", "summary": "Two"})
    git(repo.path, "notes", "--ref=refs/notes/mem/decisions", "append", "-m", first)
    git(repo.path, "notes", "--ref=refs/notes/mem/decisions", "append", "-m", second)
    by_git = repo.note("refs/notes/mem/decisions").encode()
    assert append_entry(append_entry(None, first), second) == by_git


def test_the_next_upstream_index_follows_git_notes_memory() -> None:
    one = append_entry(None, serialize_entry({"type": "d", "timestamp": "t", "summary": "s"}, "b"))
    assert upstream_next_index(None) == 0
    assert upstream_next_index(one) == 1
    assert upstream_next_index(append_entry(one, serialize_entry({"summary": "x"}))) == 2


def test_stripspace_matches_git() -> None:
    assert stripspace("\n\na  \n\n\n b\t\n\n") == "a\n\n b\n"
    assert stripspace("   \n") == ""


_text = st.text(alphabet=string.ascii_letters + string.digits + " .,:;'\"#-_/()[]{}&*!?%@`|>~+", min_size=1, max_size=140)


@given(
    summary=_text,
    spec=st.none() | _text,
    tags=st.lists(_text, max_size=4),
    extra=st.dictionaries(st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True), _text | st.integers(), max_size=3),
)
def test_the_fast_front_matter_reader_agrees_with_pyyaml(summary, spec, tags, extra) -> None:
    """Including scalars `yaml.dump` wraps over several lines past 80 columns."""
    front = {"type": "decisions", "timestamp": "2024-01-01T00:00:00+00:00", "summary": summary, **extra}
    if spec is not None:
        front["spec"] = spec
    if tags:
        front["tags"] = tags
    dumped = yaml.dump(front, default_flow_style=False, allow_unicode=True, sort_keys=False).rstrip()
    ours = parse_front_matter(dumped)
    reference = yaml.safe_load(dumped)
    assert {k: str(v) if not isinstance(v, list) else [str(i) for i in v] for k, v in ours.items()} == {
        k: str(v) if not isinstance(v, list) else [str(i) for i in v] for k, v in reference.items()
    }


def test_long_summaries_wrapped_by_yaml_dump_take_the_fast_path() -> None:
    from memactors.adapters.git.note_format import _fast_front_matter

    summary = "decisions 42: " + "retry the webhook worker with jitter " * 3
    dumped = yaml.dump({"type": "decisions", "timestamp": "2024-01-01T00:00:00+00:00", "summary": summary.strip()},
                       default_flow_style=False, allow_unicode=True, sort_keys=False).rstrip()
    assert "\n  " in dumped  # yaml.dump folded it
    assert _fast_front_matter(dumped.split("\n")) == yaml.safe_load(dumped)


def _alias_bomb(levels: int) -> str:
    """The 459-byte kind: each line a list of nine aliases of the line before, then `tags: *last`."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    names = string.ascii_lowercase[1:levels]
    previous = "a"
    for name in names:
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]")
        previous = name
    return "\n".join(lines) + f"\ntags: *{previous}"


def test_front_matter_with_anchors_or_aliases_is_skipped_as_yaml_alias_never_expanded() -> None:
    bomb = "---\ntype: decisions\ntimestamp: '2024-01-01T00:00:00+00:00'\nsummary: boom\n" + _alias_bomb(3) + "\n---\n"
    anchored = "---\ntype: decisions\ntimestamp: '2024-01-01T00:00:00+00:00'\nsummary: &s anchored only\n---\n"
    good = entry("decisions", "Use SQLite", "fine")
    parsed = parse_note("decisions", SHA, "\n".join([bomb, anchored, good]).encode())
    assert [m.summary for m in parsed.memories] == ["Use SQLite"]
    assert parsed.skipped == {"yaml_alias": 2}


def test_deep_nesting_and_custom_tags_are_refused_by_reason() -> None:
    head = "type: decisions\ntimestamp: '2024-01-01T00:00:00+00:00'\nsummary: s\n"
    with pytest.raises(ValueError, match="yaml_too_deep"):
        parse_front_matter(head + "tags: " + "[" * 40 + "]" * 40)
    with pytest.raises(ValueError, match="invalid_yaml"):
        parse_front_matter(head + "tags: !!python/object/apply:os.system ['true']")
    with pytest.raises(ValueError, match="invalid_yaml"):
        parse_front_matter(head + "spec: !custom value")
    nested = parse_front_matter(head + "tags: [[a, b], c]")  # shallow nesting is still read
    assert nested["tags"] == [["a", "b"], "c"]


@pytest.mark.parametrize("nesting", [
    "tags: " + "[" * 30_000 + "]" * 30_000,  # libyaml's scanner refuses this itself (PyYAML 6.0.2+)
    "tags: " + "{a: " * 2_000 + "b" + "}" * 2_000,
    "tags:\n" + "".join("  " * level + "- \n" for level in range(40)) + "  " * 40 + "- leaf",  # block style: ours
])
def test_deep_nesting_is_yaml_too_deep_whichever_layer_refuses_it(nesting: str) -> None:
    head = "type: decisions\ntimestamp: '2024-01-01T00:00:00+00:00'\nsummary: s\n"
    with pytest.raises(ValueError, match="^yaml_too_deep$"):
        parse_front_matter(head + nesting)


@given(st.lists(st.tuples(st.booleans(), st.integers(min_value=0, max_value=3)), min_size=1, max_size=25))
def test_every_entry_gets_the_index_git_notes_memory_counted_for_it(shape) -> None:
    """Counted in one pass over the note: the same numbers as re-counting each prefix as upstream does."""
    note: bytes | None = None
    expected = []
    for number, (with_rule, rules) in enumerate(shape):
        body = "text" + ("\n\n---\n\nmore" * rules if with_rule else "\n---\n" * rules)
        expected.append(upstream_next_index(note))
        note = append_entry(note, serialize_entry(
            {"type": "decisions", "timestamp": f"2024-01-01T00:00:{number:02d}+00:00", "summary": f"e{number}"}, body))
    parsed = parse_note("decisions", SHA, note or b"")
    assert [m.upstream_index for m in parsed.memories] == expected
