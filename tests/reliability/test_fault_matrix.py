"""The fault matrix: every fault kind of the local host, at a high rate, through the
Gymnasium layer (GRPO groups with ``fork_vector`` and DISABLED autoreset, as ``drums-gym
rollout`` runs them; vectorized evaluation with ``gym.make_vec`` and NEXT_STEP autoreset).

Whatever the host does, every episode ends either valid with a score or flagged invalid
with the fault's reason; no vector step raises because one child failed; episode
statistics and group advantages leave the invalid episodes out; and the host is left
with no desktops and no saved states (the ``make_host`` fixture checks).
"""

from __future__ import annotations

import logging
import math
from collections import Counter

import gymnasium as gym
import numpy as np
import pytest

import drums_gym  # noqa: F401  (registers Drums/*)
from drums_gym.cli._common import info_at
from drums_gym.cli.rollout import run_groups
from drums_gym.client import connect
from drums_gym.envs import DrumsDesktopEnv
from drums_gym.grpo import GroupResult, group_advantages
from drums_gym.local.host import HostConfig
from drums_gym.wrappers import DrumsVectorEpisodeStatistics

N = 4  # members per group
GROUPS = 2
MAX_STEPS = 3
SCREEN = (640, 480)  # small frames: the matrix is about faults, not pixels
FAST = HostConfig(gate_delay_s=0.05)

#: fault kind -> (fault spec at a high rate, the invalid reasons it may cause)
MATRIX: dict[str, tuple[str, set[str]]] = {
    "gate_fail": ("gate_fail=0.6", {"gate_failed"}),
    "crash": ("crash=0.6", {"app_crash"}),
    "oom": ("oom=0.6", {"oom_killed"}),
    "quarantine": ("quarantine=0.6", {"quarantined"}),
    "fork_child_fail": ("fork_child_fail=0.8", {"fork_failed"}),
    # a 429 on half the requests: the client waits each out, nothing becomes invalid
    "overload": ("overload=0.5,retry_after_ms=1", set()),
    "latency_ms": ("latency_ms=20", set()),
}
#: kinds whose rate makes some episodes invalid (with these seeds)
INVALIDATING = {"gate_fail", "crash", "oom", "quarantine", "fork_child_fail"}


def policy(member: int, step: int) -> str:
    """Member 0 ends its episode at once; the others act until max_steps truncates them."""
    if member == 0:
        return "DONE"
    return f"pyautogui.moveTo({40 * member + step}, {30 * step + 5})"


def check_end(valid: bool, reason: object, reward: float, info_score: object,
              expected: set[str]) -> None:
    """One finished episode: valid with its score, or invalid with an expected reason."""
    if valid:
        assert reason is None
        assert info_score is not None and math.isfinite(reward) and reward == info_score
    else:
        assert reason in expected, f"invalid for {reason!r}, expected one of {expected}"
        assert reward == 0.0, "an invalid episode's reward is the 0.0 placeholder"


@pytest.fixture
def faulty(make_host):
    """A host with one fault kind, and a client that rides out 429 bursts."""
    made = []

    def make(kind: str, seed: int = 3):
        spec, _ = MATRIX[kind]
        server = make_host(FAST, faults=spec, seed=seed)
        client = connect(url=server.url, max_retries=30)
        made.append(client)
        return server, client

    yield make
    for client in made:
        client.close()


@pytest.mark.parametrize("kind", list(MATRIX))
def test_grpo_groups_under_faults(faulty, kind, caplog):
    caplog.set_level(logging.INFO, logger="drums_gym.client")
    server, client = faulty(kind)
    expected = MATRIX[kind][1]
    parent = DrumsDesktopEnv("e0df059f", client=client, max_steps=MAX_STEPS, screen=SCREEN)
    parent.reset(seed=0)  # the parent's own episode may be invalid: forks start anew
    vec = parent.fork_vector(N, autoreset_mode="DISABLED")
    stats = DrumsVectorEpisodeStatistics(vec)
    ends: list[tuple[bool, str | None, float]] = []
    try:
        for _group in range(GROUPS):
            obs, infos = stats.reset()
            assert obs.shape == (N, SCREEN[1], SCREEN[0], 3)
            done = np.zeros(N, dtype=bool)
            final_rewards = np.zeros(N)
            final_valid = np.zeros(N, dtype=bool)
            for step in range(MAX_STEPS):
                actions = ["WAIT" if done[i] else policy(i, step) for i in range(N)]
                obs, rewards, terms, truncs, infos = stats.step(actions)  # never raises
                for i in np.flatnonzero(~done & (terms | truncs)):
                    valid = bool(info_at(infos, "valid", i))
                    reason = info_at(infos, "invalid_reason", i)
                    check_end(valid, reason, float(rewards[i]), info_at(infos, "score", i),
                              expected)
                    assert bool(infos["episode"]["valid"][i]) is valid
                    assert infos["episode"]["invalid_reason"][i] == (None if valid else reason)
                    final_rewards[i], final_valid[i], done[i] = rewards[i], valid, True
                    ends.append((valid, reason, float(rewards[i])))
                if done.all():
                    break
            assert done.all(), "every member's episode ends within max_steps"
            advantages = group_advantages(final_rewards.tolist(), final_valid.tolist())
            assert [a is None for a in advantages] == [not v for v in final_valid]
            kept = [a for a in advantages if a is not None]
            assert abs(math.fsum(kept)) < 1e-6, "advantages are centred over valid members"
        assert server.model.counts()["live_desktops"] <= 1 + N
    finally:
        stats.close()
        parent.close()
    assert server.model.counts() == {"live_desktops": 0, "saved_states": 0}

    valid_rewards = [r for ok, _, r in ends if ok]
    reasons = Counter(reason for ok, reason, _ in ends if not ok)
    assert len(ends) == N * GROUPS
    assert stats.episode_count == N * GROUPS and stats.valid_count == len(valid_rewards)
    assert list(stats.return_queue) == valid_rewards, "only valid episodes enter the returns"
    assert dict(stats.invalid_reasons) == dict(reasons)
    if kind in INVALIDATING:
        assert reasons, f"{kind} at a high rate made no episode invalid"
    else:
        assert not reasons, f"{kind} must not invalidate episodes: {reasons}"
    if kind == "overload":
        assert "429 overloaded; retry" in caplog.text, "the bursts were waited out"


@pytest.mark.parametrize("kind", list(MATRIX))
def test_vectorized_evaluation_under_faults(faulty, kind):
    server, client = faulty(kind, seed=5)
    expected = MATRIX[kind][1]
    envs = gym.make_vec("Drums/e0df059f", num_envs=3, max_steps=2, client=client,
                        screen=SCREEN, wait_s=0.0)
    envs = DrumsVectorEpisodeStatistics(envs)
    ended = []
    try:
        envs.reset(seed=0)
        for step in range(6):  # NEXT_STEP: finished children are replaced by new forks
            actions = [policy(i + 1, step) for i in range(3)]
            _, rewards, terms, truncs, infos = envs.step(actions)
            for i in np.flatnonzero(terms | truncs):
                valid = bool(info_at(infos, "valid", i))
                reason = info_at(infos, "invalid_reason", i)
                check_end(valid, reason, float(rewards[i]), info_at(infos, "score", i), expected)
                ended.append((valid, reason, float(rewards[i])))
    finally:
        envs.close()
    assert server.model.counts() == {"live_desktops": 0, "saved_states": 0}
    assert len(ended) >= 6 and envs.episode_count == len(ended)
    assert list(envs.return_queue) == [r for ok, _, r in ended if ok]
    assert dict(envs.invalid_reasons) == dict(Counter(r for ok, r, _ in ended if not ok))
    if kind in INVALIDATING:
        assert envs.invalid_count > 0
        assert envs.invalid_rate == pytest.approx(envs.invalid_count / len(ended))
    else:
        assert envs.invalid_count == 0


def test_cli_group_runner_under_mixed_faults(make_host):
    """``drums-gym rollout``'s own loop: invalid members get no advantage and no score."""
    spec = "gate_fail=0.3,crash=0.2,fork_child_fail=0.3,overload=0.2,retry_after_ms=1"
    server = make_host(FAST, faults=spec, seed=11)
    allowed = {"gate_failed", "app_crash", "fork_failed"}
    with connect(url=server.url, max_retries=30) as client:
        parent = DrumsDesktopEnv("e0df059f", client=client, max_steps=MAX_STEPS, screen=SCREEN)
        try:
            parent.reset(seed=0)
            outcomes = run_groups(parent, n=N, groups=GROUPS,
                                  policy=lambda obs, instruction: "pyautogui.moveTo(5, 5)")
        finally:
            parent.close()
    members = [m for o in outcomes for m in o.members]
    assert len(members) == N * GROUPS
    assert any(not m.valid for m in members)
    for outcome in outcomes:
        result: GroupResult = outcome.result
        for member, score, advantage in zip(outcome.members, result.scores, result.advantages,
                                            strict=True):
            if member.valid:
                assert score is not None and advantage is not None
            else:
                assert member.reason in allowed and score is None and advantage is None
