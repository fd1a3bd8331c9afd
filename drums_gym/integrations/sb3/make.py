"""`make_sb3_env` / `make_sb3_vec_env`: a Drums task as SB3 takes it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...envs import DrumsDesktopEnv
from ...wrappers import (
    DEFAULT_KEYS,
    DiscreteClicks,
    ResizeScreenshot,
    VectorDiscreteClicks,
    VectorResizeScreenshot,
)
from .monitor import DrumsMonitor
from .vec_env import DrumsVecEnv

__all__ = ["make_sb3_env", "make_sb3_vec_env"]


def make_sb3_env(
    task: str = "e0df059f",
    *,
    grid: tuple[int, int] = (8, 6),
    size: tuple[int, int] = (64, 64),
    keys: Sequence[str] = DEFAULT_KEYS,
    words: Sequence[str] = ("DONE",),
    monitor_file: str | None = None,
    **env_kwargs: Any,
) -> DrumsMonitor:
    """A Drums task with SB3's kind of spaces, monitored validity-aware.

    ``DrumsMonitor(ResizeScreenshot(DiscreteClicks(DrumsDesktopEnv(task), grid), size))``:
    ``Discrete`` actions (a click per grid cell, ``keys``, then ``words``), ``uint8 (H, W, 3)``
    screenshots at ``size = (height, width)`` (fit for ``CnnPolicy`` from 36x36 up), and
    invalid episodes kept out of SB3's statistics.

    Args:
        task: the task id (``"e0df059f"``).
        grid: ``(cols, rows)`` of the click grid.
        size: ``(height, width)`` of the observations.
        keys: pyautogui key names offered as presses.
        words: control words offered as actions: ``("DONE", "FAIL")`` makes the infeasible
            tasks solvable (OSWorld scores a last FAIL 1 on them).
        monitor_file: SB3 monitor CSV path (valid episodes only), or None.
        **env_kwargs: for :class:`DrumsDesktopEnv` (``client=``, ``max_steps=``, ...).

    Example:
        >>> from stable_baselines3 import PPO
        >>> env = make_sb3_env("e0df059f", grid=(4, 3), size=(64, 64))   # doctest: +SKIP
        >>> PPO("CnnPolicy", env, n_steps=32).learn(64)                 # doctest: +SKIP
    """
    env = DrumsDesktopEnv(task, **env_kwargs)
    try:
        clicks = DiscreteClicks(env, grid, keys=keys, words=words)
        return DrumsMonitor(ResizeScreenshot(clicks, size), monitor_file)
    except BaseException:
        env.close()
        raise


def make_sb3_vec_env(
    task: str = "e0df059f",
    n: int = 4,
    *,
    grid: tuple[int, int] = (8, 6),
    size: tuple[int, int] = (64, 64),
    keys: Sequence[str] = DEFAULT_KEYS,
    words: Sequence[str] = ("DONE",),
    **env_kwargs: Any,
) -> DrumsVecEnv:
    """``n`` forks of one desktop as an SB3 ``VecEnv`` (:class:`DrumsVecEnv`), with the
    same spaces as :func:`make_sb3_env`. A finished member is replaced by a new fork of
    the desktop's first state; closing it deletes the forks and the parent desktop."""
    parent = DrumsDesktopEnv(task, **env_kwargs)
    try:
        parent.reset()
        forks = parent.fork_vector(n, autoreset_mode="DISABLED", close_parent=True)
    except BaseException:
        parent.close()
        raise
    try:
        clicks = VectorDiscreteClicks(forks, grid, keys=keys, words=words)
        return DrumsVecEnv(VectorResizeScreenshot(clicks, size))
    except BaseException:
        forks.close()
        raise
