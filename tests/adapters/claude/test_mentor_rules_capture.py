"""What the offline proposer keeps when a lead sets conventions in a session, read from a transcript as Claude
Code writes it: the rules said (as the team's practice too), not a judgement, a rule denied, care asked for, or a
"them" read as the place a thing goes."""

from __future__ import annotations

from pathlib import Path

from tests.session_transcripts import SessionWriter, proposed_summaries


_summaries = proposed_summaries


def test_a_them_stands_for_the_thing_named_not_the_place_it_goes(tmp_path: Path) -> None:
    w = SessionWriter("5e1f0c2a-a001-4b6e-8c1d-2f3a4b5c6001")
    w.user("We put a lot of weight on adding type hints to our handlers. They catch mistakes early. "
           "Please add them to your handlers from now on.")
    w.assistant("Understood, I'll do that.")
    w.user("I want you to follow one convention for your route names. Always end them with '_rt'.")
    assert _summaries(w, tmp_path) == ["Please add type hints to your handlers.", "Always end route names with '_rt'."]


def test_not_just_but_also_turns_no_option_down_and_a_judgement_of_the_issue_is_no_cause(tmp_path: Path) -> None:
    w = SessionWriter("5e1f0c2a-a002-4b6e-8c1d-2f3a4b5c6002")
    w.user("How is the sync job going?")
    w.assistant("Careful reviewing is a powerful tool, not just in bug hunting but also in keeping the release branch "
                "healthy.\n\n"
                "The issue is tricky because it shows up on some mirrors and not others.\n\n"
                "The issue is that the mirror list is cached for a day.")
    assert _summaries(w, tmp_path) == ["The issue is that the mirror list is cached for a day."]


def test_a_rule_denied_care_asked_a_quality_to_design_for_and_a_fragment_are_no_rules(tmp_path: Path) -> None:
    w = SessionWriter("5e1f0c2a-a003-4b6e-8c1d-2f3a4b5c6003")
    w.user("It's not that you should never open a pull request on Fridays.\n\n"
           "In this team, we must treat the release notes with more care and patience.\n\n"
           "I need you to build the parser with speed and safety in mind.\n\n"
           "Always seeking to make the pipeline a little faster.\n\n"
           "Never bring a pull request to review without its tests.")
    assert _summaries(w, tmp_path) == ["Never bring a pull request to review without its tests."]


def test_the_teams_convention_said_as_what_it_does_is_a_rule(tmp_path: Path) -> None:
    w = SessionWriter("5e1f0c2a-a004-4b6e-8c1d-2f3a4b5c6004")
    w.user("We now prefer that handler names end with '_h'.\n\n"
           "Over here, we include a version digit in all module names.\n\n"
           "Secondly, use lower case letters for table names.\n\n"
           "We always begin constant names with a specific prefix, 'k_'.\n\n"
           "When ending column names, please append the suffix '_c'.\n\n"
           "If you have a column for, let's say, price, the name should be 'price_c'.")
    assert _summaries(w, tmp_path) == [
        "We now prefer that handler names end with '_h'.",
        "We include a version digit in all module names.",
        "Use lower case letters for table names.",
        "We always begin constant names with a specific prefix, 'k_'.",
        "When ending column names, please append the suffix '_c'."]


def test_an_example_a_wish_for_everyone_a_tool_pointed_at_and_tools_unnamed_are_no_rules(tmp_path: Path) -> None:
    w = SessionWriter("5e1f0c2a-a005-4b6e-8c1d-2f3a4b5c6005")
    w.user("In this example, we use the 'elif' keyword to chain the checks.\n\n"
           "If you have a method that takes a port as an argument, the argument name should be 'p_port'.\n\n"
           "Everyone should feel safe raising a concern, no matter how \"small\" it may seem.\n\n"
           "Keep finding ways to make the Orbit team an even better place to work.\n\n"
           "Yes, we've adopted it as our main tool for tracking the sprints.\n\n"
           "Don't forget to utilize our documentation tools.\n\n"
           "Always run the migrations before you start the server.")
    assert _summaries(w, tmp_path) == ["Always run the migrations before you start the server."]


def test_how_names_start_or_end_is_a_rule_wherever_the_clause_says_it(tmp_path: Path) -> None:
    w = SessionWriter("5e1f0c2a-a006-4b6e-8c1d-2f3a4b5c6006")
    w.user("We're now requiring all fixture names to end with '_fx'.\n\n"
           "Also, please update your column naming convention to end with '_col'.\n\n"
           "Likewise, we'll be starting handler names with 'on_'.\n\n"
           "Now, one last thing, when starting route names, use 'r_' as a prefix.\n\n"
           "Include the string 'v2' somewhere in the table names.\n\n"
           "Please ensure that from now on, all enum names end with '_kind'.\n\n"
           "We now prefer that you prefix all hook names with a 'use_'.\n\n"
           "Additionally, continue to end signal names with '_sig'.")
    assert _summaries(w, tmp_path) == [
        "We're now requiring all fixture names to end with '_fx'.",
        "Please update your column naming convention to end with '_col'.",
        "Likewise, we'll be starting handler names with 'on_'.",
        "When starting route names, use 'r_' as a prefix.",
        "Include the string 'v2' somewhere in the table names.",
        "Please ensure that from now on, all enum names end with '_kind'.",
        "We now prefer that you prefix all hook names with a 'use_'.",
        "Continue to end signal names with '_sig'."]


def test_a_rule_too_long_as_asked_is_said_without_the_habit_or_practice_that_leads_it(tmp_path: Path) -> None:
    w = SessionWriter("5e1f0c2a-a007-4b6e-8c1d-2f3a4b5c6007")
    w.user("I want you to get into the habit of adding the '@memoize' decorator from the 'cachetools' package to all "
           "your loaders.\n\n"
           "Another important practice is to add the '@guarded' decorator from the 'safety' package to all your "
           "handlers.\n\n"
           "Ensure that you're adding the '@traced' decorator from the 'telemetry' package to all your scheduled "
           "jobs.\n\n"
           "Additionally, import the 'zoneinfo' module, even if a file never reads a date.")
    assert _summaries(w, tmp_path) == [
        "Adding the '@memoize' decorator from the 'cachetools' package to all your loaders.",
        "Add the '@guarded' decorator from the 'safety' package to all your handlers.",
        "Adding the '@traced' decorator from the 'telemetry' package to all your scheduled jobs.",
        "Import the 'zoneinfo' module, even if a file never reads a date."]


def test_a_rule_too_long_said_as_the_use_of_a_named_thing_is_said_as_the_rule(tmp_path: Path) -> None:
    w = SessionWriter("5e1f0c2a-a008-4b6e-8c1d-2f3a4b5c6008")
    w.user("Another important practice we follow is the use of the '@frozen' decorator from the 'attrs' package for "
           "all your records.")
    assert _summaries(w, tmp_path) == ["Use the '@frozen' decorator from the 'attrs' package for all your records."]


def test_a_step_left_to_judgement_or_conforming_to_what_exists_is_no_rule(tmp_path: Path) -> None:
    w = SessionWriter("5e1f0c2a-a009-4b6e-8c1d-2f3a4b5c6009")
    w.user("I want your Terraform modules to align with the rest of the platform team's work.\n\n"
           "Ensure that any new screens you build are in line with our existing Figma library.\n\n"
           "Always tag the on-call engineer in the incident channel, and page them if needed.\n\n"
           "Take detailed notes of the outage if needed.\n\n"
           "Always run the full test suite before you merge into main.")
    # a rule in a clause before the step left to judgement stands
    assert _summaries(w, tmp_path) == [
        "Always tag the on-call engineer in the incident channel, and page them if needed.",
        "Always run the full test suite before you merge into main."]


def test_a_requirement_of_everyone_a_refusal_asked_and_a_practice_to_focus_on_are_rules(tmp_path: Path) -> None:
    w = SessionWriter("5e1f0c2a-a010-4b6e-8c1d-2f3a4b5c6010")
    w.user("For compliance, we're now requiring all contractors to sign commits with a GPG key.\n\n"
           "Firstly, when working remotely, please refrain from using the office VPN.\n\n"
           "I wanted to emphasize the importance of not pushing tags from a laptop.\n\n"
           "In your next services, I expect you to log through the shared structlog setup.\n\n"
           "Instead, I want you to focus on using the staging cluster for load tests.\n\n"
           "Only page the database team when the replica lag passes a minute.\n\n"
           "I expect great things from this quarter, Dana.\n\n"
           "I want you to focus on your onboarding tasks this week.")
    assert _summaries(w, tmp_path) == [
        "For compliance, we're now requiring all contractors to sign commits with a GPG key.",
        "When working remotely, please refrain from using the office VPN.",
        "I wanted to emphasize the importance of not pushing tags from a laptop.",
        "In your next services, I expect you to log through the shared structlog setup.",
        "I want you to focus on using the staging cluster for load tests.",
        "Only page the database team when the replica lag passes a minute."]


def test_a_use_forbidden_or_blamed_is_never_said_as_use_it_and_only_one_of_is_no_rule(tmp_path: Path) -> None:
    w = SessionWriter("5e1f0c2a-a011-4b6e-8c1d-2f3a4b5c6011")
    w.user("I wanted to stress that the one thing you should never repeat from last sprint is the use of the 'any' "
           "type in the generated TypeScript client code.\n\n"
           "I want to emphasize again that the one pattern we must avoid in every service is the use of the 'pickle' "
           "module for caching user sessions between workers.\n\n"
           "Only one of the integration tests failed when I ran the suite locally.\n\n"
           "Only run the end-to-end suite when the public API changes.")
    assert _summaries(w, tmp_path) == ["Only run the end-to-end suite when the public API changes."]


def test_a_report_of_how_names_are_or_a_complaint_about_them_is_no_naming_rule(tmp_path: Path) -> None:
    w = SessionWriter("5e1f0c2a-a012-4b6e-8c1d-2f3a4b5c6012")
    w.user("The function names currently end with '_old' in the legacy module.\n\n"
           "I renamed the test names to start with 'test_' so pytest finds them.\n\n"
           "Someone decided to use 'v_' as a prefix for views last year and it's a mess.\n\n"
           "We're now requiring all fixture names to end with '_fx'.")
    assert _summaries(w, tmp_path) == ["We're now requiring all fixture names to end with '_fx'."]


def test_a_task_with_a_deadline_or_for_this_ticket_is_no_convention_even_said_to_all(tmp_path: Path) -> None:
    w = SessionWriter("5e1f0c2a-a0a3-4b6e-8c1d-2f3a4b5c60a3")
    w.user("We're asking all of you to fill in the sprint survey by Thursday.\n\n"
           "I want you to focus on using the new billing client for this ticket.\n\n"
           "Please have the changelog entry ready by end of day.\n\n"
           "From today on, always indent YAML files by 2 spaces.\n\n"
           "We're asking all of you to add type hints to every new function.")
    assert _summaries(w, tmp_path) == ["Always indent YAML files by 2 spaces.",
                                       "We're asking all of you to add type hints to every new function."]


def test_a_rule_with_a_deadline_that_repeats_is_a_convention_a_task_with_one_is_not(tmp_path: Path) -> None:
    w = SessionWriter("5e1f0c2a-a0a4-4b6e-8c1d-2f3a4b5c60a4")
    w.user("Every PR must be reviewed by end of day, every day.\n\n"
           "Feature branches must be merged by Friday or closed.\n\n"
           "I want you to use conventional commits for this ticket and every future ticket.\n\n"
           "I want you to use conventional commits for this ticket.\n\n"
           "Each of you must update the README in `docs/` by Friday.\n\n"
           "Every developer must fill in the survey by Thursday.\n\n"
           "The release notes must be merged by Friday.")
    assert _summaries(w, tmp_path) == [
        "Every PR must be reviewed by end of day, every day.",
        "Feature branches must be merged by Friday or closed.",
        "I want you to use conventional commits for this ticket and every future ticket."]
