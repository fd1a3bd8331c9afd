"""The local host's task catalog: OSWorld os-domain task files, run on simulated desktops.

The bundled tasks are OSWorld's own JSON files (``data/os/``, Apache-2.0, see its NOTICE),
loaded by `loader`: ``config`` steps set the desktop up, the ``evaluator``'s getters and
metric score it. Users add their own files with ``DRUMS_LOCAL_TASKS=PATH`` (files or
folders, several joined by the OS path separator; read by `default_catalog` when a host
first needs it, never at import) or `build_catalog`. A file the simulator cannot run is
refused with a `TaskFileError` naming it.

>>> task = get_task("e0df059f")
>>> desktop = task.create_desktop()
>>> task.setup(desktop)
>>> task.check(desktop)
0.0
>>> desktop.fs.rename("~/Desktop/todo_list_Jan_1", "~/Desktop/todo_list_Jan_2")
>>> task.check(desktop)
1.0
>>> sorted(t.short_id for t in default_catalog().values())[:3]
['13584542', '23393935', '28cc3b7e']
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping
from importlib import resources
from types import MappingProxyType
from typing import TYPE_CHECKING

from ..._catalog_ids import ENV_TASKS, TASK_IDS
from .base import DEFAULT_GATES, Task, UnknownTask
from .errors import TaskFileError
from .loader import load_paths, load_task_data, load_task_file, split_paths

__all__ = [
    "BUNDLED",
    "CATALOG",
    "DEFAULT_GATES",
    "ENV_TASKS",
    "Task",
    "TaskFileError",
    "UnknownTask",
    "build_catalog",
    "bundled_tasks",
    "default_catalog",
    "get_task",
    "load_task_data",
    "load_task_file",
]

#: The bundled task files, in catalog order (e0df059f first: the default task): the
#: generated list `drums_gym._catalog_ids.TASK_IDS`, the one place they are listed.
BUNDLED: tuple[str, ...] = TASK_IDS


def bundled_tasks() -> list[Task]:
    """The tasks shipped in the package (``data/os/<id>.json``)."""
    folder = resources.files(__package__) / "data" / "os"
    out = []
    for task_id in BUNDLED:
        with resources.as_file(folder.joinpath(f"{task_id}.json")) as path:
            out.append(load_task_file(path))
    return out


def build_catalog(paths: Iterable[str | os.PathLike[str]] = (), *, bundled: bool = True
                  ) -> Mapping[str, Task]:
    """A catalog (full id -> `Task`): the bundled tasks, then those of ``paths`` (task
    files, or folders of them). Two tasks with the same id or the same 8-character short
    id are refused (a `TaskFileError` naming both files), as is any file `loader` refuses."""
    tasks = [*(bundled_tasks() if bundled else []), *load_paths(paths)]
    by_id: dict[str, Task] = {}
    by_short: dict[str, Task] = {}
    for t in tasks:
        other = by_id.get(t.id) or by_short.get(t.short_id)
        if other is not None:
            raise TaskFileError(t.source, f"task {t.id} has the id (or the short id "
                                          f"{t.short_id}) of the task of {other.source}")
        by_id[t.id], by_short[t.short_id] = t, t
    return MappingProxyType(by_id)


@functools.cache
def default_catalog() -> Mapping[str, Task]:
    """Every task the local host serves by default, by full id (e0df059f first: the
    default task), with the tasks of ``$DRUMS_LOCAL_TASKS`` after the bundled ones. Read at
    the first call (a host starting), not at import; a bad value is a `TaskFileError`
    naming the variable and the file. ``CATALOG`` is the same mapping."""
    paths = split_paths(os.environ.get(ENV_TASKS))
    try:
        return build_catalog(paths)
    except TaskFileError as exc:
        if not paths:  # a bundled file: not the setting's fault
            raise
        raise TaskFileError(f"{ENV_TASKS}: {exc.source}", exc.problem) from None


if TYPE_CHECKING:
    CATALOG: Mapping[str, Task]


def __getattr__(name: str) -> object:
    # ``CATALOG`` is read on first use (PEP 562), so importing this package reads no setting
    if name == "CATALOG":
        return default_catalog()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_task(task_id: str, catalog: Mapping[str, Task] | None = None) -> Task:
    """The task with this full id or short (8-character) id in ``catalog`` (default
    `default_catalog`); raises `UnknownTask`."""
    tasks = default_catalog() if catalog is None else catalog
    key = task_id.strip().lower() if isinstance(task_id, str) else task_id
    if isinstance(key, str):
        if key in tasks:
            return tasks[key]
        matches = [t for t in tasks.values() if t.short_id == key]
        if len(matches) == 1:
            return matches[0]
    raise UnknownTask(str(task_id), sorted(t.short_id for t in tasks.values()))
