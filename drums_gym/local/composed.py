"""Raw frames kept as the packed scene under them plus the pointer's pixels.

A pointer move changes only the pointer's box, so the host keeps each raw frame of a
pointer-only change as (the packed scene, shared by every frame over that scene; the
pointer's box and its packed pixels): no full-frame render, pack or diff per step. The
whole frame's bytes, identical to packing the desktop's own render, are built only when a
whole frame is served; a delta between two frames over the same scene is computed on the
union of their pointer boxes alone (nothing else can differ).
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from .._rgb import pack_rgb
from .desktop.render import pointer_patch

__all__ = ["Box", "RawFrame", "compose", "union"]

Box = tuple[int, int, int, int]  # x, y, w, h


class RawFrame:
    """A raw RGB frame: ``whole`` bytes, or a packed ``scene`` with ``patch`` over ``box``."""

    __slots__ = ("_data", "box", "height", "patch", "scene", "scene_bytes", "width")

    def __init__(self, width: int, height: int, data: bytes | None = None,
                 scene: Image.Image | None = None, scene_bytes: bytes = b"",
                 box: Box = (0, 0, 0, 0), patch: bytes = b"") -> None:
        self.width, self.height = width, height
        self._data = data
        self.scene, self.scene_bytes = scene, scene_bytes  # scene: identity of the layer
        self.box, self.patch = box, patch

    def data(self) -> bytes:
        """The whole frame (``height * width * 3`` bytes), built once."""
        if self._data is None:
            x, y, w, h = self.box
            row = self.width * 3
            src = memoryview(self.scene_bytes)
            parts: list[bytes | memoryview] = []
            at = 0
            for r in range(h):
                start = (y + r) * row + x * 3
                parts += (src[at:start], self.patch[r * w * 3 : (r + 1) * w * 3])
                at = start + w * 3
            parts.append(src[at:])
            self._data = b"".join(parts)
        return self._data

    def region(self, box: Box) -> np.ndarray:
        """A ``uint8 (h, w * 3)`` copy of the frame's pixels in ``box``."""
        x, y, w, h = box
        if self._data is not None or self.scene is None:
            full = np.frombuffer(self.data(), np.uint8).reshape(self.height, self.width * 3)
            return full[y : y + h, x * 3 : (x + w) * 3].copy()
        scene = np.frombuffer(self.scene_bytes, np.uint8).reshape(self.height, self.width * 3)
        out = scene[y : y + h, x * 3 : (x + w) * 3].copy()
        px, py, pw, ph = self.box
        if pw and ph:
            patch = np.frombuffer(self.patch, np.uint8).reshape(ph, pw * 3)
            x0, y0 = max(x, px), max(y, py)
            x1, y1 = min(x + w, px + pw), min(y + h, py + ph)
            if x1 > x0 and y1 > y0:
                out[y0 - y : y1 - y, (x0 - x) * 3 : (x1 - x) * 3] = patch[
                    y0 - py : y1 - py, (x0 - px) * 3 : (x1 - px) * 3]
        return out


def compose(scene: Image.Image, at: tuple[int, int], scene_bytes: bytes) -> RawFrame:
    """The frame of ``scene`` (packed as ``scene_bytes``) with the pointer at ``at``."""
    box, crop = pointer_patch(scene, at)
    patch = pack_rgb(crop) if box[2] and box[3] else b""
    return RawFrame(scene.width, scene.height, scene=scene, scene_bytes=scene_bytes, box=box,
                    patch=patch)


def union(a: Box, b: Box) -> Box:
    """The smallest box holding both (an empty box adds nothing)."""
    boxes = [x for x in (a, b) if x[2] and x[3]]
    if not boxes:
        return (0, 0, 0, 0)
    x0, y0 = min(x[0] for x in boxes), min(x[1] for x in boxes)
    x1, y1 = max(x[0] + x[2] for x in boxes), max(x[1] + x[3] for x in boxes)
    return x0, y0, x1 - x0, y1 - y0
