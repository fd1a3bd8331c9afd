"""Scoring at the step limit, whoever truncates (issue 23): the env verifies when an
episode ends, and `VerifyOnTruncation` outside any wrapper stack verifies the episodes
that stack truncates; an episode cut with no verdict is named at the next reset
(`UnscoredEpisodeWarning`). The first tests pin the two facts of Gymnasium 1.4 that decide
the design (docs/step-limit.md): if either changes, they fail and the ids can register
the wrapper. Real Gymnasium wrappers, the real local host over loopback."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import gymnasium as gym
import pytest
from gymnasium import error
from gymnasium.envs.registration import EnvSpec, WrapperSpec
from gymnasium.wrappers import TimeLimit

import drums_gym  # noqa: F401  (registers Drums/*)
from drums_gym.envs import (
    DrumsDesktopEnv,
    DrumsForkVectorEnv,
    UnscoredEpisodeWarning,
    VerifyOnTruncation,
)

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


class ResetsThroughNestedCalls(gym.Wrapper):
    """A wrapper whose reset reaches the env four calls deep (as layered frameworks do)."""

    def reset(self, **kwargs: Any):
        return self._one(**kwargs)

    def _one(self, **kwargs: Any):
        return self._two(**kwargs)

    def _two(self, **kwargs: Any):
        return self._three(**kwargs)

    def _three(self, **kwargs: Any):
        return self.env.reset(**kwargs)


class Probe(gym.Env):
    """A tiny env that records the keyword arguments its entry point was called with."""

    made: list[dict[str, Any]] = []  # noqa: RUF012  (one test's record, reset by it)

    def __init__(self, **kwargs: Any) -> None:
        Probe.made.append(kwargs)
        self.observation_space = gym.spaces.Discrete(1)
        self.action_space = gym.spaces.Discrete(1)


@contextmanager
def registered(env_id: str, **spec: Any) -> Iterator[str]:
    """``env_id`` registered with ``spec`` for the block, then removed from the registry."""
    gym.register(id=env_id, **spec)
    try:
        yield env_id
    finally:
        del gym.registry[env_id]


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


# -- the two facts of Gymnasium 1.4 that decide the design -----------------------------------


def test_gym_make_tells_the_env_nothing_of_its_time_limit():
    """gym.make(id, max_episode_steps=N) passes N to TimeLimit only: the entry point gets no
    such argument and the env's spec says max_episode_steps=None, so an env cannot verify
    at a TimeLimit's step; only a wrapper applied after it can (the spec's
    additional_wrappers)."""
    Probe.made = []
    with registered("DrumsProbe/limit-v0", entry_point=Probe, kwargs={"task": "x"}):
        env = gym.make("DrumsProbe/limit-v0", max_episode_steps=3)
    assert Probe.made == [{"task": "x"}]
    assert env.unwrapped.spec.max_episode_steps is None
    assert isinstance(env, TimeLimit) and env.spec.max_episode_steps == 3


def test_gym_make_vec_refuses_spec_wrappers_with_a_vector_entry_point():
    """...and gym.make_vec's vector_entry_point mode (its default when a spec has one: the
    mode that makes the fork vector env) refuses a spec with additional_wrappers. So one
    registered spec cannot both wrap gym.make's TimeLimit and give the fork vector env; the
    Drums ids keep the vector env, and register no wrapper."""
    wrapper = WrapperSpec("VerifyOnTruncation", "drums_gym.envs.truncation:VerifyOnTruncation",
                          {})
    with (registered("DrumsProbe/vector-v0", entry_point=Probe, additional_wrappers=(wrapper,),
                     vector_entry_point="drums_gym.envs.make_vec:make_fork_vector"),
          pytest.raises(error.Error, match="additional_wrappers")):
        gym.make_vec("DrumsProbe/vector-v0", num_envs=2)
    spec = gym.spec(ENV_ID)
    assert spec.additional_wrappers == () and spec.vector_entry_point is not None


# -- gym.make and gym.make_vec ------------------------------------------------------------------


@pytest.mark.parametrize("round_trip", [False, True], ids=["id", "json-round-tripped-spec"])
def test_gym_make_with_max_episode_steps(at_host, round_trip):
    """The TimeLimit of gym.make(id, max_episode_steps=N) is scored at N with
    VerifyOnTruncation outside it; without, the step is unscored and the next reset says
    so, naming both remedies."""
    spec = EnvSpec.from_json(gym.spec(ENV_ID).to_json()) if round_trip else ENV_ID
    env = VerifyOnTruncation(gym.make(spec, max_episode_steps=3))
    try:
        assert_scored_at(play(env, [*SOLVE, NOOP]), 3)
        with warnings.catch_warnings():
            warnings.simplefilter("error", UnscoredEpisodeWarning)
            env.reset(seed=0)  # the episode had its verdict: nothing to say
    finally:
        env.close()
    bare = gym.make(spec, max_episode_steps=3)
    try:
        reward, terminated, truncated, info = play(bare, [*SOLVE, NOOP])[-1]
        assert truncated and not terminated and "score" not in info and reward == 0.0
        with pytest.warns(UnscoredEpisodeWarning, match=r"left after 3 steps with no verdict"
                          r".*max_steps=N.*VerifyOnTruncation"):
            bare.reset(seed=0)
    finally:
        bare.close()


def test_gym_make_vec_gives_the_fork_vector_env_scored_at_max_episode_steps(at_host):
    vec = gym.make_vec(ENV_ID, num_envs=2, max_episode_steps=3, screen=SCREEN)
    try:
        assert isinstance(vec.unwrapped, DrumsForkVectorEnv)
        vec.reset(seed=0)
        for step in range(3):
            _, rewards, terminations, truncations, infos = vec.step([SOLVE_IN_ONE, NOOP])
            assert truncations.all() == (step == 2) and not terminations.any()
    finally:
        vec.close()
    assert rewards.tolist() == [1.0, 0.0] and infos["score"].tolist() == [1.0, 0.0]
    assert infos["valid"].all()


# -- hand-made stacks: VerifyOnTruncation outermost -------------------------------------------


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


def test_a_wrapper_that_resets_through_nested_calls_is_scored(at_host):
    env = VerifyOnTruncation(TimeLimit(ResetsThroughNestedCalls(DrumsDesktopEnv(TASK)), 3))
    try:
        steps = play(env, [*SOLVE, NOOP])
        assert_scored_at(steps, 3)
        assert_scored_at(play(env, [*SOLVE, NOOP]), 3)  # and the next episode too
    finally:
        env.close()


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
        steps = play(own, [NOOP] * 17 + [*SOLVE, NOOP])
    finally:
        own.close()
    assert_scored_at(steps, 20)
    outer = VerifyOnTruncation(gym.make(spec, max_episode_steps=20, max_steps=None))
    try:
        assert outer.spec is not None and outer.spec.max_episode_steps == 20
        steps = play(outer, [NOOP] * 17 + [*SOLVE, NOOP])
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
