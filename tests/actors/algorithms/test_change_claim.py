"""What a memory says it replaced, and whether an older memory asserts that thing about the same subject."""

from __future__ import annotations

import pytest

from memactors.actors.algorithms.change_claim import changes, replaced_in


@pytest.mark.parametrize(("text", "old"), [
    ("Switch linting from flake8 to ruff", "flake8"),
    ("Moved off PostgreSQL to SQLite for the single-user build", "PostgreSQL"),
    ("Dependency management is now uv instead of Poetry", "Poetry"),
    ("Replaced Webpack with Vite for the frontend build", "Webpack"),
    ("httpx replaces requests for all outgoing HTTP", "requests"),
    ("Public API: REST -> GraphQL", "REST"),
    ("Static files now go through Cloudflare, not CloudFront", "CloudFront"),
    ("We no longer use black; ruff format does the formatting", "use black"),
    ("Dropped the Django ORM in favour of SQLAlchemy 2.0", "the Django ORM"),
    ("Docker Desktop dropped: developers now run the stack with Podman", "Docker Desktop"),
    ("Stripe Checkout was dropped for new customers and old ones.", "Stripe Checkout"),
    ("Stopped using Arrow; dates are plain datetime with zoneinfo", "Arrow"),
])
def test_each_wording_of_a_change_names_what_it_replaced(text: str, old: str) -> None:
    assert [c.old for c in changes(text)][:1] == [old]


@pytest.mark.parametrize("text", [
    "We might replace Celery with RQ later if the broker keeps failing",
    "Should we switch from Poetry to uv?",
    "Considered replacing Sentry with Honeybadger for the frontend; rejected, Sentry stays",
    "Instead of failing at once, writers wait.",
    "CI installs dropped from 70 seconds to 6.",
])
def test_plans_questions_refusals_and_actions_claim_no_change(text: str) -> None:
    assert changes(text) == ()


def test_the_older_memory_must_assert_what_was_replaced() -> None:
    new = "Switch linting from flake8 to ruff"
    assert replaced_in(new, new, "Use flake8 for linting", "Use flake8 for linting") is not None
    assert replaced_in(new, new, "Use black for formatting", "Use black for formatting") is None


def test_a_change_in_another_scope_replaces_nothing() -> None:
    new = "Replaced requests with aiohttp in the webhook load-test script"
    old = "Use requests for outgoing HTTP calls"
    assert replaced_in(new, new, old, old) is None


def test_another_version_of_the_same_name_is_not_the_one_replaced() -> None:
    new = "Upgraded production from Python 3.10 to 3.12"
    assert replaced_in(new, new, "Dropped Python 3.8 support", "Dropped Python 3.8 support") is None
    assert replaced_in(new, new, "Production runs Python 3.10", "Production runs Python 3.10") is not None


def test_a_thing_only_asked_about_is_not_asserted() -> None:
    new = "Dependency management is now uv instead of Poetry"
    asked = "Should we switch from Poetry to uv? Worth measuring install times first."
    assert replaced_in(new, new, asked, asked) is None


def test_a_setting_given_a_new_value_replaces_the_old_value() -> None:
    new = "Lower the SessionStart context budget to 2000 tokens"
    match = replaced_in(new, new, "Cap the SessionStart context at 4000 tokens",
                        "Cap the SessionStart context at 4000 tokens")
    assert match is not None and "4000 tokens" in match.reason()
    sibling = "The SessionStart context lists decisions first"
    assert replaced_in(new, new, sibling, sibling) is None


def test_a_body_that_says_what_it_replaces_names_it() -> None:
    new = "Switch storage to PostgreSQL\nReplaces SQLite."
    assert replaced_in("Switch storage to PostgreSQL", new, "Use SQLite for storage",
                       "Use SQLite for storage\nSimple to start.") is not None


def test_an_older_memory_that_is_only_the_replaced_thing_needs_no_shared_subject_word() -> None:
    new = "Upgrade the database from MySQL 5.7 to PostgreSQL 16"
    assert replaced_in(new, new, "Use MySQL 5.7", "Use MySQL 5.7") is not None
    assert replaced_in(new, new, "Use MySQL 5.7 for the analytics replica",
                       "Use MySQL 5.7 for the analytics replica") is None


def test_an_older_memory_that_already_writes_the_new_name_is_not_replaced_by_the_change_to_it() -> None:
    change = ("Approved specification for the mirror sync fix",
              "Clear solution: Change the mirror refspec from refs/mirror/pkg/*:refs/mirror/pkg/* to "
              "+refs/mirror/pkg/*:refs/mirror/upstream/pkg/*")
    confirmed = ("Confirmed: the + prefix in the mirror refspec is the standard solution",
                 "Current code: refs/mirror/pkg/* fails on divergence.\n"
                 "Correct code: +{base}/*:refs/mirror/upstream/pkg/* with force-update.")
    assert replaced_in(change[0], "\n".join(change), confirmed[0], "\n".join(confirmed)) is None
    # an older memory that states only the old refspec is replaced
    stated = ("The mirror solution fetches refs/mirror/pkg/*:refs/mirror/pkg/* directly",
              "The mirror refspec refs/mirror/pkg/* fetches straight into local refs.")
    assert replaced_in(change[0], "\n".join(change), stated[0], "\n".join(stated)) is not None


@pytest.mark.parametrize("text", [
    "This is a change from our previous convention, so make sure to update your code accordingly.",
    "This is a slight change from our previous discussion, where I had asked you to use a different convention.",
    "We're moving away from what we discussed earlier to something simpler.",
])
def test_a_change_from_what_was_said_before_names_nothing_an_older_memory_asserts(text: str) -> None:
    older = "Use a consistent naming convention, as we discussed in our previous conversation."
    assert replaced_in(text, text, older, older) is None


def test_moving_on_to_a_new_point_moves_nothing_from_where_a_thing_comes() -> None:
    new = ("Now, moving on to some specific coding instructions: I want you to start adding the '@trace_class' "
           "decorator from the 'pedantic' module to all your classes.")
    older = "Always add the '@count_calls' decorator from the 'pedantic' module to all your functions."
    assert changes(new) == ()
    assert replaced_in(new, new, older, older) is None
    assert [c.old for c in changes("We are moving the cache from Redis to memcached")] == ["Redis"]


def test_stopping_it_from_now_on_names_nothing_an_older_memory_asserts() -> None:
    new = ("While I understand the temptation to use a tool like that, I want you to stop using it moving forward.")
    older = "Always begin attribute names with 'q_' and keep moving forward with the refactor."
    assert replaced_in(new, new, older, older) is None
    assert [c.old for c in changes("We stopped using Jenkins going forward")] == ["Jenkins"]
