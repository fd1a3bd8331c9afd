"""The fork vector env as other stacks read it: ``gym.make_vec(id, num_envs=16)`` on the
default quota, ``autoreset_mode`` declared (metadata and attribute), every info value a
NumPy array (or a dict of them), Gymnasium's ``key``/``_key`` convention."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

import drums_gym  # noqa: F401  (registers the Drums/* ids)
from drums_gym.local.config import HostConfig

SCREEN = (640, 480)


def assert_numpy_infos(infos: dict[str, Any], n: int) -> None:
    for key, value in infos.items():
        if isinstance(value, dict):
            assert_numpy_infos(value, n)
            continue
        assert isinstance(value, np.ndarray), f"infos[{key!r}] is a {type(value).__name__}"
        assert value.shape[0] == n, key
        if not key.startswith("_"):
            assert f"_{key}" in infos, f"infos[{key!r}] has no mask"


def test_make_vec_of_16_fits_the_default_quota_with_its_parent(make_host):
    host = make_host(HostConfig(gate_delay_s=0.05))  # the default limits
    envs = gym.make_vec("Drums/e0df059f", num_envs=16, url=host.url, screen=SCREEN,
                        max_steps=2)
    try:
        assert envs.num_envs == 16
        assert envs.metadata["autoreset_mode"] == envs.autoreset_mode == AutoresetMode.NEXT_STEP
        obs, infos = envs.reset(seed=0)
        assert host.model.counts()["live_desktops"] == 17, "16 forks and their parent"
        assert obs.shape == (16, 480, 640, 3)
        assert_numpy_infos(infos, 16)
        obs, rewards, terminated, truncated, infos = envs.step(["DONE"] * 16)
        assert terminated.all()
        assert_numpy_infos(infos, 16)
        assert infos["valid"].dtype == np.bool_ and infos["score"].dtype == np.float64
        envs.step(["WAIT"] * 16)  # NEXT_STEP: the finished forks are replaced, in quota
        assert host.model.counts()["live_desktops"] == 17
    finally:
        envs.close()


def test_disabled_autoreset_is_declared_both_ways(local_host):
    envs = gym.make_vec("Drums/e0df059f", num_envs=2, url=local_host.url, screen=SCREEN,
                        autoreset_mode="DISABLED")
    try:
        assert envs.autoreset_mode == envs.metadata["autoreset_mode"] == AutoresetMode.DISABLED
    finally:
        envs.close()
