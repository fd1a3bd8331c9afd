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
import re
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
#: a task file's size and its JSON's nesting (objects and arrays), at most
MAX_FILE_BYTES = 1 << 20
MAX_NESTING = 64
#: a task id: Gymnasium-compatible characters (letters, digits, ``-``, ``_``, ``.``), no
#: ``/``, no space; at least 8 (the short id), at most 128
TASK_ID = re.compile(r"[A-Za-z0-9._-]{8,128}")


def check_nesting(text: str, source: str, limit: int = MAX_NESTING) -> None:
    """A `TaskFileError` when the JSON ``text`` nests objects and arrays deeper than
    ``limit`` (checked before parsing: the parser would recurse that deep)."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                raise TaskFileError(source, f"nested deeper than {limit} levels")
        elif ch in "]}":
            depth -= 1


def check_id(task_id: Any, source: str) -> str:
    """The id of a task file, refused unless it is made of letters, digits, ``-``, ``_``
    and ``.`` (8 to 128 of them): an id names folders (its scripts'), never a path."""
    if not isinstance(task_id, str) or not TASK_ID.fullmatch(task_id):
        raise TaskFileError(source, "id must be 8 to 128 letters, digits, '-', '_' or '.' "
                                    f"(no '/', no space), got {task_id!r}")
    return task_id


def load_task_data(data: Any, source: str) -> Task:
    """A `Task` from the parsed JSON of a task file (``source`` names it in errors)."""
    if not isinstance(data, dict):
        raise TaskFileError(source, "a task file holds one JSON object")
    task_id = check_id(data.get("id"), source)
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
        text = p.read_text(encoding="utf-8")
        check_nesting(text, source)
        data = json.loads(text)
    except RecursionError:  # a parser deeper than the check allows: refused all the same
        raise TaskFileError(source, f"nested deeper than {MAX_NESTING} levels") from None
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
    files (sorted, not recursive; a link to a file outside the folder is refused). A path
    that does not exist is a `TaskFileError`."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw).expanduser()
        if p.is_dir():
            folder = p.resolve()
            for q in sorted(q for q in p.glob("*.json") if q.is_file()):
                if q.resolve().parent != folder:
                    raise TaskFileError(str(q), f"a link out of its folder {p} (to "
                                                f"{q.resolve()}): not read")
                out.append(q)
        elif p.is_file():
            out.append(p)
        else:
            raise TaskFileError(str(raw), "no such task file or folder")
    return out


def load_paths(paths: Iterable[str | os.PathLike[str]]) -> list[Task]:
    """Every task of the files and folders ``paths``, in order."""
    return [load_task_file(p) for p in task_files(paths)]
