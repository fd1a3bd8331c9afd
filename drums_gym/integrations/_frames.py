"""`FloatFrames`: ``uint8`` screenshots as ``float32`` in ``[0, 1]`` (for stacks that want
float observations: RLlib's and TorchRL's image encoders)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..wrappers.resize_screenshot import screenshot_space

__all__ = ["FloatFrames"]


class FloatFrames(
    gym.ObservationWrapper[np.ndarray, Any, np.ndarray], gym.utils.RecordConstructorArgs
):
    """Each ``(H, W, 3)`` uint8 screenshot divided by 255, as ``float32``.

    >>> from drums_gym import DrumsDesktopEnv                              # doctest: +SKIP
    >>> FloatFrames(DrumsDesktopEnv("e0df059f")).observation_space.dtype  # doctest: +SKIP
    dtype('float32')
    """

    def __init__(self, env: gym.Env[np.ndarray, Any]) -> None:
        space = screenshot_space(env.observation_space)
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.ObservationWrapper.__init__(self, env)
        self.observation_space = spaces.Box(0.0, 1.0, space.shape, np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        return np.asarray(observation, dtype=np.float32) / np.float32(255.0)
