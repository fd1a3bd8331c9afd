"""Screenshots of the local host: encoding, and raw deltas between two frames."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from PIL import Image

from .. import protocol as P
from .._rgb import pack_rgb
from .composed import Box, RawFrame, compose, union

__all__ = ["DELTA_GAP", "Frame", "FrameCache", "encode", "frame_delta", "raw_delta",
           "region_delta"]

#: changed rows closer than this share one delta rectangle
DELTA_GAP = 16


@dataclass(frozen=True)
class Frame:
    """A screenshot as the host answers it (the app turns the fields into headers)."""

    data: bytes
    width: int
    height: int
    frame: int
    token: str  # names this frame of this slot: "<epoch>.<frame>"
    episode_status: str
    delta_base: str | None = None  # set when ``data`` holds only what changed since it
    boxes: list[Box] = field(default_factory=list)


def encode(image: Image.Image, fmt: str) -> bytes:
    """``raw`` RGB bytes or a PNG (compress level 1: fast, still ~35x smaller than raw)."""
    if fmt == "raw":
        return pack_rgb(image)
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def frame_delta(old: bytes, new: bytes, width: int, height: int) -> tuple[list[Box], bytes]:
    """Where two raw RGB frames differ: rectangles ``(x, y, w, h)`` and their pixels, in order.

    Changed rows are grouped into bands (rows less than ``DELTA_GAP`` apart share one), and
    each band is cut to the columns that changed in it: a pointer that moved across the
    screen is two small rectangles, not one that spans both places.
    """
    row_bytes = width * 3
    a = np.frombuffer(old, np.uint8).reshape(height, row_bytes)
    b = np.frombuffer(new, np.uint8).reshape(height, row_bytes)
    return region_delta(a, b, 0, 0)


def region_delta(a: np.ndarray, b: np.ndarray, x: int, y: int) -> tuple[list[Box], bytes]:
    """`frame_delta` of two ``uint8 (h, w * 3)`` regions at ``(x, y)`` of their frames; the
    same answer as the whole frames' when nothing outside the region differs."""
    if a.size == 0:
        return [], b""
    if a.shape[1] % 8 == 0:  # compare 8 bytes at a time
        changed = (a.view(np.uint64) != b.view(np.uint64)).any(axis=1)
    else:
        changed = (a != b).any(axis=1)
    rows = np.flatnonzero(changed)
    boxes: list[Box] = []
    patches: list[bytes] = []
    if rows.size == 0:
        return boxes, b""
    breaks = np.flatnonzero(np.diff(rows) > DELTA_GAP)
    starts = np.concatenate(([rows[0]], rows[breaks + 1]))
    ends = np.concatenate((rows[breaks], [rows[-1]])) + 1
    for top, bottom in zip(starts.tolist(), ends.tolist(), strict=True):
        cols = np.flatnonzero((a[top:bottom] != b[top:bottom]).any(axis=0))
        left, right = int(cols[0]) // 3, int(cols[-1]) // 3 + 1
        boxes.append((x + left, y + top, right - left, bottom - top))
        patches.append(b[top:bottom, left * 3 : right * 3].tobytes())
    return boxes, b"".join(patches)


class FrameCache:
    """A slot's encoded frames and the last raw frame it served (the base of deltas).

    Owned by its slot and used under the slot's lock: each frame is encoded once per
    format (polling an idle screen costs nothing), and a raw request naming the token of
    the frame the caller holds gets only what changed since.
    """

    def __init__(self) -> None:
        self._encoded: dict[str, tuple[int, bytes]] = {}
        self._raw: tuple[int, RawFrame] | None = None
        self._served_raw: tuple[str, RawFrame] | None = None
        self._scene: tuple[Image.Image, bytes] | None = None  # a scene and its packed bytes

    def clear(self) -> None:
        """Forget everything (the desktop was replaced)."""
        self._encoded.clear()
        self._raw = self._served_raw = self._scene = None

    def forget_served(self) -> None:
        """Forget only the frame last served (no delta against it): a fork child keeps
        its parent's encoded frames, of the same desktop, but not its viewer."""
        self._served_raw = None

    def shot(
        self,
        image: Any,
        frame: int,
        token: str,
        fmt: str,
        size: tuple[int, int],
        status: str,
        since: str | None = None,
        layers: Callable[[], tuple[Image.Image, tuple[int, int], Any]] | None = None,
    ) -> Frame:
        """The frame numbered ``frame`` as ``fmt``; ``image`` renders it when not cached.

        ``layers`` (raw only) gives what ``image`` composes: the scene (the same object
        while it is unchanged), the pointer and any overlay; a frame without an overlay is
        then kept as the packed scene plus the pointer's pixels (`composed`).
        """
        width, height = size
        if fmt != P.FORMAT_RAW:
            cached = self._encoded.get(fmt)
            if cached is not None and cached[0] == frame:
                return Frame(cached[1], width, height, frame, token, status)
            data = encode(image(), fmt)
            self._encoded[fmt] = (frame, data)
            return Frame(data, width, height, frame, token, status)
        if self._raw is not None and self._raw[0] == frame:
            raw = self._raw[1]
        else:
            composed = self._compose(layers) if layers is not None else None
            raw = composed or RawFrame(width, height, data=encode(image(), fmt))
            self._raw = (frame, raw)
        base, self._served_raw = self._served_raw, (token, raw)
        if since is not None and base is not None and base[0] == since:
            boxes, patch = raw_delta(base[1], raw)
            return Frame(patch, width, height, frame, token, status, since, boxes)
        return Frame(raw.data(), width, height, frame, token, status)

    def _compose(
        self, layers: Callable[[], tuple[Image.Image, tuple[int, int], Any]]
    ) -> RawFrame | None:
        scene, at, overlay = layers()
        if overlay is not None:
            return None
        if self._scene is None or self._scene[0] is not scene:
            self._scene = (scene, pack_rgb(scene))
        return compose(scene, at, self._scene[1])


def raw_delta(old: RawFrame, new: RawFrame) -> tuple[list[Box], bytes]:
    """`frame_delta` of two raw frames; over the same scene, only their pointer boxes."""
    if old.scene is not None and old.scene is new.scene:
        box = union(old.box, new.box)
        return region_delta(old.region(box), new.region(box), box[0], box[1])
    return frame_delta(old.data(), new.data(), new.width, new.height)
