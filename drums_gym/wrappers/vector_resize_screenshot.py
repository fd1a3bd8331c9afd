"""`VectorResizeScreenshot`: every sub-env's screenshot resized with Pillow."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv, VectorObservationWrapper
from gymnasium.vector.utils import batch_space
from PIL import Image

from ._image import check_shape, resize_frame
from .resize_screenshot import screenshot_space

__all__ = ["VectorResizeScreenshot"]


class VectorResizeScreenshot(VectorObservationWrapper):
    """Vector version of :class:`ResizeScreenshot`: ``(n, H, W, 3)`` to ``(n, h, w, 3)``.

    Args:
        env: a vector env whose single observations are ``(H, W, 3)`` uint8 screenshots.
        shape: ``(height, width)`` of the resized screenshots.
        resample: a Pillow resampling filter.

    Example:
        >>> import gymnasium as gym
        >>> envs = gym.make_vec("Drums/e0df059f", num_envs=2)                 # doctest: +SKIP
        >>> envs = VectorResizeScreenshot(envs, (270, 480))                   # doctest: +SKIP
        >>> obs, infos = envs.reset(seed=0)                                   # doctest: +SKIP
        >>> obs.shape                                                         # doctest: +SKIP
        (2, 270, 480, 3)
        >>> envs.close()                                                      # doctest: +SKIP
    """

    def __init__(
        self,
        env: VectorEnv,
        shape: tuple[int, int],
        resample: Image.Resampling = Image.Resampling.BILINEAR,
    ) -> None:
        screenshot_space(env.single_observation_space, "env.single_observation_space")
        self.shape = check_shape(shape)
        self.resample = Image.Resampling(resample)
        VectorObservationWrapper.__init__(self, env)
        self.single_observation_space = spaces.Box(0, 255, (*self.shape, 3), np.uint8)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)

    def observations(self, observations: Any) -> np.ndarray:
        """Each sub-env's screenshot resized to ``self.shape``, stacked."""
        frames = np.asarray(observations)
        out = np.empty((len(frames), *self.shape, 3), dtype=np.uint8)
        for i, frame in enumerate(frames):
            out[i] = resize_frame(frame, self.shape, self.resample)
        return out
