"""Stable-Baselines3 over Drums desktops, with invalid episodes out of SB3's statistics.

Needs the ``[sb3]`` extra (``pip install 'drums-gym[sb3]'``).

====================  ==================================================================
name                  what it is
====================  ==================================================================
DrumsMonitor          SB3's ``Monitor``; invalid episodes get no ``info["episode"]``
                      (so no ``ep_info_buffer`` entry), counted by reason instead
InvalidEpisodeLogger  a callback: invalid episodes in SB3's logger, by reason
evaluate_policy       SB3's ``evaluate_policy``: the mean over valid episodes, and
                      how many were invalid, by reason
DrumsVecEnv           an SB3 ``VecEnv`` over ``fork_vector`` (with the monitor's role)
make_sb3_env          discrete clicks, resized screenshots, the monitor: one env
make_sb3_vec_env      the same over ``n`` forks of one desktop
====================  ==================================================================

>>> from stable_baselines3 import PPO                                     # doctest: +SKIP
>>> from drums_gym.integrations.sb3 import evaluate_policy, make_sb3_env  # doctest: +SKIP
>>> env = make_sb3_env("e0df059f", grid=(4, 3), size=(64, 64))           # doctest: +SKIP
>>> model = PPO("CnnPolicy", env, n_steps=32).learn(64)                  # doctest: +SKIP
>>> result = evaluate_policy(model, env, n_eval_episodes=8)              # doctest: +SKIP
>>> result.mean_reward, result.valid, result.invalid                     # doctest: +SKIP
"""

from .callback import InvalidEpisodeLogger
from .evaluation import EvaluationResult, evaluate_policy
from .make import make_sb3_env, make_sb3_vec_env
from .monitor import INVALID_KEY, DrumsMonitor
from .vec_env import DrumsVecEnv, split_infos

__all__ = [
    "INVALID_KEY",
    "DrumsMonitor",
    "DrumsVecEnv",
    "EvaluationResult",
    "InvalidEpisodeLogger",
    "evaluate_policy",
    "make_sb3_env",
    "make_sb3_vec_env",
    "split_infos",
]
