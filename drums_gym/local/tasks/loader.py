"""Loading OSWorld task files (``evaluation_examples/examples/os/<id>.json``) as `Task`s.

The file is read as data and checked whole: every config step type, getter and metric
must be one the local host has (`steps.STEPS`, `getters.GETTERS`, `metrics.METRICS`),
every download must have a local stand-in, and every pyautogui command must parse in the
action language. Otherwise `TaskFileError` names the file and what is missing.

>>> task = load_task_data({"id": "0123abcd-0000-4000-8000-000000000000",
...     "instruction": "Make ~/x", "config": [],
...     "evaluator": {"func": "exact_match",
...                   "result": {"type": "vm_command_line", "command": "ls ~", "shell": True},
...                   "expected": {"type": "rule", "rules": {"expected": "x\\n"}}}}, "mine")
>>> task.short_id, task.domain
('0123abcd', 'os')
>>> load_task_data({"id": "0123abcd", "instruction": "?", "evaluator": {"func": "vm_ok",
...                 "result": {"type": "rule", "rules": {}}}}, "t.json")
Traceback (most recent call last):
...
drums_gym.local.tasks.errors.TaskFileError: t.json: evaluator.func: unknown metric 'vm_ok' \
(known: check_gnome_favorite_apps, check_include_exclude, check_moved_jpgs, \
check_text_enlarged, exact_match, infeasible, is_utc_0)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .base import Task
from .errors import TaskFileError
from .evaluator import load_evaluator
from .steps import load_steps

__all__ = ["load_paths", "load_task_data", "load_task_file", "split_paths", "task_files"]

#: The domain of the tasks this loader runs (OSWorld's os folder).
DOMAIN = "os"
MAX_FILE_BYTES = 1 << 20


def load_task_data(data: Any, source: str) -> Task:
    """A `Task` from the parsed JSON of a task file (``source`` names it in errors)."""
    if not isinstance(data, dict):
        raise TaskFileError(source, "a task file holds one JSON object")
    task_id = data.get("id")
    if not isinstance(task_id, str) or len(task_id.strip()) < 8 or task_id != task_id.strip():
        raise TaskFileError(source, f"id must be a task id of at least 8 characters, "
                                    f"got {task_id!r}")
    instruction = data.get("instruction")
    if not isinstance(instruction, str) or not instruction.strip():
        raise TaskFileError(source, "instruction must be a non-empty string")
    config = load_steps(data.get("config", []), source, task_id, "config")
    evaluator = load_evaluator(data.get("evaluator"), source, task_id)
    return Task(id=task_id.lower(), domain=DOMAIN, instruction=instruction, config=config,
                evaluator=evaluator, source=source)


def load_task_file(path: str | os.PathLike[str]) -> Task:
    """A `Task` from one task file."""
    p = Path(path)
    source = str(p)
    try:
        if p.stat().st_size > MAX_FILE_BYTES:
            raise TaskFileError(source, f"larger than {MAX_FILE_BYTES} bytes")
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TaskFileError(source, f"cannot read it: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TaskFileError(source, f"not a JSON task file: {exc}") from None
    return load_task_data(data, source)


def split_paths(value: str | None) -> list[str]:
    """``DRUMS_LOCAL_TASKS``-style paths joined by the OS path separator (blanks skipped)."""
    return [p for p in (value or "").split(os.pathsep) if p.strip()]


def task_files(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The task files under ``paths``: a file is itself; a folder gives its ``*.json``
    files (sorted, not recursive). A path that does not exist is a `TaskFileError`."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw).expanduser()
        if p.is_dir():
            out.extend(sorted(q for q in p.glob("*.json") if q.is_file()))
        elif p.is_file():
            out.append(p)
        else:
            raise TaskFileError(str(raw), "no such task file or folder")
    return out


def load_paths(paths: Iterable[str | os.PathLike[str]]) -> list[Task]:
    """Every task of the files and folders ``paths``, in order."""
    return [load_task_file(p) for p in task_files(paths)]
