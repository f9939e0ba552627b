"""The file signal: commits weighed by how crowded they are, paths a memory names, files every commit touches."""

from __future__ import annotations

from memactors.actors.algorithms.file_signal import MAX_COMMIT_FILES, PathNames, Subject, file_links

FILES = ["src/billing/webhooks.py", "src/auth/session.py", "tests/test_session.py", "docs/session.py", "README.md"]


def test_a_memory_alone_on_a_small_commit_weighs_most_and_a_crowded_commit_little() -> None:
    subjects = [Subject(0, "a", "Idempotency keys"), *(Subject(i, "b", f"note {i}") for i in range(1, 21))]
    links = file_links(subjects, {"a": ["src/billing/webhooks.py"], "b": ["src/auth/session.py"]}, FILES)
    assert links["src/billing/webhooks.py"] == [(0, 1.0)]
    assert all(weight < 0.1 for _row, weight in links.get("src/auth/session.py", []))


def test_fragments_on_a_commit_make_it_crowded_though_they_are_never_shown() -> None:
    subjects = [Subject(0, "a", "Pool exhaustion came from leaked sessions")]
    alone = file_links(subjects, {"a": ["src/auth/session.py"]}, FILES)
    crowded = file_links(subjects, {"a": ["src/auth/session.py"]}, FILES, captures={"a": 25})
    assert alone["src/auth/session.py"][0][1] == 1.0 and "src/auth/session.py" not in crowded


def test_a_commit_that_changed_everything_says_nothing() -> None:
    huge = [f"src/generated/m{i}.py" for i in range(MAX_COMMIT_FILES + 1)]
    assert file_links([Subject(0, "a", "Reformatted with ruff")], {"a": huge}, FILES) == {}


def test_a_file_most_commits_change_is_discounted() -> None:
    commits = {c: ["CHANGELOG.md", f"src/m{c}.py"] for c in "abcdefgh"}
    links = file_links([Subject(i, c, "x") for i, c in enumerate(commits)], commits, FILES)
    assert max(w for _r, w in links["CHANGELOG.md"]) < max(w for _r, w in links["src/ma.py"]) / 2


def test_paths_are_found_exactly_by_a_unique_suffix_or_a_unique_file_name() -> None:
    names = PathNames(FILES)
    assert names.find("see src/billing/webhooks.py for the retry loop") == {"src/billing/webhooks.py"}
    assert names.find("in billing/webhooks.py and webhooks.py") == {"src/billing/webhooks.py"}
    assert names.find("session.py is ambiguous, auth/session.py is not") == {"src/auth/session.py"}
    assert names.find("version 1.2.3 and e.g. nothing") == set()
    tagged = file_links([Subject(0, "z", "Edited", ("file:./README.md",))], {}, FILES)
    assert tagged == {"README.md": [(0, 0.9)]}
