"""Group advantages: valid members only, invalid ones never counted (nor counted as 0)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from drums_gym.grpo import (
    GroupResult,
    advantages_from_vector,
    group_advantages,
    summarize,
    vector_valid,
)


@dataclass(frozen=True)
class FakeReward:
    """Duck-typed like drums_gym.client.Reward."""

    valid: bool
    score: float
    reason: str | None = None


def test_matches_the_seed_recipe_over_valid_members() -> None:
    scores = [1.0, 0.0, 0.0, 1.0, 0.5]
    valid = [True, True, False, True, False]
    kept = [s for s, ok in zip(scores, valid, strict=True) if ok]
    mean, std = statistics.fmean(kept), statistics.pstdev(kept)
    expected = [(s - mean) / (std + 1e-6) for s in kept]

    advantages = group_advantages(scores, valid)

    assert advantages[2] is None and advantages[4] is None
    assert [a for a in advantages if a is not None] == pytest.approx(expected)


def test_invalid_members_are_not_scored_as_zero() -> None:
    # were the invalid 0.0 counted, the valid 1.0s would get positive advantages
    advantages = group_advantages([1.0, 1.0, 0.0], [True, True, False])
    assert advantages == [0.0, 0.0, None]


def test_no_valid_member_gives_all_none() -> None:
    assert group_advantages([0.0, 1.0, 0.5], [False, False, False]) == [None, None, None]
    assert group_advantages([]) == []


def test_reward_like_objects_and_exceptions() -> None:
    rewards = [
        FakeReward(True, 1.0),
        FakeReward(False, 0.0, "gate_failed"),
        RuntimeError("rollout crashed"),
        FakeReward(True, 0.0),
        None,
    ]
    advantages = group_advantages(rewards, eps=0.0)
    assert advantages == [1.0, None, None, -1.0, None]


def test_valid_flags_and_reward_validity_combine() -> None:
    rewards = [FakeReward(True, 1.0), FakeReward(True, 0.0), FakeReward(True, 0.5)]
    assert group_advantages(rewards, [True, True, False], eps=0.0) == [1.0, -1.0, None]


def test_invalid_scores_may_be_anything() -> None:
    scores = np.array([1.0, np.nan, 0.0, np.inf])
    assert group_advantages(scores, np.array([True, False, True, False]), eps=0.0) == [
        1.0,
        None,
        -1.0,
        None,
    ]


def test_equal_valid_scores_give_zero_advantages() -> None:
    assert group_advantages([0.5, 0.5], eps=0.0) == [0.0, 0.0]
    assert group_advantages([0.5, 0.5]) == [0.0, 0.0]


def test_from_vector_infos_uses_the_valid_mask() -> None:
    rewards = np.array([1.0, 0.0, 0.0, 1.0], dtype=np.float32)
    infos = {
        "valid": np.array([True, True, False, True]),
        "_valid": np.array([True, True, True, False]),  # sub-env 3 reported nothing
        "invalid_reason": np.array([None, None, "oom_killed", None], dtype=object),
    }
    assert advantages_from_vector(rewards, infos, eps=0.0) == [1.0, -1.0, None, None]
    assert vector_valid(infos, 4) == [True, True, False, False]


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: group_advantages([1.0], eps=-1.0), "eps"),
        (lambda: group_advantages([1.0], eps=math.nan), "eps"),
        (lambda: group_advantages([1.0, 2.0], [True]), "valid"),
        (lambda: group_advantages([1.0], ["yes"]), "valid"),
        (lambda: group_advantages("1.0"), "scores"),
        (lambda: group_advantages(np.zeros((2, 2))), "scores"),
        (lambda: group_advantages(["high"]), "scores[0]"),
        (lambda: group_advantages([1.0, math.nan]), "scores[1]"),
        (lambda: advantages_from_vector(np.zeros(2), {}), "infos"),
        (lambda: advantages_from_vector(np.zeros((2, 1)), {"valid": [1, 1]}), "rewards"),
        (lambda: advantages_from_vector(np.zeros(2), {"valid": np.ones(3, bool)}), "valid"),
        (lambda: summarize([1.0], None, ["a", "b"]), "reasons"),
    ],
)
def test_argument_errors_name_the_argument(call, name: str) -> None:
    with pytest.raises(ValueError, match=f"{name.replace('[', '.').replace(']', '.')}"):
        call()


def test_summary_for_clis() -> None:
    summary = summarize(
        [1.0, 0.0, 0.0, 0.0, 1.0],
        [True, True, False, False, False],
        [None, None, "gate_failed", None, "gate_failed"],
    )
    assert summary == {
        "n": 5,
        "valid": 2,
        "invalid": 3,
        "mean_score": 0.5,
        "std_score": 0.5,
        "successes": 1,
        "invalid_reasons": {"gate_failed": 2, "unknown": 1},
    }
    empty = summarize([0.0], [False])
    assert empty["mean_score"] is None and empty["valid"] == 0


def test_group_result_takes_reasons_from_rewards() -> None:
    result = GroupResult.from_scores(
        [FakeReward(True, 1.0), FakeReward(False, 0.0, "quarantined"), ValueError("x")]
    )
    assert result.scores == (1.0, None, None)
    assert result.advantages == (0.0, None, None)
    assert result.invalid_reasons == {"quarantined": 1, "error: ValueError": 1}
    assert (result.n, result.n_valid, result.mean_score) == (3, 1, 1.0)


# --- properties ----------------------------------------------------------------------------

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
member = st.tuples(finite, st.booleans())


@given(st.lists(member, min_size=1, max_size=16))
def test_valid_advantages_are_standardised(members: list[tuple[float, bool]]) -> None:
    scores = [s for s, _ in members]
    valid = [ok for _, ok in members]
    advantages = group_advantages(scores, valid)
    assert [a is None for a in advantages] == [not ok for ok in valid]
    kept = [a for a in advantages if a is not None]
    if not kept:
        return
    assert abs(statistics.fmean(kept)) < 1e-6 * max(1.0, len(kept))
    spread = statistics.pstdev([s for s, ok in members if ok])
    if spread > 1e-2:
        assert statistics.pstdev(kept) == pytest.approx(1.0, rel=1e-3)


@given(
    st.lists(member, min_size=1, max_size=12),
    st.lists(st.one_of(finite, st.just(math.nan), st.just(math.inf)), min_size=1, max_size=12),
)
def test_invalid_members_never_change_valid_advantages(
    members: list[tuple[float, bool]], extra: list[float]
) -> None:
    scores = [s for s, _ in members]
    valid = [ok for _, ok in members]
    before = group_advantages(scores, valid)
    after = group_advantages(scores + extra, valid + [False] * len(extra))
    assert after[: len(before)] == before
    assert after[len(before) :] == [None] * len(extra)


@given(st.lists(st.one_of(finite, st.just(math.nan)), max_size=12))
def test_all_invalid_gives_all_none(scores: list[float]) -> None:
    assert group_advantages(scores, [False] * len(scores)) == [None] * len(scores)
    assert summarize(scores, [False] * len(scores))["valid"] == 0


def test_equal_large_scores_are_exactly_zero() -> None:
    assert group_advantages([123456.789] * 3) == [0.0, 0.0, 0.0]
    assert summarize([0.1, 0.1, 0.1])["mean_score"] == 0.1
