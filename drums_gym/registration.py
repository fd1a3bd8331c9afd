"""Registration of ``Drums/<task>`` ids with Gymnasium.

Light on purpose: it imports Gymnasium and a generated list of ids, never the env
(the entry points are strings Gymnasium resolves on `gym.make`) nor the local host, so
``import drums_gym`` can run `register_catalog` without loading either:

>>> import gymnasium as gym
>>> import drums_gym
>>> gym.spec("Drums/e0df059f").kwargs["task"]
'e0df059f-28a6-4169-924f-b9623e7184cc'
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import gymnasium as gym

from ._catalog_ids import ENV_TASKS, TASK_IDS

__all__ = [
    "DEFAULT_MAX_STEPS", "ENV_TASKS", "register_catalog", "register_task", "register_user_tasks",
]

#: OSWorld's default step budget: each registered id's, and the env's
DEFAULT_MAX_STEPS = 15


ENTRY_POINT = "drums_gym.envs.desktop_env:DrumsDesktopEnv"
VECTOR_ENTRY_POINT = "drums_gym.envs.make_vec:make_fork_vector"


def register_task(task_id: str, *, max_episode_steps: int = DEFAULT_MAX_STEPS) -> str:
    """Register ``Drums/<first 8 characters of task_id>`` and return the env id.

    ``max_episode_steps`` is the env's own limit (its ``max_steps``, plain data in the spec's
    kwargs): the env verifies at that step. ``gym.make(id, max_steps=N)`` replaces it; a
    vector env (``gym.make_vec(id, max_episode_steps=N)``) takes it as its children's limit.
    A ``TimeLimit`` (``gym.make(id, max_episode_steps=N)``, or by hand) truncates from
    outside, where the env cannot see: put `drums_gym.envs.VerifyOnTruncation` outside it
    (``docs/step-limit.md``; Gymnasium refuses a spec's ``additional_wrappers`` together
    with a vector entry point, so the ids cannot register it).

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
        # Plain data, so the spec survives to_json/from_json unchanged: the limit is the
        # env's own (it verifies there); the spec asks Gymnasium for no TimeLimit.
        gym.register(
            id=env_id,
            entry_point=ENTRY_POINT,
            vector_entry_point=VECTOR_ENTRY_POINT,
            nondeterministic=True,
            max_episode_steps=None,
            kwargs={"task": task_id, "max_steps": max_episode_steps},
        )
    return env_id


def register_catalog() -> list[str]:
    """Register every task of the bundled catalog (the local host's tasks) and return
    the env ids. The ids come from `drums_gym._catalog_ids`, a plain list, so this loads
    no task and no simulator, and reads no setting."""
    return [register_task(task_id) for task_id in TASK_IDS]


def register_user_tasks(value: str | None = None) -> list[str]:
    """Register ``Drums/<id8>`` for the task files ``DRUMS_LOCAL_TASKS`` names (or
    ``value``, the same format) and return the env ids: call it before ``gym.make`` of
    such an id. A path that does not exist, or a file that is no task file, is a
    ``ValueError`` naming the variable and the path.

    >>> import drums_gym                                      # doctest: +SKIP
    >>> drums_gym.register_user_tasks()                       # doctest: +SKIP
    ['Drums/43c2d64c']
    """
    return [register_task(task_id) for task_id in user_task_ids(value)]


def user_task_ids(value: str | None = None) -> list[str]:
    """The ids of the task files ``DRUMS_LOCAL_TASKS`` names (read as JSON, not loaded: the
    host checks each file when it starts). A path that does not exist is a ``ValueError``
    naming the variable and the path."""
    raw = os.environ.get(ENV_TASKS, "") if value is None else value
    ids = []
    for part in (p for p in raw.split(os.pathsep) if p.strip()):
        path = Path(part).expanduser()
        if path.is_dir():
            files = sorted(q for q in path.glob("*.json") if q.is_file())
        elif path.is_file():
            files = [path]
        else:
            raise ValueError(f"{ENV_TASKS}: {part}: no such task file or folder")
        for file in files:
            try:
                task_id = json.loads(file.read_text(encoding="utf-8")).get("id")
            except (OSError, ValueError, AttributeError) as exc:
                raise ValueError(f"{ENV_TASKS}: {file}: not an OSWorld task file ({exc})") from None
            if isinstance(task_id, str) and len(task_id) >= 8:
                ids.append(task_id)
    return ids


#: importing this module registers the bundled ids (idempotent): the root imports it as
#: soon as Gymnasium is there
register_catalog()
