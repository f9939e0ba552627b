"""A new value for the same slot said in other words than the old one: a pronoun, a lead-in, a trailing remark,
a role said more or less fully (actors/algorithms/slot_change.py), each pinned with its precision guard."""

from __future__ import annotations

from memactors.actors.algorithms.heuristic_judge import judge_pair
from memactors.actors.algorithms.slot_change import every_clause_changed, frame_keys, slot_change, slots_of, statement
from memactors.events.verdict import Relation
from tests.actors.algorithms.test_clustering import memory


def test_a_pronoun_takes_its_subject_from_the_sentence_before() -> None:
    old = memory("Always prefix constant names with 'k_'.", days=0)
    new = memory("Prefix them with 'c_' instead.",
                 "We have a new rule for constant names. Prefix them with 'c_' instead.", days=3)
    verdict = judge_pair(new, old, 0.5)
    assert verdict.relation is Relation.SUPERSEDES and "'k_' -> 'c_'" in verdict.reason
    other = memory("Prefix them with 'c_' instead.",
                   "We have a new rule for class names. Prefix them with 'c_' instead.", days=3)
    assert judge_pair(other, old, 0.5).relation is not Relation.SUPERSEDES
    said = "Prefix them with 'c_' instead."  # no subject in the sentence before: read as it is
    assert statement(said, "Good morning! " + said) == said
    assert statement(said, said) == said


def test_a_lead_in_before_the_instruction_is_not_the_slot() -> None:
    old = "Always start private method names with '_p'."
    new = "It matters that the code base reads the same everywhere, so from now on start private method names with '_x'."
    change = slot_change(new, old)
    assert change is not None and "'_p' -> '_x'" in change.reason()
    # a lead-in naming a value of its own is part of what is said
    assert slot_change("We used '_p' for years, but start method names with '_x'.",
                       "Always start private method names with '_p'.") is None


def test_a_remark_after_the_value_is_not_the_slot() -> None:
    change = slot_change("From now on, end all constant names with '_c', regardless of their type.",
                         "End all constant names with '_k'.")
    assert change is not None and "'_k' -> '_c'" in change.reason()


def test_a_role_said_more_fully_is_the_same_role() -> None:
    old = "We use Sentry for error reports."
    new = "Going forward, use Rollbar for error reports and alerts."
    change = slot_change(new, old)
    assert change is not None and "'Sentry' -> 'Rollbar'" in change.reason()
    assert set(frame_keys(new, "")) & set(frame_keys(old, ""))  # paired for the judge without an embedding
    # one word in common is not one role, nor is the same role in another place
    assert slot_change("Going forward, use Rollbar for error alerts.", "We use Sentry for error reports.") is None
    assert slot_change("Going forward, use Rollbar for error reports in the billing service.", old) is None


def test_a_tool_named_as_the_carrier_of_a_role_is_that_role() -> None:
    change = slot_change("From now on, Loki is our main platform for log search.", "Use Kibana for log search.")
    assert change is None  # no verb of use: not read as a role
    change = slot_change("From now on, use Loki as our main platform for log search.", "Use Kibana for log search.")
    assert change is not None and "'Kibana' -> 'Loki'" in change.reason()


def test_a_value_that_only_announces_one_is_no_value() -> None:
    assert slot_change("From now on, use a specific format for your test names.",
                       "Always use snake_case for your test names.") is None


def test_an_opener_is_not_the_slot() -> None:
    change = slot_change("To that end, start all test names with 'check_'.", "Start all test names with 'it_'.")
    assert change is not None and "'it_' -> 'check_'" in change.reason()  # "end" of "to that end" is no slot


def test_the_old_value_named_in_a_lead_in_leaves_the_new_one_its_slot() -> None:
    old = "Start all test names with 'it_'."
    change = slot_change("We've used 'it_' for years, but from now on start all test names with 'check_'.", old)
    assert change is not None and "'it_' -> 'check_'" in change.reason()
    # without a word of change the lead-in's value stays part of what is said
    assert slot_change("We've used 'it_' for years, but start all test names with 'check_'.", old) is None


def test_a_tool_set_up_or_switched_to_for_a_role_fills_it() -> None:
    old = "Use PyCharm as your main editor."
    for new in ("From now on, I'd like to get you set up with Helix as your main editor.",
                "Going forward, we'll be transitioning to Zed as our main editor."):
        change = slot_change(new, old)
        assert change is not None and "'PyCharm' -> " in change.reason()


def test_a_scope_word_in_a_role_is_not_the_role() -> None:
    change = slot_change("Going forward, use a ThinkPad as your primary work laptop.", "Use a Dell as your main laptop.")
    assert change is not None and "'a Dell' -> 'a ThinkPad'" in change.reason()


def test_a_count_in_words_is_a_value() -> None:
    change = slot_change("From now on, deploy to production no more than once a week.",
                         "Deploy to production no more than twice a week.")
    assert change is not None and "'twice' -> 'once'" in change.reason()
    assert slot_change("One of our rules: deploy to production on Fridays.",
                       "Two of our rules: deploy to production on Fridays.") is None


def test_a_rule_turned_round_with_a_little_more_of_where_it_applies() -> None:
    change = slot_change("From now on, always run a profiler on your Python services.", "Never run a profiler.")
    assert change is not None and "turned round" in change.reason()
    assert set(frame_keys("From now on, always run a profiler on your Python services.", "")) \
        & set(frame_keys("Never run a profiler.", ""))  # paired for the judge
    # a rule about something else that shares a word is not turned round
    assert slot_change("From now on, always run the test suite before a release.", "Never run a profiler.") is None


def test_a_measured_number_needs_only_one_word_of_frame() -> None:
    change = slot_change("Going forward, aim for a standup every 20 minutes.", "Take a standup every 15 minutes.")
    assert change is not None and "'15 minutes' -> '20 minutes'" in change.reason()
    assert slot_change("Going forward, aim for a standup every 20.", "Take a standup every 15.") is None


def test_a_role_named_in_a_lead_in_is_the_new_tools_role() -> None:
    old = "Use Sentry for error reports."
    change = slot_change("We've used Sentry for error reports, but from now on, switch to Rollbar.", old)
    assert change is not None and "'Sentry' -> 'Rollbar'" in change.reason()
    # not said as a change: the lead-in is history, nothing new fills the role
    assert slot_change("We've used Sentry for error reports, and Rollbar is nice.", old) is None


def test_a_question_in_quotes_states_no_slot() -> None:
    assert slot_change("We've used Rollbar for error reports, but going forward, switch to Sentry.",
                       'Have you ever used Rollbar for error reports?"') is None


def test_an_acronym_is_the_role_it_stands_for() -> None:
    old = "Use Datadog as our main application performance monitoring (APM)."
    change = slot_change("From now on, use Grafana as our main APM.", old)
    assert change is not None and "'Datadog' -> 'Grafana'" in change.reason()
    assert set(frame_keys("From now on, use Grafana as our main APM.", "")) & set(frame_keys(old, ""))
    # two roles of many words with the same first letters are not one role
    assert slot_change("From now on, use GitHub for version control.", "Use Zoom for video calls.") is None


def test_a_naming_convention_is_the_kind_it_names_and_where_whatever_else_is_said() -> None:
    old = "To build on that, always end constant names with '_K'."
    change = slot_change("When declaring constants, end the names with '_C' from now on.", old)
    assert change is not None and "'_K' -> '_C'" in change.reason() and not change.partial
    assert set(frame_keys("When declaring constants, end the names with '_C' from now on.", "")) & set(
        frame_keys(old, ""))  # paired for the judge without an embedding
    # the argument names of functions are function arguments; a reason after the value is no second value
    assert slot_change("Start the argument names of your functions with 'j_'.",
                       "For function argument names, we use 'e_' as a prefix, indicating 'entry'.") is not None
    # another kind, another place in the name, or a string put anywhere in it is another slot
    assert slot_change("Start function names with 'f_'.", "Start function argument names with 'a_'.") is None
    assert slot_change("End function names with '_f'.", "Start function names with 'f_'.") is None
    assert slot_change("Start variable names with 'v_'.", "Include the string 'chx' in your variable names.") is None
    # which kind is named is not clear: no slot
    assert slot_change("When defining a function, end the variable name with '_x'.",
                       "End all variable names with '_v'.") is None


def test_a_naming_style_is_its_own_slot() -> None:
    change = slot_change("Use PascalCase for class names.", "We always use snake_case for class names in Python.")
    assert change is not None and "'snake_case' -> 'PascalCase'" in change.reason()
    assert slot_change("Use PascalCase for class names.", "Start class names with 'C'.") is None


def test_two_naming_conventions_in_one_sentence_each_replace_their_own() -> None:
    change = slot_change("From now on, start method names with 'm_' and end them with '_x'.",
                         "End all method names with '_e'.")
    assert change is not None and "'_e' -> '_x'" in change.reason() and not change.partial
    change = slot_change("Start method names with 'm_' and function names with 'f_'.",
                         "Always start function names with 'g_'.")
    assert change is not None and "'g_' -> 'f_'" in change.reason()
    # the older sentence's other convention still holds: replaced in part
    change = slot_change("End method names with '_z'.", "Start method names with 'm_' and end them with '_x'.")
    assert change is not None and change.partial
    assert slot_change("Start class names with 'c_'.", "Start method names with 'm_' and end them with '_x'.") is None


def test_a_naming_convention_said_with_another_instruction_is_replaced_in_part() -> None:
    change = slot_change("Start method names with 'p_'.",
                         "Always use type hints for methods, and start method names with 'x_'.")
    assert change is not None and change.partial and "'x_' -> 'p_'" in change.reason()


def test_a_role_said_with_more_after_and_is_the_same_role() -> None:
    old = "We use Zoom for video calls and conferences."
    change = slot_change("Going forward, use Microsoft Teams for video calls and screen sharing.", old)
    assert change is not None and "'Zoom' -> 'Microsoft Teams'" in change.reason()
    # the same words in another order of roles: another role first, another slot
    assert slot_change("Going forward, use Slack for team chat and video calls.", old) is None


def test_a_tool_rolled_out_or_standardised_on_across_the_company_fills_the_role() -> None:
    change = slot_change("We're rolling out Linear as our issue tracker.", "Use Jira as our issue tracker.")
    assert change is not None and "'Jira' -> 'Linear'" in change.reason()
    change = slot_change("We've decided to standardize on Asana for project management across the entire company.",
                         "Use Trello for project management.")
    assert change is not None and "'Trello' -> 'Asana'" in change.reason()


def test_a_role_said_in_other_words_of_its_family_is_the_same_role() -> None:
    change = slot_change("Going forward, use Slack for all internal communication.",
                         "Let's use Discord as our main tool for day-to-day chat.")
    assert change is not None and "'Discord' -> 'Slack'" in change.reason()
    change = slot_change("I know you've used Skype for some of your calls, but going forward, use Zoom instead.",
                         "We use Google Meet for video calls.")
    # "calls" alone may be phone calls; made with a well-known video-call tool, they are the video-call role
    assert change is not None and "'Google Meet' -> 'Zoom'" in change.reason()
    assert slot_change("Going forward, use your personal phone for your calls.", "We use Google Meet for video calls.") \
        is None
    change = slot_change("From now on, we're standardizing on MacBooks as our main development machine.",
                         "Use a Windows laptop as your main computer.")
    assert change is not None and "'a Windows laptop' -> 'MacBooks'" in change.reason()
    # another family, or a role of two families' words, is another slot
    assert slot_change("Going forward, use Zoom for video meetings.", "Use Slack for team chat.") is None
    assert slot_change("Going forward, use Linux as our development environment.",
                       "Use PyCharm as your preferred IDE.") is None


def test_a_value_said_with_when_it_starts_is_the_value() -> None:
    change = slot_change("Now, regarding our video calls, I'd like us to start using Zoom going forward.",
                         "From now on, we are standardizing video calls across the company, and we'll be using Google Meet.")
    assert change is not None and "'Google Meet' -> 'Zoom'" in change.reason()


def test_the_value_an_instruction_replaces_is_not_a_value_it_says() -> None:
    change = slot_change("All method names should start with 'o_' instead of the previously instructed 'get_'.",
                         "From now on, start all method names with 'md_'.")
    assert change is not None and "'md_' -> 'o_'" in change.reason()
    change = slot_change("Use Zoom instead of Skype for video calls.", "We use Google Meet for video calls.")
    assert change is not None and "'Google Meet' -> 'Zoom'" in change.reason()


def test_a_tool_called_by_name_for_its_role_fills_the_role_when_taken_up() -> None:
    change = slot_change("I think it would be best if you started using TabNine as your coding assistant.",
                         "I want to update you on a new coding assistant we're adopting, called CodeWhisperer.")
    assert change is not None and "'CodeWhisperer' -> 'TabNine'" in change.reason()
    # only mentioned, not taken up: nothing replaced
    assert slot_change("I think it would be best if you started using TabNine as your coding assistant.",
                       "I read about a coding assistant called CodeWhisperer.") is None


def test_one_value_for_two_kinds_of_names_is_a_slot_for_each() -> None:
    both = "From now on, end all function and method names with '_b'."
    change = slot_change("When naming functions, always end the function names with '_gn'.", both)
    assert change is not None and change.partial and "'_b' -> '_gn'" in change.reason()  # methods keep '_b'
    change = slot_change(both, "End method names with '_x'.")
    assert change is not None and not change.partial and "'_x' -> '_b'" in change.reason()
    assert slot_change(both, "End class names with '_k'.") is None


def test_a_count_said_in_other_units_or_with_a_word_more_is_one_slot() -> None:
    old = memory("Work from home no more than three days a week for your role.", days=0)
    new = memory("Going forward, work from home no more than twice a week.", days=7)
    verdict = judge_pair(new, old, 0.5)
    assert verdict.relation is Relation.SUPERSEDES and "'three' -> 'twice'" in verdict.reason
    assert set(frame_keys(new.summary, new.body)) & set(frame_keys(old.summary, old.body))  # paired for judging
    assert slot_change("From now on, work from home two times a week.", "Work from home twice a week.") is None
    assert slot_change("Going forward, review pull requests twice a week.", "Work from home three days a week.") is None


def test_where_one_works_is_one_place() -> None:
    change = slot_change("From now on, I'd like you to set up your workstation in the common area.",
                         "From now on, always go to the IT room to work.")
    assert change is not None and "'IT room' -> 'common area'" in change.reason()
    assert slot_change("From now on, work from the common area.", "Work from the common area whenever you can.") is None
    assert slot_change("From now on, work from home once a week.", "Always go to the IT room to work.") is None


def test_a_tool_named_after_its_role_fills_that_role() -> None:
    older = "Now that you're settling in, let me introduce you to our version control system, Bitbucket."
    change = slot_change("Going forward, I'd like you to use GitLab as our main version control system.", older)
    assert change is not None and "'Bitbucket' -> 'GitLab'" in change.reason()
    change = slot_change("From now on, use Jira for project management.",
                         "I want to introduce you to an essential tool we use for project management: Monday.")
    assert change is not None and "'Monday' -> 'Jira'" in change.reason()
    assert slot_change("Going forward, use GitLab as our main version control system.",
                       "Let me introduce you to our new system, Bitbucket.") is None  # "system" alone is no role


def test_a_rule_turned_round_names_the_same_thing_to_use() -> None:
    change = slot_change("I want to reinforce the importance of using a linter.",
                         "I want you to avoid using a linter in your code.")
    assert change is not None and "turned round" in change.reason()
    change = slot_change("I want you to always use a VPN when working remotely.",
                         "Under no circumstances should you ever use a VPN on our internal network.")
    assert change is not None and "turned round" in change.reason()
    new = memory("Moving forward, I want you to always utilize a pre-commit hook in your version control system.",
                 days=5)
    old = memory("I want you to avoid using pre-commit hooks in your work.", days=0)
    assert judge_pair(new, old, 0.5).relation is Relation.SUPERSEDES
    assert set(frame_keys(new.summary, new.body)) & set(frame_keys(old.summary, old.body))
    # a pronoun names nothing; a mention is no rule; the same rule said twice is no change
    assert slot_change("Whiteboards help, but I want you to avoid using them.", "Always use a whiteboard.") is None
    assert slot_change("We talked about using a linter last week.", "I want you to avoid using a linter.") is None
    assert slot_change("Please always use a linter.", "I want you to use a linter on every project.") is None


def test_a_well_known_tool_taken_up_fills_its_usual_role() -> None:
    older = "Going forward, we'll be using Google Meet for all our video conferencing."
    change = slot_change("We've been using Skype for quite some time now, but it's time we made the switch to Zoom.",
                         older)
    assert change is not None and "'Google Meet' -> 'Zoom'" in change.reason()
    new = memory("From now on, I'd like you to use Slack.", days=4)
    old = memory("Use Discord for all internal communication.", days=0)
    assert judge_pair(new, old, 0.5).relation is Relation.SUPERSEDES
    assert set(frame_keys(new.summary, new.body)) & set(frame_keys(old.summary, old.body))
    # a description takes nothing up; a tool of two roles must have its role said; a longer name is another tool
    assert slot_change("Slack is a powerful tool for quick exchanges.", "Use Discord for team chat.") is None
    assert slot_change("From now on, use Microsoft Teams.", "Use Zoom for video calls.") is None
    assert slot_change("Going forward, use GitHub Actions.", "Use GitLab as the main version control system.") is None


def test_a_measure_said_with_a_word_more_is_one_slot() -> None:
    change = slot_change("From now on, I'd like you to take a short break every 50 minutes.",
                         "Going forward, I want you to aim for a break every 60 minutes.")
    assert change is not None and "'60 minutes' -> '50 minutes'" in change.reason()
    assert slot_change("Set the API timeout to 30 seconds.", "Set the database timeout to 60 seconds.") is None
    assert slot_change("From now on, take a short break every 50 minutes.", "Take a lunch break of 60 seconds.") is None


def test_a_rule_turned_round_by_its_verb() -> None:
    said = "Going forward, I want you to ensure that you always use a virtual environment for your projects."
    for older in ("I want you to stop using virtual environments entirely.",
                  "Specifically, I want to emphasize that we do not use virtual environments for our projects.",
                  "Now, one of the things we strongly advise against is using virtual environments."):
        change = slot_change(said, older)
        assert change is not None and "turned round" in change.reason(), older
    change = slot_change("I want you to always use a whiteboard when brainstorming.",
                         "First, I want to emphasize the importance of avoiding the whiteboard for brainstorming.")
    assert change is not None
    change = slot_change("I want you to never use a password manager.",
                         "One of the policies we strongly encourage is the use of a password manager.")
    assert change is not None
    assert slot_change("I want you to stop using a debugger.", "Please stop using a debugger.") is None


def test_praise_and_time_are_not_a_role() -> None:
    change = slot_change("I'd like to introduce you to a powerful coding assistant called GitHub Copilot.",
                         "When coding, I want you to start using TabNine as your coding assistant.")
    assert change is not None and "'TabNine' -> 'GitHub Copilot'" in change.reason()
    change = slot_change("We've been using email for communication up until now, but from now on use Slack.",
                         "From now on, I want you to use Discord for all our communication.")
    assert change is not None and "'Discord' -> 'Slack'" in change.reason()


def test_a_condition_a_rule_holds_only_under_is_its_value() -> None:
    change = slot_change("From now on, I need you to communicate with the team only when necessary.",
                         "From now on, I want you to communicate with the team only when asked.")
    assert change is not None and "'asked' -> 'necessary'" in change.reason()
    assert slot_change("From now on, deploy only when the tests pass.",
                       "Communicate with the team only when asked.") is None


def test_what_a_convention_helps_with_is_its_reason() -> None:
    change = slot_change("When naming function arguments, please end them with '_i'.",
                         "We've found that ending function argument names with '_e' helps improve code readability "
                         "and reduces potential conflicts with other variables.")
    assert change is not None and "'_e' -> '_i'" in change.reason()


def test_a_measure_said_with_how_to_keep_it_is_the_same_measure() -> None:
    new, old = "Take a short break every 45 minutes.", "Set an alarm and take a break every 90 minutes."
    change = slot_change(new, old)
    assert change is not None and "'90 minutes' -> '45 minutes'" in change.reason()
    assert set(frame_keys(new, new)) & set(frame_keys(old, old))  # paired for the judge
    assert slot_change("Run the whole test suite every 45 minutes.", old) is None


def test_how_many_of_a_thing_one_works_with_is_one_slot() -> None:
    change = slot_change("From now on, I'd like you to code on a single screen.",
                         "Please set up your desk with three or more screens.")
    assert change is not None and "'three' -> 'single'" in change.reason()
    assert slot_change("From now on, I'd like you to ask two reviewers.",
                       "Please set up your desk with three or more screens.") is None
    assert slot_change("Most days a single screen is enough for me.", "Please set up your desk with two screens.") is None


def test_what_is_preferred_over_another_is_the_value() -> None:
    change = slot_change("Going forward, use CPUs for model inference.",
                         "We prefer to use GPUs over CPUs for model inference.")
    assert change is not None and "'GPUs' -> 'CPUs'" in change.reason()


def test_what_one_works_on_as_a_role_is_what_one_uses_for_it() -> None:
    change = slot_change("From now on, use a Chromebook as your main machine.",
                         "I'd like you to work on an Ubuntu workstation as your main machine.")
    assert change is not None and "'an Ubuntu workstation' -> 'a Chromebook'" in change.reason()
    assert slot_change("From now on, use a Chromebook as your main machine.",
                       "I'd like you to work on the billing service as your main project.") is None


def test_whom_a_rule_is_said_to_and_when_it_holds_are_no_part_of_it() -> None:
    change = slot_change("Going forward, do not deploy straight to production.",
                         "Maria, for this next hotfix, I need you to deploy straight to production.")
    assert change is not None and "turned round" in change.reason()
    change = slot_change("Going forward, avoid committing straight to the main branch.",
                         "Please commit straight to the main branch.")  # "committing" is "commit"
    assert change is not None and "turned round" in change.reason()


def test_a_rule_taken_up_after_it_was_ruled_out() -> None:
    change = slot_change("For added security, we now require all employees to use a password vault when working "
                         "remotely.", "I want to stress the importance of not using a password vault when working "
                         "remotely.")  # "employees" is no verb: what they are asked to use is the thing
    assert change is not None and "(password vault)" in change.reason()
    change = slot_change("I strongly encourage you to adopt code reviews for all your tasks from now on.",
                         "One thing I want you to focus on is working alone and avoiding code reviews.")
    assert change is not None and "(code review)" in change.reason()


def test_the_clause_that_gives_a_value_says_what_it_names() -> None:
    change = slot_change("From now on, end all constant names with '_k'.",
                         "Always include the letter 'q' and end the constant name with '_c'.")
    assert change is not None and "'_c' -> '_k'" in change.reason() and change.partial  # the 'q' stands
    change = slot_change("Always add docstrings to functions, and start all constant names with 'k_'.",
                         "Start your constant names with 'c_'.")
    assert change is not None and "'c_' -> 'k_'" in change.reason()
    change = slot_change("When writing functions, always start function argument names with 'p_'.",
                         "Start function argument names with 'a_'.")
    assert change is not None and "'a_' -> 'p_'" in change.reason()


def test_a_role_named_before_a_tool_and_a_place_one_works_in() -> None:
    change = slot_change("From now on, use Kate as your preferred IDE.",
                         "Let me tell you about our preferred IDE, Geany.")
    assert change is not None and "'Geany' -> 'Kate'" in change.reason()
    change = slot_change("Going forward, use the quiet room on the second floor for your work.",
                         "I'd like you to work from the open area.")
    assert change is not None
    change = slot_change("From now on, use your own phone for work-related calls.",
                         "Using the office phone for work calls is part of our policy.")
    assert change is not None and "'the office phone' -> 'your own phone'" in change.reason()
    assert slot_change("From now on, use your own phone for work-related calls.",
                       "We have used Zoom for some of your calls.") is None


def test_a_condition_said_after_what_is_done_only_then() -> None:
    change = slot_change("From now on, deploy to staging only when the tests pass.",
                         "Please finish your review and only deploy to staging when asked.")
    assert change is not None and "'asked' -> 'the'" not in change.reason() and "'asked'" in change.reason()
    assert slot_change("From now on, deploy to staging only when the tests pass.",
                       "Please only message the team when asked.") is None


def test_what_a_convention_is_done_by_and_a_role_within_a_team() -> None:
    change = slot_change("From now on, start constant names with 'k_'.",
                         "By prefixing constant names with 'c_', we make clear they never change.")
    assert change is not None and "'c_' -> 'k_'" in change.reason()
    change = slot_change("We now use Jitsi for video calls and messaging within the team.",
                         "Going forward, use Webex for our video calls and conferences.")
    assert change is not None and "'Webex' -> 'Jitsi'" in change.reason()


def test_notes_that_only_look_like_one_slot_changed_are_left_alone() -> None:
    """Guards of the rules above, in the words an agent's notes use: two things, not one slot with two values."""
    pairs = [
        ("Cap commit subjects at 50 characters.", "Cap lines at 100 characters."),  # measures of two things
        ("Always run two replicas of the web service.", "Please run three replicas of the queue worker."),
        ("Please work on the CSV export as a priority.", "Please work on the flaky login test as a priority."),
        ("Locally, we cap the worker pool at 4.", "We cap the worker pool at 16."),  # a scope, no name
        ("For this repo, the default branch is 'develop'.", "The default branch is 'main'."),
        ("Never implement retries in the SDK.", "We should implement retries in the API gateway."),
        ("Fixed a layout bug in the customer UI, Firefox.", "Fixed the login bug in the customer UI, Safari."),
        ("Use Redis for sessions that are short-lived.", "Use Postgres for sessions that are long-lived."),
        ("Use the team calendar for work events.", "Use Google Calendar for external work events."),
        ("Use the incidents room for outages.", "Use the deploys room for release announcements."),
    ]
    assert [(new, old) for new, old in pairs if slot_change(new, old) is not None] == []


def test_a_number_that_names_a_thing_is_no_value_of_a_slot() -> None:
    """"PR 57" and "task 5" are which one; "port 9090" and "5 attempts" are how a thing is set."""
    assert slot_change("PR 57 is waiting on review.", "PR 42 is waiting on review.") is None
    assert slot_change("Task 5 of the plan is blocked on review.", "Task 3 of the plan is blocked on review.") is None
    assert slot_change("Issue #18 is fixed in the sync code.", "Issue #12 is fixed in the sync code.") is None
    change = slot_change("The API now listens on port 9090.", "The API listens on port 8080.")
    assert change is not None and "'8080' -> '9090'" in change.reason()
    change = slot_change("Set the retry limit to 5 attempts.", "Set the retry limit to 3 attempts.")
    assert change is not None and "'3 attempts' -> '5 attempts'" in change.reason()


def test_every_clause_of_a_two_slot_sentence_changed_only_when_both_slots_get_new_values() -> None:
    older = "From now on, start all class names with 'wq_' and end them with '_k'."
    prefix = "Going forward, I want you to start class names with 'zp_'."
    suffix = "From now on, end all your class names with '_m'."
    assert every_clause_changed(older, [prefix, suffix])
    assert not every_clause_changed(older, [prefix])
    assert not every_clause_changed(older, [prefix, "From now on, end all your class names with '_k'."])
    assert not every_clause_changed("Start all class names with 'wq_'.", [prefix, suffix])  # one slot: no parts


def test_two_well_known_tools_of_one_kind_fill_one_role_said_in_other_words() -> None:
    change = slot_change("From now on, use Helix as your primary development environment.",
                         "Use Sublime Text as your preferred IDE.")
    assert change is not None and "'Sublime Text' -> 'Helix'" in change.reason()
    new = memory("Going forward, we'll use Gitea as our main platform.", days=5)
    old = memory("Our team uses Mercurial as its version control system.", days=0)
    verdict = judge_pair(new, old, 0.5)
    assert verdict.relation is Relation.SUPERSEDES and "'Mercurial' -> 'Gitea'" in verdict.reason
    assert set(frame_keys(new.summary, new.body)) & set(frame_keys(old.summary, old.body))
    change = slot_change("Going forward, use Jitsi for team meetings and client demos.", "Use Webex for video conferencing.")
    assert change is not None and "'Webex' -> 'Jitsi'" in change.reason()


def test_tools_of_one_kind_added_or_used_for_another_role_both_stand() -> None:
    # a second video tool added: both stand
    assert slot_change("We also use Jitsi for client demos.", "Use Webex for video calls.") is None
    # a version control host used for another kind's role (tracking) is no new version control system
    assert slot_change("From now on, use GitLab for issue tracking.", "Use Gitea as our version control system.") is None
    # two chat tools for roles that share nothing and name no kind: two channels
    assert slot_change("From now on, use Slack for deploy alerts.", "Use Discord for the community server.") is None


def test_a_timer_or_a_short_one_is_how_a_measure_is_kept_not_what_it_measures() -> None:
    change = slot_change("From now on, take a walk every 45 minutes.",
                         "Set a reminder to take a short walk every 90 minutes.")
    assert change is not None and "'90 minutes' -> '45 minutes'" in change.reason()
    # another thing measured, kept with a reminder or not, is another measure
    assert slot_change("Set a reminder to run the full tests every 60 minutes.", "Run the smoke tests every 30 minutes.") \
        is None


def test_a_scoped_naming_rule_is_another_slot_than_the_general_one() -> None:
    """'For test classes only', 'in generated code', a kind word before the names ('exception class names'): where
    a rule applies makes its own slot, so it neither replaces the general rule nor is replaced by it."""
    general = "Start class names with 'wq_' and end them with '_k'."
    scoped = ["For test classes only, start class names with 'tc_'.", "In generated code, end class names with '_m'.",
              "End exception class names with '_err'.", "Start class names with 'gn_' only in tests.",
              "For the CLI module, start class names with 'c_'.", "Start class names with 'gc_' in generated code."]
    for rule in scoped:
        assert slot_change(rule, general) is None, rule
        assert slot_change(general, rule) is None, rule
    assert not every_clause_changed(general, scoped[:2])
    assert not every_clause_changed(general, scoped[1:3])
    # the general rule said again, and the same scope said again, still change their slot
    change = slot_change("Start class names with 'ab_'.", general)
    assert change is not None and change.partial and "'wq_' -> 'ab_'" in change.reason()
    change = slot_change("For test classes only, start class names with 'td_'.", scoped[0])
    assert change is not None and "'tc_' -> 'td_'" in change.reason()
    change = slot_change("From now on, end exception class names with '_exc'.", scoped[2])
    assert change is not None and "'_err' -> '_exc'" in change.reason()
    assert every_clause_changed(general, ["Start class names with 'ab_'.", "End all class names with '_z'."])
    # a place that says nothing of its own ('in our codebase', 'for this project') is the general slot
    for said in ("In our codebase, start class names with 'ab_'.", "For this project, start all class names with 'ab_'.",
                 "In addition to the method naming convention, start class names with 'ab_'."):
        assert slot_change(said, general) is not None, said
    # a style word before the names is their value, not a scope
    assert slot_change("Remember: no linter, uppercase class names.", "Use snake_case for all class names.") is not None


def test_both_clauses_of_a_scoped_two_slot_sentence_keep_the_scope() -> None:
    """'For test classes only, start class names with 'tc_' and end them with '_t'': the suffix is for test
    classes too, so it leaves the general suffix alone."""
    scoped = "For test classes only, start class names with 'tc_' and end them with '_t'."
    assert slot_change(scoped, "End all class names with '_k'.") is None
    change = slot_change("For test classes only, end class names with '_u'.", scoped)
    assert change is not None and change.partial and "'_t' -> '_u'" in change.reason()


def test_the_offline_judge_leaves_the_general_naming_rule_to_a_scoped_one() -> None:
    old = memory("Start class names with 'wq_' and end them with '_k'.", days=0)
    for said in ("For test classes only, start class names with 'tc_'.", "In generated code, end class names with '_m'.",
                 "End exception class names with '_err'."):
        assert judge_pair(memory(said, days=2), old, 0.6).relation is not Relation.SUPERSEDES, said
    verdict = judge_pair(memory("Start class names with 'ab_'.", days=2), old, 0.6)
    assert verdict.relation is Relation.SUPERSEDES and verdict.partial


def test_a_phrase_of_opinion_manner_or_purpose_names_no_scope_so_the_general_rule_is_replaced() -> None:
    """'For better readability', 'in line with our style guide', 'in my opinion', 'every single', 'proper',
    'concerning class names': no code area is named, so the rule is the general one said again with a new value."""
    general = "Start class names with 'wq_'."
    for said in ("For better readability, start class names with 'ab_'.",
                 "Start class names with 'ab_' for better readability.",
                 "In line with our style guide, start class names with 'ab_'.",
                 "In my opinion, start class names with 'ab_'.",
                 "Start every single class name with 'ab_'.",
                 "Start proper class names with 'ab_'.",
                 "Concerning class names, start them with 'ab_'."):
        change = slot_change(said, general)
        assert change is not None and "'wq_' -> 'ab_'" in change.reason(), said
        assert slot_change(general, said) is not None, said
    old = memory(general, days=0)
    verdict = judge_pair(memory("For better readability, start class names with 'ab_'.", days=2), old, 0.6)
    assert verdict.relation is Relation.SUPERSEDES and "'wq_' -> 'ab_'" in verdict.reason


def test_class_names_in_tests_when_writing_tests_and_test_classes_are_a_scoped_rule() -> None:
    """'Class names in tests', 'When writing tests, ...', 'Test classes should start with ...': a rule for the
    tests, which neither replaces the general rule nor is replaced by it, and is replaced by a new rule for tests."""
    general = "Start class names with 'wq_'."
    scoped = ["Start class names in tests with 'tc_'.", "When writing tests, start class names with 'tc_'.",
              "Test classes should start with 'tc_'."]
    for said in scoped:
        assert slot_change(said, general) is None, said
        assert slot_change(general, said) is None, said
        change = slot_change("For test classes only, start class names with 'td_'.", said)
        assert change is not None and "'tc_' -> 'td_'" in change.reason(), said
    old = memory(general, days=0)
    for said in scoped:
        assert judge_pair(memory(said, days=2), old, 0.6).relation is not Relation.SUPERSEDES, said


def test_a_rule_for_one_language_leaves_the_rule_for_another() -> None:
    """'In TypeScript, ...' does not replace 'In Python, ...' (nor Go, C++ or Java); the same language said again
    does, and so does a rule said for no language ("for class names" after "... in Python"), paired with it."""
    by_language = {"Python": "In Python, start class names with 'py_'.",
                   "TypeScript": "In TypeScript, start class names with 'ts_'.",
                   "Go": "Start class names with 'go_' in Go.",
                   "C++": "For C++ code, start class names with 'cp_'.",
                   "Java": "Start Java class names with 'jv_'."}
    for (one, a), (other, b) in ((x, y) for x in by_language.items() for y in by_language.items() if x != y):
        assert slot_change(a, b) is None, (one, other)
    change = slot_change("In TypeScript, start class names with 'tx_'.", by_language["TypeScript"])
    assert change is not None and "'ts_' -> 'tx_'" in change.reason()
    change = slot_change("Start class names with 'ab_'.", by_language["Go"])
    assert change is not None and "'go_' -> 'ab_'" in change.reason()
    old = memory(by_language["Python"], days=0)
    assert judge_pair(memory(by_language["Go"], days=2), old, 0.6).relation is not Relation.SUPERSEDES
    # and the rule said for Python is paired with the one said for no language, to be replaced by it
    python, general = "When writing Python code, I want you to start every class name with 'py_'.", \
        "From now on, start all class names with 'ab_'."
    assert slot_change(general, python) is not None
    assert set(frame_keys(python, python)) & set(frame_keys(general, general))


def test_a_newer_rule_for_one_language_leaves_the_older_rule_said_for_none() -> None:
    """In a repository of two languages, "In TypeScript, start variable names with 't_'" narrows the rule for
    TypeScript; the general rule said before still holds for the rest, so it is not replaced."""
    general = "Start variable names with 'v_'."
    assert slot_change("In TypeScript, start variable names with 't_'.", general) is None
    assert slot_change("For Python code, start variable names with 'p_'.", general) is None
    change = slot_change(general, "In TypeScript, start variable names with 't_'.")
    assert change is not None and "'t_' -> 'v_'" in change.reason()


def test_a_place_said_in_a_reason_or_comparison_after_the_value_is_no_scope() -> None:
    """'..., just like in the examples', '..., it reads better in the UI', '... so they stand out in the test output':
    why or like what, not where; the rule is the general one with a new value."""
    for said, old in (("Start function names with 'g_', just like in the examples I showed you.",
                       "Start function names with 'f_'."),
                      ("Start method names with 'p_', it reads better in the UI.", "Start method names with 'm_'."),
                      ("Start method names with 'p_' so they stand out in the test output.",
                       "Start method names with 'm_'.")):
        assert slot_change(said, old) is not None, said
    assert slot_change("Start class names with 'tc_' in tests.", "Start class names with 'wq_'.") is None


def test_a_rule_turned_round_said_with_when_or_how_the_thing_is_used_is_the_same_rule() -> None:
    """'whenever you write code', 'consistently', 'a consistent formatter' say when or how, not what is used."""
    new = memory("I'd like you to start incorporating a formatter whenever you write code.", days=5)
    old = memory("I want you to avoid using formatters when writing code.", days=0)
    verdict = judge_pair(new, old, 0.5)
    assert verdict.relation is Relation.SUPERSEDES and "turned round (formatter)" in verdict.reason
    assert set(frame_keys(new.summary, new.body)) & set(frame_keys(old.summary, old.body))
    assert slot_change("From now on, use a profiler consistently when testing your code.",
                       "Remember, when working on this, avoid using a profiler.") is not None
    assert slot_change("I expect you to use a consistent linter for all your Python code.",
                       "From now on, avoid using a linter when writing code.") is not None
    # another thing used (the formatter's config file) turns nothing round
    assert slot_change("From now on, always use a formatter config file.",
                       "I want you to avoid using formatters when writing code.") is None


def test_discouraged_discontinued_or_a_bare_order_not_to_is_a_rule_said_not_to() -> None:
    change = slot_change("Firstly, I want you to start utilizing virtual environments for all your projects.",
                         "We strongly discourage the use of virtual environments for our Python development.")
    assert change is not None and "'never environment virtual' -> 'do environment virtual'" in change.reason()
    change = slot_change("Firstly, I want you to discontinue the use of a password manager.",
                         "From now on, I need you to use a password manager.")
    assert change is not None and "-> 'never manager password'" in change.reason()
    assert slot_change("From now on, I'd like you to incorporate mob programming into your daily routine.",
                       "Do not engage in mob programming with any of your colleagues.") is not None
    assert slot_change("Going forward, I'd like you to start using pair programming in your work.",
                       "That's why, unlike some companies, we don't encourage pair programming.") is not None
    # what is discouraged is not what is taken up; a team's habit said with "we don't" is no order
    assert slot_change("From now on, I want you to use Docker containers for all your projects.",
                       "We strongly discourage the use of virtual environments for our Python development.") is None
    assert slot_change("From now on, I'd like you to use pair programming in your routine.",
                       "We don't do pair programming much.") is None


def test_reaching_out_to_colleagues_only_when_needed_is_communicating_with_the_team_only_then() -> None:
    change = slot_change("From now on, I'd like you to only reach out to your colleagues when absolutely necessary.",
                         "I want you to focus on your tasks and communicate with the team only when asked.")
    assert change is not None and "'asked' -> 'absolutely necessary'" in change.reason()
    change = slot_change("While open communication matters, I want you to focus on only reaching out when necessary.",
                         "Communicate with the team only when asked.")
    assert change is not None and "'asked' -> 'necessary'" in change.reason()
    # reaching customers, or deploying, only then is another act
    assert slot_change("Only reach out to customers when necessary.",
                       "I want you to focus on your tasks and communicate with the team only when asked.") is None
    assert slot_change("Deploy to production only when the tests pass.", "Communicate with the team only when asked.") \
        is None


def test_stepping_away_from_the_desk_or_a_pause_is_the_break_measured() -> None:
    change = slot_change("From now on, ensure you take a break every 70 minutes.",
                         "Make sure you step away from your desk every 80 minutes.")
    assert change is not None and "'80 minutes' -> '70 minutes'" in change.reason()
    change = slot_change("From now on, aim for a break every 45 minutes.", "Aim for a short pause every 90 minutes or so.")
    assert change is not None and "'90 minutes' -> '45 minutes'" in change.reason()
    change = slot_change("I'd like you to aim for a break every 70 minutes or so.",
                         "So, I want you to commit to taking a break every 80 minutes or so.")
    assert change is not None and "'80 minutes' -> '70 minutes'" in change.reason()
    assert slot_change("Run the full test suite every 70 minutes.",
                       "Make sure you step away from your desk every 80 minutes.") is None


def test_a_workplace_gone_to_a_role_with_what_it_replaces_and_a_machine_for_development() -> None:
    change = slot_change("I want you to work in the common area from now on.",
                         "I want you to start going to the IT room to work from now on.")
    assert change is not None and "'IT room' -> 'common area'" in change.reason()
    # "instead of the company's default platform" says what is replaced, not where the role applies
    change = slot_change("From now on, I'd like you to use Zoom for your video calls instead of the default platform.",
                         "Going forward, use Google Meet for all internal and external video conferences.")
    assert change is not None and "'Google Meet' -> 'Zoom'" in change.reason()
    # what all work is for names no place; a place named stays its own slot
    change = slot_change("I want you to start using a MacBook as your main computer for development.",
                         "Going forward, I'd like you to use a Windows laptop as your primary machine.")
    assert change is not None and "'a Windows laptop' -> 'a MacBook'" in change.reason()
    assert slot_change("Use a MacBook as your main computer for the support desk.",
                       "Going forward, I'd like you to use a Windows laptop as your primary machine.") is None
    assert slot_change("From now on, use Zoom for video calls with the support team.",
                       "Going forward, use Google Meet for video calls.") is None


def test_a_rule_turned_round_for_another_place_leaves_the_rule_standing() -> None:
    # a rule and its exception, or one tool for two jobs: "not in integration tests" says nothing of unit tests
    for newer, older in (("Do not use mocks in integration tests.", "Always use mocks in unit tests."),
                         ("From now on, never use Redis for sessions.", "Always use Redis for caching."),
                         ("Do not use f-strings in logging calls.", "Always use f-strings for string formatting."),
                         ("Going forward, do not use Celery for email jobs.", "Use Celery for background jobs.")):
        assert slot_change(newer, older) is None, newer
    # said for no place, or for the same one, it is the same rule turned round
    assert slot_change("From now on, never use a linter.", "Always use a linter for your Python code.") is not None
    assert slot_change("From now on, never use mocks in integration tests.",
                       "Always use mocks in the integration tests.") is not None


def test_has_since_is_a_time_not_the_start_of_a_reason() -> None:
    # "since" after "has" and before a participle says when: the tool and its role after it are the slot
    change = slot_change("Our group has since moved to using Zoom as our primary video conferencing software.",
                         "Going forward we will standardize on Google Meet for video calls.")
    assert change is not None and "'Google Meet' -> 'Zoom'" in change.reason()
    # "we have since npm installs are slow" gives a reason: what follows is no part of the role
    assert slot_change("Use pnpm for package management in every repo we have since npm installs are slow.",
                       "Use Yarn for package management in every repo.") is not None
    assert slot_change("Use Zoom for video calls.", "Use Google Meet for video calls since Zoom drops often.") \
        is not None


def test_two_well_known_tools_of_different_kinds_never_fill_one_role_said_in_other_words() -> None:
    # "video conferencing software" has the letters of VCS: an acronym match is not a role shared by Zoom and GitLab
    assert slot_change("From now on, I need you to use GitLab as your main VCS.",
                       "We transitioned to using Zoom as our primary video conferencing software.") is None
    assert slot_change("From now on, I need you to use GitLab as your main VCS.",
                       "We use Bitbucket as our version control system.") is not None
    # one role said alike passes between kinds: the standup moved from a video tool to a chat tool
    assert slot_change("Use Slack for daily standups.", "Use Zoom for daily standups.") is not None


def test_a_tool_one_team_uses_for_a_role_leaves_another_teams_tool_standing() -> None:
    assert slot_change("Our backend team has since adopted Ruff as the linter.",
                       "Our frontend team uses ESLint as the linter.") is None
    # said for one team, it leaves the rule said for everyone standing for the rest
    assert slot_change("Going forward the backend team uses Ruff as the linter.", "Use ESLint as the linter.") is None
    change = slot_change("Our backend team now uses Ruff as the linter.", "Our backend team uses Flake8 as the linter.")
    assert change is not None and "'Flake8' -> 'Ruff'" in change.reason()
    assert slot_change("Our whole team now uses Ruff as the linter.", "Use Flake8 as the linter.") is not None
