"""What a suite runs: its tasks (all, a list, or an OSWorld ``test_all.json``), its
(task, episode) items, and each item's seed.

An item's seed depends only on the base seed, the task and the episode index, so a
resumed run (or a run on more workers, or on Ray) gives every episode the seed it had.

>>> episode_seed(0, "e0df059f-28a6-4169-924f-b9623e7184cc", 0) == episode_seed(
...     0, "e0df059f-28a6-4169-924f-b9623e7184cc", 0)
True
>>> items = plan_items(["a" * 36, "b" * 36], 2, seed=0)
>>> [(i.task_short, i.episode) for i in items]
[('aaaaaaaa', 0), ('aaaaaaaa', 1), ('bbbbbbbb', 0), ('bbbbbbbb', 1)]
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "TASKS_SHOWN",
    "SuiteItem",
    "episode_seed",
    "plan_items",
    "read_task_file",
    "resolve_task",
    "resolve_tasks",
    "unknown_task_message",
]

#: seeds are in [0, 2**31): what every RNG takes
_SEED_MASK = 0x7FFFFFFF


def episode_seed(base: int, task: str, episode: int) -> int:
    """The seed of episode ``episode`` of ``task`` (full id) in a run seeded ``base``."""
    digest = hashlib.sha256(f"{base}:{task}:{episode}".encode()).digest()
    return int.from_bytes(digest[:8], "big") & _SEED_MASK


@dataclass(frozen=True)
class SuiteItem:
    """One (task, episode) of a suite: the unit that ends up exactly once, final."""

    task: str
    episode: int
    seed: int

    @property
    def task_short(self) -> str:
        """The task id's first 8 characters."""
        return self.task[:8]

    @property
    def key(self) -> tuple[str, int]:
        """``(task, episode)``: what identifies the item in ``episodes.jsonl``."""
        return self.task, self.episode


def plan_items(tasks: Sequence[str], episodes_per_task: int, *, seed: int) -> list[SuiteItem]:
    """Every (task, episode) of a suite, task by task, with its seed."""
    if isinstance(episodes_per_task, bool) or not isinstance(episodes_per_task, int) or (
        episodes_per_task < 1
    ):
        raise ValueError(f"episodes_per_task must be a positive int, got {episodes_per_task!r}")
    if len(set(tasks)) != len(tasks):
        raise ValueError(f"tasks must be distinct, got {list(tasks)!r}")
    return [
        SuiteItem(task, k, episode_seed(seed, task, k))
        for task in tasks
        for k in range(episodes_per_task)
    ]


def read_task_file(path: str | Path) -> list[str]:
    """The task ids of an OSWorld-style ``test_all.json`` (``{domain: [id, ...]}``), in
    file order, each once. Raises ValueError naming the file and what is wrong."""
    path = Path(path)
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read task file {str(path)!r}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"task file {str(path)!r} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(
            f"task file {str(path)!r} must map domains to lists of task ids "
            f"(OSWorld's test_all.json), got a {type(data).__name__}"
        )
    ids: list[str] = []
    for domain, members in data.items():
        if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
            raise ValueError(
                f"task file {str(path)!r}: domain {domain!r} must be a list of task ids"
            )
        ids.extend(m for m in members if m not in ids)
    if not ids:
        raise ValueError(f"task file {str(path)!r} names no task")
    return ids


#: how many task ids an unknown-task message lists
TASKS_SHOWN = 20


def unknown_task_message(
    name: str, url: str, served: Sequence[str], *, ambiguous: bool = False
) -> str:
    """The one message for a task the host does not serve (every command says it so): the
    host, how many tasks it serves and the first `TASKS_SHOWN` short ids, sorted.

    >>> unknown_task_message("nosuch", "http://h", ["b" * 32, "a" * 32])
    "task 'nosuch' is not known to the Drums host at http://h: it serves 2 tasks \
(aaaaaaaa, bbbbbbbb); list its tasks with `drums-gym tasks` or Client.tasks()"
    """
    what = "matches more than one task of" if ambiguous else "is not known to"
    ids = sorted(t[:8] for t in served)
    shown = ", ".join(ids[:TASKS_SHOWN])
    more = f" and {len(ids) - TASKS_SHOWN} more" if len(ids) > TASKS_SHOWN else ""
    serves = f"it serves {len(ids)} tasks ({shown}{more})" if ids else "it serves no tasks"
    return (f"task {name!r} {what} the Drums host at {url}: {serves}; list its tasks with "
            "`drums-gym tasks` or Client.tasks()")


def resolve_task(client: Any, name: str) -> str:
    """The full id of one task ``name`` (full, or its first 8 characters or more) on the
    host of ``client``; ValueError with `unknown_task_message` when it serves none."""
    return resolve_tasks(client, [name])[0]


def resolve_tasks(client: Any, spec: str | Sequence[str]) -> list[str]:
    """Full task ids of ``spec``: ``"all"`` (every task the host serves), ``"ID,ID,..."``
    (full ids or their first 8 characters), a path to a ``test_all.json``, or a sequence
    of ids. ``client`` is a `drums_gym.client.Client`. Raises ValueError naming an
    unknown id and the tasks the host serves."""
    served = [t.id for t in client.tasks()]
    if isinstance(spec, str):
        text = spec.strip()
        if not text:
            raise ValueError("tasks must be 'all', ID,ID,... or a task file, got ''")
        if text == "all":
            if not served:
                raise ValueError(f"the host at {client.url} serves no tasks")
            return served
        wanted = (
            read_task_file(text)
            if text.endswith(".json") or Path(text).is_file()
            else [part.strip() for part in text.split(",") if part.strip()]
        )
    else:
        wanted = list(spec)
    out: list[str] = []
    for name in wanted:
        matches = [t for t in served if t == name or (len(name) >= 8 and t.startswith(name))]
        if len(matches) != 1:
            raise ValueError(unknown_task_message(name, client.url, served, ambiguous=bool(
                matches)))
        if matches[0] not in out:
            out.append(matches[0])
    return out
