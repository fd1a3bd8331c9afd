"""A validity-aware ``evaluate_policy``: the mean over valid episodes, and the invalid count."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv

from .._validity import UNKNOWN_REASON, validity
from .monitor import INVALID_KEY, DrumsMonitor

__all__ = ["EvaluationResult", "evaluate_policy"]


@dataclass(frozen=True)
class EvaluationResult:
    """What :func:`evaluate_policy` measured.

    Attributes:
        mean_reward, std_reward: over VALID episodes only (NaN when none was valid).
        episode_rewards, episode_lengths: one entry per valid episode.
        invalid: how many episodes were invalid (left out of the mean).
        invalid_reasons: those episodes by reason (``{"app_crash": 2}``).
    """

    mean_reward: float
    std_reward: float
    episode_rewards: list[float] = field(default_factory=list)
    episode_lengths: list[int] = field(default_factory=list)
    invalid: int = 0
    invalid_reasons: dict[str, int] = field(default_factory=dict)

    @property
    def valid(self) -> int:
        """How many episodes were valid (the mean's sample size)."""
        return len(self.episode_rewards)


def _as_vec_env(env: gym.Env | VecEnv) -> VecEnv:
    if isinstance(env, VecEnv):
        return env
    if not isinstance(env, gym.Env):
        raise TypeError(f"env must be a gymnasium Env or an SB3 VecEnv, got {type(env).__name__}")
    monitored = env
    while isinstance(monitored, gym.Wrapper) and not isinstance(monitored, DrumsMonitor):
        monitored = monitored.env
    wrapped = env if isinstance(monitored, DrumsMonitor) else DrumsMonitor(env)
    return DummyVecEnv([lambda: wrapped])


def evaluate_policy(
    model: Any,
    env: gym.Env | VecEnv,
    n_eval_episodes: int = 10,
    deterministic: bool = True,
) -> EvaluationResult:
    """Run ``model.predict`` for ``n_eval_episodes`` episodes; average the VALID ones.

    Like SB3's ``evaluate_policy`` (episodes divided evenly among the vector env's members),
    except that an invalid episode is counted in ``invalid`` and ``invalid_reasons`` and
    kept out of the mean, instead of entering it as a 0. ``env`` is a Drums env (wrapped
    in :class:`DrumsMonitor` here if it is not already), a ``DummyVecEnv`` of monitored
    Drums envs, or a :class:`DrumsVecEnv`.

    Args:
        model: anything with SB3's ``predict(obs, state=, episode_start=, deterministic=)``.
        env: the env to evaluate on.
        n_eval_episodes: episodes to run in all, valid or not.
        deterministic: passed to ``predict``.
    """
    if isinstance(n_eval_episodes, bool) or not isinstance(n_eval_episodes, int) or (
        n_eval_episodes < 1
    ):
        raise ValueError(f"n_eval_episodes must be a positive int, got {n_eval_episodes!r}")
    venv = _as_vec_env(env)
    n_envs = venv.num_envs
    targets = np.array([(n_eval_episodes + i) // n_envs for i in range(n_envs)], dtype=int)
    counts = np.zeros(n_envs, dtype=int)
    current = np.zeros(n_envs)
    lengths = np.zeros(n_envs, dtype=int)
    rewards: list[float] = []
    ep_lengths: list[int] = []
    reasons: Counter[str] = Counter()
    observations = venv.reset()
    states = None
    starts = np.ones(n_envs, dtype=bool)
    while (counts < targets).any():
        actions, states = model.predict(
            observations, state=states, episode_start=starts, deterministic=deterministic
        )
        observations, step_rewards, dones, infos = venv.step(actions)
        current += step_rewards
        lengths += 1
        for i in range(n_envs):
            starts[i] = dones[i]
            if not dones[i]:
                continue
            if counts[i] < targets[i]:
                info = infos[i]
                invalid = info.get(INVALID_KEY)
                valid, reason = validity(info)
                if invalid is not None or not valid:
                    reasons[(invalid or {}).get("reason") or reason or UNKNOWN_REASON] += 1
                else:
                    episode = info.get("episode")
                    rewards.append(float(episode["r"]) if episode else float(current[i]))
                    ep_lengths.append(int(episode["l"]) if episode else int(lengths[i]))
                counts[i] += 1
            current[i] = 0.0
            lengths[i] = 0
    mean = float(np.mean(rewards)) if rewards else math.nan
    std = float(np.std(rewards)) if rewards else math.nan
    return EvaluationResult(
        mean_reward=mean,
        std_reward=std,
        episode_rewards=rewards,
        episode_lengths=ep_lengths,
        invalid=sum(reasons.values()),
        invalid_reasons=dict(reasons),
    )
