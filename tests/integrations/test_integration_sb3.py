"""Stable-Baselines3 over Drums desktops (``drums_gym.integrations.sb3``): the real SB3,
real local hosts on loopback, faults injected. Skipped without the ``[sb3]`` extra."""

from __future__ import annotations

import csv
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="needs the [sb3] extra: pip install -e '.[sb3]'")

from stable_baselines3 import PPO
from stable_baselines3.common.evaluation import evaluate_policy as sb3_evaluate_policy
from stable_baselines3.common.logger import configure
from stable_baselines3.common.monitor import Monitor

from drums_gym.client import connect
from drums_gym.envs import DrumsDesktopEnv
from drums_gym.integrations.sb3 import (
    INVALID_KEY,
    DrumsMonitor,
    DrumsVecEnv,
    InvalidEpisodeLogger,
    evaluate_policy,
    make_sb3_env,
    make_sb3_vec_env,
    split_infos,
)
from drums_gym.solvers import get_solver

TASK = "e0df059f"
SCREEN = (640, 480)
EPISODES = 12


class InfoTap(gym.Wrapper):
    """Keeps the last info, for the oracle (SB3's predict sees only observations)."""

    info: dict[str, Any] = {}  # noqa: RUF012

    def reset(self, **kwargs: Any):
        obs, self.info = self.env.reset(**kwargs)
        return obs, self.info

    def step(self, action: Any):
        obs, reward, terminated, truncated, self.info = self.env.step(action)
        return obs, reward, terminated, truncated, self.info


class Oracle:
    """An SB3-style policy (``predict``) that solves the task: the scripted GUI solver."""

    def __init__(self, tap: InfoTap) -> None:
        self.tap = tap
        self.solver = get_solver(TASK)

    def predict(self, obs, state=None, episode_start=None, deterministic=True):
        if episode_start is not None and episode_start[0]:
            self.solver.reset()
        if not self.tap.info.get("valid", True):
            return np.array(["DONE"], dtype=object), state  # an invalid episode just ends
        return np.array([self.solver(obs, "", self.tap.info)], dtype=object), state


def oracle_env(client, monitor: type[Monitor]) -> tuple[Monitor, InfoTap]:
    tap = InfoTap(DrumsDesktopEnv(TASK, client=client, screen=SCREEN, accessibility=True))
    return monitor(tap), tap


def test_sb3_monitor_counts_invalid_episodes_as_zero_drums_monitor_does_not(make_host):
    """The issue's figure: an oracle solves every valid episode; under SB3's Monitor its
    mean is dragged down by the invalid ones, under DrumsMonitor it is the valid mean.
    Both runs go to hosts with the same fault seed, so they meet the same faults."""
    with connect(url=make_host(faults="crash=0.4", seed=0).url) as client:
        plain, tap = oracle_env(client, Monitor)
        try:
            mean, _ = sb3_evaluate_policy(Oracle(tap), plain, n_eval_episodes=EPISODES)
            ends = plain.get_episode_rewards()
        finally:
            plain.close()
        # SB3's figure: every ending enters the mean, invalid ones as 0
        assert len(ends) == EPISODES and 0 < mean < 1.0

    with connect(url=make_host(faults="crash=0.4", seed=0).url) as client:
        env, tap = oracle_env(client, DrumsMonitor)
        try:
            result = evaluate_policy(Oracle(tap), env, n_eval_episodes=EPISODES)
            assert result.invalid >= 1 and set(result.invalid_reasons) == {"app_crash"}
            assert result.valid + result.invalid == EPISODES
            assert result.mean_reward == 1.0 and result.episode_rewards == [1.0] * result.valid
            # SB3's own evaluate_policy over DrumsMonitor: invalid episodes never enter
            sb3_mean, _ = sb3_evaluate_policy(Oracle(tap), env, n_eval_episodes=4)
            assert sb3_mean == 1.0
            assert env.get_episode_rewards() == [1.0] * (result.valid + 4)
            assert env.invalid_count >= result.invalid
        finally:
            env.close()
        # the unwrapped figure is the valid share of the same seeded run
        assert mean == pytest.approx(result.valid / EPISODES)


def test_ppo_learns_on_make_sb3_env_and_its_buffer_holds_valid_episodes_only(make_host,
                                                                             tmp_path):
    host = make_host(faults="crash=0.5", seed=1)
    with connect(url=host.url) as client:
        env = make_sb3_env(TASK, grid=(4, 3), size=(40, 40), client=client, screen=SCREEN,
                           max_steps=3)
        try:
            assert env.action_space.n == 4 * 3 + 5 + 1  # cells, the default keys, DONE
            assert env.observation_space.shape == (40, 40, 3)
            model = PPO("CnnPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0,
                        device="cpu")
            model.set_logger(configure(str(tmp_path), ["csv"]))
            invalid_log = InvalidEpisodeLogger()
            model.learn(64, callback=invalid_log)
            assert model.num_timesteps == 64
            assert env.invalid_count >= 1
            # SB3's logger gets the invalid episodes apart, by reason
            assert dict(invalid_log.invalid_reasons) == dict(env.invalid_reasons)
            with open(tmp_path / "progress.csv") as f:
                rows = list(csv.DictReader(f))
            assert float(rows[-1]["rollout/invalid_episodes"]) == env.invalid_count
            assert float(rows[-1]["rollout/invalid/app_crash"]) == env.invalid_count
            # every buffered episode is one DrumsMonitor saw end valid
            assert len(model.ep_info_buffer) == len(env.get_episode_rewards())
            assert all(ep["r"] == 0.0 for ep in model.ep_info_buffer)  # random: no success
        finally:
            env.close()


def test_drums_monitor_marks_the_end_of_an_invalid_episode(make_host):
    host = make_host(faults="crash=1.0", seed=0)
    with connect(url=host.url) as client:
        env = DrumsMonitor(DrumsDesktopEnv(TASK, client=client, screen=SCREEN, max_steps=3))
        try:
            _, info = env.reset()
            done = not info["valid"]
            steps = 0
            while True:
                *_, terminated, truncated, info = env.step("pyautogui.moveTo(5, 5)")
                steps += 1
                if terminated or truncated:
                    break
            assert "episode" not in info
            assert info[INVALID_KEY]["reason"] == "app_crash"
            assert info[INVALID_KEY]["l"] == steps
            assert env.get_episode_rewards() == [] and dict(env.invalid_reasons) == {
                "app_crash": 1
            }
            assert done or steps <= 3
        finally:
            env.close()


def test_drums_vec_env_over_fork_vector_resets_finished_members_itself(make_host):
    host = make_host(faults="crash=0.5", seed=2)
    with connect(url=host.url) as client:
        venv = make_sb3_vec_env(TASK, 2, grid=(4, 3), size=(40, 40), client=client,
                                screen=SCREEN, max_steps=2)
        try:
            obs = venv.reset()
            assert obs.shape == (2, 40, 40, 3) and obs.dtype == np.uint8
            done_word = venv.action_space.n - 1  # DONE: every episode ends at once
            result = evaluate_policy(_Constant(done_word), venv, n_eval_episodes=8)
            assert result.valid + result.invalid == 8
            assert result.invalid >= 1 and set(result.invalid_reasons) == {"app_crash"}
            assert result.mean_reward == 0.0  # DONE without acting: the task is unsolved
            # a step's ends carry SB3's keys: the terminal frame, and episode or the invalid mark
            venv.step_async(np.array([done_word, done_word]))
            _, _, dones, infos = venv.step_wait()
            assert dones.all()
            for info in infos:
                assert info["terminal_observation"].shape == (40, 40, 3)
                assert ("episode" in info) != (INVALID_KEY in info)
            # and PPO runs on it
            model = PPO("CnnPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0,
                        device="cpu")
            model.learn(32)
            assert model.num_timesteps == 32
            assert len(venv.episode_returns) + venv.invalid_count >= 8
        finally:
            venv.close()


class _Constant:
    def __init__(self, action: int) -> None:
        self.action = action

    def predict(self, obs, state=None, episode_start=None, deterministic=True):
        return np.full(len(obs), self.action), state


def test_drums_vec_env_refuses_an_autoresetting_vector_env(make_host):
    host = make_host()
    with connect(url=host.url) as client:
        parent = DrumsDesktopEnv(TASK, client=client, screen=SCREEN)
        try:
            parent.reset()
            forks = parent.fork_vector(2)  # NEXT_STEP autoreset
            try:
                with pytest.raises(ValueError, match="autoreset_mode='DISABLED'"):
                    DrumsVecEnv(forks)
            finally:
                forks.close()
        finally:
            parent.close()


def test_split_infos_follows_the_mask_convention():
    infos = {
        "valid": np.array([True, False, True]),
        "_valid": np.array([True, True, True]),
        "invalid_reason": np.array([None, "app_crash", None], dtype=object),
        "_invalid_reason": np.array([True, True, True]),
        "score": np.array([1.0, 0.0, 0.0]),
        "_score": np.array([True, False, False]),
    }
    out = split_infos(infos, 3)
    assert out[0] == {"valid": True, "invalid_reason": None, "score": 1.0}
    assert out[1] == {"valid": False, "invalid_reason": "app_crash"}
    assert "score" not in out[2]


def test_evaluate_policy_names_a_bad_episode_count(local_host):
    with pytest.raises(ValueError, match="n_eval_episodes must be a positive int"):
        evaluate_policy(_Constant(0), gym.make("CartPole-v1"), n_eval_episodes=0)
