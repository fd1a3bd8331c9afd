"""The local host's task catalog: OSWorld os-domain task files, run on simulated desktops.

The bundled tasks are OSWorld's own JSON files (``data/os/``, Apache-2.0, see its NOTICE),
loaded by `loader`: ``config`` steps set the desktop up, the ``evaluator``'s getters and
metric score it. Users add their own files with ``DRUMS_LOCAL_TASKS=PATH`` (files or
folders, several joined by the OS path separator; read when this module is first
imported) or `build_catalog`. A file the simulator cannot run is refused with a
`TaskFileError` naming it.

>>> task = get_task("e0df059f")
>>> desktop = task.create_desktop()
>>> task.setup(desktop)
>>> task.check(desktop)
0.0
>>> desktop.fs.rename("~/Desktop/todo_list_Jan_1", "~/Desktop/todo_list_Jan_2")
>>> task.check(desktop)
1.0
>>> sorted(t.short_id for t in CATALOG.values())[:3]
['13584542', '23393935', '28cc3b7e']
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from importlib import resources
from types import MappingProxyType

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
    "get_task",
    "load_task_data",
    "load_task_file",
]

#: The environment variable naming users' task files and folders for the embedded host.
ENV_TASKS = "DRUMS_LOCAL_TASKS"

#: The bundled task files, in catalog order (e0df059f first: the default task).
BUNDLED: tuple[str, ...] = (
    "e0df059f-28a6-4169-924f-b9623e7184cc",
    "7688b85f-87a4-4e4a-b2f8-f3d6c3f29b82",
    "5ea617a3-0e86-4ba6-aab2-dac9aa2e8d57",
    "6f56bf42-85b8-4fbb-8e06-6c44960184ba",
    "23393935-50c7-4a86-aeea-2b78fd089c5c",
    "4d117223-a354-47fb-8b45-62ab1390a95f",
    "5ced85fc-fa1a-4217-95fd-0fb530545ce2",
    # the rest of the os split (test_all.json order)
    "94d95f96-9699-4208-98ba-3c3119edf9c2",
    "bedcedc4-4d72-425e-ad62-21960b11fe0d",
    "ec4e3f68-9ea4-4c18-a5c9-69f89d1178b3",
    "a462a795-fdc7-4b23-b689-e8b6df786b78",
    "f9be0997-4b7c-45c5-b05c-4612b44a6118",
    "28cc3b7e-b194-4bc9-8353-d04c0f4d56d2",
    "b6781586-6346-41cd-935a-a6b1487918fc",
    "b3d4a89c-53f2-4d6b-8b6a-541fb5d205fa",
    "3ce045a0-877b-42aa-8d2c-b4a863336ab8",
    "fe41f596-a71b-4c2f-9b2f-9dcd40b568c3",
    "a4d98375-215b-4a4d-aee9-3d4370fccc41",
    "13584542-872b-42d8-b299-866967b5c3ef",
    "5812b315-e7bd-4265-b51f-863c02174c28",
    "c288e301-e626-4b98-a1ab-159dcb162af5",
    "4783cc41-c03c-4e1b-89b4-50658f642bd5",
    "5c1075ca-bb34-46a3-a7a0-029bd7463e79",
    "37887e8c-da15-4192-923c-08fa390a176d",
    "4127319a-8b79-4410-b58a-7a151e15f3d7",
)


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


#: Every task the local host serves, by full id (e0df059f first: the default task), with
#: the tasks of ``$DRUMS_LOCAL_TASKS`` after the bundled ones.
CATALOG: Mapping[str, Task] = build_catalog(split_paths(os.environ.get(ENV_TASKS)))


def get_task(task_id: str, catalog: Mapping[str, Task] | None = None) -> Task:
    """The task with this full id or short (8-character) id in ``catalog`` (default
    `CATALOG`); raises `UnknownTask`."""
    tasks = CATALOG if catalog is None else catalog
    key = task_id.strip().lower() if isinstance(task_id, str) else task_id
    if isinstance(key, str):
        if key in tasks:
            return tasks[key]
        matches = [t for t in tasks.values() if t.short_id == key]
        if len(matches) == 1:
            return matches[0]
    raise UnknownTask(str(task_id), sorted(t.short_id for t in tasks.values()))
