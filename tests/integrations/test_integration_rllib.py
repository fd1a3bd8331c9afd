"""RLlib over Drums desktops (``drums_gym.integrations.rllib``): real PPO iterations of
RLlib's new API stack (local env runner and learner, a tiny CNN) on local hosts with
faults injected. Skipped without the ``[rllib]`` extra."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="needs the [rllib] extra: pip install -e '.[rllib]'")

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback

from drums_gym.integrations.rllib import INVALID_METRIC, DrumsCallbacks, DrumsRLlibEnv

#: an infeasible task: a last FAIL scores 1, anything else 0, so a random policy over
#: (click, FAIL) scores about half its valid episodes and invalid ones stand out as 0s
TASK = "b3d4a89c"
SCREEN = (640, 480)


class Ledger:
    """Every finished episode's return and validity, as RLlib's episodes hold them."""

    def on_episode_end(self, *, episode, **kwargs):
        info = episode.get_infos()[-1]
        self.ends.append((float(episode.get_return()), bool(info.get("valid", True)),
                          info.get("invalid_reason")))


class PlainLedger(Ledger, RLlibCallback):
    ends: list = []  # noqa: RUF012  (RLlib builds the callback itself: a class-level list)


class DrumsLedger(Ledger, DrumsCallbacks):
    ends: list = []  # noqa: RUF012


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def ppo(url: str, callbacks: type) -> PPOConfig:
    return (
        PPOConfig()
        .environment(DrumsRLlibEnv, env_config={
            "task": TASK, "url": url, "grid": (1, 1), "keys": (), "words": ("FAIL",),
            "size": (42, 42), "screen": SCREEN, "max_steps": 1,
        })
        .env_runners(num_env_runners=0, num_envs_per_env_runner=1, rollout_fragment_length=24)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=24, minibatch_size=24, num_epochs=1)
        .rl_module(model_config={"conv_filters": [[4, [8, 8], 4], [8, [4, 4], 2],
                                                  [16, [3, 3], 1]], "fcnet_hiddens": [16]})
        .reporting(metrics_num_episodes_for_smoothing=1000)
        .callbacks(callbacks)
        .debugging(seed=0)
    )


def train(url: str, callbacks: type, iterations: int = 2) -> list[tuple[dict, list]]:
    """Each iteration's ``env_runners`` metrics beside the episodes it finished (RLlib
    reports an iteration's episode metrics over that iteration's episodes)."""
    algo = ppo(url, callbacks).build_algo()
    out = []
    try:
        for _ in range(iterations):
            seen = len(callbacks.ends)
            metrics = algo.train()["env_runners"]
            out.append((metrics, callbacks.ends[seen:]))
    finally:
        algo.stop()
    return out


def test_the_env_has_no_text_space_and_float_frames(local_host):
    env = DrumsRLlibEnv({"task": TASK, "url": local_host.url, "screen": SCREEN})
    try:
        obs, _ = env.reset()
        assert env.action_space.n == 8 * 6 + 5 + 2  # cells, the default keys, DONE, FAIL
        assert env.observation_space.dtype == np.float32 and obs.dtype == np.float32
        assert obs.shape == (42, 42, 3) and obs.min() >= 0.0 and obs.max() <= 1.0
    finally:
        env.close()


def valid_mean(ends: list) -> float:
    return float(np.mean([r for r, valid, _ in ends if valid]))


def test_rllib_episode_return_mean_is_the_valid_only_mean_under_faults(make_host, local_ray):
    """crash=0.3: without DrumsCallbacks RLlib's episode_return_mean counts the invalid
    episodes as 0s; with it, it is the mean of the valid episodes' returns."""
    PlainLedger.ends.clear()
    plain = train(make_host(faults="crash=0.3", seed=0).url, PlainLedger)
    assert any(not valid for _, valid, _ in PlainLedger.ends)
    for metrics, ends in plain:
        assert metrics["episode_return_mean"] == pytest.approx(np.mean([r for r, _, _ in ends]))
    assert any(m["episode_return_mean"] < valid_mean(ends) for m, ends in plain), (
        "the invalid 0s drag RLlib's own figure down"
    )

    DrumsLedger.ends.clear()
    honest = train(make_host(faults="crash=0.3", seed=0).url, DrumsLedger)
    invalid = [reason for _, valid, reason in DrumsLedger.ends if not valid]
    assert invalid and set(invalid) == {"app_crash"}
    for metrics, ends in honest:
        truth = valid_mean(ends)
        assert 0 < truth < 1
        assert metrics["episode_return_mean"] == pytest.approx(truth)
        dropped = sum(not valid for _, valid, _ in ends)
        assert metrics.get(INVALID_METRIC, 0) == dropped
        assert metrics.get(f"{INVALID_METRIC}/app_crash", 0) == dropped
    for (m0, e0), (m1, e1) in zip(plain, honest, strict=True):
        print(f"RLLIB iteration: plain={m0['episode_return_mean']:.3f} "
              f"(valid-only {valid_mean(e0):.3f}, {sum(not v for _, v, _ in e0)} invalid "
              f"of {len(e0)}); drums={m1['episode_return_mean']:.3f} "
              f"(valid-only {valid_mean(e1):.3f}, {sum(not v for _, v, _ in e1)} invalid)")
