"""Scoring at the step limit, whoever truncates (issue 23): the env verifies when an
episode ends, and `VerifyOnTruncation` outside any wrapper stack verifies the episodes
that stack truncates. Real Gymnasium wrappers, the real local host over loopback."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest
from gymnasium.envs.registration import EnvSpec
from gymnasium.wrappers import TimeLimit

import drums_gym  # noqa: F401  (registers Drums/*)
from drums_gym.envs import DrumsDesktopEnv, VerifyOnTruncation

TASK = "e0df059f"
ENV_ID = f"Drums/{TASK}"
SCREEN = (640, 480)
#: renames the folder in three GUI steps (at the default 1920x1080 screen)
SOLVE = ["pyautogui.click(142, 98)", "pyautogui.press('f2')",
         "pyautogui.write('todo_list_Jan_2\\n')"]
#: the same in one action, harmless when repeated (a second mv finds nothing to move)
SOLVE_IN_ONE = ("pyautogui.hotkey('ctrl', 'alt', 't')\n"
                "pyautogui.write('mv ~/Desktop/todo_list_Jan_1 ~/Desktop/todo_list_Jan_2\\n')")
NOOP = "pyautogui.moveTo(5, 5)"


@pytest.fixture
def at_host(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    monkeypatch.delenv("DRUMS_TOKEN", raising=False)
    return local_host


class RepeatTwice(gym.Wrapper):
    """Action repeat x2: each outer step is two steps of the env."""

    def step(self, action: Any):
        total = 0.0
        for _ in range(2):
            obs, reward, terminated, truncated, info = self.env.step(action)
            total += float(reward)
            if terminated or truncated:
                break
        return obs, total, terminated, truncated, info


class Proxy(gym.Env):
    """A delegating env that is no gym.Wrapper (as some frameworks' adapters are)."""

    def __init__(self, inner: gym.Env) -> None:
        self.inner = inner
        self.observation_space = inner.observation_space
        self.action_space = inner.action_space

    def reset(self, **kwargs: Any):
        return self.inner.reset(**kwargs)

    def step(self, action: Any):
        return self.inner.step(action)

    def close(self) -> None:
        self.inner.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def play(env: gym.Env, actions: list[str]) -> list[tuple[float, bool, bool, dict]]:
    """Reset, then step ``actions`` until the episode ends; every step's outcome."""
    env.reset(seed=0)
    steps = []
    for action in actions:
        _, reward, terminated, truncated, info = env.step(action)
        steps.append((float(reward), terminated, truncated, info))
        if terminated or truncated:
            break
    return steps


def assert_scored_at(steps: list, n: int) -> None:
    assert len(steps) == n, f"ended at step {len(steps)}, not {n}"
    reward, terminated, truncated, info = steps[-1]
    assert truncated and not terminated
    assert info["valid"] and info["score"] == 1.0 and reward == 1.0, info
    assert all(not (t or u) for _, t, u, _ in steps[:-1])


def test_action_repeat_under_a_time_limit_is_scored_at_the_outer_limit(at_host):
    env = VerifyOnTruncation(
        TimeLimit(RepeatTwice(DrumsDesktopEnv(TASK, max_steps=None, screen=SCREEN)), 6))
    try:
        steps = play(env, [SOLVE_IN_ONE] + [NOOP] * 10)
    finally:
        env.close()
    assert_scored_at(steps, 6)  # outer step 6 of 6, not 3


def test_a_delegating_proxy_under_a_time_limit_is_scored(at_host):
    env = VerifyOnTruncation(TimeLimit(Proxy(DrumsDesktopEnv(TASK)), 3))
    try:
        steps = play(env, SOLVE)
    finally:
        env.close()
    assert_scored_at(steps, 3)


def test_a_hand_made_time_limit_is_scored_with_the_wrapper_and_only_with_it(at_host):
    bare = TimeLimit(DrumsDesktopEnv(TASK), 3)
    try:
        steps = play(bare, SOLVE)
    finally:
        bare.close()
    assert steps[-1][2] and "score" not in steps[-1][3], "no verdict: the env cannot see it"
    env = VerifyOnTruncation(TimeLimit(DrumsDesktopEnv(TASK), 3))
    try:
        steps = play(env, SOLVE)
    finally:
        env.close()
    assert_scored_at(steps, 3)


@pytest.mark.parametrize("round_trip", [False, True], ids=["spec", "json-round-tripped-spec"])
def test_a_spec_given_a_limit_of_20_limits_at_20(at_host, round_trip):
    """The limit is plain data in the spec (no marker type to lose in JSON): ``max_steps``
    to gym.make is the env's own limit; a TimeLimit from ``max_episode_steps`` is scored by
    the wrapper outside it."""
    spec = gym.spec(ENV_ID)
    if round_trip:
        spec = EnvSpec.from_json(spec.to_json())
        assert spec == gym.spec(ENV_ID)
    own = gym.make(spec, max_steps=20)
    try:
        assert own.unwrapped.max_steps == 20
        steps = play(own, [NOOP] * 17 + SOLVE + [NOOP])
    finally:
        own.close()
    assert_scored_at(steps, 20)
    outer = VerifyOnTruncation(gym.make(spec, max_episode_steps=20, max_steps=None))
    try:
        assert outer.spec is not None and outer.spec.max_episode_steps == 20
        steps = play(outer, [NOOP] * 17 + SOLVE + [NOOP])
    finally:
        outer.close()
    assert_scored_at(steps, 20)


def test_gym_make_gives_the_env_its_own_limit_and_no_time_limit(at_host):
    env = gym.make(ENV_ID)
    try:
        assert env.unwrapped.max_steps == 15 and env.spec.max_episode_steps is None
        wrapped, chain = env, []
        while isinstance(wrapped, gym.Wrapper):
            chain.append(type(wrapped))
            wrapped = wrapped.env
        assert TimeLimit not in chain
    finally:
        env.close()


def test_verify_is_idempotent_and_ends_the_episode(at_host):
    env = DrumsDesktopEnv(TASK, screen=SCREEN)
    try:
        with pytest.raises(RuntimeError, match="reset"):
            env.verify()
        env.reset(seed=0)
        first = env.verify()
        assert first.valid and first.score == 0.0 and first.reward == 0.0
        assert env.verify() is first, "the second call answers the same verdict"
        with pytest.raises(RuntimeError, match="episode has ended"):
            env.step(NOOP)
        env.reset(seed=0)
        _, reward, terminated, _, info = env.step("DONE")
        assert terminated and info["score"] == 0.0
        assert env.verify().info() == {"valid": True, "invalid_reason": None, "score": 0.0}
    finally:
        env.close()


def test_the_wrapper_leaves_a_step_that_has_its_verdict_alone(at_host):
    """The env's own limit ends (and scores) first: the wrapper adds nothing."""
    env = VerifyOnTruncation(TimeLimit(DrumsDesktopEnv(TASK, max_steps=3), 10))
    try:
        steps = play(env, SOLVE + [NOOP] * 5)
    finally:
        env.close()
    assert_scored_at(steps, 3)


def test_the_wrapper_needs_a_drums_env():
    with pytest.raises(ValueError, match="verify"):
        VerifyOnTruncation(gym.make("CartPole-v1"))


def test_a_cut_reaches_the_user_in_reward_and_info(make_host):
    """A host limit that stops the work is reported: `Reward.cut`, `StepResult.cut`, and
    the env's ``info["cut"]`` (an action's; ``info["verify_cut"]`` is the checker's)."""
    from drums_gym import client as drums
    from drums_gym.local.host import HostConfig

    starved = make_host(HostConfig(gate_delay_s=0.0, action_steps=20))  # setup and checker cut
    with drums.connect(starved.url) as client, client.create(task=TASK) as slot:
        reward = slot.verify(strict=False)
    assert reward.cut is not None and reward.cut.kind == "steps", reward
    assert "cut='steps'" in repr(reward)

    tight = make_host(HostConfig(gate_delay_s=0.0, action_steps=2000))
    busy = ("pyautogui.hotkey('ctrl', 'alt', 't')\n"
            "pyautogui.write('for i in $(seq 100000); do :; done\\n')")
    with drums.connect(tight.url) as client:
        with client.create(task=TASK, screen=SCREEN) as slot:
            slot.wait_valid()
            step = slot.step(busy)
            assert step.cut is not None and step.cut.kind == "steps", step
        env = DrumsDesktopEnv(TASK, client=client, screen=SCREEN)
        try:
            env.reset(seed=0)
            _, _, _, _, info = env.step(busy)
            _, _, _, _, calm = env.step(NOOP)
        finally:
            env.close()
    assert info["cut"] == {"kind": "steps", "detail": "more than 2000 steps of work"}, info
    assert "cut" not in calm
