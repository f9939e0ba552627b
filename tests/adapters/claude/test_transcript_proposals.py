"""What the offline proposer keeps from a transcript as Claude Code writes it: findings and decisions, not the
agent's asides, a table of cases, a choice still put to the user; an answer
is read in any language."""

from __future__ import annotations

from pathlib import Path

from memactors.actors.algorithms.session_proposals import SessionTurn, foreign, propose
from memactors.adapters.claude.transcript import read_transcript
from tests.session_transcripts import SessionWriter, proposed_summaries


_summaries = proposed_summaries


def test_the_agent_guessing_is_not_a_finding(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e001-4a52-9a57-6d9a1b3ce001")
    w.user("The importer dies on the March export, can you look?")
    w.assistant("I think the root cause is the stale lockfile in `vendor/`.\n\n"
                "The issue is likely that the token expires before the refresh.\n\n"
                "`Intl.Segmenter` isn't available in Node 14.")
    assert _summaries(w, tmp_path) == ["Intl.Segmenter isn't available in Node 14."]


def test_what_the_user_asked_said_back_or_as_a_question_is_not_a_finding(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e002-4a52-9a57-6d9a1b3ce002")
    w.user("Should order ids be UUIDs?")
    w.assistant("You asked whether `orderId` should be a UUID, not an integer.\n\n"
                "So the open point is: should the cache live in Redis, not in process memory?\n\n"
                "The export job is a nightly batch, not a stream consumer.")
    assert _summaries(w, tmp_path) == ["The export job is a nightly batch, not a stream consumer."]


def test_narration_a_next_step_a_report_of_changes_and_a_quotation_are_not_findings(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e003-4a52-9a57-6d9a1b3ce003")
    w.user("Go ahead with the build setup.")
    w.assistant("Checking the bundler: `rollup.config.js` only covers the browser build by default.\n\n"
                "Next step: the service needs a `readyz` route so the load balancer can probe it.\n\n"
                "What I changed: the scheduler has an off-by-one bug fix.\n\n"
                "The changelog says: \"Node 16 is not supported by default\".\n\n"
                "Then the worker only runs on the primary node.\n\n"
                "Vitest skips snapshot tests by default.")
    assert _summaries(w, tmp_path) == ["Vitest skips snapshot tests by default."]


def test_code_said_as_prose_is_not_a_finding_but_code_named_in_an_aside_is(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e004-4a52-9a57-6d9a1b3ce004")
    w.user("Why is the list order wrong?")
    w.assistant("rows.filter(r => r.ok) only works on arrays, not on iterators.\n\n"
                "The comparator on line 40 has an operator precedence bug (a.rank || a.score - b.score binds late).")
    assert _summaries(w, tmp_path) == [
        "The comparator on line 40 has an operator precedence bug (a.rank || a.score - b.score binds late)."]


def test_a_choice_the_agent_puts_to_the_user_is_not_yet_a_decision(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e005-4a52-9a57-6d9a1b3ce005")
    w.user("How should the export name its columns?")
    w.assistant("I'd use kebab-case for the `export.csv` headers rather than the camelCase of the API. "
                "Worth a quick check from you since the old reports differ.")
    w.user("Also, what about dates?")
    w.assistant("I'd store dates as UTC in `events.ts` rather than local time. That keeps the sort stable.")
    assert _summaries(w, tmp_path) == ["Store dates as UTC in events.ts rather than local time."]


def test_a_table_of_cases_under_a_rules_lead_in_is_the_behaviour_asked_for_not_a_rule(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e006-4a52-9a57-6d9a1b3ce006")
    w.user("Let's write the reconciler. Rules:\n"
           "- Matching amount → state: SETTLED\n"
           "- Amount differs -> state: DISPUTED, keep both amounts\n"
           "- Never auto-close a dispute older than 30 days\n")
    assert _summaries(w, tmp_path) == ["Never auto-close a dispute older than 30 days."]


def test_an_answer_is_read_in_any_language_and_accents_in_code_are_no_language(tmp_path: Path) -> None:
    question = [{"question": "Jak chceš zprávu poslat?", "header": "Přenos", "multiSelect": False,
                 "options": [{"label": "Přes sdílený odkaz", "description": ""},
                             {"label": "Přílohou e-mailu", "description": ""}]}]
    w = SessionWriter("0b6c1c1e-e007-4a52-9a57-6d9a1b3ce007")
    w.ask(question, {"Jak chceš zprávu poslat?": "Přílohou e-mailu"})
    w.ask([{"question": "Which database should the ledger use?", "header": "Database", "multiSelect": False,
            "options": [{"label": "Postgres", "description": ""}, {"label": "SQLite", "description": ""}]}],
          {"Which database should the ledger use?": "Postgres"})
    # an English turn quoting output in another language stays English: accents in code are not its words
    w.assistant("All tests pass. The message now reads:\n```\nAlerte pluie prévue : journée agitée, soirée très "
                "humide\n```")
    read = read_transcript(w.write(tmp_path))
    assert [foreign(t.text) for t in read.turns] == [True, False, False]
    # the option picked is a decision by its structure, whatever the language
    assert _summaries(w, tmp_path) == ["Přenos: Přílohou e-mailu.", "Database: Postgres."]


def test_what_the_user_expects_to_happen_is_not_a_rule(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e008-4a52-9a57-6d9a1b3ce008")
    w.user("I reran the seed script and the staging data should be fine now.")
    w.user("I pushed the hotfix branch, the nightly pipeline should pick it up.")
    w.user("Every migration must be reversible with a down step.")
    assert _summaries(w, tmp_path) == ["Every migration must be reversible with a down step."]


def test_a_plain_should_in_a_turn_asking_for_the_work_is_the_spec_of_that_work(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e009-4a52-9a57-6d9a1b3ce009")
    w.user("Now let's build the invoice exporter.\n\n"
           "Cancelled invoices should just be copied over to the `archive_invoices` table.\n\n"
           "The exporter must never write to the live ledger.\n\n"
           "Show me the full implementation.")
    w.user("Refund amounts should be stored in `amount_cents` as integers.")
    assert _summaries(w, tmp_path) == ["The exporter must never write to the live ledger.",
                                       "Refund amounts should be stored in amount_cents as integers."]


def test_a_choice_the_user_states_with_what_it_replaces_is_a_decision(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e010-4a52-9a57-6d9a1b3ce010")
    w.user("Use `ruff` instead of flake8 for every lint step.")
    w.user("We use Vitest, not Jest.")
    w.user("No more inline SQL strings, use the query builder in `db/q.ts`.")
    w.user("Use this approach instead of the old one.")  # points back: names nothing
    assert _summaries(w, tmp_path) == ["Use ruff instead of flake8 for every lint step.", "We use Vitest, not Jest.",
                                       "No more inline SQL strings, use the query builder in db/q.ts."]


def test_a_report_of_what_was_done_options_laid_out_and_a_status_are_not_findings(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e011-4a52-9a57-6d9a1b3ce011")
    w.user("Add the export and tell me where we stand.")
    w.assistant("## Summary\n\nI've implemented the export:\n\n"
                "- **`api/export.ts`** — new endpoint, only accepts POST\n"
                "- Rows are streamed rather than buffered in `exportRows`\n\n"
                "The tests are failing because the `pg` fixture isn't installed yet.\n\n"
                "Option B uses Redis, not Postgres, for the job queue.\n\n"
                "The exporter only supports UTF-8 by default.")
    assert _summaries(w, tmp_path) == ["The exporter only supports UTF-8 by default."]


def test_a_command_pasted_from_a_terminal_and_its_output_are_not_the_users_words(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e012-4a52-9a57-6d9a1b3ce012")
    w.user("Never run the seed script against production.\n"
           "$ npm run seed\n"
           "> node scripts/seed.js\n"
           "fatal SEED01: the target database must be empty first")
    w.user("# Deploy notes\nAlways tag a release before deploying to `prod`.")  # a heading is no prompt
    assert _summaries(w, tmp_path) == ["Never run the seed script against production.",
                                       "Always tag a release before deploying to prod."]


def test_a_setting_the_user_turns_on_or_gives_a_value_with_lets_is_a_decision_each_on_its_own_line(
        tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e013-4a52-9a57-6d9a1b3ce013")
    # short lines typed one by one, in lower case: not one hard-wrapped sentence
    w.user("retry policy — walk me through the options\nlet's do maxRetries = 5\n"
           "And let's turn on verbose logging in the worker")
    w.user("Let's do it.")  # no setting named: nothing to keep
    assert _summaries(w, tmp_path) == ["Set maxRetries = 5.", "Turn on verbose logging in the worker."]


def test_where_the_user_says_a_thing_must_live_is_a_decision(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e014-4a52-9a57-6d9a1b3ce014")
    w.user("For Netlify, the site bundle needs to be in `dist/`. Adjust the build please.")
    w.user("It needs to be in there soon.")  # names nothing
    assert _summaries(w, tmp_path) == ["For Netlify, the site bundle needs to be in dist/."]


def test_a_cause_the_agent_names_after_a_failure_and_what_a_tools_docs_confirm_are_findings(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e015-4a52-9a57-6d9a1b3ce015")
    w.user("The worker won't start, and can we keep the queue on a volume?")
    w.assistant("The stale `celery.pid` (left by the old container) blocked startup. It's cleared now.\n\n"
                "The test command broke the fixture, not the worker.\n\n"
                "Fly's docs confirm: volumes are pinned to one host — a machine cannot move with its volume.")
    assert _summaries(w, tmp_path) == ["The stale celery.pid (left by the old container) blocked startup.",
                                       "Fly: volumes are pinned to one host — a machine cannot move with its volume."]


def test_a_numbered_step_of_the_work_and_a_clause_waiting_for_its_list_are_not_kept(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e016-4a52-9a57-6d9a1b3ce016")
    w.user("Let's move to Phase 3 and implement the `export.ts` route and the sticky header markup.")
    w.user("make sure that Phase 2 is completed")
    w.user("make sure that a CHANGELOG covering: what changed in each release, why it changed, which flags went "
           "away, and\nhow to upgrade from the release before it.")
    w.user("Every release must bump the number in `version.txt`.")
    assert _summaries(w, tmp_path) == ["Every release must bump the number in version.txt."]


def test_an_answer_reporting_what_the_user_was_asked_to_do_is_no_decision(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e017-4a52-9a57-6d9a1b3ce017")
    w.ask([{"question": "The STRIPE_KEY in your .env was rejected. Can you update it with a valid key and let me "
                        "know when it's ready?", "header": "Stripe key", "multiSelect": False,
            "options": [{"label": "Updated, try again", "description": ""},
                        {"label": "Skip payments for now", "description": ""}]}],
          {"The STRIPE_KEY in your .env was rejected. Can you update it with a valid key and let me know when it's "
           "ready?": "Updated, try again"})
    w.ask([{"question": "Which queue should the mailer use?", "header": "Queue", "multiSelect": False,
            "options": [{"label": "Sidekiq", "description": ""}, {"label": "GoodJob", "description": ""}]}],
          {"Which queue should the mailer use?": "GoodJob"})
    assert _summaries(w, tmp_path) == ["Queue: GoodJob."]


def test_a_change_the_user_asks_of_the_agent_as_a_question_is_a_decision_typed_fast_or_not(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e018-4a52-9a57-6d9a1b3ce018")
    w.reject("Edit", {"file_path": "config/routes.rb"}, "can you use order_ref intead of id?")
    w.user("Could you use the staging bucket instead of the prod one for this upload?")  # this moment's work
    w.user("Could you use `httpx` instead of requests in the API client?")
    proposals = propose([SessionTurn(t.uuid, t.role, t.text, t.line, t.source)
                         for t in read_transcript(w.write(tmp_path)).turns])
    assert [p.summary for p in proposals] == ["Use order_ref instead of id.",
                                              "Use httpx instead of requests in the API client."]
    assert proposals[0].content == "can you use order_ref intead of id?"  # the words as typed


def test_a_rule_said_with_shouldnt_or_mustnt_is_a_rule(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e019-4a52-9a57-6d9a1b3ce019")
    w.user("Build the donation form.")
    w.queued("if guest checkout is picked - the billing_email field shouldn't be required")
    w.user("The `legacy_id` column mustn't be exposed by the public API.")
    assert _summaries(w, tmp_path) == ["If guest checkout is picked, the billing_email field shouldn't be required.",
                                       "The legacy_id column mustn't be exposed by the public API."]


def test_what_the_agent_found_right_before_it_fixes_it_is_a_finding(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e0f1-4a52-9a57-6d9a1b3ce0f1")
    w.user("The release build keeps picking up a second copy of the SDK.")
    w.assistant("The `vite-plugin-sdk` bundled its own `node_modules/sdk` under `dist/`. Let me remove it from the "
                "bundle.")
    w.assistant("The `dist/` tests fail on the old fixture. Let me update the fixture.")  # how the work stands
    w.assistant("The `api.ts` handlers need a timeout. Let me add one.")  # a need: the task, not a finding
    w.assistant("The `Dockerfile` copies the lockfile after `npm ci`. Let me check the cache first.")  # a look
    assert _summaries(w, tmp_path) == ["The vite-plugin-sdk bundled its own node_modules/sdk under dist/."]



def test_a_100_kb_line_of_rule_words_is_read_only_to_its_first_part() -> None:
    # hostile input costs bounded time: past the first TURN_CHARS a turn is a paste, not read (whoever calls)
    filler = "always add docstrings to the functions and type hints to the methods in the modules, " * 1200
    text = f"Always run `ruff check` before you commit. Please {filler}thanks.\n\nNever push to `main` directly."
    assert [p.summary for p in propose([SessionTurn("u1", "user", text, 1)])] \
        == ["Always run ruff check before you commit."]


def test_a_run_s_report_or_the_plan_narrated_before_a_fix_is_not_a_finding(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e0a2-4a52-9a57-6d9a1b3ce0a2")
    w.user("Get the API package green again.")
    w.assistant("`pnpm install` finished with 5 warnings. Let me fix them.\n\n"
                "The linter flagged 9 issues in `pkg/api`. Let me fix them.\n\n"
                "Mypy complains about the `Any` in `routes.py`. Let me fix that.\n\n"
                "Phase 3 covers the `billing` module. Let me create the tests.\n\n"
                "The `useMemo` hook runs on every render here. Let me add the dependency list.\n\n"
                "The release runner uses Python 3.9. Let me update the workflow to 3.12.")
    assert _summaries(w, tmp_path) == ["The useMemo hook runs on every render here.",
                                       "The release runner uses Python 3.9."]


def test_how_a_named_thing_misbehaves_said_with_a_run_s_verb_is_a_finding_a_run_s_status_is_not(
        tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e0a3-4a52-9a57-6d9a1b3ce0a3")
    w.user("The nightly sync loses orders again.")
    w.assistant("`retry` reported success even when the request had failed. Let me fix the status check.\n\n"
                "`pytest-xdist` passed the DATABASE_URL only to the first worker. Let me set it in `conftest.py`.\n\n"
                "`RateLimiter` flags every request as abusive after a restart. Let me fix the counter reset.\n\n"
                "All 42 tests passed. Let me update the changelog.\n\n"
                "The linter flagged 3 warnings. Let me fix them.\n\n"
                "Build finished in 12s. Let me add the cache step.\n\n"
                "`ruff` reported 0 errors. Let me update the changelog.\n\n"
                "`mypy` passed on `api.py`. Let me add the next module.")
    assert _summaries(w, tmp_path) == ["Retry reported success even when the request had failed.",
                                       "Pytest-xdist passed the DATABASE_URL only to the first worker.",
                                       "RateLimiter flags every request as abusive after a restart."]



def test_a_word_of_a_rule_typed_in_capitals_among_lower_case_is_a_rule_with_the_condition_said_before_it(
        tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e030-4a52-9a57-6d9a1b3ce030")
    w.user("one more thing on catch ups. however, if a student is enrolled in more than 1 class, their catch ups "
           "count for ANY class. eg they're in level 5 and strip")
    assert _summaries(w, tmp_path) == [
        "If a student is enrolled in more than 1 class, their catch ups count for ANY class."]


def test_the_capitals_stress_the_rule_not_the_same_words_in_lower_case_nor_a_specs_list_item(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e031-4a52-9a57-6d9a1b3ce031")
    w.user("its fine, i saw the output on localhost. let's push this to github. pls stage the changes including "
           "the fixtures (not the .env) and ill deploy it tonight")
    w.assistant("Staged and pushed.")
    w.user("wait, redo it. pls stage the changes including the fixtures (NOT THE .ENV) and ill deploy it tonight")
    w.assistant("Restaged.")
    w.user("Build the visitor map screen:\n"
           "- Configurable walk speed (default 3 mph) — NO external map providers\n"
           "- Pan and zoom with the mouse wheel")
    assert _summaries(w, tmp_path) == ["Stage the changes including the fixtures (NOT THE .ENV)"]


def test_a_count_said_in_words_zero_or_two_names_what_a_users_preference_checks(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e032-4a52-9a57-6d9a1b3ce032")
    w.user("Yes do it. I like putting recordings in recordings even if max recordings is zero.")
    w.assistant("Noted.")
    w.user("I like putting recordings in recordings even if max recordings is unset.")
    w.assistant("Noted.")
    w.user("I prefer keeping two spare recordings after a crash.")
    w.assistant("Noted.")
    w.user("I prefer keeping some spare recordings after a crash.")
    assert _summaries(w, tmp_path) == ["I like putting recordings in recordings even if max recordings is zero.",
                                       "I prefer keeping two spare recordings after a crash."]


def test_capitals_in_a_report_of_how_the_work_stands_now_are_a_complaint_not_a_rule(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e033-4a52-9a57-6d9a1b3ce033")
    w.user("the button is NOT working after the refresh, can you check it")
    w.assistant("Checking.")
    w.user("the sidebar shows ALL the items twice since your last change")
    w.assistant("Looking.")
    w.user("you removed ALL my comments in the config file, put them back")
    w.assistant("Restoring.")
    w.user("also, refunds go back to the card the customer paid with, NOT to store credit")
    assert _summaries(w, tmp_path) == ["Refunds go back to the card the customer paid with, NOT to store credit."]


def test_a_state_the_agent_reports_against_the_one_before_is_no_distinction_to_keep(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e034-4a52-9a57-6d9a1b3ce034")
    w.user("Is the login fixed?")
    w.assistant("The login form is working now, not throwing errors anymore.\n\n"
                "The session cookie is scoped to the API host, not the whole domain.")
    assert _summaries(w, tmp_path) == ["The session cookie is scoped to the API host, not the whole domain."]


def test_a_stressed_clause_already_read_as_part_of_a_users_rule_is_not_proposed_again(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e035-4a52-9a57-6d9a1b3ce035")
    w.user("the invoices must NEVER be deleted, only archived")
    assert _summaries(w, tmp_path) == ["The invoices must NEVER be deleted, only archived."]


def test_never_mind_takes_a_word_back_and_asks_for_nothing(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e037-4a52-9a57-6d9a1b3ce037")
    w.user("Never mind, revert that.")
    w.assistant("Reverted.")
    w.user("never mind the tests, never push to main without a review")
    assert _summaries(w, tmp_path) == ["Never push to main without a review."]


def test_what_a_kind_of_user_must_be_able_to_do_is_a_requirement_what_you_should_see_now_is_not(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e038-4a52-9a57-6d9a1b3ce038")
    w.user("I deployed the fix, you should be able to see the export tab now.")
    w.assistant("I can see it.")
    w.user("Good. Users should be able to export their bookings as a CSV file. And users should feel welcome on the "
           "landing page.")
    w.assistant("Done.")
    w.user("I deployed it, users should be able to log in now. Admins should be able to see it too.")
    assert _summaries(w, tmp_path) == ["Users should be able to export their bookings as a CSV file."]


def test_a_decision_word_inside_a_compound_name_does_not_make_a_spec_heading_a_decision_section(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e041-4a52-9a57-6d9a1b3ce041")
    w.user("Here is the design doc.\n\n"
           "### 2. Multi-Architecture Voting\n"
           "- **Math**: Byzantine fault tolerance with f < n/3\n"
           "- **Implementation**: x86, ARM, RISC-V vote independently\n\n"
           "### Architecture\n"
           "- **Queue**: Redis streams\n"
           "- **API**: FastAPI\n")
    assert _summaries(w, tmp_path) == ["Architecture: Queue Redis streams, API FastAPI."]


def test_a_cause_that_holds_is_kept_whatever_its_tense_or_time_word(tmp_path: Path) -> None:
    # how a tool or library behaves, said with "still", "currently", "no longer", the progressive, a generic "you"
    # or a change in a named version, is a lesson for the next session
    causes = ["The problem is that the bundler still resolves two copies of react.",
              "The issue is that Node 18 no longer ships the punycode module.",
              "The issue is that Next.js is caching the fetch response by default.",
              "The issue is that you need to restart the dev server after changing the env file.",
              "The issue is that the I/O thread blocks on the DNS lookup."]
    w = SessionWriter("0b6c1c1e-e041-4a52-9a57-6d9a1b3ce041")
    for cause in causes:
        w.user("It fails again.")
        w.assistant(cause)
    assert _summaries(w, tmp_path) == causes


def test_a_stressed_decision_of_the_team_is_kept_whatever_its_tense(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e042-4a52-9a57-6d9a1b3ce042")
    w.user("we are NOT using Redux in this project, stick to zustand")
    w.assistant("Understood.")
    w.user("the button is NOT working after the refresh")
    assert any("Redux" in s for s in _summaries(w, tmp_path))
    assert not any("button" in s for s in _summaries(w, tmp_path))



def test_a_heading_with_closing_hashes_or_trailing_blanks_still_opens_its_section(tmp_path: Path) -> None:
    w = SessionWriter("0b6c1c1e-e043-4a52-9a57-6d9a1b3ce043")
    w.user("Write down what we settled.")
    w.assistant("## Decisions ##\n- Use pnpm for every install in CI.")
    w.user("And the gateway?")
    w.assistant("## Decisions" + " " * 300 + "\n- The API gateway owns rate limiting for all services.")
    summaries = _summaries(w, tmp_path)
    assert any("pnpm" in s for s in summaries) and any("rate limiting" in s for s in summaries), summaries
