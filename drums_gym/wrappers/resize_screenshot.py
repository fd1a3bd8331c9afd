"""`ResizeScreenshot`: screenshots resized with Pillow, still ``uint8``."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from PIL import Image

from ._image import check_shape, resize_frame

__all__ = ["ResizeScreenshot", "screenshot_space"]


def screenshot_space(space: gym.Space[Any], name: str = "env.observation_space") -> spaces.Box:
    """``space`` if it is a ``Box(0, 255, (H, W, 3), uint8)`` screenshot space, else ValueError."""
    if (
        not isinstance(space, spaces.Box)
        or len(space.shape) != 3
        or space.shape[2] != 3
        or space.dtype != np.uint8
    ):
        raise ValueError(f"{name} must be a Box (H, W, 3) of uint8 screenshots, got {space!r}")
    return space


class ResizeScreenshot(
    gym.ObservationWrapper[np.ndarray, Any, np.ndarray], gym.utils.RecordConstructorArgs
):
    """Resize each screenshot to ``shape = (height, width)`` with Pillow; dtype stays uint8.

    Like Gymnasium's ``ResizeObservation`` (same ``shape`` order), without OpenCV. Wrap it
    under :class:`WithInstruction`, which turns the observation into a dict. Coordinates
    in actions stay in screen pixels: the desktop is not resized, only what the agent sees.

    Args:
        env: an env whose observations are ``(H, W, 3)`` uint8 screenshots.
        shape: ``(height, width)`` of the resized screenshots.
        resample: a Pillow resampling filter (bilinear, antialiased, by default).

    Example:
        >>> import gymnasium as gym
        >>> env = ResizeScreenshot(gym.make("Drums/e0df059f"), (540, 960))  # doctest: +SKIP
        >>> obs, info = env.reset(seed=0)                                  # doctest: +SKIP
        >>> obs.shape, obs.dtype                                           # doctest: +SKIP
        ((540, 960, 3), dtype('uint8'))
        >>> env.close()                                                    # doctest: +SKIP
    """

    def __init__(
        self,
        env: gym.Env[np.ndarray, Any],
        shape: tuple[int, int],
        resample: Image.Resampling = Image.Resampling.BILINEAR,
    ) -> None:
        screenshot_space(env.observation_space)
        self.shape = check_shape(shape)
        self.resample = Image.Resampling(resample)
        gym.utils.RecordConstructorArgs.__init__(self, shape=self.shape, resample=self.resample)
        gym.ObservationWrapper.__init__(self, env)
        self.observation_space = spaces.Box(0, 255, (*self.shape, 3), np.uint8)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        """The screenshot resized to ``self.shape``."""
        return resize_frame(observation, self.shape, self.resample)
