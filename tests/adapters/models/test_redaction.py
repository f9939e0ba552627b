from __future__ import annotations

import pytest

from memactors.adapters.models.redaction import redact


@pytest.mark.parametrize(("text", "kind"), [
    ("key sk-proj-abcdefghijklmnopqrstuvwx", "openai_key"),
    ("sk-ant-api03-abcdefghijklmnopqrst", "anthropic_key"),
    ("AKIAABCDEFGHIJKLMNOP", "aws_access_key"),
    ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github_token"),
    ("xoxb-1234567890-abcdef", "slack_token"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "private_key"),
    ("password=correcthorse", "assignment"),
    ("Authorization: Bearer abcdef123456789xyz", "bearer"),
    ("postgres://admin:s3cr3tpass@db.internal/app", "url_credentials"),
])
def test_each_kind_of_secret_is_redacted(text: str, kind: str) -> None:
    redacted, count = redact(text)
    assert f"[REDACTED:{kind}]" in redacted and count >= 1


def test_ordinary_text_and_commit_ids_are_left_alone() -> None:
    text = ("Task skeleton: ask the desk about the token bucket. Commit 0123456789abcdef0123456789abcdef01234567 "
            "fixed the tokenizer; passwords must be hashed.")
    assert redact(text) == (text, 0)


def test_the_name_of_an_assignment_is_kept() -> None:
    assert redact("api_key: abcd1234efgh")[0] == "api_key: [REDACTED:assignment]"


def _corpus() -> dict:
    import json

    from tests.conftest import FIXTURES

    return json.loads((FIXTURES / "secret_shapes.json").read_text())


_CORPUS = _corpus()


def test_the_corpus_has_at_least_30_secrets_and_30_look_alikes() -> None:
    assert len(_CORPUS["secrets"]) >= 30 and len(_CORPUS["lookalikes"]) >= 30


@pytest.mark.parametrize(("text", "secret"), _CORPUS["secrets"])
def test_no_secret_shape_survives_redaction(text: str, secret: str) -> None:
    redacted, count = redact(text)
    assert secret not in redacted and count >= 1, redacted
    assert "[REDACTED:" in redacted


@pytest.mark.parametrize("text", _CORPUS["lookalikes"])
def test_look_alikes_pass_unchanged(text: str) -> None:
    assert redact(text) == (text, 0)


def test_the_words_around_a_secret_stay_readable() -> None:
    text = "The staging deploy uses AWS key AKIAIOSFODNN7EXAMPLE with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY."
    redacted, count = redact(text)
    assert count == 2
    assert redacted.startswith("The staging deploy uses AWS key [REDACTED:") and " with secret [REDACTED:" in redacted
    assert redacted.endswith("].")
