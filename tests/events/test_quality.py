"""The quality signal: explainable factors of a memory's own content, and what it does to retention."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from memactors.adapters.runtime.settings import Settings
from memactors.events.quality import WELL_FORMED, QualityPolicy, assess, asserts
from memactors.events.retention import RetentionPolicy, reference_time, score, tier_for
from memactors.events.tier import Tier

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
AUTO = ("auto-captured", "pre-compact")
FRAGMENT = ("...the index half written. After comparing the options we decided on this. Indexing now runs in "
            "a detached subproc...")
EXPLICIT_BODY = ("## Context\nReindexing blocked capture.\n\n## Decision\nThe indexer runs as a detached "
                 "subprocess.\n\n## Rationale\nIt outlives the hook.")


def test_each_factor_is_reported_and_an_explicit_capture_scores_one() -> None:
    explicit = assess(QualityPolicy(), summary="Run the indexer as a subprocess", body=EXPLICIT_BODY)
    window = assess(QualityPolicy(), summary=FRAGMENT[:97] + "...", body=FRAGMENT, tags=AUTO)
    echo = assess(QualityPolicy(), summary='...namespace="decisions",', body='<memory namespace="decisions">',
                  tags=AUTO)
    assert explicit.score == 1.0 and not (explicit.traits.auto_captured or explicit.traits.cut or explicit.traits.echo)
    assert window.traits.auto_captured and window.traits.cut and window.readable and window.score <= 0.85 * 0.35
    assert echo.traits.echo and not echo.readable and echo.score < 0.05
    assert explicit.as_json()["title"] == "Run the indexer as a subprocess" and explicit.as_json()["score"] == 1.0


# Real memories of the git-notes-memory plugin's public store (refs/notes/mem/*), as its hooks captured them.
NARRATION = [
    ("The fix is likely to add `resource_to_telemetry_conversion` setting. Let me update the collector ...",
     "The fix is likely to add `resource_to_telemetry_conversion` setting. Let me update the collector config:",
     AUTO),
    ("The task may have completed quickly. Let me directly read the key files in the codebase to unders...",
     "The task may have completed quickly. Let me directly read the key files in the codebase to understand the "
     "patterns:", AUTO),
    ("Understood. I apologize for the confusion earlier. Let me update the CI workflow with the wildcard p",
     "Understood. I apologize for the confusion earlier. Let me update the CI workflow with the wildcard pattern:",
     ()),
]


def test_an_agent_narrating_its_next_step_or_guessing_states_nothing_and_does_not_assert() -> None:
    for summary, body, tags in NARRATION:
        quality = assess(QualityPolicy(), summary=summary, body=body, tags=tags)
        assert quality.traits.narration and quality.readable, summary
        assert quality.score < WELL_FORMED and not asserts(quality.score, quality.readable, summary), summary


def test_a_statement_followed_by_the_agents_next_step_keeps_its_score() -> None:
    config = ("The config works but found a few issues. Let me refine it to handle the lazy `__getattr__` pattern and "
              "remove the non-existent `stubPath`:")
    stated = [  # the same store (summary, body, tags): a finding, then "Let me ..."; and the issue's own shape
        ("The spec is still in `active/`, not `completed/`. Let me check what's missing:",
         "The spec is still in `active/`, not `completed/`. Let me check what's missing:", AUTO, 0.85),
        (config[:100], config, (), 1.0),
        ("Root cause: the collector adds service.name a second time. Let me fix it:",
         "Root cause: the collector adds service.name a second time. Let me fix it:", (), 1.0),
    ]
    for summary, body, tags, score in stated:
        quality = assess(QualityPolicy(), summary=summary, body=body, tags=tags)
        assert not quality.traits.narration and quality.score == score, body
        assert asserts(quality.score, quality.readable, summary), body


@given(days=st.floats(min_value=0, max_value=3000), uses=st.integers(min_value=0, max_value=10_000),
       namespace=st.sampled_from(["decisions", "learnings", "progress", "other"]))
def test_an_auto_captured_fragment_is_never_hot_and_an_explicit_decision_outranks_it(
        days: float, uses: int, namespace: str) -> None:
    policy = RetentionPolicy()
    created = NOW - timedelta(days=days)
    fragment = assess(policy.quality, summary=FRAGMENT[:97] + "...", body=FRAGMENT, tags=AUTO)
    explicit = assess(policy.quality, summary="Run the indexer as a subprocess", body=EXPLICIT_BODY)
    common = dict(created=created, last_access=None, activation_count=uses, superseded=False, now=NOW)
    low = score(policy, namespace=namespace, quality=fragment.score, **common)
    high = score(policy, namespace="decisions", quality=explicit.score, activation_count=0,
                 **{k: v for k, v in common.items() if k != "activation_count"})
    assert tier_for(policy, low.score) not in (Tier.HOT, Tier.WARM)
    assert high.score > low.score or (high.score == low.score == 0.0)


def test_quality_weights_come_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("MEMACTORS_QUALITY_AUTO_CAPTURED", "1.0")
    monkeypatch.setenv("MEMACTORS_QUALITY_CUT", "1.0")
    policy = Settings().retention_policy()
    window = assess(policy.quality, summary=FRAGMENT[:97] + "...", body=FRAGMENT, tags=AUTO)
    assert policy.quality.auto_captured == 1.0 and window.score == 1.0


def test_the_store_clock_counts_from_the_newest_memory_and_the_wall_clock_from_now() -> None:
    stamps = [NOW - timedelta(days=400), NOW - timedelta(days=365)]
    assert reference_time(RetentionPolicy(), NOW, stamps) == NOW - timedelta(days=365)
    assert reference_time(RetentionPolicy(recency_clock="wall"), NOW, stamps) == NOW
    assert reference_time(RetentionPolicy(), NOW, []) == NOW
    assert reference_time(RetentionPolicy(), NOW, [NOW + timedelta(days=3)]) == NOW  # a clock ahead is capped
