"""Image helpers (Pillow, never OpenCV): resizing screenshots, shrinking GIF frames."""

from __future__ import annotations

import numpy as np
from PIL import Image

__all__ = ["check_shape", "fit_width", "resize_frame"]


def check_shape(shape: object) -> tuple[int, int]:
    """A ``(height, width)`` pair of positive ints, or ValueError naming ``shape``."""
    if (
        not isinstance(shape, (tuple, list))
        or len(shape) != 2
        or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in shape)
        or not all(v > 0 for v in shape)
    ):
        raise ValueError(f"shape must be a (height, width) pair of positive ints, got {shape!r}")
    return int(shape[0]), int(shape[1])


def resize_frame(
    frame: np.ndarray, shape: tuple[int, int], resample: Image.Resampling
) -> np.ndarray:
    """``frame`` (``(H, W, 3)`` uint8) resized to ``shape`` ``(height, width)``: a new array."""
    height, width = shape
    if frame.shape[:2] == (height, width):
        return np.array(frame, dtype=np.uint8, copy=True)
    image = Image.fromarray(np.ascontiguousarray(frame, dtype=np.uint8))
    return np.asarray(image.resize((width, height), resample), dtype=np.uint8).copy()


def fit_width(image: Image.Image, max_width: int) -> Image.Image:
    """``image`` scaled down (aspect kept) so that it is at most ``max_width`` wide."""
    if image.width <= max_width:
        return image
    factor, rest = divmod(image.width, max_width)
    if rest == 0 and image.height % factor == 0:  # 1920 -> 960: a box filter, much faster
        return image.reduce(factor)
    height = max(1, round(image.height * max_width / image.width))
    return image.resize((max_width, height), Image.Resampling.BILINEAR, reducing_gap=2.0)
