"""The vector entry point of ``Drums/*`` ids: ``gym.make_vec(id, num_envs=n)``."""

from __future__ import annotations

from typing import Any

from gymnasium.vector import AutoresetMode

from .desktop_env import DEFAULT_MAX_STEPS, DrumsDesktopEnv
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
    No TimeLimit wraps a vector env: ``gym.make_vec(..., max_episode_steps=N)`` is the
    children's own limit, verified at that step (it replaces the id's ``max_steps``);
    ``max_steps=N`` the same; with neither, the id's (OSWorld's 15).
    """
    if max_episode_steps is not None:
        env_kwargs["max_steps"] = max_episode_steps
    elif env_kwargs.get("max_steps") is None:
        env_kwargs["max_steps"] = DEFAULT_MAX_STEPS
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
