"""The vector entry point of ``Drums/*`` ids: ``gym.make_vec(id, num_envs=n)``."""

from __future__ import annotations

from typing import Any

from gymnasium.vector import AutoresetMode

from ..registration import DefaultMaxSteps
from .desktop_env import DrumsDesktopEnv
from .vector import DrumsForkVectorEnv

__all__ = ["make_fork_vector"]


def make_fork_vector(
    num_envs: int = 1,
    *,
    task: str = "e0df059f",
    max_episode_steps: int | None = None,
    keep_state: bool = False,
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    fork_retries: int = 1,
    **env_kwargs: Any,
) -> DrumsForkVectorEnv:
    """Vector entry point of ``Drums/*`` ids: a parent desktop plus ``num_envs`` forks.

    ``gym.make_vec("Drums/e0df059f", num_envs=8)`` calls this: it creates the parent,
    resets it (waiting for its gates), and forks it; closing the vector env closes both.
    ``max_episode_steps`` and ``max_steps`` are one step limit (the smaller when both are
    given), verified at that step, as with ``gym.make``.
    """
    if max_episode_steps is not None:  # gym.make_vec(..., max_episode_steps=N): one limit
        own = env_kwargs.get("max_steps")
        explicit = own if isinstance(own, int) and not isinstance(own, DefaultMaxSteps) else None
        env_kwargs["max_steps"] = (
            min(explicit, max_episode_steps) if explicit is not None else max_episode_steps
        )
    parent = DrumsDesktopEnv(task=task, **env_kwargs)
    try:
        parent.reset()
        return DrumsForkVectorEnv(
            parent,
            num_envs,
            keep_state=keep_state,
            autoreset_mode=autoreset_mode,
            fork_retries=fork_retries,
            close_parent=True,
        )
    except BaseException:
        parent.close()
        raise
