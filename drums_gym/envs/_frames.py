"""Batches of screen frames for a vector env: fresh to the caller, recycled once released.

A vector step hands back a new ``(n, H, W, 3)`` batch (each step's observations are the
caller's to keep). At 1920x1080 a batch is 6 MB per child, and memory the process has just
asked the system for costs a page fault per page on its first write: with many children
writing their frames at once, faulting in fresh memory costs more than the copy itself
(measured: 3.7 ms against 0.9 ms per child at n=32). `FramePool` hands out a batch nobody
else references any more (the caller dropped it) instead of asking for new memory, the
way ``numpy.ndarray.resize(refcheck=True)`` decides that an array is its own.

`RowFill` lets the vector env's own thread, idle while its children's actions are in
flight, copy each child's last frame into its row, so a child's screenshot writes only the
rectangles that changed instead of its whole 6 MB frame after the reply.

`batched_frames_space` is the batch's observation space without materialising
``n * H * W * 3`` bytes of bounds (Gymnasium's ``batch_space`` tiles them: 760 MB and
seconds at n=32).
"""

from __future__ import annotations

import copy
import sys
import threading
from collections.abc import Callable

import numpy as np
from gymnasium.spaces import Box

__all__ = ["FramePool", "RowFill", "batched_frames_space"]


def _baseline() -> int:
    """``sys.getrefcount`` of an array referenced by one list entry only (this interpreter)."""
    held = [np.empty(1)]
    return sys.getrefcount(held[0])


_ONLY_OURS = _baseline()


class FramePool:
    """Hands out ``uint8`` batches of ``shape``, reusing one the caller no longer holds.

    A batch is reused only when nothing outside the pool references it (no array, view,
    memoryview or tensor made from it is alive), so a batch the caller keeps is never
    written again. At most ``keep`` batches are remembered.

    >>> pool = FramePool((2, 4, 4, 3))
    >>> a = pool.acquire()
    >>> b = pool.acquire()          # a is held: a new batch
    >>> a is b
    False
    >>> address = a.ctypes.data
    >>> del a
    >>> pool.acquire().ctypes.data == address   # a was dropped: its memory is reused
    True
    """

    def __init__(self, shape: tuple[int, ...], keep: int = 3) -> None:
        if keep < 1:
            raise ValueError(f"keep must be >= 1, got {keep!r}")
        self.shape = tuple(shape)
        self.keep = keep
        self._batches: list[np.ndarray] = []
        self.reused = 0  # how many batches were handed out again (for diagnostics)

    def acquire(self) -> np.ndarray:
        """A batch to fill: one nobody holds any more, else new memory."""
        for k in range(len(self._batches)):
            if sys.getrefcount(self._batches[k]) <= _ONLY_OURS:
                self.reused += 1
                return self._batches[k]
        batch = np.empty(self.shape, dtype=np.uint8)
        self._batches.append(batch)
        if len(self._batches) > self.keep:
            del self._batches[0]  # still held by the caller: theirs now, not ours
        return batch

    def clear(self) -> None:
        """Forget every batch (the memory goes when the caller drops its own references)."""
        self._batches.clear()


class RowFill:
    """Fills one row of a batch once, by whoever comes first (the vector env's thread while
    the child acts, or the child's screenshot), and remembers what the fill answered.

    >>> fill = RowFill()
    >>> fill.once(lambda: "1.7"), fill.once(lambda: "never called")
    ('1.7', '1.7')
    """

    __slots__ = ("_done", "_lock", "_token")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = False
        self._token: str | None = None

    def once(self, fill: Callable[[], str | None]) -> str | None:
        """``fill()`` the first time (others wait until it is done); its answer every time."""
        with self._lock:
            if not self._done:
                self._done = True
                self._token = fill()
            return self._token


def batched_frames_space(single: Box, n: int) -> Box:
    """The ``Box`` of ``n`` stacked frames of ``single``: its bounds are read-only broadcast
    views of ``single``'s (no memory per child), equal to what ``batch_space`` builds.

    >>> frame = Box(0, 255, (1080, 1920, 3), np.uint8)
    >>> batch = batched_frames_space(frame, 64)
    >>> batch.shape, batch.low.strides[0], batch.contains(np.zeros(batch.shape, np.uint8))
    ((64, 1080, 1920, 3), 0, True)
    """
    space = copy.copy(single)
    shape = (n, *single.shape)
    space._shape = shape
    space.low = np.broadcast_to(single.low, shape)
    space.high = np.broadcast_to(single.high, shape)
    space.bounded_below = np.broadcast_to(single.bounded_below, shape)
    space.bounded_above = np.broadcast_to(single.bounded_above, shape)
    space.low_repr = None
    space.high_repr = None
    # its own generator, seeded on first use or by seed(); gymnasium annotates the
    # attribute as a Generator but uses None for "not seeded yet" (as Space.__init__ does)
    space._np_random = None  # type: ignore[assignment]
    return space
