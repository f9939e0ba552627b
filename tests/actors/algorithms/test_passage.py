"""The passage of a memory's body that answers a question, marked where it was cut."""

from __future__ import annotations

from memactors.actors.algorithms.passage import ELLIPSIS, best_passage, question_stems, stem
from memactors.adapters.reading.lexical_index import query_words

FILLER = ("The team met on Tuesday and went through the open items one by one, with notes kept in the usual "
          "document for anyone who missed it. ")


def passage(body: str, question: str, **kw) -> str:
    return best_passage(body, question_stems(query_words(question)), **kw)


def test_a_short_body_is_shown_whole_without_marks() -> None:
    body = "Use SQLite for storage.\n\nIt needs no server."
    assert passage(body, "which database do we use?") == body


def test_the_list_that_answers_is_shown_with_its_lead_in_and_lines_marked_where_cut() -> None:
    body = (FILLER * 4 + "\n\n" + "Retry schedule for failed webhooks:\n- first retry after 30 seconds\n"
            "- then 2 minutes, 10 minutes and 1 hour\n- give up after 5 attempts and page the on-call\n\n"
            + FILLER * 4)
    shown = passage(body, "after how many attempts does the webhook retry give up?")
    assert shown.startswith(ELLIPSIS) and shown.endswith(ELLIPSIS)
    assert "Retry schedule for failed webhooks:\n- first retry after 30 seconds\n" in shown
    assert "- give up after 5 attempts and page the on-call" in shown


def test_a_code_block_is_kept_whole_with_its_fences() -> None:
    code = "```python\nconn.enable_load_extension(True)\nsqlite_vec.load(conn)\n```"
    body = FILLER * 3 + "\n\n" + code + "\n\n" + FILLER * 3
    shown = passage(body, "how is the sqlite-vec extension loaded?")
    assert code in shown and shown.startswith(ELLIPSIS)


def test_the_last_paragraph_of_a_long_reply_is_found() -> None:
    body = FILLER * 6 + "\n\nIn the end we picked ruff: one tool for linting and import sorting, ten times faster."
    shown = passage(body, "which linter did we pick in the end?")
    assert shown.startswith(ELLIPSIS) and shown.endswith("ten times faster.")


def test_a_question_the_body_does_not_speak_of_gets_its_start() -> None:
    body = FILLER * 8
    shown = passage(body, "kubernetes autoscaling")
    assert not shown.startswith(ELLIPSIS) and shown.endswith(ELLIPSIS) and body.startswith(shown[:-1].rstrip())


def test_file_paths_and_the_summary_repeated_do_not_draw_the_passage() -> None:
    summary = "Secrets filtering redacts by default"
    body = (f"{summary}\n\n" + FILLER * 3 + "\n\nThe default action is to redact: each secret is replaced with "
            "[REDACTED:type].\n\n" + FILLER * 3 + "\n\n## Related Files\n- docs/secrets-filtering/default-redact.md\n"
            "- src/secrets/filtering.py")
    shown = passage(body, "what does secrets filtering do by default?", shown=summary)
    assert "replaced with [REDACTED:type]" in shown and "docs/secrets-filtering" not in shown


def test_a_paragraph_longer_than_the_passage_is_cut_at_its_sentences() -> None:
    body = " ".join([FILLER.strip()] * 5 + ["The cache is invalidated on every deploy by bumping its prefix."]
                    + [FILLER.strip()] * 5)
    shown = passage(body, "when is the cache invalidated?", limit=200)
    assert "The cache is invalidated on every deploy by bumping its prefix." in shown
    assert shown.startswith(ELLIPSIS) and shown.endswith(ELLIPSIS) and len(shown) <= 202


def test_a_plural_ing_noun_meets_its_singular_and_its_verb() -> None:
    # "384-dimension embeddings" answers "which embedding model": "embeddings" and "embedding" share one stem
    for plural, singular in (("embeddings", "embedding"), ("settings", "setting"), ("meetings", "meeting"),
                             ("buildings", "build")):
        assert stem(plural) == stem(singular), (plural, stem(plural), stem(singular))
    assert stem("things") == stem("thing")  # too short a stem to strip "-ings" from
