"""SB3's own statistics under ``crash=0.3`` faults: ``evaluate_policy`` and ``EvalCallback``
on the single env (``make_sb3_env``) and on the vector env (``make_sb3_vec_env``) report
the valid-only mean. The policy answers FAIL on an infeasible task, which OSWorld scores 1,
so every valid episode scores 1.0 and anything below 1.0 is an invalid episode counted as 0.
Skipped without the ``[sb3]`` extra."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="needs the [sb3] extra: pip install -e '.[sb3]'")

from stable_baselines3 import PPO
from stable_baselines3.common.callbacks import EvalCallback
from stable_baselines3.common.evaluation import evaluate_policy as sb3_evaluate_policy
from stable_baselines3.common.monitor import Monitor

from drums_gym.client import connect
from drums_gym.integrations.sb3 import DrumsMonitor, DrumsVecEnv, make_sb3_env, make_sb3_vec_env

TASK = "b3d4a89c"  # infeasible: a last FAIL scores 1
SCREEN = (640, 480)
FAULTS = "crash=0.3"
SPACES = {"grid": (1, 1), "keys": (), "words": ("FAIL",), "size": (36, 36),
          "screen": SCREEN, "max_steps": 1}
FAIL = 1  # the action after the one grid cell
EPISODES = 12
SEED = 3


class FailPPO(PPO):
    """A PPO whose policy always answers FAIL (SB3's statistics are under test, not
    learning)."""

    def predict(self, observation, state=None, episode_start=None, deterministic=False):
        n = observation.shape[0] if observation.ndim == 4 else 1
        return np.full(n, FAIL), state


class UnwrappedVecEnv(DrumsVecEnv):
    """What DrumsVecEnv answered before: not monitor-wrapped (SB3 sums raw rewards)."""

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(self._get_indices(indices))


def test_words_make_the_infeasible_task_solvable(local_host):
    with connect(url=local_host.url) as client:
        env = make_sb3_env(TASK, client=client, **SPACES)
        try:
            assert env.action_space.n == 2
            env.reset()
            *_, terminated, _, info = env.step(FAIL)
            assert terminated and info["episode"]["r"] == 1.0
        finally:
            env.close()


def test_sb3_evaluate_policy_on_the_vector_env_is_the_valid_only_mean(make_host):
    with connect(url=make_host(faults=FAULTS, seed=SEED).url) as client:
        venv = make_sb3_vec_env(TASK, 2, client=client, **SPACES)
        try:
            assert venv.env_is_wrapped(Monitor) == [True, True]
            assert venv.env_is_wrapped(DrumsMonitor) == [True, True]
            mean, _ = sb3_evaluate_policy(FailPPO("CnnPolicy", venv, n_steps=8, device="cpu"),
                                          venv, n_eval_episodes=EPISODES)
            assert venv.invalid_count >= 1, "the seeded faults hit some episodes"
            assert mean == 1.0 and venv.episode_returns == [1.0] * len(venv.episode_returns)
        finally:
            venv.close()
    # the planted break: a vector env that says it is not monitored scores the 0s
    with connect(url=make_host(faults=FAULTS, seed=SEED).url) as client:
        forks = make_sb3_vec_env(TASK, 2, client=client, **SPACES)
        venv = UnwrappedVecEnv(forks.venv)
        try:
            mean, _ = sb3_evaluate_policy(FailPPO("CnnPolicy", venv, n_steps=8, device="cpu"),
                                          venv, n_eval_episodes=EPISODES)
            assert venv.invalid_count >= 1 and mean < 1.0
            print(f"SB3 evaluate_policy vector: unwrapped={mean:.3f} drums=1.000")
        finally:
            venv.close()


@pytest.mark.parametrize("vector", [False, True], ids=["single", "vector"])
def test_eval_callback_mean_is_the_valid_only_mean(make_host, vector):
    with connect(url=make_host(faults=FAULTS, seed=1).url) as client:
        train = make_sb3_env(TASK, client=client, **SPACES)
        evaluation = (make_sb3_vec_env(TASK, 2, client=client, **SPACES) if vector
                      else make_sb3_env(TASK, client=client, **SPACES))
        try:
            model = FailPPO("CnnPolicy", train, n_steps=8, batch_size=8, n_epochs=1, seed=0,
                            device="cpu")
            callback = EvalCallback(evaluation, n_eval_episodes=EPISODES, eval_freq=8,
                                    verbose=0, warn=False)
            model.learn(8, callback=callback)
            invalid = evaluation.invalid_count
            assert invalid >= 1, "the seeded faults hit some evaluation episodes"
            assert callback.last_mean_reward == 1.0  # the valid-only truth
            valid = (evaluation.episode_returns if vector
                     else evaluation.get_episode_rewards())
            # SB3 ran until it had 12 valid episodes (a vector member may run past its share)
            assert len(valid) >= EPISODES and set(valid) == {1.0}
            print(f"SB3 EvalCallback {'vector' if vector else 'single'}: "
                  f"mean={callback.last_mean_reward:.3f} invalid_skipped={invalid}")
        finally:
            evaluation.close()
            train.close()
