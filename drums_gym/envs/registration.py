"""Registration of ``Drums/<task>`` ids with Gymnasium."""

from __future__ import annotations

import gymnasium as gym

from .desktop_env import DEFAULT_MAX_STEPS, DefaultMaxSteps

__all__ = ["register_catalog", "register_task"]

ENTRY_POINT = "drums_gym.envs.desktop_env:DrumsDesktopEnv"
VECTOR_ENTRY_POINT = "drums_gym.envs.vector:make_fork_vector"


def register_task(task_id: str, *, max_episode_steps: int = DEFAULT_MAX_STEPS) -> str:
    """Register ``Drums/<first 8 characters of task_id>`` and return the env id.

    ``max_episode_steps`` is the env's ``max_steps`` when ``gym.make`` is given none.
    ``gym.make(id, max_episode_steps=N)`` (Gymnasium's TimeLimit) and ``max_steps=N`` both
    set the one step limit, verified at that step (the smaller when both are given).

    For tasks a remote Drums host has beyond the bundled catalog:

    >>> import drums_gym
    >>> drums_gym.register_task("0a0faba3-5580-44df-965d-f562a99b291c")
    'Drums/0a0faba3'
    """
    if not isinstance(task_id, str) or len(task_id) < 8:
        raise ValueError(f"task_id must be a task id of at least 8 characters, got {task_id!r}")
    env_id = f"Drums/{task_id[:8]}"
    if (
        isinstance(max_episode_steps, bool)
        or not isinstance(max_episode_steps, int)
        or (max_episode_steps < 1)
    ):
        raise ValueError(f"max_episode_steps must be a positive int, got {max_episode_steps!r}")
    if env_id not in gym.registry:
        # The step limit is the env's own (max_steps): at the limit it verifies the episode
        # and truncates with the checker's score. The spec carries no TimeLimit of its own;
        # one asked of gym.make (max_episode_steps=N) is found by the env at reset and
        # becomes its limit, so the two never disagree.
        gym.register(
            id=env_id,
            entry_point=ENTRY_POINT,
            vector_entry_point=VECTOR_ENTRY_POINT,
            nondeterministic=True,
            max_episode_steps=None,
            kwargs={"task": task_id, "max_steps": DefaultMaxSteps(max_episode_steps)},
        )
    return env_id


def register_catalog() -> list[str]:
    """Register every task of the bundled catalog (the local host's tasks)."""
    from ..local.tasks import CATALOG

    return [register_task(task.id) for task in CATALOG.values()]
