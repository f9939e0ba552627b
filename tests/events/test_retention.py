from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from memactors.events.retention import RetentionPolicy, score, tier_for
from memactors.events.tier import Tier

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)
POLICY = RetentionPolicy()

moments = st.datetimes(
    min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(timezone.utc)
)


@given(
    namespace=st.sampled_from(["decisions", "progress", "other", ""]),
    created=moments,
    last_access=st.none() | moments,
    activations=st.integers(min_value=-5, max_value=10**9),
    superseded=st.booleans(),
    half_life=st.floats(min_value=0.01, max_value=10_000),
    weights=st.tuples(*[st.floats(min_value=0, max_value=5)] * 3),
)
def test_retention_is_always_between_zero_and_one(
    namespace, created, last_access, activations, superseded, half_life, weights
) -> None:
    policy = RetentionPolicy(
        half_life_days=half_life,
        weight_recency=weights[0],
        weight_activation=weights[1],
        weight_importance=weights[2],
    )
    result = score(policy, namespace=namespace, created=created, last_access=last_access,
                   activation_count=activations, superseded=superseded, now=NOW)
    for value in (result.score, result.recency, result.activation, result.importance):
        assert 0.0 <= value <= 1.0


@given(st.floats(min_value=0, max_value=1))
def test_tiers_follow_the_thresholds(value: float) -> None:
    tier = tier_for(POLICY, value)
    if value >= 0.6:
        assert tier is Tier.HOT
    elif value >= 0.3:
        assert tier is Tier.WARM
    elif value >= 0.1:
        assert tier is Tier.COLD
    else:
        assert tier is Tier.ARCHIVED


def test_a_fresh_decision_is_hot_and_a_year_old_progress_note_is_not() -> None:
    fresh = score(POLICY, namespace="decisions", created=NOW, last_access=None,
                  activation_count=0, superseded=False, now=NOW)
    old = score(POLICY, namespace="progress", created=NOW - timedelta(days=365), last_access=None,
                activation_count=0, superseded=False, now=NOW)
    assert fresh.score == 0.8  # 0.4 recency + 0.4 importance
    assert tier_for(POLICY, fresh.score) is Tier.HOT
    assert tier_for(POLICY, old.score) is Tier.COLD


def test_recency_halves_every_half_life_from_the_later_of_creation_and_access() -> None:
    created = NOW - timedelta(days=90)
    by_creation = score(POLICY, namespace="x", created=created, last_access=None,
                        activation_count=0, superseded=False, now=NOW)
    by_access = score(POLICY, namespace="x", created=created, last_access=NOW - timedelta(days=30),
                      activation_count=0, superseded=False, now=NOW)
    assert abs(by_creation.recency - 0.125) < 1e-9
    assert abs(by_access.recency - 0.5) < 1e-9


def test_activation_saturates_at_twenty_uses_and_supersession_multiplies_by_a_fifth() -> None:
    used = score(POLICY, namespace="decisions", created=NOW, last_access=None,
                 activation_count=20, superseded=False, now=NOW)
    assert used.activation == 1.0 and used.score == 1.0
    superseded = score(POLICY, namespace="decisions", created=NOW, last_access=None,
                       activation_count=20, superseded=True, now=NOW)
    assert abs(superseded.score - 0.2) < 1e-9
    assert tier_for(POLICY, superseded.score) is Tier.COLD


@given(
    rows=st.lists(
        st.tuples(st.sampled_from(["decisions", "progress", "zzz"]), moments, st.integers(0, 500), st.booleans()),
        min_size=1, max_size=30,
    )
)
def test_the_vectorised_scores_equal_the_scalar_formula(rows) -> None:
    import numpy as np

    from memactors.events.retention import factors, scores

    vector = scores(
        POLICY,
        namespaces=[r[0] for r in rows],
        anchors=np.array([r[1].timestamp() for r in rows]),
        activation_counts=np.array([r[2] for r in rows], dtype=float),
        superseded=np.array([r[3] for r in rows]),
        now=NOW,
    )
    scalar = [factors(POLICY, namespace=ns, created=when, last_access=None, activation_count=n, superseded=sup,
                      now=NOW)[0] for ns, when, n, sup in rows]
    assert np.allclose(vector, scalar, atol=1e-9)


def test_a_partial_supersession_keeps_seven_tenths_and_a_full_one_wins_over_it() -> None:
    kwargs = dict(namespace="decisions", created=NOW, last_access=None, activation_count=20, now=NOW)
    whole = score(POLICY, superseded=False, **kwargs)
    partial = score(POLICY, superseded=False, partially_superseded=True, **kwargs)
    both = score(POLICY, superseded=True, partially_superseded=True, **kwargs)
    assert abs(partial.score - 0.7 * whole.score) < 1e-9
    assert abs(both.score - 0.2 * whole.score) < 1e-9


def test_a_summarized_member_ages_at_twice_the_rate() -> None:
    created = NOW - timedelta(days=30)
    standing = score(POLICY, namespace="x", created=created, last_access=None, activation_count=0,
                     superseded=False, now=NOW)
    member = score(POLICY, namespace="x", created=created, last_access=None, activation_count=0,
                   superseded=False, now=NOW, summarized=True)
    assert abs(standing.recency - 0.5) < 1e-9 and abs(member.recency - 0.25) < 1e-9
    assert member.score < standing.score


@given(
    rows=st.lists(
        st.tuples(moments, st.booleans(), st.booleans(), st.booleans()), min_size=1, max_size=30,
    )
)
def test_the_vectorised_scores_follow_partial_and_summarized_as_the_scalar_does(rows) -> None:
    import numpy as np

    from memactors.events.retention import factors, scores

    vector = scores(
        POLICY, namespaces=["decisions"] * len(rows), anchors=np.array([r[0].timestamp() for r in rows]),
        activation_counts=np.zeros(len(rows)), superseded=np.array([r[1] for r in rows]), now=NOW,
        partially_superseded=np.array([r[2] for r in rows]), summarized=np.array([r[3] for r in rows]),
    )
    scalar = [factors(POLICY, namespace="decisions", created=when, last_access=None, activation_count=0,
                      superseded=sup, now=NOW, partially_superseded=part, summarized=summ)[0]
              for when, sup, part, summ in rows]
    assert np.allclose(vector, scalar, atol=1e-9)
