"""The local host's task catalog: OSWorld os-domain tasks with a setup and a checker.

Each task module mirrors one OSWorld task (``evaluation_examples/examples/os/<id>.json``):
the same id and instruction, a setup that builds the same starting state (files the
original downloads are generated locally with the same names and kinds), and a checker
with the evaluator's semantics (same file-state condition, same 0.0/1.0 scores), so a
policy that solves a task here makes the change a real Drums desktop would score.

>>> task = get_task("e0df059f")
>>> desktop = task.create_desktop()
>>> task.setup(desktop)
>>> task.check(desktop)
0.0
>>> desktop.fs.rename("~/Desktop/todo_list_Jan_1", "~/Desktop/todo_list_Jan_2")
>>> task.check(desktop)
1.0
>>> sorted(t.short_id for t in CATALOG.values())[:3]
['23393935', '4d117223', '5ced85fc']
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from . import (
    append_br,
    chmod_644,
    copy_file1,
    copy_jpgs,
    move_todo,
    rename_folder,
    restore_poster,
)
from .base import DEFAULT_GATES, Task, UnknownTask

__all__ = ["CATALOG", "DEFAULT_GATES", "Task", "UnknownTask", "get_task"]

_TASKS: tuple[Task, ...] = (
    rename_folder.TASK,
    move_todo.TASK,
    restore_poster.TASK,
    copy_file1.TASK,
    copy_jpgs.TASK,
    chmod_644.TASK,
    append_br.TASK,
)

#: Every task the local host serves, by full id (e0df059f first: the default task).
CATALOG: Mapping[str, Task] = MappingProxyType({t.id: t for t in _TASKS})


def get_task(task_id: str) -> Task:
    """The task with this full id or short (8-character) id; raises `UnknownTask`."""
    key = task_id.strip().lower() if isinstance(task_id, str) else task_id
    if isinstance(key, str):
        if key in CATALOG:
            return CATALOG[key]
        matches = [t for t in CATALOG.values() if t.short_id == key]
        if len(matches) == 1:
            return matches[0]
    raise UnknownTask(str(task_id), sorted(t.short_id for t in CATALOG.values()))
