"""TorchRL over Drums desktops (``drums_gym.integrations.torchrl``): real TorchRL rollouts
on forks of a desktop on local hosts with faults injected. Skipped without the
``[torchrl]`` extra."""

from __future__ import annotations

import pytest

pytest.importorskip("torchrl", reason="needs the [torchrl] extra: pip install -e '.[torchrl]'")

import torch
from torchrl.envs import GymWrapper
from torchrl.envs.libs.gym import default_info_dict_reader

from drums_gym.envs import DrumsDesktopEnv
from drums_gym.integrations.torchrl import DrumsInfoReader, make_torchrl_env, valid_returns
from drums_gym.wrappers import DiscreteClicks, ResizeScreenshot

#: infeasible: a last FAIL scores 1, a click 0; random actions score about half
TASK = "b3d4a89c"
SCREEN = (640, 480)


def test_a_rollout_collects_valid_only_returns_under_faults(make_host):
    host = make_host(faults="crash=0.3", seed=0)
    env = make_torchrl_env(TASK, 2, url=host.url, grid=(1, 1), keys=(), words=("FAIL",),
                           size=(42, 42), screen=SCREEN, max_steps=1)
    try:
        assert env.base_env._env.autoreset_mode.name == "DISABLED"
        torch.manual_seed(0)
        rollout = env.rollout(16, break_when_any_done=False)  # every step ends an episode
    finally:
        env.close()
    done = rollout["next", "done"].squeeze(-1)
    valid = rollout["next", "valid"]
    assert done.all() and (~valid).sum() >= 1, "the seeded faults made some invalid"
    # the truth: the host's score of every valid episode
    truth = rollout["next", "score"][done & valid]
    assert not truth.isnan().any() and 0 < truth.mean() < 1
    honest = valid_returns(rollout)
    assert torch.equal(honest, truth)
    # TorchRL's usual figure, episode_reward at every end, counts the invalid ones as 0
    plain = rollout["next", "episode_reward"].squeeze(-1)[done]
    assert len(plain) == len(honest) + int((~valid).sum())
    assert plain.mean() < honest.mean()
    print(f"TORCHRL plain={plain.mean():.3f} drums={honest.mean():.3f} "
          f"episodes={len(plain)} invalid={int((~valid).sum())}")
    assert host.model.counts()["live_desktops"] == 0


def test_the_info_reader_takes_a_single_envs_python_values(local_host):
    """TorchRL's default reader fails on a single env's ``info["valid"]`` (a Python
    bool); DrumsInfoReader reads it."""

    def single() -> GymWrapper:
        env = DrumsDesktopEnv(TASK, url=local_host.url, screen=SCREEN, max_steps=1)
        return GymWrapper(ResizeScreenshot(DiscreteClicks(env, (1, 1), keys=(),
                                                          words=("FAIL",)), (42, 42)))

    env = single()
    try:
        env.set_info_dict_reader(default_info_dict_reader(["valid"]))
        with pytest.raises(AttributeError, match="'bool' object has no attribute 'dtype'"):
            env.rollout(1)
    finally:
        env.close()
    env = single()
    try:
        env.set_info_dict_reader(DrumsInfoReader(env.batch_size))
        step = env.rollout(1)
        assert step["next", "valid"].dtype == torch.bool and bool(step["next", "valid"].all())
        assert step["next", "score"].item() in (0.0, 1.0)
    finally:
        env.close()
