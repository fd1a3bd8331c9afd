"""Gymnasium's own tools work on the Drums wrappers: check_env, gym.make(wrapped.spec),
and RecordEpisodeStatistics stacked on the validity-aware statistics (by stats_key)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.wrappers import RecordEpisodeStatistics
from gymnasium.wrappers.vector import RecordEpisodeStatistics as VectorRecordEpisodeStatistics

import drums_gym  # noqa: F401
from drums_gym.wrappers import (
    DiscreteClicks,
    DrumsEpisodeStatistics,
    DrumsVectorEpisodeStatistics,
    RecordTrajectory,
    ResizeScreenshot,
    WithInstruction,
)

pytestmark = [pytest.mark.timeout(120), pytest.mark.filterwarnings("ignore::UserWarning")]

SCREEN = (640, 480)

WRAPPERS = {
    "DiscreteClicks": lambda env, tmp: DiscreteClicks(env, grid=(4, 3), keys=("enter",)),
    "DrumsEpisodeStatistics": lambda env, tmp: DrumsEpisodeStatistics(env, stats_key="drums"),
    "ResizeScreenshot": lambda env, tmp: ResizeScreenshot(env, (120, 160)),
    "WithInstruction": lambda env, tmp: WithInstruction(env),
    "RecordTrajectory": lambda env, tmp: RecordTrajectory(env, tmp / "rec", gif=False),
}


@pytest.fixture
def hosted(local_host, monkeypatch):
    monkeypatch.setenv("DRUMS_URL", local_host.url)
    return local_host


@pytest.mark.parametrize("name", sorted(WRAPPERS))
def test_check_env_and_remake_from_spec(hosted, tmp_path, name):
    env = WRAPPERS[name](gym.make("Drums/e0df059f", screen=SCREEN, max_steps=3), tmp_path)
    try:
        check_env(env, skip_render_check=True)
        spec = env.spec
        assert spec is not None and spec.additional_wrappers[-1].name == name
    finally:
        env.close()
    again = gym.make(spec)
    try:
        assert type(again) is type(env)
        assert again.observation_space == env.observation_space
        assert again.action_space == env.action_space
    finally:
        again.close()


def test_record_episode_statistics_stacks_on_drums_statistics(hosted):
    env = RecordEpisodeStatistics(
        DrumsEpisodeStatistics(gym.make("Drums/e0df059f", screen=SCREEN, max_steps=3),
                               stats_key="drums")
    )
    try:
        env.reset(seed=0)
        *_, terminated, _, info = env.step("DONE")
        assert terminated and info["episode"]["l"] == 1 and info["drums"]["valid"]
    finally:
        env.close()
    # the other way round, a clash names the way out
    env = DrumsEpisodeStatistics(
        RecordEpisodeStatistics(gym.make("Drums/e0df059f", screen=SCREEN, max_steps=3))
    )
    try:
        env.reset(seed=0)
        with pytest.raises(ValueError, match="pass another stats_key"):
            env.step("DONE")
    finally:
        env.close()


def test_vector_record_episode_statistics_stacks_on_drums_statistics(hosted):
    envs = gym.make_vec("Drums/e0df059f", num_envs=2, screen=SCREEN, max_episode_steps=3)
    envs = VectorRecordEpisodeStatistics(DrumsVectorEpisodeStatistics(envs, stats_key="drums"))
    try:
        envs.reset(seed=0)
        *_, terminated, _, infos = envs.step(["DONE", "DONE"])
        assert terminated.all() and np.all(infos["episode"]["l"] == 1)
        assert infos["drums"]["valid"].all()
    finally:
        envs.close()
